"""Browsing recorded sessions (docs/architecture.md#sessions-on-disk): what is on disk, newest first, and comparisons
between cells.

    list_sessions(root)        every session under `root`, newest first, with its cells (label, n, median tok/s,
                               τ, prompt set + SHA-256, complete) and its pairs' verdicts (pair.json, pair-2.json …);
                               a torn or missing file marks the entry (`problem`) instead of hiding it
    compare_cells(a, b)        B vs A (Δ% of medians with the seeded bootstrap 95% CI of `pairs.py`), refused with
                               one line when the prompt-set SHA-256 or the protocol differ
    cell_forecast(cell)        the depth forecast of `serving-console forecast CELL_DIR`, as a value

Listing figures come from a cell's `summary.json` when it is at least as new as `rows.jsonl` (written from the
rows when the cell ended), otherwise they are recomputed from the rows; reports and comparisons always recompute.
No Textual here: the TUI's sessions browser and forecast screen are layouts over these results.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeGuard

from console.core.arm import Arm
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
from console.core.measure.pairs import PairStats, pair_stats
from console.core.sessions.pairs import pair_files
from console.core.sessions.store import load_rows

PROTOCOL_KEYS = ("max_tokens", "temperature", "concurrency", "endpoint", "ignore_eos")
"""Protocol fields two cells must share to be compared (n may differ). `ignore_eos` changes how long outputs
run, hence the per-request tok/s distribution, so it is held equal too."""
PROTOCOL_DEFAULTS = {"endpoint": "chat", "ignore_eos": False}

EAGLE_DEPTHS = tuple(range(3, 9))
DFLASH_BLOCKS = (4, 8, 16, 32)


# --- what is on disk ---------------------------------------------------------------------------

@dataclass
class CellEntry:
    """One cell directory as the browser lists it. Figures are per-request tok/s (interpolated median)."""

    dir: Path
    label: str
    profile: str | None = None
    spec: str = "—"
    """Short arm label: 'EAGLE3 d6', 'DFLASH b16', 'no spec', '—' (unknown: no manifest)."""
    n: int = 0
    """Measured rows (warm-up excluded)."""
    n_ok: int = 0
    n_included: int = 0
    median_tok_s: float | None = None
    p10_tok_s: float | None = None
    p90_tok_s: float | None = None
    tau: float | None = None
    prompt_set: str | None = None
    prompt_sha256: str | None = None
    protocol: dict[str, Any] | None = None
    complete: bool = False
    started: datetime | None = None
    ended: datetime | None = None
    anchor: bool = False
    interleaved: bool = False
    simulated: bool = False
    sim_time_scale: float | None = None
    """The twin's --sim-time-scale when ≠ 1: wall-clock rates read that many times the modelled node's."""
    engine_version: str | None = None
    figures_from: str = "rows"
    """'summary' (summary.json, fresh) or 'rows' (recomputed)."""
    problem: str | None = None
    """One line when the cell cannot be read whole (torn manifest, no rows …)."""

    @property
    def name(self) -> str:
        return self.dir.name


@dataclass
class PairEntry:
    """One pair document of a session (`pair.json`, `pair-2.json` …) as listed: the stored verdict; the report
    view recomputes it."""

    dir: Path
    """The session directory (legs' cell paths are relative to it)."""
    path: Path
    """The pair document."""
    index: int = 1
    """1 for pair.json, k for pair-k.json (recording order)."""
    a: str | None = None
    b: str | None = None
    verdict: str | None = None
    order: str | None = None
    interleaved: bool = False
    prompt_set: str | None = None
    legs: list[tuple[str, str]] = field(default_factory=list)
    """(leg name such as 'A1', cell directory name), in run order."""
    effect_pct: float | None = None
    """Stored Δ% (B vs A, medians); `resolved` when its 95% CI excludes 0."""
    resolved: bool = False
    drift_flag: str | None = None
    created: datetime | None = None
    has_report: bool = False
    problem: str | None = None


@dataclass
class SessionSummary:
    dir: Path
    created: datetime | None
    """UTC (aware); from session.json, else the directory name, else the directory's mtime."""
    slug: str
    hostname: str | None = None
    engine_version: str | None = None
    arms: list[str] = field(default_factory=list)
    """Profile names in launch order, each once."""
    cells: list[CellEntry] = field(default_factory=list)
    pairs: list[PairEntry] = field(default_factory=list)
    """Newest first (pair-3.json, pair-2.json, pair.json)."""
    attached: str | None = None
    simulated: bool = False
    sim_time_scale: float | None = None
    problem: str | None = None

    @property
    def name(self) -> str:
        return self.dir.name

    @property
    def complete(self) -> bool:
        return bool(self.cells) and all(c.complete for c in self.cells)

    @property
    def pair(self) -> PairEntry | None:
        """The session's latest pair."""
        return self.pairs[0] if self.pairs else None


def _parse_utc(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    for fmt in ("%Y%m%dT%H%M%SZ", "%Y-%m-%dT%H:%M:%SZ"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _read(path: Path) -> tuple[Any, str | None]:
    """(parsed JSON or None, problem or None)."""
    if not path.exists():
        return None, f"no {path.name}"
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return None, f"{path.name} unreadable ({type(e).__name__}: torn write?)"


def arm_of(manifest: dict[str, Any] | None) -> Arm:
    """The arm a cell ran on: its manifest's `arm` (since the typed arm), else read from its `speculative` record
    and `kv_cache_dtype` (older cells)."""
    m = manifest if isinstance(manifest, dict) else {}
    if isinstance(m.get("arm"), dict):
        return Arm.from_json(m["arm"])
    spec = m["speculative"] if isinstance(m.get("speculative"), dict) else {}
    return Arm.from_server_info({"speculative_algorithm": spec.get("algorithm"),
                                 "speculative_num_steps": spec.get("num_steps"),
                                 "speculative_eagle_topk": spec.get("topk"),
                                 "speculative_num_draft_tokens": spec.get("num_draft_tokens"),
                                 "speculative_draft_model_path": spec.get("draft_model_path"),
                                 "kv_cache_dtype": m.get("kv_cache_dtype") or "auto"})


def spec_label(spec: dict[str, Any] | None) -> str:
    """The short arm label of a manifest's `speculative` record (as the browser lists cells)."""
    return arm_of({"speculative": spec}).short()


def _spec_on(spec: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(spec, dict) and bool(spec.get("algorithm")) and str(spec.get("algorithm")).upper() != "NONE"


def _ndt(manifest: dict[str, Any]) -> int | None:
    spec = manifest.get("speculative")
    return spec.get("num_draft_tokens") if _spec_on(spec) else None


def _figures(cell_dir: Path, ndt: int | None) -> tuple[dict[str, Any] | None, str]:
    rows_p, sum_p = cell_dir / "rows.jsonl", cell_dir / "summary.json"
    if sum_p.exists() and (not rows_p.exists() or sum_p.stat().st_mtime >= rows_p.stat().st_mtime):
        d, _ = _read(sum_p)
        if isinstance(d, dict) and "median_tok_s" in d:
            return d, "summary"
    if not rows_p.exists():
        return None, "rows"
    return stats.summarize(load_rows(cell_dir), num_draft_tokens=ndt).to_json(), "rows"


def read_cell(cell_dir: Path) -> CellEntry:
    """The listing entry of one cell directory; never raises on a torn or missing file."""
    cell_dir = Path(cell_dir)
    e = CellEntry(dir=cell_dir, label=cell_dir.name)
    m, problem = _read(cell_dir / "manifest.json")
    if not isinstance(m, dict):
        m = {}
        e.problem = problem or "manifest.json is not an object"
    e.label = str(m.get("label") or cell_dir.name)
    e.profile = m.get("profile")
    e.spec = arm_of(m).short() if m else "—"
    ps = m["prompt_set"] if isinstance(m.get("prompt_set"), dict) else {}
    e.prompt_set, e.prompt_sha256 = ps.get("name"), ps.get("sha256")
    e.protocol = m["protocol"] if isinstance(m.get("protocol"), dict) else None
    e.complete = m.get("complete") is True
    e.started, e.ended = _parse_utc(m.get("started_utc")), _parse_utc(m.get("ended_utc"))
    e.anchor = e.label == "anchor"
    e.interleaved = bool(m.get("pair_interleaved"))
    e.simulated, e.engine_version = bool(m.get("simulated")), m.get("engine_version")
    ts = m.get("sim_time_scale")
    e.sim_time_scale = float(ts) if isinstance(ts, (int, float)) and ts != 1 else None
    try:
        fig, e.figures_from = _figures(cell_dir, _ndt(m))
    except (OSError, ValueError, TypeError) as ex:
        fig = None
        e.problem = e.problem or f"rows unreadable ({type(ex).__name__})"
    if fig is None:
        e.problem = e.problem or "no rows yet"
    else:
        e.n, e.n_ok, e.n_included = int(fig.get("n") or 0), int(fig.get("n_ok") or 0), int(fig.get("n_included") or 0)
        e.median_tok_s, e.p10_tok_s, e.p90_tok_s = fig.get("median_tok_s"), fig.get("p10_tok_s"), fig.get("p90_tok_s")
        e.tau = fig.get("tau") if (_spec_on(m.get("speculative")) or not m) else None
    return e


def report_path_of(pair_path: Path) -> Path:
    """report.md beside pair.json; report-k.md beside pair-k.json."""
    p = Path(pair_path)
    return p.with_name("report.md" if p.stem == "pair" else f"report-{p.stem.split('-', 1)[1]}.md")


def read_pair(pair_path: Path) -> PairEntry:
    """The listing entry of one pair document; never raises on a torn file."""
    p = Path(pair_path)
    idx = p.stem.split("-", 1)[1] if "-" in p.stem else "1"
    e = PairEntry(dir=p.parent, path=p, index=int(idx) if idx.isdigit() else 0,
                  has_report=report_path_of(p).exists())
    doc, problem = _read(p)
    if not isinstance(doc, dict):
        e.problem = problem or f"{p.name} is not an object"
        return e
    sp = doc["spec"] if isinstance(doc.get("spec"), dict) else {}
    e.a, e.b, e.order = sp.get("a"), sp.get("b"), sp.get("order")
    e.interleaved = bool(sp.get("interleaved"))
    e.prompt_set = (sp.get("protocol") or {}).get("prompt_set") if isinstance(sp.get("protocol"), dict) else None
    e.verdict = doc.get("verdict")
    st = doc["stats"] if isinstance(doc.get("stats"), dict) else {}
    eff = st["effect"] if isinstance(st.get("effect"), dict) else {}
    e.effect_pct, e.resolved, e.drift_flag = eff.get("point_pct"), bool(eff.get("resolved")), st.get("drift_flag")
    e.created = _parse_utc(doc.get("created_utc"))
    for leg in doc.get("legs") or []:
        if isinstance(leg, dict) and leg.get("cell_dir"):
            e.legs.append((f"{leg.get('arm')}{leg.get('index')}", Path(str(leg["cell_dir"])).name))
    if not e.legs:
        e.problem = f"{p.name} has no legs"
    return e


def read_pairs(session_dir: Path) -> list[PairEntry]:
    """The session's pairs, newest first."""
    return [read_pair(p) for p in reversed(pair_files(Path(session_dir)))]


def pair_missing_legs(pair_path: Path) -> list[str]:
    """Legs of a pair whose cell has no rows.jsonl, as 'B1 (cell-002-b1-tool)'; a recomputation without them
    would silently drop an arm."""
    e = read_pair(pair_path)
    return [f"{leg} ({cell})" for leg, cell in e.legs if not (e.dir / cell / "rows.jsonl").exists()]


def _created(d: Path, meta: dict[str, Any]) -> datetime | None:
    t = _parse_utc(meta.get("created_utc"))
    if t is None:
        t = _parse_utc(d.name.split("-", 1)[0])
    if t is None:
        try:
            t = datetime.fromtimestamp(d.stat().st_mtime, tz=UTC)
        except OSError:
            return None
    return t


def read_session(d: Path) -> SessionSummary:
    d = Path(d)
    meta, problem = _read(d / "session.json")
    if not isinstance(meta, dict):
        meta = {}
    slug = meta.get("slug") or (d.name.split("-", 1)[1] if "-" in d.name else d.name)
    s = SessionSummary(dir=d, created=_created(d, meta), slug=str(slug), problem=problem if not meta else None)
    node = meta["node"] if isinstance(meta.get("node"), dict) else {}
    s.hostname = node.get("hostname")
    s.engine_version = meta.get("engine_version") or node.get("engine_version")
    s.attached = meta.get("attached")
    for arm in meta.get("arms") or []:
        name = arm.get("profile") if isinstance(arm, dict) else None
        if name and name not in s.arms:
            s.arms.append(name)
    s.cells = [read_cell(c) for c in sorted(x for x in d.glob("cell-*") if x.is_dir())]
    s.pairs = read_pairs(d)
    if s.engine_version is None:
        s.engine_version = next((c.engine_version for c in s.cells if c.engine_version), None)
    s.simulated = any(c.simulated for c in s.cells)
    s.sim_time_scale = next((c.sim_time_scale for c in s.cells if c.sim_time_scale), None)
    return s


def looks_like_session(d: Path) -> bool:
    return d.is_dir() and ((d / "session.json").exists() or bool(pair_files(d))
                           or any(x.is_dir() for x in d.glob("cell-*")))


def list_sessions(root: Path) -> list[SessionSummary]:
    """Every session under `root` (and one folder down, e.g. `sessions/examples/`), newest first (by creation
    time, then name). Folders that hold neither a session.json, a pair.json nor a cell are not sessions; a
    session with torn files is listed with its `problem` (or its cells' problems) set."""
    root = Path(root)
    if not root.is_dir():
        return []
    dirs = []
    for d in sorted(x for x in root.iterdir() if x.is_dir() and not x.name.startswith(".")):
        if looks_like_session(d):
            dirs.append(d)
        else:
            dirs += [x for x in sorted(d.iterdir()) if not x.name.startswith(".") and looks_like_session(x)]
    out = [read_session(d) for d in dirs]
    epoch = datetime.fromtimestamp(0, tz=UTC)
    out.sort(key=lambda s: (s.created or epoch, s.name), reverse=True)
    return out


# --- time as operators read it --------------------------------------------------------------------

def ago(t: datetime | None, now: datetime) -> str:
    """'just now', '45 s ago', '12 min ago', '3 h ago', '2 d ago' ('in the future' for clock skew)."""
    if t is None:
        return "—"
    s = (now - t).total_seconds()
    if s < -60:
        return "in the future"
    if s < 10:
        return "just now"
    if s < 60:
        return f"{int(s)} s ago"
    if s < 3600:
        return f"{int(s // 60)} min ago"
    if s < 86400 * 2:
        return f"{int(s // 3600)} h ago"
    return f"{int(s // 86400)} d ago"


def local_time(t: datetime | None, tz=None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """`t` in the local zone (or `tz`), e.g. '2026-05-20 14:03'."""
    if t is None:
        return "—"
    return t.astimezone(tz).strftime(fmt)


# --- comparing two cells --------------------------------------------------------------------------

def _short(h: str | None) -> str:
    return f"{h[:12]}…" if h else "none"


def _manifest(cell_dir: Path) -> dict[str, Any]:
    m, problem = _read(Path(cell_dir) / "manifest.json")
    if not isinstance(m, dict):
        raise ValueError(f"cannot compare: {Path(cell_dir).name} has {problem or 'no manifest object'}, so its "
                         f"prompt set and protocol cannot be checked")
    return m


def check_comparable(a_dir: Path, b_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both manifests, or ValueError with one line: the prompt-set SHA-256 must be equal (both named), and so
    must max_tokens, temperature, concurrency, endpoint and ignore_eos (n may differ)."""
    a_dir, b_dir = Path(a_dir), Path(b_dir)
    if a_dir.resolve() == b_dir.resolve():
        raise ValueError(f"cannot compare: A and B are the same cell ({a_dir.name})")
    ma, mb = _manifest(a_dir), _manifest(b_dir)
    pa = ma["prompt_set"] if isinstance(ma.get("prompt_set"), dict) else {}
    pb = mb["prompt_set"] if isinstance(mb.get("prompt_set"), dict) else {}
    ha, hb = pa.get("sha256"), pb.get("sha256")
    if not ha or not hb or ha != hb:
        raise ValueError(f"cannot compare: prompt sets differ — A {pa.get('name') or '?'} sha256 {_short(ha)} vs "
                         f"B {pb.get('name') or '?'} sha256 {_short(hb)}; a comparison needs the same pinned prompts")
    sa, sb = ma.get("sim_time_scale") or 1, mb.get("sim_time_scale") or 1
    if sa != sb:
        raise ValueError(f"cannot compare: A ran on the twin at time scale ×{sa:g}, B at ×{sb:g}; both read as the "
                         "modelled node, but the client's own overhead scales with S (compare cells of one scale)")
    qa = ma["protocol"] if isinstance(ma.get("protocol"), dict) else None
    qb = mb["protocol"] if isinstance(mb.get("protocol"), dict) else None
    if qa is None or qb is None:
        raise ValueError(f"cannot compare: {(a_dir if qa is None else b_dir).name} records no protocol "
                         f"(prompt set {pa.get('name')} sha256 {_short(ha)} on both)")
    diffs = []
    for k in PROTOCOL_KEYS:
        va, vb = qa.get(k, PROTOCOL_DEFAULTS.get(k)), qb.get(k, PROTOCOL_DEFAULTS.get(k))
        if k == "temperature" and isinstance(va, (int, float)) and isinstance(vb, (int, float)):
            same = abs(float(va) - float(vb)) < 1e-9
        else:
            same = va == vb
        if not same:
            diffs.append(f"{k} {va} vs {vb}")
    if diffs:
        raise ValueError(f"cannot compare: protocols differ — {', '.join(diffs)} (A vs B; same prompt set "
                         f"{pa.get('name')} sha256 {_short(ha)}); only n may differ")
    return ma, mb


def compare_cells(a_dir: Path, b_dir: Path, seed: int = 0, *, a_name: str = "A", b_name: str = "B",
                  n_boot: int | None = None) -> PairStats:
    """B vs A from the two cells' rows: both medians with n and p10/p90, Δ% = median(B)/median(A) − 1 with the
    seeded bootstrap 95% CI of `pairs.bootstrap_ratio`, and the verdict. Refuses (ValueError, one line) unless
    the cells share the prompt-set SHA-256 and the protocol (`check_comparable`)."""
    ma, mb = check_comparable(a_dir, b_dir)
    kw: dict[str, Any] = {} if n_boot is None else {"n_boot": n_boot}
    ps = pair_stats([load_rows(Path(a_dir))], [load_rows(Path(b_dir))], order="AB", seed=seed, a_name=a_name,
                    b_name=b_name, a_ndt=_ndt(ma), b_ndt=_ndt(mb), a_kv=ma.get("kv_capacity_tokens"),
                    b_kv=mb.get("kv_capacity_tokens"), usd_per_hour=ma.get("node_usd_per_hour"), **kw)
    return ps


def comparison_caveats(a_dir: Path, b_dir: Path) -> list[str]:
    """What a comparison of two cells does not control, one line each (empty for a clean same-session pair)."""
    a_dir, b_dir = Path(a_dir), Path(b_dir)
    out = []
    if a_dir.resolve().parent != b_dir.resolve().parent:
        out.append("cells from different sessions: node draws (~±5%) and drift are not controlled — a same-session "
                   "pair (A B A) is the defensible comparison")
        ha = (_read(a_dir.parent / "session.json")[0] or {}).get("node", {}) or {}
        hb = (_read(b_dir.parent / "session.json")[0] or {}).get("node", {}) or {}
        if ha.get("hostname") and hb.get("hostname") and ha.get("hostname") != hb.get("hostname"):
            out.append(f"different nodes: {ha.get('hostname')} vs {hb.get('hostname')}")
    ma, mb = (_read(a_dir / "manifest.json")[0] or {}), (_read(b_dir / "manifest.json")[0] or {})
    if ma.get("engine_version") != mb.get("engine_version"):
        out.append(f"engine versions differ: {ma.get('engine_version')} vs {mb.get('engine_version')}")
    if not ma.get("complete") or not mb.get("complete"):
        out.append("an incomplete cell is compared (interrupted or still running)")
    return out


# --- forecast from a cell on disk ------------------------------------------------------------------

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
    m, _ = _read(cell_dir / "manifest.json")
    if not isinstance(m, dict) or not _spec_on(m.get("speculative")):
        return None, ""
    fam = _depth_of(m["speculative"])[0]
    sha = (m.get("prompt_set") or {}).get("sha256")
    cells: list[tuple[int, list[float]]] = []
    for c in sorted(x for x in cell_dir.parent.glob("cell-*") if x.is_dir()):
        mc, _ = _read(c / "manifest.json")
        if not isinstance(mc, dict) or not _spec_on(mc.get("speculative")):
            continue
        if _depth_of(mc["speculative"])[0] != fam or (mc.get("prompt_set") or {}).get("sha256") != sha:
            continue
        try:
            check_comparable(cell_dir, c) if c.resolve() != cell_dir.resolve() else None
        except ValueError:
            continue
        ndt = _ndt(mc)
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
            m, _ = _read(cell_dir / "manifest.json")
            probed = session_probe(cell_dir, arm_of(m).to_json())
        fitted = session_tax(cell_dir)
        tax = choose_verify_tax(probed, fitted)
        mf, _ = _read(cell_dir / "manifest.json")
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


def utc_now() -> datetime:
    return datetime.fromtimestamp(time.time(), tz=UTC)


__all__ = ["CellEntry", "PairEntry", "SessionSummary", "list_sessions", "read_session", "read_cell", "read_pair",
           "read_pairs", "report_path_of",
           "compare_cells", "check_comparable", "pair_missing_legs", "comparison_caveats", "cell_forecast",
           "CellForecast", "default_depths", "session_tax", "ago", "local_time", "spec_label", "utc_now"]
