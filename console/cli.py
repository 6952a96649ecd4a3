"""`serving-console` command line (docs/architecture.md#the-cli). The TUI and every headless command share one core;
the exit codes of every command, the TUI included, are `console/core/exits.py`'s (`--help` lists them)."""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from console.core.exits import (  # noqa: F401  (the codes are part of this module's interface)
    EXIT_AUTH,
    EXIT_CONNECT,
    EXIT_EMPTY,
    EXIT_ENGINE,
    EXIT_INTERRUPT,
    EXIT_OK,
    EXIT_PREFLIGHT,
    EXIT_USAGE,
    SUMMARY,
)

DEFAULT_PROFILE = "k26-eagle3-d6"

EPILOG = f"""exit codes: {SUMMARY}
run `serving-console COMMAND -h` for a command's options."""


def _err(msg: str) -> None:
    for line in (msg.splitlines() or [""]):
        print(f"serving-console: {line}", file=sys.stderr)


# --- parser ------------------------------------------------------------------------------------

def version_text() -> str:
    """The version, and every place the console reads from or writes to, in search order (core/places.py)."""
    from console import __version__
    from console.core import places

    def mark(p: Path) -> str:
        return "" if p.is_dir() else "  (absent)"

    lines = [f"serving-console {__version__} (Python {sys.version.split()[0]}, {Path(__file__).resolve().parent})"]
    for title, pl in (("profiles", places.profile_places()), ("campaign plans", places.plan_places()),
                      ("prompt sets", places.prompt_places())):
        lines.append(f"{title} (searched in this order):")
        lines += [f"  {i}. {p.path}  [{p.what}]{mark(p.path)}" for i, p in enumerate(pl, 1)]
    lines.append(f"sessions: {places.sessions_dir()}  [--sessions, else $SERVING_CONSOLE_SESSIONS, else ./sessions]")
    return "\n".join(lines)


