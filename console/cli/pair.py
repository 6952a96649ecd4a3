"""`serving-console pair`: a same-session A/B pair headless (core/run/pair.py does the work)."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from console.cli.common import note_shadow, port_arg
from console.core.exits import EXIT_EMPTY, EXIT_OK
from console.core.launch.profile import twin_args


def add_parser(sub) -> None:
    pa = sub.add_parser("pair", help="same-session A/B pair: legs in order (default A B A), anchored, with a verdict")
    pa.add_argument("--a", required=True, metavar="PROFILE", help="arm A (profile name or path)")
    pa.add_argument("--b", required=True, metavar="PROFILE", help="arm B (profile name or path)")
    pa.add_argument("--prompts", required=True, metavar="SET")
    pa.add_argument("--order", default="ABA", help="the legs: AB, ABA (default), ABAB, ABBA, BAB, … (A and B, "
                    "at most 15)")
    pa.add_argument("--until-ci", type=float, default=None, metavar="PCT",
                    help="sequential: after the order's legs, add B A rounds until the effect's 95%% CI is within "
                         "±PCT%% (stops on the interval's width, never on its verdict)")
    pa.add_argument("--until-mde", type=float, default=None, metavar="PCT",
                    help="sequential: add B A rounds until the pair's MDE (the smallest change it resolves in 80%% of "
                         "repeats) is ≤ PCT%% (A B A at n = 16 sees ~6-8%% on the reference cell; --until-mde 5 adds "
                         "the launches a 5%% question needs)")
    pa.add_argument("--max-rounds", type=int, default=4, metavar="N",
                    help="sequential: at most N added B A rounds (default 4)")
    pa.add_argument("--max-minutes", type=float, default=None, metavar="M",
                    help="sequential: start no round after M minutes")
    pa.add_argument("--n", type=int, default=16, help="measured requests per leg (default 16)")
    pa.add_argument("--max-tokens", type=int, default=2048)
    pa.add_argument("--temperature", type=float, default=0.6)
    pa.add_argument("--concurrency", type=int, default=1)
    pa.add_argument("--warmup", type=int, default=1)
    pa.add_argument("--b-prompts", metavar="SET", help="arm B's prompt set (same server: interleaved)")
    pa.add_argument("--b-temperature", type=float, help="arm B's temperature (same server: interleaved)")
    pa.add_argument("--interleave", action=argparse.BooleanOptionalAction, default=None,
                    help="alternate A and B requests on one server (default: when both arms have the same flags)")
    pa.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    pa.add_argument("--sim", action="store_true", help="run both arms on the engine twin")
    pa.add_argument("--sim-time-scale", type=float, default=None, metavar="S")
    pa.add_argument("--sim-arg", action="append", default=[], metavar="ARG")
    pa.add_argument("--sim-node", type=Path, default=None, metavar="NODE.toml",
                    help="(twin) serve as a node fitted from recorded cells (`serving-console twin fit`)")
    port_arg(pa)
    pa.add_argument("--sessions", type=Path, default=None)
    pa.add_argument("--force", action="store_true", help="launch even when preflight finds errors")
    pa.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace as dc_replace

    from rich.console import Console

    from console.core.launch.profile import resolve_profile
    from console.core.measure.pairs import parse_order
    from console.core.run import events as E
    from console.core.run.cell import CellProtocol
    from console.core.run.pair import PairSpec, run_pair
    from console.core.run.runtime import Runtime
    from console.core.workload.prompts import load_set

    parse_order(args.order)
    a, b = resolve_profile(args.a), resolve_profile(args.b)
    note_shadow(a)
    note_shadow(b)
    if args.sim:
        a, b = a.with_sim(), b.with_sim()
    proto = CellProtocol(prompt_set=args.prompts, n=args.n, max_tokens=args.max_tokens, temperature=args.temperature,
                         concurrency=args.concurrency, warmup=args.warmup)
    proto.validate()
    load_set(args.prompts)
    b_proto = None
    if args.b_prompts or args.b_temperature is not None:
        b_proto = dc_replace(proto, prompt_set=args.b_prompts or proto.prompt_set,
                             temperature=args.b_temperature if args.b_temperature is not None else proto.temperature)
        load_set(b_proto.prompt_set)
    spec = PairSpec(a=a, b=b, protocol=proto, b_protocol=b_proto, order=args.order, seed=args.seed,
                    interleave=args.interleave, until_ci_pct=args.until_ci,
                    until_mde_pct=args.until_mde, max_rounds=args.max_rounds,
                    max_minutes=args.max_minutes)
    spec.validate()
    if spec.needs_relaunch() and spec.interleave:
        raise ValueError("--interleave needs both arms on one server: A and B have different launch flags")
    if spec.needs_relaunch() and b_proto is not None:
        raise ValueError("--b-prompts/--b-temperature pair on one server; with different "
                         "launch flags keep one protocol")
    err = Console(stderr=True, soft_wrap=True)
    sim_args = twin_args(args.sim_arg, args.sim_time_scale, args.sim_node)

    async def go():
        rt = Runtime(profile=a, sim=args.sim, sim_args=sim_args if (args.sim or a.is_sim) else [],
                     sessions=args.sessions, session_slug=f"pair-{a.name}-vs-{b.name}", force=args.force,
                     port=args.port,
                     observer=lambda ev: err.print(f"[red]{ev.text}[/red]") if isinstance(ev, E.Died) else None)
        try:
            await rt.start()
            return await run_pair(rt, spec, say=lambda t: err.print(f"[dim]{t}[/dim]"))
        finally:
            await rt.stop()

    res = asyncio.run(go())
    ps = res.stats
    if args.json:
        print(json.dumps({"pair": pair_json(res.doc, ps, res.comparison, res.dir)}))
    else:
        Console().print((res.dir / "report.md").read_text(), markup=False, highlight=False)
    return EXIT_OK if ps.a.n and ps.b.n else EXIT_EMPTY


def pair_json(doc, ps, cmp, d) -> dict:
    from console.core.sessions.pairs import pair_simulated, pair_simulated_note, pair_time_scale
    return {
        "simulated": pair_simulated(doc, Path(d))[0], "simulated_note": pair_simulated_note(doc, Path(d)),
        "a": doc["spec"]["a"], "b": doc["spec"]["b"], "order": doc["spec"]["order"],
        "interleaved": doc["spec"]["interleaved"],
        "a_median_tok_s": ps.a.median_tok_s, "b_median_tok_s": ps.b.median_tok_s, "a_n": ps.a.n, "b_n": ps.b.n,
        "a_p10_p90": [ps.a.p10_tok_s, ps.a.p90_tok_s], "b_p10_p90": [ps.b.p10_tok_s, ps.b.p90_tok_s],
        "delta_pct": ps.effect.point_pct, "ci95_pct": [ps.effect.low_pct, ps.effect.high_pct],
        "resolved": ps.effect.resolved, "mde_pct": ps.effect.mde_pct, "half_width_pct": ps.effect.half_width_pct,
        "launch_sd_pct": ps.launch.sd_pct if ps.launch else None, "launch_df": ps.launch.df if ps.launch else None,
        "sequential": doc["spec"].get("sequential"),
        "a_anchor_tok_s": ps.a.anchor_median_tok_s, "b_anchor_tok_s": ps.b.anchor_median_tok_s,
        "a_anchor_pct": ps.a.anchor_pct, "b_anchor_pct": ps.b.anchor_pct,
        "drift_pct": ps.drift.point_pct if ps.drift else None,
        "drift_ci95_pct": [ps.drift.low_pct, ps.drift.high_pct] if ps.drift else None, "drift_flag": ps.drift_flag,
        "a_tau": ps.a.tau, "b_tau": ps.b.tau, "a_implied_step_ms": ps.a.implied_step_ms,
        "b_implied_step_ms": ps.b.implied_step_ms, "a_kv_capacity_tokens": ps.a.kv_capacity_tokens,
        "b_kv_capacity_tokens": ps.b.kv_capacity_tokens, "a_usd_per_m_tokens": ps.a.usd_per_m_tokens,
        "b_usd_per_m_tokens": ps.b.usd_per_m_tokens, "forecast_vs_measured": cmp, "verdict": ps.verdict,
        "sim_time_scale": pair_time_scale(doc, Path(d)), "dir": str(d), "stats": ps.to_json(),
    }
