"""`serving-console probe verify-tax`: the verify-tax probe headless (console/core/run/probe.py does the work)."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from console.cli.common import note_shadow, runtime_factory, target_args
from console.core.exits import EXIT_EMPTY, EXIT_ENGINE, EXIT_OK


def add_parser(sub) -> None:
    pr = sub.add_parser("probe", help="measure this node's verify tax (dummy draft weights at several verify widths)")
    psub = pr.add_subparsers(dest="probe_kind", metavar="PROBE", required=True)
    vt = psub.add_parser("verify-tax",
                         help="ms per verified token with its 95%% CI, saved in the session for forecasts")
    target_args(vt)
    vt.add_argument("--prompts", default=None,
                    help="prompt set whose context the probe runs at (default the profile's probe.prompts, else "
                         "tool, ~10k)")
    vt.add_argument("--widths", default=None, metavar="W,W,...",
                    help="verify widths (num_draft_tokens) of the tree legs (default the profile's probe.widths, else "
                         "steps+1, steps+5, steps+13)")
    vt.add_argument("--topk", type=int, default=None,
                    help="topk of the tree legs (default the profile's probe.topk, else the arm's, else 4)")
    vt.add_argument("--no-chain", action="store_true",
                    help="skip the two chain legs (topk 1) that price the draft pass of one more depth "
                         "(the profile's probe.chain = false does too)")
    vt.add_argument("--n", type=int, default=None, help="requests per leg (default the profile's probe.n, else 8)")
    vt.add_argument("--max-tokens", type=int, default=None,
                    help="output tokens per request (default the profile's probe.max_tokens, else 256)")
    vt.add_argument("--warmup", type=int, default=1)
    vt.add_argument("--no-anchor", action="store_true", help="do not launch and anchor the arm itself first")
    vt.add_argument("--session", type=Path, default=None, metavar="DIR",
                    help="add the probe to this session (its forecasts then use the probed tax)")
    vt.add_argument("--json", action="store_true")


def _widths(text: str | None) -> list[int] | None:
    from console.core.launch.profile import probe_widths
    if not text:
        return None
    ws = probe_widths(text)
    if ws is None:
        raise ValueError(f"--widths {text!r}: give verify widths as a list like 3,7,11")
    return ws


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from console.core.launch.profile import resolve_profile
    from console.core.run.probe import plan_probe, run_probe

    if args.attach:
        raise ValueError("probe verify-tax --attach: the probe relaunches the engine at each width; give --profile")
    if not args.profile:
        raise ValueError("probe verify-tax needs --profile P (the arm whose drafter is probed)")
    if args.session is not None and not (args.session / "session.json").exists():
        raise ValueError(f"--session {args.session}: no session.json there; give a session directory (sessions/<…>)")
    prof = resolve_profile(args.profile)
    note_shadow(prof)
    plan = plan_probe(prof, prompts=args.prompts, widths=_widths(args.widths), topk=args.topk,
                      chain=False if args.no_chain else None, n=args.n, max_tokens=args.max_tokens, warmup=args.warmup)
    err = Console(stderr=True, soft_wrap=True)
    for line in plan.describe():
        err.print(f"[dim]{line}[/dim]", markup=True, highlight=False)

    async def go():
        rt = runtime_factory(args, args.session)(None)
        try:
            if args.no_anchor:
                rt.profile = plan.legs[0].profile.with_sim() if rt.profile.is_sim else plan.legs[0].profile
            await rt.start()
            run_plan = plan
            if not args.no_anchor:
                err.print("[dim]anchoring the arm on this node[/dim]")
                await rt.run_anchor()
                # the arm's resolved attention backend and page size decide whether tree legs can run here
                resolved = plan_probe(prof, prompts=args.prompts, widths=_widths(args.widths), topk=args.topk,
                                      chain=False if args.no_chain else None, n=args.n, max_tokens=args.max_tokens,
                                      warmup=args.warmup, server_args=rt.state.server.raw if rt.state.server else None)
                if resolved.legs != plan.legs:
                    for line in resolved.describe()[1:]:
                        err.print(f"[dim]{line}[/dim]", highlight=False)
                run_plan = resolved
            return await run_probe(rt, run_plan, say=lambda t: err.print(f"[dim]{t}[/dim]", highlight=False))
        finally:
            await rt.stop()

    res = asyncio.run(go())
    doc = res.doc
    if args.json:
        print(json.dumps({"probe": {**doc, "dir": str(res.dir)}}))
    else:
        out = Console()
        out.print(f"verify-tax probe of {doc['profile']} on {doc['prompt_set']['name']} → {res.dir}")
        for leg in doc["legs"]:
            med = f"{leg['median_step_ms']:.3f} ms" if leg["median_step_ms"] else "—"
            out.print(f"  {leg['kind']:<6} steps {leg['steps']:>2}  topk {leg['topk']}  width {leg['width']:>2}  "
                      f"step {med}  n={leg['n']}  τ {leg['tau'] or 0:.3f}", highlight=False)
        fit = res.fit
        if fit is not None:
            v, c = fit.verify, fit.chain
            if v is not None:
                out.print(f"verify cost {v.slope_ms:.3f} ms per verified token, 95% CI [{v.ci_ms[0]:.3f}, "
                          f"{v.ci_ms[1]:.3f}] (the drafter's passes held constant; intercept {v.intercept_ms:.2f} ms)",
                          highlight=False)
            if c is not None:
                out.print(f"one more depth {c.slope_ms:.3f} ms, 95% CI [{c.ci_ms[0]:.3f}, {c.ci_ms[1]:.3f}] (a "
                          f"verified token and a draft pass; intercept {c.intercept_ms:.2f} ms)", highlight=False)
            if fit.draft_pass_ms is not None and fit.draft_pass_ci_ms is not None:
                out.print(f"draft pass {fit.draft_pass_ms:.3f} ms, 95% CI [{fit.draft_pass_ci_ms[0]:.3f}, "
                          f"{fit.draft_pass_ci_ms[1]:.3f}]", highlight=False)
            for name, g in (("verify", v), ("chain", c)):
                if g is not None and g.launch_sd_ms:
                    out.print(f"[dim]{name} legs scatter {g.launch_sd_ms:.3f} ms about the line beyond their requests' "
                              f"noise (launch-to-launch variation, or a disturbed leg): in the CI above; the CI of the "
                              f"requests alone is [{g.ci_requests_ms[0]:.3f}, {g.ci_requests_ms[1]:.3f}][/dim]"
                              if g.ci_requests_ms else "", highlight=False)
            if res.why:
                out.print(f"[yellow]{res.why}[/yellow]", highlight=False)
            tax = doc["tax"]
            out.print(f"forecasts in this session use {tax['ms']:.3f} ms/token: {tax['text']}", highlight=False)
            if doc.get("sim_time_scale"):
                out.print(f"(twin at time scale ×{doc['sim_time_scale']:g}: the figures are the modelled node's)")
        else:
            out.print(f"no fit: {res.why}", highlight=False)
    if any(leg.n == 0 for leg in res.legs) and res.fit is None:
        return EXIT_EMPTY
    if len(res.legs) < int(res.doc.get("planned_legs") or len(res.legs)):
        return EXIT_ENGINE
    return EXIT_OK if res.fit is not None else EXIT_EMPTY