class _VersionAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def _target_args(p: argparse.ArgumentParser, default_sim: bool = False) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--profile", "-p", help="profile name (searched in ./profiles, the user config dir, then the "
                                           "shipped ones: --version lists them) or a path to a .toml")
    g.add_argument("--attach", metavar="URL", help="attach to a running SGLang server (e.g. http://127.0.0.1:30000)")
    p.add_argument("--sim", action="store_true", default=default_sim,
                   help="run the profile on the embedded engine twin instead of the profile's engine")
    p.add_argument("--api-key-env", metavar="VAR", help="(attach) environment variable holding the server's API key")
    p.add_argument("--sim-time-scale", type=float, default=None, metavar="S",
                   help="(twin) divide every wall-clock duration by S (client-timed rates read S× faster)")
    p.add_argument("--sim-arg", action="append", default=[], metavar="ARG",
                   help="(twin) extra twin flag, repeatable, e.g. --sim-arg=--sim-node-seed=3")
    p.add_argument("--sessions", type=Path, default=None, help="sessions directory (default ./sessions)")
    p.add_argument("--force", action="store_true",
                   help="launch even when preflight finds errors (port bound, foreign GPU processes, missing paths)")
    p.add_argument("--stall-timeout", type=float, default=120.0, metavar="S",
                   help="abandon a streaming request after S seconds without a byte (default 120)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="serving-console",
                                description="Console for SGLang speculative-decoding deployments.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_VersionAction, nargs=0,
                   help="print the version and where profiles, plans, prompt sets and sessions are, then exit")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")

    t = sub.add_parser("tui", help="the dashboard (default: the twin of the reference deployment)")
    _target_args(t)

    b = sub.add_parser("bench", help="run one measured cell headless")
    _target_args(b)
    b.add_argument("--prompts", metavar="SET", help="pinned prompt set by name (health, tool, …; --version lists "
                                                    "where sets are found); required unless --resume")
    b.add_argument("--resume", type=Path, metavar="CELL_DIR",
                   help="continue an interrupted cell: keep its rows, send only the missing requests (same protocol, "
                        "prompt-set hash and server configuration; target taken from its manifest unless given)")
    b.add_argument("--n", type=int, default=16, help="measured requests (default 16)")
    b.add_argument("--max-tokens", type=int, default=2048, help="output tokens per request (default 2048)")
    b.add_argument("--temperature", type=float, default=0.6, help="sampling temperature (default 0.6)")
    b.add_argument("--concurrency", type=int, default=1, help="requests in flight (default 1)")
    b.add_argument("--warmup", type=int, default=1, help="warm-up requests, not recorded (default 1)")
    b.add_argument("--endpoint", choices=("chat", "generate"), default="chat")
    b.add_argument("--ignore-eos", action=argparse.BooleanOptionalAction, default=True,
                   help="ask the server to ignore EOS so outputs run to --max-tokens (default: on, as SGLang's "
                        "bench_serving; --no-ignore-eos measures natural stops, flagged short unless --no-gate-short)")
    b.add_argument("--no-gate-short", action="store_true", help="keep rows that stop short of --max-tokens")
    b.add_argument("--json", action="store_true", help="print one JSON object on stdout")

    pa = sub.add_parser("pair", help="same-session A/B pair: legs in order (default A B A), anchored, with a verdict")
    pa.add_argument("--a", required=True, metavar="PROFILE", help="arm A (profile name or path)")
    pa.add_argument("--b", required=True, metavar="PROFILE", help="arm B (profile name or path)")
    pa.add_argument("--prompts", required=True, metavar="SET")
    pa.add_argument("--order", default="ABA", help="AB, ABA (default), ABAB, ABBA or BAB")
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
    pa.add_argument("--sessions", type=Path, default=None)
    pa.add_argument("--force", action="store_true", help="launch even when preflight finds errors")
    pa.add_argument("--json", action="store_true", help="print one JSON object on stdout")

    fo = sub.add_parser("forecast", help="price other draft depths from a measured cell (verify-tax model)")
    fo.add_argument("cell", type=Path, metavar="CELL_DIR")
    fo.add_argument("--depths", default=None, help="range a-b or list a,b,c (default EAGLE 3-8, DFLASH 4,8,16,32)")
    fo.add_argument("--verify-tax-ms", type=float, default=None,
                    help="ms per extra drafted token (default: the report's measured 0.397)")
    fo.add_argument("--json", action="store_true")
    fo.add_argument("--out", type=Path, default=None, metavar="FILE",
                    help="also write the forecast as JSON to FILE (never into the cell: recorded cells are evidence)")

    la = sub.add_parser("launch", help="print (--dry-run) or run the engine argv of a profile")
    la.add_argument("profile")
    la.add_argument("--dry-run", action="store_true", help="print the exact argv and exit")
    la.add_argument("--sim", action="store_true", help="the twin's argv instead of the profile's engine")
    la.add_argument("--sessions", type=Path, default=None)
    la.add_argument("--force", action="store_true", help="launch even when preflight finds errors")

    c = sub.add_parser("check", help="validate a profile against the engine's flag catalogue (fail-closed)")
    c.add_argument("profile")

    r = sub.add_parser("report", help="recompute a session's or cell's figures from its rows")
    r.add_argument("dir", type=Path)
    r.add_argument("--json", action="store_true")
    r.add_argument("--html", nargs="?", const="", default=None, metavar="OUT",
                   help="write one self-contained HTML file (offline: no script, no fetch) for the session, cell, pair "
                        "or campaign; default OUT: DIR.html beside DIR (docs/reports.md)")
    r.add_argument("--plots", type=Path, default=None, metavar="PLOTS_DIR",
                   help="also write each plot as SVG and PNG into PLOTS_DIR, with a markdown report linking them")

    pr = sub.add_parser("prompts", help="build or verify the pinned prompt sets")
    pr.add_argument("action", choices=("build", "verify"))
    pr.add_argument("--dir", type=Path, default=None,
                    help="a prompt-set directory (default: verify every directory of the prompt search path; build "
                         "regenerates the shipped sets of a checkout)")

    from console.cli_probe import add_parser as add_probe_parser
    add_probe_parser(sub, _target_args)
    from console.cli_sweep import add_parser as add_sweep_parser
    add_sweep_parser(sub)
    sub.add_parser("sim", help="the engine twin: takes sglang launch_server flags (see `serving-console sim --help`)",
                   add_help=False)
    return p


# --- commands ----------------------------------------------------------------------------------

