"""Browsing recorded sessions (docs/architecture.md#sessions-on-disk): what is on disk, newest first. Comparing two
cells is compare.py; the depth forecast from a cell on disk is forecasts.py.

    list_sessions(root)        every session under `root`, newest first, with its cells (label, n, median tok/s,
                               τ, prompt set + SHA-256, complete) and its pairs' verdicts (pair.json, pair-2.json …);
                               a torn or missing file marks the entry (`problem`) instead of hiding it
Listing figures come from a cell's `summary.json` when it is at least as new as `rows.jsonl` (written from the
rows when the cell ended), otherwise they are recomputed from the rows; reports and comparisons always recompute.
No Textual here: the TUI's sessions browser and forecast screen are layouts over these results.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeGuard

from console.core.arm import Arm
from console.core.measure import stats
from console.core.sessions.pairs import pair_files
from console.core.sessions.store import load_rows

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
    failed_launch: dict[str, Any] | None = None
    """The last launch that died before ready ({profile, error, log, utc}), as the runtime recorded it."""

    @property
    def name(self) -> str:
        return self.dir.name

    @property
    def only_a_failed_launch(self) -> bool:
        """Nothing recorded but a launch that never became ready (its engine log kept, where the error names it):
        listed as a failed launch, not as a session."""
        return self.failed_launch is not None and not self.cells and not self.pairs

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


def read_doc(path: Path) -> tuple[Any, str | None]:
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


def spec_on(spec: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(spec, dict) and bool(spec.get("algorithm")) and str(spec.get("algorithm")).upper() != "NONE"


def draft_tokens_of(manifest: dict[str, Any]) -> int | None:
    spec = manifest.get("speculative")
    return spec.get("num_draft_tokens") if spec_on(spec) else None


def _figures(cell_dir: Path, ndt: int | None) -> tuple[dict[str, Any] | None, str]:
    rows_p, sum_p = cell_dir / "rows.jsonl", cell_dir / "summary.json"
    if sum_p.exists() and (not rows_p.exists() or sum_p.stat().st_mtime >= rows_p.stat().st_mtime):
        d, _ = read_doc(sum_p)
        if isinstance(d, dict) and "median_tok_s" in d:
            return d, "summary"
    if not rows_p.exists():
        return None, "rows"
    return stats.summarize(load_rows(cell_dir), num_draft_tokens=ndt).to_json(), "rows"


def read_cell(cell_dir: Path) -> CellEntry:
    """The listing entry of one cell directory; never raises on a torn or missing file."""
    cell_dir = Path(cell_dir)
    e = CellEntry(dir=cell_dir, label=cell_dir.name)
    m, problem = read_doc(cell_dir / "manifest.json")
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
        fig, e.figures_from = _figures(cell_dir, draft_tokens_of(m))
    except (OSError, ValueError, TypeError) as ex:
        fig = None
        e.problem = e.problem or f"rows unreadable ({type(ex).__name__})"
    if fig is None:
        e.problem = e.problem or "no rows yet"
    else:
        e.n, e.n_ok, e.n_included = int(fig.get("n") or 0), int(fig.get("n_ok") or 0), int(fig.get("n_included") or 0)
        e.median_tok_s, e.p10_tok_s, e.p90_tok_s = fig.get("median_tok_s"), fig.get("p10_tok_s"), fig.get("p90_tok_s")
        e.tau = fig.get("tau") if (spec_on(m.get("speculative")) or not m) else None
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
    doc, problem = read_doc(p)
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
    meta, problem = read_doc(d / "session.json")
    if not isinstance(meta, dict):
        meta = {}
    slug = meta.get("slug") or (d.name.split("-", 1)[1] if "-" in d.name else d.name)
    s = SessionSummary(dir=d, created=_created(d, meta), slug=str(slug), problem=problem if not meta else None)
    node = meta["node"] if isinstance(meta.get("node"), dict) else {}
    s.hostname = node.get("hostname")
    s.engine_version = meta.get("engine_version") or node.get("engine_version")
    s.attached = meta.get("attached")
    fl = meta.get("failed_launch")
    s.failed_launch = fl if isinstance(fl, dict) else None
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


def utc_now() -> datetime:
    return datetime.fromtimestamp(time.time(), tz=UTC)


__all__ = ["CellEntry", "PairEntry", "SessionSummary", "list_sessions", "read_session", "read_cell", "read_pair",
           "read_pairs", "report_path_of", "pair_missing_legs", "ago", "local_time", "spec_label", "arm_of", "utc_now"]
