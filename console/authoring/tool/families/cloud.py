"""Scenario family: cloud infrastructure operations."""

from __future__ import annotations

import random
from datetime import timedelta

from console.authoring.gen_fit import pick
from console.authoring.tool.pools import ORGS, REGIONS, _domain, _email, _hex, _iso, _person, _start
from console.authoring.tool.schema import COMMON_RULES, Scenario, Step, arr, i, obj, s, tool

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