def _api_key_from_env(var: str | None) -> str | None:
    import os
    if not var:
        return None
    v = os.environ.get(var)
    if not v:
        raise ValueError(f"--api-key-env {var}: the variable is unset; export it")
    return v


def _sim_args(args: argparse.Namespace) -> list[str]:
    out = list(args.sim_arg or [])
    if args.sim_time_scale is not None:
        out += ["--sim-time-scale", str(args.sim_time_scale)]
    return out


def _note_shadow(prof) -> None:
    """A profile found by name that shadows another of its name says so (stderr; the TUI shows it as a notice)."""
    if prof.shadow_note:
        _err(f"note: {prof.shadow_note}")


def _runtime_factory(args: argparse.Namespace, session_dir: Path | None = None):
    """Resolve everything the runtime needs now (profile, key, URL), so that bad input fails before anything
    starts, headless and in the TUI alike; the returned factory only binds the observer."""
    from console.core.engine.admin import normalize_url
    from console.core.launch.profile import resolve_profile
    from console.core.run.runtime import Runtime
    stall = getattr(args, "stall_timeout", 120.0)
    if args.attach:
        url = normalize_url(args.attach)
        key = _api_key_from_env(args.api_key_env)
        return lambda observer=None: Runtime(attach_url=url, api_key=key, api_key_env=args.api_key_env,
                                             sessions=args.sessions, observer=observer, session_dir=session_dir,
                                             stall_timeout_s=stall)
    force = getattr(args, "force", False)
    sim = args.sim
    prof_name = args.profile
    if prof_name is None:
        prof_name, sim = DEFAULT_PROFILE, True
    prof = resolve_profile(prof_name)
    _note_shadow(prof)
    if not (sim or prof.is_sim):
        prof.api_key()  # an unset server.api_key_env is bad input now, not a failure after the launch view opens
    sim_args = _sim_args(args) if (sim or prof.is_sim) else []
    return lambda observer=None: Runtime(profile=prof, sim=sim, sim_args=sim_args, sessions=args.sessions,
                                         observer=observer, session_dir=session_dir, force=force,
                                         stall_timeout_s=stall)


def _make_runtime(args: argparse.Namespace, observer=None, session_dir: Path | None = None):
    return _runtime_factory(args, session_dir)(observer)


def cmd_tui(args: argparse.Namespace) -> int:
    factory = _runtime_factory(args)  # bad input: the same one line and exit code as headless, before the TUI
    from console.ui.app import make_app
    app = make_app(factory)
    app.run()
    if app.failure:  # what stopped the console (engine died, attach failed, …) stays on the terminal after exit
        _err(app.failure)
    return app.return_code or 0


def _resume_target(args: argparse.Namespace) -> tuple[Any, Path]:
    """Protocol and session of an interrupted cell; fills the target from its manifest when not given."""
    from console.core.run.cell import CellProtocol
    from console.core.sessions.store import read_json
    cell_dir = args.resume
    mpath = cell_dir / "manifest.json"
    if not mpath.exists():
        raise ValueError(f"{cell_dir}: no manifest.json; --resume takes a cell directory "
                         "(sessions/<session>/cell-NNN-*)")
    m = read_json(mpath)
    try:
        proto = CellProtocol(**m["protocol"])
    except (KeyError, TypeError) as e:
        raise ValueError(f"{mpath}: protocol unreadable ({e}); the cell cannot be resumed") from None
    if args.prompts and args.prompts != proto.prompt_set:
        raise ValueError(f"--prompts {args.prompts} differs from the cell's set {proto.prompt_set}; leave it out")
    if not args.profile and not args.attach:
        if m.get("mode") == "attach":
            args.attach = m.get("base_url")
        else:
            args.profile = m.get("profile")
            args.sim = bool(m.get("simulated"))
    return proto, cell_dir.parent


