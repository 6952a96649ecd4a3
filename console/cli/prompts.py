"""`serving-console prompts build|verify`: the pinned prompt sets."""

from __future__ import annotations

import argparse
from pathlib import Path

from console.core.exits import EXIT_OK


def add_parser(sub) -> None:
    pr = sub.add_parser("prompts", help="build or verify the pinned prompt sets")
    pr.add_argument("action", choices=("build", "verify"))
    pr.add_argument("--dir", type=Path, default=None,
                    help="a prompt-set directory (default: verify every directory of the prompt search path; build "
                         "regenerates the shipped sets of a checkout)")


def run(args: argparse.Namespace) -> int:
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
