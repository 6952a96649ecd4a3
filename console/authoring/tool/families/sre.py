"""Scenario family: an SRE on call, alerts, metric series and log lines."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from console.authoring.gen_fit import pick
from console.authoring.tool.pools import ORGS, REGIONS, _hex, _iso, _person, _start
from console.authoring.tool.schema import COMMON_RULES, Scenario, Step, i, s, tool

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
        metric, unit, base, spike = ("consumer_group_lag_messages", "messages", rng.uniform(200, 900),
                                     rng.uniform(30, 80))
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
        for _j in range(rng.randrange(18, 32)):
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
        "The incident commander asks for a decision within ten minutes. Based on everything above, lay out what "
        "you believe happened and what you will do next, then emit the next <tool_call>.",
    ])
    return Scenario("sre-incident", org, pick(rng, ["the on-call site reliability agent", "an incident-response "
                                                    "assistant"]), tools[:] if variant == 0 else
                    [tools[k] for k in (4, 0, 2, 1, 3, 6, 7, 5)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 6), pretty=variant == 1)