def cmd_bench(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from console.core.measure import stats
    from console.core.run import events as E
    from console.core.run.cell import CellProtocol
    from console.core.sessions.report import bench_json, cell_report
    from console.core.workload.prompts import load_set

    err = Console(stderr=True, soft_wrap=True)
    session_dir = None
    if args.resume:
        proto, session_dir = _resume_target(args)
    else:
        if not args.prompts:
            raise ValueError("bench needs --prompts SET (or --resume CELL_DIR)")
        proto = CellProtocol(prompt_set=args.prompts, n=args.n, max_tokens=args.max_tokens,
                             temperature=args.temperature, concurrency=args.concurrency, warmup=args.warmup,
                             endpoint=args.endpoint, ignore_eos=args.ignore_eos, gate_short=not args.no_gate_short)
    proto.validate()
    load_set(proto.prompt_set)  # fail on a bad set before launching anything

    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[median]}"), TimeElapsedColumn(), console=err, transient=False,
                        disable=not err.is_terminal)
    task = progress.add_task("cell", total=proto.n, median="", start=False)
    speeds: list[float] = []

    def say(text: str) -> None:
        (progress.console if progress.live.is_started else err).print(text)

    def observer(ev) -> None:
        if isinstance(ev, E.Launching):
            say(f"[dim]launching: {shlex.join(ev.argv)}[/dim]")
            say(f"[dim]engine log: {ev.log_path}[/dim]")
        elif isinstance(ev, E.Ready):
            say(f"engine ready in {ev.startup_s or 0:.1f} s: {ev.server.arm.label()}")
        elif isinstance(ev, E.Attached):
            say(f"attached: {ev.server.arm.label()}")
        elif isinstance(ev, E.CellStarted):
            progress.start_task(task)
            progress.update(task, description=ev.label)
        elif isinstance(ev, E.CellStatus):
            say(f"[dim]{ev.text}[/dim]")
        elif isinstance(ev, E.RequestFinished):
            rec = ev.record
            s = stats.output_tok_s(rec)
            if s is not None and rec.ok and not rec.flags:
                speeds.append(s)
            status = rec.error or (f"{s:7.1f} tok/s" if s else "n/a") + (
                f"  [{','.join(rec.flags)}]" if rec.flags else "")
            say(f"  {ev.done:>3}/{ev.total}  {rec.request_id:<22} {status}")
            med = stats.interp_median(speeds)
            progress.update(task, completed=ev.done, median=f"median {med:.1f} tok/s" if med else "")
        elif isinstance(ev, E.Died):
            say(f"[red]{ev.text}[/red]")
        elif isinstance(ev, E.Preflight):
            say(f"[{'red' if ev.severity == 'error' else 'yellow'}]preflight {ev.severity}: {ev.text}[/]")

    async def go() -> tuple[int, Path | None]:
        rt = _make_runtime(args, observer, session_dir=session_dir)
        try:
            await rt.start()
            with progress:
                res = await rt.run_cell(proto, resume_dir=args.resume)
            cell_dir = Path(rt.state.cell.cell_dir) if rt.state.cell else None
            if rt.state.phase == "dead" or res.interrupted:
                return EXIT_ENGINE, cell_dir
            return (EXIT_OK if res.summary.n_ok > 0 else EXIT_EMPTY), cell_dir
        finally:
            await rt.stop()

    code, cell_dir = asyncio.run(go())
    if cell_dir is None:
        return code
    from console.core.sessions.adaptive import adaptive_summary, distribution_text
    adaptive = adaptive_summary(cell_dir)
    if args.json:
        print(json.dumps({**bench_json(cell_dir), **({"adaptive": adaptive} if adaptive else {})}))
    else:
        _print_report(Console(), [cell_report(cell_dir)])
        if adaptive:
            Console().print(f"[magenta]{distribution_text(adaptive)}[/magenta] [dim](adaptive.json)[/dim]")
    return code


def _fmt(v: Any, spec: str = ".1f", unit: str = "") -> str:
    if v is None:
        return "—"
    return f"{v:{spec}}{unit}"


