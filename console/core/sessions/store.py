"""Durable session store (docs/architecture.md#sessions-on-disk).

    sessions/<UTC timestamp>-<slug>/
        session.json                 schema version, node fingerprint, console version, started
        engine-<n>.log               the engine's stdout+stderr per launch
        cell-<nnn>-<slug>/
            manifest.json            profile, resolved /server_info args, redacted argv, prompt-set SHA-256,
                                     protocol, anchor, start/end
            rows.jsonl               one finished request a line, appended, flushed and fsync'ed as it finishes
            summary.json             figures at the end of the cell (recomputable from rows.jsonl)

Nothing finished is ever rewritten: rows are append-only, and a torn last line (a crash mid-write) is
ignored on read. Secrets are redacted before anything reaches disk.
"""

from __future__ import annotations

import json
import os
import platform
import re
import socket
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console import __version__
from console.core import places
from console.core.fmt import utc_stamp
from console.core.measure.records import RequestRecord
from console.core.redaction import redact_mapping

SESSION_SCHEMA = 1


def slugify(s: str, limit: int = 40) -> str:
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", s).strip("-").lower()
    return s[:limit] or "x"


def write_json(path: Path, obj: Any) -> None:
    """Atomic write (tmp + rename) so a crash never leaves a half-written manifest."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=False, default=str)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    return json.loads(Path(path).read_text())


def node_fingerprint(gpu_snapshot: Any = None, engine_version: str | None = None) -> dict[str, Any]:
    gpus = []
    driver = None
    state = None
    if gpu_snapshot is not None:
        state = gpu_snapshot.state
        driver = gpu_snapshot.driver_version
        gpus = [{"index": g.index, "name": g.name, "uuid": g.uuid, "mem_total_gib": g.mem_total_gib}
                for g in gpu_snapshot.gpus]
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "gpu_state": state,
        "driver_version": driver,
        "gpus": gpus,
        "engine_version": engine_version,
        "console_version": __version__,
    }


@dataclass
class CellWriter:
    """Appends finished rows to `rows.jsonl`, one JSON object a line, flushed and fsync'ed each."""

    dir: Path

    @property
    def rows_path(self) -> Path:
        return self.dir / "rows.jsonl"

    @property
    def manifest_path(self) -> Path:
        return self.dir / "manifest.json"

    def append(self, rec: RequestRecord) -> None:
        line = json.dumps(redact_mapping(rec.to_json()), ensure_ascii=False, separators=(",", ":"))
        with open(self.rows_path, "a+b") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() > 0:
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":  # a torn last line from a crash: end it, so this row stays readable
                    f.write(b"\n")
            f.write(line.encode("utf-8") + b"\n")
            f.flush()
            os.fsync(f.fileno())

    def append_interrupted(self, rec: RequestRecord) -> None:
        """A request the engine's death cut mid-stream: kept as evidence in interrupted.jsonl (not a row of the
        cell; a resume sends it again)."""
        line = json.dumps(redact_mapping(rec.to_json()), ensure_ascii=False, separators=(",", ":"))
        with open(self.dir / "interrupted.jsonl", "a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_json(self.manifest_path, redact_mapping(manifest))

    def update_manifest(self, **changes: Any) -> None:
        m = read_json(self.manifest_path) if self.manifest_path.exists() else {}
        m.update(changes)
        self.write_manifest(m)

    def write_summary(self, summary: dict[str, Any]) -> None:
        write_json(self.dir / "summary.json", summary)


def load_rows(cell_dir: Path) -> list[RequestRecord]:
    """Rows of a cell, one per request id: a torn (partial) line from a crash is skipped, never fatal, and a
    request retried by a resume (its first attempt cut by a transport failure) counts once, as its last row.
    A row of schema 1 (no `time_scale` of its own) takes the manifest's twin time scale."""
    path = Path(cell_dir) / "rows.jsonl"
    if not path.exists():
        return []
    scale: float | None = None
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                d = json.loads(line)
                rec = RequestRecord.from_json(d)
            except (ValueError, TypeError):
                continue
            if "time_scale" not in d:
                if scale is None:
                    scale = _manifest_time_scale(Path(cell_dir))
                rec.time_scale = scale
            rows.append(rec)
    last = {r.request_id: i for i, r in enumerate(rows)}
    return [r for i, r in enumerate(rows) if last[r.request_id] == i]


def _manifest_time_scale(cell_dir: Path) -> float:
    try:
        ts = read_json(cell_dir / "manifest.json").get("sim_time_scale")
    except (OSError, ValueError):
        return 1.0
    return float(ts) if isinstance(ts, (int, float)) and ts > 0 else 1.0


def new_folder(root: Path, base: str) -> Path:
    """A new folder `root/base` (or `base-2`, `base-3`, … when that exists): recorded folders are never reused."""
    root.mkdir(parents=True, exist_ok=True)
    d, i = root / base, 1
    while True:
        try:
            d.mkdir()
            return d
        except FileExistsError:
            i += 1
            d = root / f"{base}-{i}"


class Session:
    def __init__(self, dir: Path) -> None:
        self.dir = Path(dir)

    @property
    def meta_path(self) -> Path:
        return self.dir / "session.json"

    @classmethod
    def create(cls, root: Path, slug: str, fingerprint: dict[str, Any]) -> Session:
        d = new_folder(root, f"{utc_stamp()}-{slugify(slug)}")
        s = cls(d)
        write_json(s.meta_path, {"schema": SESSION_SCHEMA, "created_utc": utc_stamp(), "slug": slug,
                                 "node": fingerprint, "arms": []})
        return s

    def meta(self) -> dict[str, Any]:
        return read_json(self.meta_path)

    def update_meta(self, **changes: Any) -> None:
        m = self.meta()
        m.update(changes)
        write_json(self.meta_path, redact_mapping(m))

    def add_arm(self, arm: dict[str, Any]) -> None:
        m = self.meta()
        m.setdefault("arms", []).append(redact_mapping(arm))
        write_json(self.meta_path, m)

    def cells(self) -> list[Path]:
        return sorted(p for p in self.dir.glob("cell-*") if p.is_dir())

    def new_cell(self, slug: str, parent: Path | None = None) -> CellWriter:
        """A new cell directory in the session, or in `parent` (a probe directory inside it)."""
        where = Path(parent) if parent is not None else self.dir
        n = len([p for p in where.glob("cell-*") if p.is_dir()]) + 1
        d = where / f"cell-{n:03d}-{slugify(slug)}"
        d.mkdir()
        return CellWriter(d)

    def discard_if_empty(self) -> bool:
        """Remove the session folder when nothing was recorded in it (only its session.json): a failed attach or
        a refused launch leaves no clutter. A folder with anything else in it (an engine log, a cell) is kept."""
        try:
            entries = list(self.dir.iterdir())
        except OSError:
            return False
        if any(e.name != "session.json" for e in entries):
            return False
        for e in entries:
            e.unlink()
        self.dir.rmdir()
        return True

    def engine_log_path(self) -> Path:
        n = len(list(self.dir.glob("engine-*.log"))) + 1
        return self.dir / f"engine-{n}.log"


def sessions_root() -> Path:
    """$SERVING_CONSOLE_SESSIONS, else ./sessions (core/places.py; a command's --sessions comes first)."""
    return places.sessions_dir()


def find_cells(path: Path) -> list[Path]:
    """Every measurement cell under `path` at any depth (a sessions root, a session, a campaign and its nodes, or a
    cell itself), sorted; never the legs inside a verify-tax probe (random draft weights: no workload's acceptance)."""
    p = Path(path)
    if (p / "manifest.json").exists() and (p / "rows.jsonl").exists():
        return [p]
    out = []
    for m in p.rglob("manifest.json"):
        d = m.parent
        if (d / "rows.jsonl").exists() and not any(part.startswith("probe-") for part in d.relative_to(p).parts):
            out.append(d)
    return sorted(out)


def iter_cells(path: Path) -> Iterable[Path]:
    """Cell directories under a session dir, or the path itself if it is a cell."""
    p = Path(path)
    if (p / "manifest.json").exists() or (p / "rows.jsonl").exists():
        yield p
        return
    yield from sorted(x for x in p.glob("cell-*") if x.is_dir())
