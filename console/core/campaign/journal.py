"""A campaign on disk (docs/campaigns.md#on-disk). Everything is append-only evidence:

    <sessions>/<UTC stamp>-campaign-<name>/
        campaign.json        written once at the start: plan name, nodes, arms (with their profile files), the
                             cell keys in run order, twin time scale and arguments
        plan.toml            the plan's bytes as given
        arms/<arm>.toml      each arm's profile as resolved when the campaign started (a resume launches these)
        journal.jsonl        one event a line, appended and fsync'ed: start, resume, launch, ready, anchor,
                             forecast (before a cell runs), cell_start, cell_done, skip, done
        node-<name>/         one session per node (session.json, engine logs, cell-NNN-*/ as every session)
            cell-NNN-*/kv-samples.jsonl   /metrics sampled during the cell (KV usage, queue), appended

A cell is found by its manifest label `sweep <key>`; the disk, not the journal, says whether it is complete (a
kill -9 between a cell's end and its journal line loses nothing).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from console.core.campaign.plan import key_of_label
from console.core.fmt import utc_iso
from console.core.redaction import redact_mapping
from console.core.sessions.store import read_json, write_json

CAMPAIGN_FILE = "campaign.json"
JOURNAL_FILE = "journal.jsonl"
SAMPLES_FILE = "kv-samples.jsonl"
SCHEMA = 1


def is_campaign(d: Path) -> bool:
    return (Path(d) / CAMPAIGN_FILE).exists()


def append_line(path: Path, obj: dict[str, Any]) -> None:
    """One JSON line, flushed and fsync'ed; a torn last line from a crash is ended first so this one stays whole."""
    line = json.dumps(redact_mapping(obj), ensure_ascii=False, separators=(",", ":"), default=str)
    with open(path, "a+b") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
        f.write(line.encode("utf-8") + b"\n")
        f.flush()
        os.fsync(f.fileno())


def read_lines(path: Path) -> list[dict[str, Any]]:
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for ln in f:
                try:
                    d = json.loads(ln)
                except ValueError:
                    continue  # a torn line
                if isinstance(d, dict):
                    out.append(d)
    except OSError:
        pass
    return out


class Journal:
    def __init__(self, campaign_dir: Path) -> None:
        self.dir = Path(campaign_dir)
        self.path = self.dir / JOURNAL_FILE

    def write(self, ev: str, **data: Any) -> None:
        append_line(self.path, {"utc": utc_iso(), "t": time.time(), "ev": ev, **data})

    def events(self) -> list[dict[str, Any]]:
        return read_lines(self.path)


def campaign_doc(d: Path) -> dict[str, Any]:
    return read_json(Path(d) / CAMPAIGN_FILE)


def write_campaign_doc(d: Path, doc: dict[str, Any]) -> None:
    path = Path(d) / CAMPAIGN_FILE
    if path.exists():
        raise FileExistsError(f"{path} exists: a campaign's record is written once")
    write_json(path, redact_mapping(doc))


def node_dirs(d: Path) -> dict[str, Path]:
    return {p.name[len("node-"):]: p for p in sorted(Path(d).glob("node-*")) if p.is_dir()}


def iter_sweep_cells(node_dir: Path) -> Iterator[tuple[str, Path, dict[str, Any]]]:
    """(key, cell dir, manifest) of the node's sweep cells, in recording order."""
    for c in sorted(Path(node_dir).glob("cell-*")):
        mp = c / "manifest.json"
        if not mp.exists():
            continue
        try:
            m = read_json(mp)
        except (OSError, ValueError):
            continue
        k = key_of_label(m.get("label"))
        if k is not None:
            yield k, c, m


def cell_state(node_dir: Path) -> dict[str, tuple[Path, dict[str, Any]]]:
    """Per key, the cell that speaks for it: the complete one, else the latest incomplete (a resume continues it)."""
    out: dict[str, tuple[Path, dict[str, Any]]] = {}
    for k, c, m in iter_sweep_cells(node_dir):
        prev = out.get(k)
        if prev is not None and prev[1].get("complete") is True:
            continue
        out[k] = (c, m)
    return out