def _print_report(console, reports: list[dict[str, Any]]) -> None:
    from rich.table import Table

    from console.core.sessions.report import time_scale_note
    for r in reports:
        t = Table(title=f"{r['label']}  ({r['profile']}{' · SIMULATED' if r['simulated'] else ''})",
                  title_justify="left")
        t.add_column("figure")
        t.add_column("value", justify="right")
        t.add_row("requests", f"{r['n_included']} included / {r['n_ok']} ok / {r['n']} sent"
                  + (f" · excluded: {', '.join(r['excluded'])}" if r["excluded"] else ""))
        t.add_row("median tok/s (interp.)", _fmt(r["median_tok_s"]))
        t.add_row("p10 / p90 tok/s", f"{_fmt(r['p10_tok_s'])} / {_fmt(r['p90_tok_s'])}")
        t.add_row("TTFT median", _fmt(r["ttft_median_s"], ".3f", " s"))
        t.add_row("TPOT median", _fmt(r["tpot_median_ms"], ".2f", " ms"))
        if r["tau"] is not None:
            t.add_row("τ (pooled histogram)", _fmt(r["tau"], ".2f"))
            pos = r["per_position_acceptance"] or []
            t.add_row("p_i per draft position", " ".join(f"{x:.2f}" for x in pos))
            t.add_row("Σp_i/K vs server accept rate",
                      f"{_fmt(r['accept_rate_check'], '.3f')} vs {_fmt(r['server_accept_rate'], '.3f')}")
        t.add_row("implied step", _fmt(r["implied_step_ms"], ".2f", " ms"))
        t.add_row("$/M output tokens", _fmt(r["usd_per_m_tokens"], ".2f"))
        t.add_row("KV capacity", _fmt(r["kv_capacity_tokens"], ",", " tokens"))
        t.add_row("engine", f"{r['engine_version']} · {r['speculative_algorithm'] or 'no speculation'}")
        t.add_row("prompt set", f"{r['prompt_set']} sha256 {str(r['prompt_set_sha256'])[:12]}…")
        t.add_row("rows", r["rows_path"])
        note = time_scale_note(r.get("sim_time_scale"), {"": r["median_tok_s"]})
        if note:
            t.add_row("[yellow]time scale[/yellow]", note)
        for e in r["errors"]:
            t.add_row("[red]error[/red]", e)
        console.print(t)


def cmd_report(args: argparse.Namespace) -> int:
    from rich.console import Console

    from console.core.sessions.report import session_report
    if not args.dir.exists():
        raise ValueError(f"{args.dir}: no such session or cell directory")
    if args.html is not None or args.plots is not None:  # any kind, a campaign included (docs/reports.md)
        from console.core.report.write import write_report_files
        for line in write_report_files(args.dir, html=args.html, plots=args.plots):
            print(line)
        return EXIT_OK
    from console.core.campaign.journal import is_campaign
    if is_campaign(args.dir):  # a campaign: routing table, curves and ladders recomputed from its rows
        from console.cli_sweep import cmd_report_campaign
        return cmd_report_campaign(args)
    from console.core.sessions.pairs import pair_files, recompute_pair, report_markdown
    pfiles = pair_files(args.dir)
    if pfiles:
        out = []
        for pf in pfiles:
            doc, ps, cmp = recompute_pair(args.dir, pf)
            stored = doc.get("stats", {}).get("effect", {}).get("point_pct")
            if args.json:
                out.append({**_pair_json(doc, ps, cmp, args.dir), "file": pf.name, "stored_delta_pct": stored})
            else:
                Console().print(report_markdown(doc, ps, cmp, args.dir), markup=False, highlight=False)
                if stored is not None:
                    Console().print(f"[dim]{pf.name}: recomputed from the legs' rows; Δ {ps.effect.point_pct:+.3f}% "
                                    f"(stored: {stored:+.3f}%)[/dim]")
        if args.json:
            print(json.dumps({"pair": out[0], "pairs": out}))
        return EXIT_OK
    reports = session_report(args.dir)
    if not reports:
        raise ValueError(f"{args.dir}: no cells (expected cell-*/rows.jsonl); give a session or cell directory")
    if args.json:
        print(json.dumps({"cells": reports}))
    else:
        _print_report(Console(), reports)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from console.core.launch.check import check_profile
    from console.core.launch.profile import resolve_profile
    prof = resolve_profile(args.profile)  # a profile that does not load: every problem, one line each
    res = check_profile(prof)
    print(res.message, file=sys.stdout if res.ok else sys.stderr)
    if prof.shadow_note:
        print(f"note: {prof.shadow_note}", file=sys.stdout if res.ok else sys.stderr)
    return EXIT_OK if res.ok else EXIT_USAGE


