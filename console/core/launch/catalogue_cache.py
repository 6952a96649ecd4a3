"""The target engine's flag catalogue: introspected in the engine's own interpreter, cached per version.

`resolve_catalogue(python)` answers "which flags does the sglang behind this interpreter accept?":

1. `sim` (the twin) parses with the pinned 0.5.23 catalogue, so that is the answer.
2. Otherwise a cheap probe runs in `<python>` (`importlib.metadata` + `find_spec`, no sglang import): which sglang
   version is installed, where, and when it was installed.
3. A cached catalogue is used when its key matches: interpreter path, the interpreter's mtime, sys.prefix, the
   sglang version and the mtime of its install (dist-info). A reinstall or upgrade changes the key.
4. Else `<python> -c INTROSPECT_SCRIPT` runs (imports `sglang.srt.server_args`, which needs torch there), with a
   timeout; its JSON is cached under `<cache>/catalogues/sglang-<version>-<interpreter hash>.json`.
5. When any step is impossible (no such interpreter, no sglang, no torch, a timeout, bad output) the pinned
   catalogue is used and `reason` says why, in one line.

The console never imports sglang itself: everything engine-side runs in a subprocess.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.core.launch.flags import INTROSPECT_SCRIPT, FlagCatalogue, pinned_catalogue
from console.core.launch.profile import SIM_ENGINE

CACHE_FORMAT = 1
PROBE_TIMEOUT_S = 30.0
INTROSPECT_TIMEOUT_S = 180.0
"""Importing torch + sglang on a cold node can take a minute; `$SERVING_CONSOLE_INTROSPECT_TIMEOUT` overrides."""

# Runs in the engine's interpreter. Locates sglang without importing it (no torch needed).
PROBE_SCRIPT = r"""
import json, os, sys
out = {"executable": sys.executable, "prefix": sys.prefix, "python": sys.version.split()[0],
       "version": None, "location": None, "install_mtime_ns": None}
try:
    import importlib.metadata as md, importlib.util as iu
    try:
        dist = md.distribution("sglang")
        out["version"] = dist.version
        p = getattr(dist, "_path", None)
        if p is not None:
            out["install_mtime_ns"] = os.stat(p).st_mtime_ns
    except md.PackageNotFoundError:
        pass
    spec = iu.find_spec("sglang")
    if spec is not None and spec.origin:
        out["location"] = os.path.dirname(spec.origin)
        if out["install_mtime_ns"] is None:
            out["install_mtime_ns"] = os.stat(spec.origin).st_mtime_ns
except Exception as e:
    out["error"] = type(e).__name__ + ": " + str(e)
print(json.dumps(out))
"""

Runner = Callable[..., subprocess.CompletedProcess]


@dataclass
class CatalogueResolution:
    catalogue: FlagCatalogue
    source: str
    """'introspected' (just now), 'cache' (an earlier introspection, key unchanged), 'pinned' (fallback) or 'given'."""
    reason: str
    """One line: why this catalogue (and, for a fallback, why introspection was impossible)."""
    python: str | None = None
    """The interpreter as resolved (absolute path), when there was one."""
    installed_version: str | None = None
    """The sglang version the probe found in that interpreter (None when unknown)."""
    cache_path: Path | None = None

    @property
    def label(self) -> str:
        v = self.catalogue.version
        if self.source == "introspected":
            return f"the sglang {v} flag catalogue introspected from {self.python}"
        if self.source == "cache":
            return f"the sglang {v} flag catalogue of {self.python} (cached)"
        if self.source == "given":
            return f"the {self.catalogue.source} flag catalogue"
        return f"the pinned sglang {v} flag catalogue"


def default_cache_dir() -> Path:
    """`$SERVING_CONSOLE_CACHE_DIR`, else `$XDG_CACHE_HOME/serving-console`, else ~/.cache/serving-console."""
    env = os.environ.get("SERVING_CONSOLE_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "serving-console"


def _last_json_line(text: str) -> dict[str, Any] | None:
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                v = json.loads(line)
            except ValueError:
                return None
            return v if isinstance(v, dict) else None
    return None


def _why(proc: subprocess.CompletedProcess) -> str:
    """The last meaningful stderr line (the exception), for a one-line reason."""
    lines = [ln.strip() for ln in (proc.stderr or "").splitlines() if ln.strip()]
    exc = [ln for ln in lines if ("Error" in ln or "Exception" in ln) and not ln.startswith("File ")]
    text = (exc or lines or [f"exit code {proc.returncode}"])[-1]
    return text[:240]


def _locate(python: str) -> str | None:
    if os.sep in python or python.startswith("."):
        p = Path(os.path.expanduser(python))
        return str(p.absolute()) if p.is_file() and os.access(p, os.X_OK) else None
    found = shutil.which(python)
    return str(Path(found).absolute()) if found else None


def _run(runner: Runner, argv: list[str], timeout: float, env: dict[str, str] | None) -> subprocess.CompletedProcess:
    return runner(argv, capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)


def cache_key(python: str, probe: dict[str, Any]) -> dict[str, Any]:
    try:
        py_mtime = os.stat(python).st_mtime_ns
    except OSError:
        py_mtime = None
    return {"format": CACHE_FORMAT, "python": python, "python_mtime_ns": py_mtime,
            "prefix": probe.get("prefix"), "sglang_version": probe.get("version"),
            "sglang_location": probe.get("location"), "sglang_install_mtime_ns": probe.get("install_mtime_ns")}


def cache_file(cache_dir: Path, python: str, version: str) -> Path:
    h = hashlib.sha256(python.encode()).hexdigest()[:10]
    safe = "".join(ch if ch.isalnum() or ch in ".-_+" else "_" for ch in version)
    return cache_dir / "catalogues" / f"sglang-{safe}-{h}.json"


def _read_cache(path: Path, key: dict[str, Any]) -> FlagCatalogue | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("catalogue"), dict):
        return None
    try:
        return FlagCatalogue.from_json(data["catalogue"], source=f"cache {path}")
    except (KeyError, TypeError, ValueError):
        return None


def _write_cache(path: Path, key: dict[str, Any], catalogue: dict[str, Any]) -> str | None:
    """Atomic write; returns None, or one line saying why the cache could not be written (not fatal)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump({"key": key, "catalogue": catalogue}, f)
        os.replace(tmp, path)
        return None
    except OSError as e:
        return f"catalogue cache not written ({e.strerror or e})"


