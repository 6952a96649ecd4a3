"""`serving-console launch PROFILE`: print (--dry-run) or run a profile's engine argv."""

from __future__ import annotations

import argparse
import asyncio
import shlex
from pathlib import Path

from console.cli.common import err
from console.core.exits import EXIT_ENGINE, EXIT_OK, EXIT_USAGE


def add_parser(sub) -> None:
    la = sub.add_parser("launch", help="print (--dry-run) or run the engine argv of a profile")
    la.add_argument("profile")
    la.add_argument("--dry-run", action="store_true", help="print the exact argv and exit")
    la.add_argument("--sim", action="store_true", help="the twin's argv instead of the profile's engine")
    la.add_argument("--sessions", type=Path, default=None)
    la.add_argument("--force", action="store_true", help="launch even when preflight finds errors")


def run(args: argparse.Namespace) -> int:
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
            err(res.message)
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