def cmd_launch(args: argparse.Namespace) -> int:
    from console.core.launch.check import check_profile
    from console.core.launch.profile import resolve_profile
    from console.core.redaction import redact_argv
    prof = resolve_profile(args.profile)
    if args.sim:
        prof = prof.with_sim()
    key = "<api-key>" if (prof.api_key_env or prof.api_key_file) else None
    if args.dry_run:
        res = check_profile(prof)
        if not res.ok:
            _err(res.message)
            return EXIT_USAGE
        argvs = prof.node_argvs(api_key=key)
        for rank, argv in enumerate(argvs):
            prefix = f"# node rank {rank}{' (serves HTTP; readiness read here)' if rank == 0 else ''}\n" \
                if len(argvs) > 1 else ""
            print(prefix + shlex.join(redact_argv(argv)))
        return EXIT_OK
    from rich.console import Console

    from console.core.run import events as E
    from console.core.run.runtime import Runtime
    out = Console(stderr=True, soft_wrap=True)

    def observer(ev) -> None:
        if isinstance(ev, E.Launching):
            out.print(f"launching: {shlex.join(ev.argv)}\nlog: {ev.log_path}")
        elif isinstance(ev, E.Startup):
            cur = ev.progress.current
            if cur is not None:
                out.print(f"[dim]{cur.label}: {cur.detail}[/dim]", end="\r")
        elif isinstance(ev, E.Ready):
            out.print(f"\nready at {prof.base_url}: {ev.server.arm.label()} — Ctrl-C stops the engine")
        elif isinstance(ev, E.Died):
            out.print(f"[red]{ev.text}[/red]")

    async def go() -> int:
        rt = Runtime(profile=prof, sessions=args.sessions, observer=observer, force=args.force)
        try:
            await rt.start()
            while rt.state.phase == "ready":
                await asyncio.sleep(0.5)
            return EXIT_ENGINE
        finally:
            await rt.stop()

    return asyncio.run(go())


def cmd_prompts(args: argparse.Namespace) -> int:
    from console.core.workload.prompts import prompts_dir, verify_all
    if args.action == "build":
        from console.authoring.builder import build_all
        d = args.dir or prompts_dir()
        if args.dir is None and "site-packages" in d.parts:
            raise ValueError(f"prompts build: {d} is inside an installed package; rebuild the sets in a checkout or "
                             "give --dir DIR for a set directory of your own")
        paths = build_all(d)
        for p in paths:
            print(f"built {p}")
        print(f"pinned {d / 'SHA256SUMS'}")
        return EXIT_OK
    sets = verify_all(args.dir)
    for s in sets:
        print(f"ok  {s.path}  {len(s)} prompts  sha256 {s.sha256}")
    return EXIT_OK


def _parse_depths(text: str) -> list[int]:
    try:
        if "-" in text:
            a, b = (int(x) for x in text.split("-", 1))
            return list(range(a, b + 1))
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--depths {text!r}: give a range like 3-8 or a list like 5,6,7") from None


