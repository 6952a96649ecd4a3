"""Offline material for the `code` and `chat` sets: files of pinned distributions, committed in the repository.

The builder never reads what happens to be installed: every file it quotes lies under `prompt-material/`,
as `DIST==VERSION/PATH` (the path relative to the distribution's install root, exactly as its wheel ships it),
and `prompt-material/MANIFEST` pins each file's SHA-256. So `prompts build` reproduces the committed sets
byte for byte on any machine, whatever the registry serves today. Files are read as UTF-8 with newlines
normalised and named in a prompt's provenance by distribution, version, path and SHA-256 of the bytes read.

`PINS` is the version of each distribution the material was taken from; changing one means vendoring that
version's files (prompt-material/README.md says how) and rebuilding deliberately.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from console.core.workload.prompts import PromptSetError

# Distribution versions the committed material was taken from (its folder names under prompt-material/).
PINS: dict[str, str] = {
    "textual": "8.2.8",
    "rich": "15.0.0",
    "httpx": "0.28.1",
    "numpy": "2.4.6",
    "openai": "3.57.0",
    "pydantic": "2.14.4",
    "fastapi": "0.165.0",
    "starlette": "1.10.0",
    "uvicorn": "0.54.0",
    "httpcore": "1.0.9",
    "h11": "0.16.0",
    "anyio": "4.16.0",
    "idna": "3.20",
    "certifi": "2026.10.19.post1",
    "typing_extensions": "4.16.0",
    "prometheus_client": "0.26.0",
    "markdown-it-py": "4.3.0",
    "platformdirs": "4.14.8",
    "pygments": "2.21.0",
    "click": "8.5.1",
    "jiter": "0.19.0",
    "annotated-types": "0.8.0",
    "pydantic_core": "2.50.5",
    "mdurl": "0.1.2",
    "linkify-it-py": "2.2.0",
    "mdit-py-plugins": "0.7.0",
    "typing-inspection": "0.4.5",
    "annotated-doc": "0.0.7",
    "sniffio": "1.3.1",
    "bpe-openai": "0.1.4",
    "httpx2": "2.16.2",
    "httpcore2": "2.16.2",
    "nvidia-ml-py": "13.615.71",
}

MANIFEST = "MANIFEST"


def material_dir() -> Path:
    """`prompt-material/` of the checkout (the material is the builder's input, not package data)."""
    return Path(__file__).resolve().parents[2] / "prompt-material"


class MaterialError(PromptSetError):
    """Material missing, unreadable or edited (one line naming the distribution and file)."""


@dataclass(frozen=True)
class Source:
    package: str
    version: str
    path: str
    text: str
    sha256: str

    def provenance(self, **extra: object) -> dict[str, object]:
        return {"package": self.package, "version": self.version, "path": self.path, "sha256": self.sha256,
                **extra}


def _key(package: str, path: str) -> str:
    return f"{package}=={PINS[package]}/{path}"


@lru_cache(maxsize=4)
def manifest(root: Path | None = None) -> dict[str, str]:
    """`DIST==VERSION/PATH` -> SHA-256 of every vendored file."""
    root = root or material_dir()
    path = root / MANIFEST
    try:
        lines = path.read_text().splitlines()
    except OSError:
        raise MaterialError(f"{path}: missing; the prompt material is part of the repository "
                            "(prompt-material/README.md)") from None
    out = {}
    for i, ln in enumerate(lines, 1):
        if not ln.strip() or ln.startswith("#"):
            continue
        digest, _, key = ln.partition("  ")
        if len(digest) != 64 or not key:
            raise MaterialError(f"{path}:{i}: expected 'SHA256  DIST==VERSION/PATH'")
        out[key] = digest
    return out


def write_manifest(root: Path | None = None) -> Path:
    """Re-pin every file under the material folder (after vendoring a new version deliberately)."""
    root = root or material_dir()
    keys = sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.is_file() and len(p.relative_to(root).parts) > 1 and "==" in p.relative_to(root).parts[0])
    lines = [f"{hashlib.sha256((root / k).read_bytes()).hexdigest()}  {k}" for k in keys]
    (root / MANIFEST).write_text("# SHA-256 of every vendored material file; prompt-material/README.md\n"
                                 + "\n".join(lines) + "\n")
    manifest.cache_clear()
    return root / MANIFEST


@cache
def read(package: str, path: str, root: Path | None = None) -> Source:
    """The text of `path` (relative to the install root, e.g. `textual/widget.py`) of `package` at its pin."""
    root = root or material_dir()
    if package not in PINS:
        raise MaterialError(f"material package {package!r} has no pinned version in material_source.PINS")
    key = _key(package, path)
    file = root / key
    want = manifest(root).get(key)
    if want is None:
        raise MaterialError(f"{root / MANIFEST}: no entry for {key}; vendor it (prompt-material/README.md)")
    try:
        raw = file.read_bytes()
    except OSError as e:
        raise MaterialError(f"{file}: cannot read ({e.strerror})") from None
    digest = hashlib.sha256(raw).hexdigest()
    if digest != want:
        raise MaterialError(f"{file}: SHA-256 {digest[:12]}… does not match {want[:12]}… pinned in "
                            f"{root / MANIFEST}; restore it from git")
    text = raw.decode("utf-8").replace("\r\n", "\n")
    return Source(package, PINS[package], path, text, digest)


def dist_info(package: str, name: str, root: Path | None = None) -> str:
    """Path (relative to the install root) of `name` inside the distribution's `.dist-info` directory."""
    root = root or material_dir()
    prefix = f"{package}=={PINS.get(package, '?')}/"
    tops = sorted({k[len(prefix):].split("/", 1)[0] for k in manifest(root) if k.startswith(prefix)})
    for top in tops:
        if top.endswith(".dist-info") and f"{prefix}{top}/{name}" in manifest(root):
            return f"{top}/{name}"
    raise MaterialError(f"{root}: no {name} of {package} {PINS.get(package, '?')} vendored in its .dist-info")


def readme(package: str) -> Source:
    """The long description (README) of a distribution: the METADATA body after the header block."""
    src = read(package, dist_info(package, "METADATA"))
    body = src.text.split("\n\n", 1)[1] if "\n\n" in src.text else ""
    return Source(src.package, src.version, src.path, body, src.sha256)
