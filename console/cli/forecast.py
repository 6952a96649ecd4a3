"""`serving-console forecast CELL_DIR`: other draft depths priced from a measured cell."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from console.core.exits import EXIT_OK


def add_parser(sub) -> None:
    fo = sub.add_parser("forecast", help="price other draft depths from a measured cell (verify-tax model)")
    fo.add_argument("cell", type=Path, metavar="CELL_DIR")
    fo.add_argument("--depths", default=None, help="range a-b or list a,b,c (default EAGLE 3-8, DFLASH 4,8,16,32)")
    fo.add_argument("--verify-tax-ms", type=float, default=None,
                    help="ms per extra drafted token (default: the report's measured 0.397)")
    fo.add_argument("--json", action="store_true")
    fo.add_argument("--out", type=Path, default=None, metavar="FILE",
                    help="also write the forecast as JSON to FILE (never into the cell: recorded cells are evidence)")


def _parse_depths(text: str) -> list[int]:
    try:
        if "-" in text:
            a, b = (int(x) for x in text.split("-", 1))
            return list(range(a, b + 1))
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--depths {text!r}: give a range like 3-8 or a list like 5,6,7") from None


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from console.core.sessions.forecasts import cell_forecast
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
