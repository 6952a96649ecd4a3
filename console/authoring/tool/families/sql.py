"""Scenario family: analytics over SQL tables."""

from __future__ import annotations

import random
from datetime import timedelta

from console.authoring.gen_fit import pick
from console.authoring.tool.pools import ORGS, _domain, _email, _hex, _iso, _person, _start
from console.authoring.tool.schema import COMMON_RULES, Scenario, Step, arr, b, i, s, tool

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
             "ran_at": _iso(t0 - timedelta(days=rng.randrange(1, 40))),
             "bytes_processed": rng.randrange(10 ** 8, 10 ** 11),
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
