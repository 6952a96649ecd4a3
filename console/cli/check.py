"""`serving-console check PROFILE`: a profile against the engine's flag catalogue (fail-closed)."""

from __future__ import annotations

import argparse
import sys

from console.core.exits import EXIT_OK, EXIT_USAGE


def add_parser(sub) -> None:
    c = sub.add_parser("check", help="validate a profile against the engine's flag catalogue (fail-closed)")
    c.add_argument("profile")


def run(args: argparse.Namespace) -> int:
    from console.core.launch.check import check_profile
    from console.core.launch.profile import resolve_profile
    prof = resolve_profile(args.profile)  # a profile that does not load: every problem, one line each
    res = check_profile(prof)
    print(res.message, file=sys.stdout if res.ok else sys.stderr)
    if prof.shadow_note:
        print(f"note: {prof.shadow_note}", file=sys.stdout if res.ok else sys.stderr)
    return EXIT_OK if res.ok else EXIT_USAGE
