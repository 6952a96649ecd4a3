"""`serving-console` command line (docs/architecture.md#the-cli): one module per command in this package, each
with `add_parser(sub)` and `run(args)`; what they share is common.py. The TUI and every headless command share one
core; the exit codes of every command, the TUI included, are `console/core/exits.py`'s (`--help` lists them)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from console.cli.common import err
from console.core.exits import EXIT_INTERRUPT, EXIT_OK, SUMMARY

#: the commands, in the order --help lists them; each is console/cli/<name>.py
COMMANDS = ("tui", "bench", "pair", "forecast", "launch", "check", "report", "prompts", "probe", "sweep", "twin")

EPILOG = f"""exit codes: {SUMMARY}
run `serving-console COMMAND -h` for a command's options."""


def version_text() -> str:
    """The version, and every place the console reads from or writes to, in search order (core/places.py)."""
    from console import __version__
    from console.core import places

    def mark(p: Path) -> str:
        return "" if p.is_dir() else "  (absent)"

    lines = [f"serving-console {__version__} (Python {sys.version.split()[0]}, {Path(__file__).resolve().parents[1]})"]
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


def _module(name: str):
    import importlib
    return importlib.import_module(f"console.cli.{name}")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="serving-console",
                                description="Console for SGLang speculative-decoding deployments.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_VersionAction, nargs=0,
                   help="print the version and where profiles, plans, prompt sets and sessions are, then exit")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    for name in COMMANDS:
        _module(name).add_parser(sub)
    sub.add_parser("sim", help="the engine twin: takes sglang launch_server flags (see `serving-console sim --help`)",
                   add_help=False)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "sim":
        from console.sim import main as sim_main
        return sim_main(argv[1:])
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = ["tui", *argv]
    from console.core.exits import describe, exit_code
    try:
        args = build_parser().parse_args(argv)  # --help and --version print here: a closed pipe too is no traceback
        return _module(args.cmd).run(args)
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
            err("\n".join(describe(e)))
        return code


if __name__ == "__main__":
    sys.exit(main())
