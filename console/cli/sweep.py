"""`serving-console sweep PLAN.toml`: a campaign headless (console/core/campaign does the work), and the campaign
part of `serving-console report DIR`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from console.cli.common import port_arg
from console.core.exits import EXIT_OK, EXIT_USAGE
from console.core.fmt import num
from console.core.launch.profile import twin_args


def add_parser(sub) -> None:
    sw = sub.add_parser("sweep", help="run a campaign: arms × domains × concurrency, anchored, with a routing table")
    sw.add_argument("plan", nargs="?", default=None, metavar="PLAN",
                    help="a plan by name (smoke, reference: campaigns/<name>.toml along the profile search path, "
                         "serving-console --version lists it) or a path to a .toml; not with --resume")
    sw.add_argument("--resume", type=Path, default=None, metavar="DIR",
                    help="continue an interrupted campaign (the folder sweep printed): finished rows are kept, only "
                         "missing requests are sent")
    sw.add_argument("--sim", action="store_true", help="run every arm on the engine twin")
    sw.add_argument("--sim-time-scale", type=float, default=None, metavar="S",
                    help="(twin) serve S× faster than the modelled node; figures stay the modelled node's")
    sw.add_argument("--sim-arg", action="append", default=[], metavar="ARG", help="(twin) extra twin flag, repeatable")
    sw.add_argument("--sim-node", type=Path, default=None, metavar="NODE.toml",
                    help="(twin) serve as a node fitted from recorded cells (`serving-console twin fit`)")
    port_arg(sw)
    sw.add_argument("--sessions", type=Path, default=None, help="sessions directory (default ./sessions)")
    sw.add_argument("--yes", action="store_true", help="start without asking (non-interactive runs start anyway)")
    sw.add_argument("--dry-run", action="store_true",
                    help="print the plan and its estimate, run nothing; with --sim --sim-node NODE.toml also every "
                         "cell predicted on that fitted node with its uncertainty, the predicted routing and the "
                         "cells worth measuring")
    sw.add_argument("--draws", type=int, default=8, metavar="K",
                    help="(--dry-run --sim-node) parameter draws for the predictions' uncertainty (default 8)")
    sw.add_argument("--force", action="store_true", help="launch even when preflight finds errors")
    sw.add_argument("--json", action="store_true", help="print the analysis as one JSON object on stdout")


def prepare(args: argparse.Namespace):
    """(plan, estimate, campaign dir or None, sim, sim_args, sessions root); bad input raises with one line each."""
    from console.core.campaign.estimate import estimate
    from console.core.campaign.parse import load_plan
    from console.core.campaign.plan import PlanError
    from console.core.campaign.refusals import refusals
    from console.core.campaign.run import load_campaign
    from console.core.sessions.store import sessions_root
    root = args.sessions or sessions_root()
    if args.resume is not None:
        if args.plan is not None:
            raise ValueError("sweep --resume DIR continues the campaign recorded there; leave PLAN.toml out")
        plan, doc = load_campaign(args.resume)
        sim = bool(doc.get("simulated"))
        if args.sim and not sim:
            raise ValueError(f"--sim: the campaign in {args.resume} ran on the profiles' "
                             "engines; resume it without --sim")
        rec = doc.get("sim_time_scale")
        if args.sim_time_scale is not None and sim and (rec or 1.0) != args.sim_time_scale:
            raise ValueError(f"--sim-time-scale {args.sim_time_scale:g}: the campaign ran at ×{(rec or 1):g}; resume "
                             "at the same scale (rates of one cell must not mix scales) or leave it out")
        sim_args = list(doc.get("sim_args") or []) + list(args.sim_arg or [])
        scale = rec
        cdir = Path(args.resume)
    else:
        if args.plan is None:
            raise ValueError("sweep needs a PLAN (a name such as smoke, or a path to a .toml) or --resume DIR")
        plan = load_plan(args.plan)
        sim = args.sim
        sim_args = twin_args(args.sim_arg, args.sim_time_scale, args.sim_node) if sim else []
        scale = args.sim_time_scale if sim else None
        cdir = None
    if getattr(args, "port", None) is not None and sim and plan.multi_node:
        raise ValueError(f"--port {args.port}: the twin runs one server per node on this machine; leave --port out "
                         "(each node's twin takes a free port)")
    probs = refusals(plan, sim=sim, sessions_root=root)
    if probs:
        raise PlanError(probs)
    est = estimate(plan, sim=sim, time_scale=scale, sessions_root=root)
    return plan, est, cdir, sim, sim_args, root, scale


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from console.core.campaign.analysis import analyse
    from console.core.campaign.describe import plan_lines
    from console.core.campaign.run import CampaignRunner, create_campaign
    err = Console(stderr=True, soft_wrap=True, highlight=False)
    plan, est, cdir, sim, sim_args, root, scale = prepare(args)
    for ln in plan_lines(plan, est, sim=sim):
        err.print(ln, markup=False)
    if args.dry_run:
        if sim and getattr(args, "sim_node", None) is not None:  # the campaign on paper (docs/twin.md §9)
            from console.cli.twin import plan_forecast, print_plan_forecast
            fc = plan_forecast(plan, args.sim_node, draws=args.draws)
            if args.json:
                print(json.dumps({"plan_forecast": fc}))
            else:
                print_plan_forecast(Console(), fc)
        return EXIT_OK
    if not args.yes and sys.stdin.isatty() and sys.stderr.isatty():
        err.print("start? [y/N] ", end="")
        if input().strip().lower() not in ("y", "yes"):
            return EXIT_USAGE
    resume = cdir is not None
    if cdir is None:
        cdir = create_campaign(plan, root, sim=sim, time_scale=scale, sim_args=sim_args)
    err.print(f"campaign folder: {cdir}" + ("  (resuming)" if resume else ""), markup=False)

    def observer(ev) -> None:
        if ev.text and ev.kind != "request":
            err.print(ev.text, markup=False)

    runner = CampaignRunner(plan, cdir, sim=sim, sim_args=sim_args, sessions_root=root, estimate=est,
                            observer=observer, force=args.force, port=args.port)
    code = EXIT_OK
    try:
        asyncio.run(runner.run(resume=resume))
    finally:
        pass
    if runner.skipped:
        code = EXIT_USAGE
    res = analyse(cdir)
    if args.json:
        print(json.dumps({"campaign": res}, default=str))
    else:
        print_analysis(Console(), res)
    err.print(f"every figure recomputes with `serving-console report {cdir}`", markup=False)
    return code


def print_analysis(console, a: dict[str, Any]) -> None:
    """The routing table, curves summary and ladders as text tables (the report prints the same)."""
    from rich.table import Table
    c = a["campaign"]
    console.print(f"campaign {c['name']}: {c['cells_complete']}/{c['cells_planned']} cells complete"
                  + (f", {c['cells_skipped']} skipped" if c["cells_skipped"] else "") + f" · {c['dir']}",
                  markup=False, highlight=False)
    for n in a.get("notes") or []:
        console.print(f"  {n}", markup=False, highlight=False)
    t = Table(title="routing table (median per-request tok/s; Δ vs runner-up, bootstrap 95% CI with the launch part)",
              title_justify="left")
    for col in ("set", "conc", "decision", "arms: tok/s · τ · step ms · $/M · KV · anchor"):
        t.add_column(col)
    for r in a["routing"]:
        arms = "\n".join(f"{x['arm']}{'@' + x['node'] if len(c['nodes']) > 1 else ''}: {num(x['median_tok_s'])} · "
                         f"{num(x['tau'], '.2f')} · {num(x['implied_step_ms'], '.2f')} · "
                         f"{num(x['usd_per_m_tokens'], '.2f')} · {num(x['kv_capacity_tokens'], ',')} · "
                         + "/".join(num(an['median_tok_s']) for an in x["anchors"]) for x in r["arms"])
        t.add_row(r["prompt_set"], str(r["concurrency"]),
                  r["decision"] + (f"\n! {r['disagreement']}" if r.get("disagreement") else ""), arms)
    console.print(t)
    t = Table(title="concurrency curves (aggregate tok/s · per-stream median · TTFT p50/p99 s · KV use · queue)",
              title_justify="left")
    for col in ("arm", "set", "points (concurrency: aggregate, per-stream, TTFT p50/p99, KV mean/max, queued max, "
                "queue s)", "net-negative vs no-spec"):
        t.add_column(col)
    for cv in a["curves"]:
        pts = "\n".join(f"c{p['concurrency']}: {num(p['aggregate_tok_s'])}, {num(p['per_stream_median_tok_s'])}, "
                        f"{num(p['ttft_p50_s'], '.2f')}/{num(p['ttft_p99_s'], '.2f')}, "
                        f"{num(p['kv_usage_mean'], '.2f')}/{num(p['kv_usage_max'], '.2f')}, "
                        f"{num(p['queue_reqs_max'], '.0f')}, {num(p['queue_time_mean_s'], '.2f')}"
                        for p in cv["points"])
        nn = cv["net_negative"]["statement"] if cv.get("net_negative") else "—"
        t.add_row(cv["arm"] + (f"@{cv['node']}" if len(c["nodes"]) > 1 else ""), cv["prompt_set"], pts, nn)
    console.print(t)
    t = Table(title="depth ladders (measured vs forecast from the shallowest depth)", title_justify="left")
    for col in ("set", "family", "conc", "depth: measured tok/s (τ) · forecast tok/s (τ) · error", "tax"):
        t.add_column(col)
    for ld in a["ladders"]:
        pts = "\n".join(f"{p['depth']}: {num(p['measured_tok_s'])} ({num(p['measured_tau'], '.2f')}) · "
                        f"{num(p['forecast_tok_s'])} ({num(p['forecast_tau'], '.2f')}) · "
                        f"{num(p['error_pct'], '+.1f', '%')}"
                        for p in ld["points"])
        tax = f"{ld['tax']['ms']:.3f} ms {ld['tax']['source']}" if ld.get("tax") else "—"
        t.add_row(ld["prompt_set"], ld["family"], str(ld["concurrency"]), pts, tax)
    console.print(t)


def report_campaign(args: argparse.Namespace, predicted: dict[str, Any] | None = None) -> int:
    from rich.console import Console

    from console.core.campaign.analysis import analyse
    res = analyse(args.dir)
    if predicted is not None:
        res["predicted"] = predicted
    if args.json:
        print(json.dumps({"campaign": res}, default=str))
        return EXIT_OK
    con = Console()
    print_analysis(con, res)
    if predicted is not None:
        from console.cli.twin import print_check
        print_check(con, predicted)
    return EXIT_OK