def _pinned(reason: str, python: str | None = None, installed: str | None = None) -> CatalogueResolution:
    return CatalogueResolution(pinned_catalogue(), "pinned", reason, python=python, installed_version=installed)


def resolve_catalogue(python: str, *, cache_dir: Path | None = None, env: dict[str, str] | None = None,
                      timeout_s: float | None = None, runner: Runner = subprocess.run,
                      use_cache: bool = True) -> CatalogueResolution:
    """The flag catalogue of the sglang behind `python` (see the module docstring). Never raises."""
    if python == SIM_ENGINE:
        return _pinned("engine.python is 'sim': the twin parses its argv with the pinned catalogue")
    exe = _locate(python)
    if exe is None:
        return _pinned(f"engine.python {python!r} is not an executable here, so its sglang cannot be introspected")
    full_env = {**os.environ, **(env or {})}
    try:
        proc = _run(runner, [exe, "-c", PROBE_SCRIPT], PROBE_TIMEOUT_S, full_env)
    except subprocess.TimeoutExpired:
        return _pinned(f"{exe} did not answer the sglang probe within {PROBE_TIMEOUT_S:.0f} s", exe)
    except OSError as e:
        return _pinned(f"cannot run {exe} ({e.strerror or e})", exe)
    probe = _last_json_line(proc.stdout or "")
    if proc.returncode != 0 or probe is None:
        return _pinned(f"the sglang probe failed in {exe}: {_why(proc)}", exe)
    version = probe.get("version")
    if not version and not probe.get("location"):
        return _pinned(f"sglang is not installed in {exe}", exe)
    version = str(version or "unknown")
    key = cache_key(exe, probe)
    cdir = cache_dir or default_cache_dir()
    path = cache_file(cdir, exe, version)
    if use_cache:
        cached = _read_cache(path, key)
        if cached is not None:
            return CatalogueResolution(cached, "cache", f"cached introspection of sglang {version} in {exe} ({path})",
                                       python=exe, installed_version=version, cache_path=path)
    if timeout_s is None:
        try:
            timeout_s = float(os.environ.get("SERVING_CONSOLE_INTROSPECT_TIMEOUT", INTROSPECT_TIMEOUT_S))
        except ValueError:
            timeout_s = INTROSPECT_TIMEOUT_S
    try:
        proc = _run(runner, [exe, "-c", INTROSPECT_SCRIPT], timeout_s, full_env)
    except subprocess.TimeoutExpired:
        return _pinned(f"introspecting sglang {version} in {exe} took over {timeout_s:.0f} s "
                       "(raise $SERVING_CONSOLE_INTROSPECT_TIMEOUT)", exe, version)
    except OSError as e:
        return _pinned(f"cannot run {exe} ({e.strerror or e})", exe, version)
    data = _last_json_line(proc.stdout or "")
    if proc.returncode != 0 or data is None:
        hint = " (introspection imports sglang.srt.server_args, which needs torch in that interpreter)" \
            if "torch" in (proc.stderr or "") else ""
        return _pinned(f"introspecting sglang {version} in {exe} failed: {_why(proc)}{hint}", exe, version)
    if data.get("version") in (None, "", "unknown"):
        data["version"] = version
    try:
        cat = FlagCatalogue.from_json(data, source=f"introspected {exe}")
    except (KeyError, TypeError, ValueError) as e:
        return _pinned(f"introspection output of {exe} is not a flag catalogue ({type(e).__name__}: {e})", exe, version)
    if not cat.options:
        return _pinned(f"introspection of {exe} listed no flags", exe, version)
    note = _write_cache(path, key, data) if use_cache else None
    reason = f"introspected sglang {cat.version} in {exe}" + (f"; {note}" if note else "")
    return CatalogueResolution(cat, "introspected", reason, python=exe, installed_version=version,
                               cache_path=None if note or not use_cache else path)
