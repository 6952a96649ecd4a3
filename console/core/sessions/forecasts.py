"""The depth forecast from a cell on disk (`serving-console forecast CELL_DIR`, the flip box, the forecast screen,
the pair recorder, campaigns): the cell's figures and the session's verify tax fed to measure/forecast.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.core.measure import stats
from console.core.measure.forecast import (
    REFERENCE_MODEL,
    REPORT_VERIFY_TAX_MS,
    Forecast,
    VerifyTax,
    choose_verify_tax,
    fit_verify_tax,
    forecast,
    given_tax,
    published_applies,
)
from console.core.sessions.browse import arm_of, draft_tokens_of, read_doc, spec_on
from console.core.sessions.compare import check_comparable
from console.core.sessions.store import load_rows

EAGLE_DEPTHS = tuple(range(3, 9))
DFLASH_BLOCKS = (4, 8, 16, 32)




@dataclass
class CellForecast:
    """`forecast` over one measured cell, with what it was computed from (as `serving-console forecast`)."""

    cell_dir: Path
    label: str
    family: str
    """Upper-case algorithm: 'EAGLE3', 'EAGLE', 'DFLASH', …"""
    depth: int
    """Measured depth: steps (EAGLE-like) or block size (DFLASH)."""
    n_included: int
    prompt_set: str | None
    forecast: Forecast

    @property
    def measured_positions(self) -> int:
        return len(self.forecast.positions)


def default_depths(family: str, depth: int) -> list[int]:
    """EAGLE-like: steps 3–8; DFLASH: blocks 4/8/16/32; always including the measured depth."""
    base = DFLASH_BLOCKS if family.upper() == "DFLASH" else EAGLE_DEPTHS
    return sorted(set(base) | {depth})


def _depth_of(spec: dict[str, Any]) -> tuple[str, int | None]:
    fam = str(spec.get("algorithm") or "").upper()
    d = spec.get("num_draft_tokens") if fam == "DFLASH" else spec.get("num_steps")
    return fam, (int(d) if d is not None else None)


def session_tax(cell_dir: Path) -> tuple[VerifyTax | None, str]:
    """The verify tax fitted across this cell's session: sibling cells of the same drafter family, prompt-set
    SHA-256 and protocol at two or more verify widths; (None, why) when there is no resolved, positive fit."""
    cell_dir = Path(cell_dir)
    m, _ = read_doc(cell_dir / "manifest.json")
    if not isinstance(m, dict) or not spec_on(m.get("speculative")):
        return None, ""
    fam = _depth_of(m["speculative"])[0]
    sha = (m.get("prompt_set") or {}).get("sha256")
    cells: list[tuple[int, list[float]]] = []
    for c in sorted(x for x in cell_dir.parent.glob("cell-*") if x.is_dir()):
        mc, _ = read_doc(c / "manifest.json")
        if not isinstance(mc, dict) or not spec_on(mc.get("speculative")):
            continue
        if _depth_of(mc["speculative"])[0] != fam or (mc.get("prompt_set") or {}).get("sha256") != sha:
            continue
        try:
            check_comparable(cell_dir, c) if c.resolve() != cell_dir.resolve() else None
        except ValueError:
            continue
        ndt = draft_tokens_of(mc)
        if not ndt:
            continue
        steps = [stats.implied_step_ms(stats.request_tau(r), stats.output_tok_s(r)) for r in load_rows(c)
                 if r.ok and not r.flags and not r.warmup]
        cells.append((int(ndt), [x for x in steps if x is not None]))
    name = (m.get("prompt_set") or {}).get("name")
    return fit_verify_tax(cells, what=f" on {name}" if name else "")


def cell_forecast(cell_dir: Path, depths: Sequence[int] | None = None, *, verify_tax_ms: float | None = None,
                  tax_source: str | None = None, probed: VerifyTax | None = None) -> CellForecast:
    """Forecast other depths from a measured cell: the one forecast of the console. The verify tax follows
    `measure.forecast.choose_verify_tax`: `verify_tax_ms` when given (the CLI's --verify-tax-ms), else probed
    (`probed`, else the session's verify-tax probe of this model and drafter: sessions.probes.session_probe), else
    fitted across the cell's session when resolved and positive, else the published 0.397 ms with the reason.
    ValueError (one line) when the cell cannot be forecast."""
    from console.core.sessions.report import cell_report
    cell_dir = Path(cell_dir)
    if not (cell_dir / "rows.jsonl").exists():
        raise ValueError(f"{cell_dir.name}: not a cell directory (no rows.jsonl)")
    r = cell_report(cell_dir)
    spec = r.get("speculative") or {}
    if not r["per_position_acceptance"] or not r["median_tok_s"] or not r["tau"]:
        raise ValueError(f"{cell_dir.name}: no per-position acceptance (no speculation, or no usable row)")
    fam, depth = _depth_of(spec)
    if spec.get("topk") not in (None, 1) and fam != "DFLASH":
        raise ValueError(f"{cell_dir.name}: topk {spec.get('topk')} is tree drafting; the chain forecast "
                         f"does not apply")
    if depth is None:
        raise ValueError(f"{cell_dir.name}: the manifest records no draft depth")
    if verify_tax_ms is not None:
        tax = given_tax(verify_tax_ms, tax_source or "given (--verify-tax-ms)")
    else:
        from console.core.sessions.probes import session_probe
        if probed is None:
            m, _ = read_doc(cell_dir / "manifest.json")
            probed = session_probe(cell_dir, arm_of(m).to_json())
        fitted = session_tax(cell_dir)
        tax = choose_verify_tax(probed, fitted)
        mf, _ = read_doc(cell_dir / "manifest.json")
        sa = mf.get("server_args") if isinstance(mf, dict) else None
        model = sa.get("model_path") if isinstance(sa, dict) else None
        if tax.source == "published" and not published_applies(model):
            why = f" ({fitted[1]})" if fitted[1] else ""
            raise ValueError(f"{cell_dir.name}: the verify tax of {model} on this node is unknown: the published "
                             f"{REPORT_VERIFY_TAX_MS} ms/token is {REFERENCE_MODEL} on 4×B200; run the verify-tax "
                             f"probe (v, or `probe verify-tax`) or measure a second depth in this session{why}")
    fc = forecast(r["per_position_acceptance"], depth, r["median_tok_s"], r["tau"],
                  list(depths) if depths else default_depths(fam, depth), tax=tax, cell_dir=str(cell_dir),
                  family=fam)
    return CellForecast(cell_dir=cell_dir, label=str(r.get("label") or cell_dir.name), family=fam, depth=depth,
                        n_included=r["n_included"], prompt_set=r.get("prompt_set"), forecast=fc)
