"""Offline material for the `code` and `chat` sets: files shipped by installed distributions.

Files are located through `importlib.metadata` (never imported), read as UTF-8 with newlines normalised, and
named in a prompt's provenance by distribution, version, path relative to the install root, and SHA-256 of the
bytes read. The builder pins the versions it was committed against (`PINS`); building against other versions
(or another platform's wheel) would produce other bytes, so `mismatches` says which pins do not hold.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata

from console.core.workload.prompts import PromptSetError

# Distribution versions the committed sets were built from. Changing one changes the bytes of every set that
# reads from it; rebuild deliberately and re-pin (`serving-console prompts build`).
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


class MaterialError(PromptSetError):
    """Material missing or unreadable (one line naming the distribution and file)."""


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


def installed_version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def mismatches(packages: list[str] | set[str]) -> list[str]:
    """`"numpy 2.4.6 pinned, 2.3.1 installed"` for every package whose installed version is not the pinned one."""
    out = []
    for p in sorted(set(packages)):
        have = installed_version(p)
        if have != PINS[p]:
            out.append(f"{p} {PINS[p]} pinned, {have or 'not'} installed")
    return out


@lru_cache(maxsize=None)
def read(package: str, path: str) -> Source:
    """The text of `path` (relative to the install root, e.g. `textual/widget.py`) shipped by `package`."""
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        raise MaterialError(f"material package {package!r} is not installed (needed for {path})") from None
    try:
        raw = dist.locate_file(path).read_bytes()  # type: ignore[union-attr]
    except OSError as e:
        raise MaterialError(f"{package} {dist.version}: cannot read {path} ({e.strerror})") from None
    text = raw.decode("utf-8").replace("\r\n", "\n")
    return Source(package, dist.version, path, text, hashlib.sha256(raw).hexdigest())


def dist_info(package: str, name: str) -> str:
    """Path (relative to the install root) of `name` inside the distribution's `.dist-info` directory."""
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        raise MaterialError(f"material package {package!r} is not installed (needed for {name})") from None
    files = {str(f) for f in dist.files or ()}
    for top in sorted({f.split("/", 1)[0] for f in files if f.split("/", 1)[0].endswith(".dist-info")}):
        if f"{top}/{name}" in files:
            return f"{top}/{name}"
    raise MaterialError(f"{package} {dist.version}: no {name} in its .dist-info")


def readme(package: str) -> Source:
    """The long description (README) of a distribution: the METADATA body after the header block."""
    src = read(package, dist_info(package, "METADATA"))
    body = src.text.split("\n\n", 1)[1] if "\n\n" in src.text else ""
    return Source(src.package, src.version, src.path, body, src.sha256)
