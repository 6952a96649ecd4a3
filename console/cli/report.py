"""`serving-console report DIR`: every figure of a session, cell, pair or campaign recomputed from its rows."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from console.cli.bench import print_report
from console.cli.pair import pair_json
from console.core.exits import EXIT_OK


def add_parser(sub) -> None:
    r = sub.add_parser("report", help="recompute a session's or cell's figures from its rows")
    r.add_argument("dir", type=Path)
    r.add_argument("--json", action="store_true")
    r.add_argument("--html", nargs="?", const="", default=None, metavar="OUT",
                   help="write one self-contained HTML file (offline: no script, no fetch) for the session, cell, pair "
                        "or campaign; default OUT: DIR.html beside DIR (docs/reports.md)")
    r.add_argument("--node", type=Path, default=None, metavar="NODE.toml",
                   help="(campaign) a fitted node (`twin fit`): its prediction of every cell beside the measurement, "
                        "in the text, --json ('predicted') and the HTML")
    r.add_argument("--plots", type=Path, default=None, metavar="PLOTS_DIR",
                   help="also write each plot as SVG and PNG into PLOTS_DIR, with a markdown report linking them")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from console.core.sessions.report import session_report
    if not args.dir.exists():
        raise ValueError(f"{args.dir}: no such session or cell directory")
    from console.core.campaign.journal import is_campaign
    predicted = None
    if args.node is not None:
        if not is_campaign(args.dir):
            raise ValueError(f"--node: {args.dir} is not a campaign (`serving-console twin check NODE.toml DIR` "
                             f"predicts the cells of any session)")
        if not args.node.exists():
            raise ValueError(f"--node {args.node}: no such node file (`serving-console twin fit … --out NODE.toml`)")
        from console.cli.twin import check_rows
        predicted = check_rows(args.node, args.dir)
    if args.html is not None or args.plots is not None:  # any kind, a campaign included (docs/reports.md)
        from console.core.report.write import write_report_files
        for line in write_report_files(args.dir, html=args.html, plots=args.plots, predicted=predicted):
            print(line)
        return EXIT_OK
    if is_campaign(args.dir):  # a campaign: routing table, curves and ladders recomputed from its rows
        from console.cli.sweep import report_campaign
        return report_campaign(args, predicted)
    from console.core.sessions.pairs import pair_files, recompute_pair, report_markdown
    pfiles = pair_files(args.dir)
    if pfiles:
        out = []
        for pf in pfiles:
            doc, ps, cmp = recompute_pair(args.dir, pf)
            stored = doc.get("stats", {}).get("effect", {}).get("point_pct")
            if args.json:
                out.append({**pair_json(doc, ps, cmp, args.dir), "file": pf.name, "stored_delta_pct": stored})
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
    from console.core.sessions.alarms import alarms_markdown, read_alarms
    session = args.dir if not (args.dir / "manifest.json").exists() else args.dir.parent
    if args.json:
        alarms = [{"arm": arm, **a.to_json()} for arm, a in read_alarms(session)]
        print(json.dumps({"cells": reports, "alarms": alarms}))
    else:
        print_report(Console(), reports)
        section = alarms_markdown(session)
        if section:
            Console().print("\n".join(section), markup=False, highlight=False)
    return EXIT_OK
