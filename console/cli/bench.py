"""`serving-console bench`: one measured cell headless, and the table of a cell's figures that `report` prints too."""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
from pathlib import Path
from typing import Any

from console.cli.common import make_runtime, target_args
from console.core.exits import EXIT_EMPTY, EXIT_ENGINE, EXIT_OK
from console.core.fmt import num


def add_parser(sub) -> None:
    b = sub.add_parser("bench", help="run one measured cell headless")
    target_args(b)
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


def run(args: argparse.Namespace) -> int:
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
        rt = make_runtime(args, observer, session_dir=session_dir)
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
        print_report(Console(), [cell_report(cell_dir)])
        if adaptive:
            Console().print(f"[magenta]{distribution_text(adaptive)}[/magenta] [dim](adaptive.json)[/dim]")
    return code


def print_report(console, reports: list[dict[str, Any]]) -> None:
    from rich.table import Table

    from console.core.sessions.report import simulated_note, time_scale_note
    for r in reports:
        t = Table(title=f"{r['label']}  ({r['profile']}{' · SIMULATED' if r['simulated'] else ''})",
                  title_justify="left")
        t.add_column("figure")
        t.add_column("value", justify="right")
        t.add_row("requests", f"{r['n_included']} included / {r['n_ok']} ok / {r['n']} sent"
                  + (f" · excluded: {', '.join(r['excluded'])}" if r["excluded"] else ""))
        t.add_row("median tok/s (interp.)", num(r["median_tok_s"]))
        t.add_row("p10 / p90 tok/s", f"{num(r['p10_tok_s'])} / {num(r['p90_tok_s'])}")
        t.add_row("TTFT median", num(r["ttft_median_s"], ".3f", " s"))
        t.add_row("TPOT median", num(r["tpot_median_ms"], ".2f", " ms"))
        if r["tau"] is not None:
            t.add_row("τ (pooled histogram)", num(r["tau"], ".2f"))
            pos = r["per_position_acceptance"] or []
            t.add_row("p_i per draft position", " ".join(f"{x:.2f}" for x in pos))
            t.add_row("Σp_i/K vs server accept rate",
                      f"{num(r['accept_rate_check'], '.3f')} vs {num(r['server_accept_rate'], '.3f')}")
        t.add_row("implied step", num(r["implied_step_ms"], ".2f", " ms"))
        t.add_row("$/M output tokens", num(r["usd_per_m_tokens"], ".2f"))
        t.add_row("KV capacity", num(r["kv_capacity_tokens"], ",", " tokens"))
        t.add_row("engine", f"{r['engine_version']} · {r['speculative_algorithm'] or 'no speculation'}")
        t.add_row("prompt set", f"{r['prompt_set']} sha256 {str(r['prompt_set_sha256'])[:12]}…")
        t.add_row("rows", r["rows_path"])
        sim = simulated_note(r.get("simulated"), r.get("sim_time_scale"), r.get("sim_node"))
        if sim:
            t.add_row("[magenta]simulated[/magenta]", sim)
        note = time_scale_note(r.get("sim_time_scale"), {"": r["median_tok_s"]})
        if note:
            t.add_row("[yellow]time scale[/yellow]", note)
        for e in r["errors"]:
            t.add_row("[red]error[/red]", e)
        console.print(t)