def cmd_forecast(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from console.core.sessions.browse import cell_forecast
    from console.core.sessions.store import write_json
    if not (args.cell / "rows.jsonl").exists():
        raise ValueError(f"{args.cell}: not a cell directory (no rows.jsonl)")
    if args.out is not None and args.out.resolve().is_relative_to(args.cell.resolve()):
        raise ValueError(f"--out {args.out}: inside the recorded cell {args.cell}; recorded cells are never "
                         "modified, write it elsewhere")
    cf = cell_forecast(args.cell, depths=_parse_depths(args.depths) if args.depths else None,
                       verify_tax_ms=args.verify_tax_ms,
                       tax_source="given (--verify-tax-ms)" if args.verify_tax_ms else None)
    fc = cf.forecast
    if args.out is not None:
        write_json(args.out, fc.to_json())
    if args.json:
        print(json.dumps({"forecast": fc.to_json()}))
        return EXIT_OK
    unit = "block" if cf.family == "DFLASH" else "depth"
    t = Table(title=f"forecast from {args.cell.name}: {cf.family} {unit} {cf.depth}, {fc.base_tok_s:.1f} tok/s, "
                    f"τ {fc.base_tau:.2f}, step {fc.base_step_ms:.2f} ms (n={cf.n_included})", title_justify="left")
    for c in (unit, "τ", "step ms", "tok/s", "vs measured", "extrapolated p_i"):
        t.add_column(c, justify="right")
    for pt in fc.points:
        mark = " (measured)" if pt.depth == cf.depth else ""
        t.add_row(f"{pt.depth}{mark}", f"{pt.tau:.2f}", f"{pt.step_ms:.2f}", f"{pt.tok_s:.1f}",
                  f"{100 * (pt.tok_s / fc.base_tok_s - 1):+.1f}%", str(pt.extrapolated_positions or ""))
    Console().print(t)
    Console().print(f"[dim]verify tax {fc.verify_tax_ms:.3f} ms/token: {fc.tax_source}"
                    + (f"; written to {args.out}" if args.out is not None else "") + "[/dim]")
    return EXIT_OK


def cmd_pair(args: argparse.Namespace) -> int:
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
    _note_shadow(a)
    _note_shadow(b)
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
                    interleave=args.interleave)
    if spec.needs_relaunch() and spec.interleave:
        raise ValueError("--interleave needs both arms on one server: A and B have different launch flags")
    if spec.needs_relaunch() and b_proto is not None:
        raise ValueError("--b-prompts/--b-temperature pair on one server; with different "
                         "launch flags keep one protocol")
    err = Console(stderr=True, soft_wrap=True)
    sim_args = list(args.sim_arg or []) + (
        ["--sim-time-scale", str(args.sim_time_scale)] if args.sim_time_scale else [])

    async def go():
        rt = Runtime(profile=a, sim=args.sim, sim_args=sim_args if (args.sim or a.is_sim) else [],
                     sessions=args.sessions, session_slug=f"pair-{a.name}-vs-{b.name}", force=args.force,
                     observer=lambda ev: err.print(f"[red]{ev.text}[/red]") if isinstance(ev, E.Died) else None)
        try:
            await rt.start()
            return await run_pair(rt, spec, say=lambda t: err.print(f"[dim]{t}[/dim]"))
        finally:
            await rt.stop()

    res = asyncio.run(go())
    ps = res.stats
    if args.json:
        print(json.dumps({"pair": _pair_json(res.doc, ps, res.comparison, res.dir)}))
    else:
        Console().print((res.dir / "report.md").read_text(), markup=False, highlight=False)
    return EXIT_OK if ps.a.n and ps.b.n else EXIT_EMPTY


def _pair_json(doc, ps, cmp, d) -> dict:
    from console.core.sessions.pairs import pair_time_scale
    return {
        "a": doc["spec"]["a"], "b": doc["spec"]["b"], "order": doc["spec"]["order"],
        "interleaved": doc["spec"]["interleaved"],
        "a_median_tok_s": ps.a.median_tok_s, "b_median_tok_s": ps.b.median_tok_s, "a_n": ps.a.n, "b_n": ps.b.n,
        "a_p10_p90": [ps.a.p10_tok_s, ps.a.p90_tok_s], "b_p10_p90": [ps.b.p10_tok_s, ps.b.p90_tok_s],
        "delta_pct": ps.effect.point_pct, "ci95_pct": [ps.effect.low_pct, ps.effect.high_pct],
        "resolved": ps.effect.resolved,
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


def cmd_probe(args: argparse.Namespace) -> int:
    from console.cli_probe import cmd_probe as run
    return run(args, _runtime_factory)


def cmd_sweep(args: argparse.Namespace) -> int:
    from console.cli_sweep import cmd_sweep as run
    return run(args)


COMMANDS = {"sweep": cmd_sweep, "probe": cmd_probe, "pair": cmd_pair, "forecast": cmd_forecast, "tui": cmd_tui,
            "bench": cmd_bench, "report": cmd_report, "check": cmd_check, "launch": cmd_launch,
            "prompts": cmd_prompts}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "sim":
        from console.sim import main as sim_main
        return sim_main(argv[1:])
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = ["tui", *argv]
    args = build_parser().parse_args(argv)
    from console.core.exits import describe, exit_code
    try:
        return COMMANDS[args.cmd](args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPT
    except BrokenPipeError:  # the reader of stdout went away (`| head`): nothing left to say, no traceback
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as e:
        code = exit_code(e)
        if code is None:
            raise
        if code != EXIT_INTERRUPT:
            _err("\n".join(describe(e)))
        return code


if __name__ == "__main__":
    sys.exit(main())
