"""Preflight: what would make a launch fail in the first minutes, found before spending them.

`preflight(profile, log_dir=..., snapshot=...)` returns a list of `PreflightIssue` (severity + one line each):

- the server port is already bound (naming the port and, where /proc shows it, the pid and name holding it);
- foreign processes hold GPU memory on the GPUs the engine will use (pid, name, GiB, GPU index), or the GPUs lack
  the memory `kv.mem_fraction_static` asks for (the field failure "a stale process still holding 55 GB on GPU 0");
- the engine interpreter is missing;
- model / draft paths that look local (start with / . ~) but do not exist;
- the log directory is not writable.

Errors mean "this launch will fail"; warnings mean "look first". Overriding them (`--force`) is the caller's
business: nothing here refuses anything. Each check is a pure function over injectable probes (socket bind,
/proc root, a `GpuSnapshot`, `os.path`), so tests run them on fakes.
"""

from __future__ import annotations

import errno
import os
import shutil
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from console.core.launch.profile import Profile
from console.core.telemetry.nvml import GpuSnapshot, foreign_processes

FOREIGN_MIN_GIB = 0.5
"""Foreign processes below this much GPU memory (display servers, monitoring agents) are only warned about."""


class PreflightRefused(RuntimeError):
    """Preflight found errors and `force` is off; the message is one line naming the thing and the fix."""


@dataclass(frozen=True)
class PreflightIssue:
    severity: str
    """'error' (the launch will fail) or 'warning'."""
    check: str
    """'port' | 'gpu' | 'gpu_memory' | 'engine' | 'path' | 'log_dir'."""
    message: str
    """One line, naming the thing and the fix."""

    def line(self) -> str:
        return f"{self.severity}: {self.message}"


def has_errors(issues: Iterable[PreflightIssue]) -> bool:
    return any(i.severity == "error" for i in issues)


# --- port --------------------------------------------------------------------------------------------------

def try_bind(host: str, port: int) -> int | None:
    """Bind (as uvicorn would: SO_REUSEADDR) and release; None when free, else the errno."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
        return errno.EADDRNOTAVAIL
    fam, typ, proto, _, addr = infos[0]
    s = socket.socket(fam, typ, proto)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(addr)
        return None
    except OSError as e:
        return e.errno or errno.EADDRINUSE
    finally:
        s.close()


def _listen_inodes(port: int, proc_root: Path) -> set[str]:
    """Socket inodes listening on `port`, from /proc/net/tcp{,6} (state 0A = LISTEN)."""
    inodes: set[str] = set()
    for name in ("tcp", "tcp6"):
        try:
            lines = (proc_root / "net" / name).read_text().splitlines()[1:]
        except OSError:
            continue
        for ln in lines:
            parts = ln.split()
            if len(parts) < 10:
                continue
            local, state, inode = parts[1], parts[3], parts[9]
            try:
                if int(local.rsplit(":", 1)[1], 16) == port and state == "0A" and inode != "0":
                    inodes.add(inode)
            except (IndexError, ValueError):
                continue
    return inodes


def port_holder(port: int, proc_root: Path = Path("/proc")) -> tuple[int, str] | None:
    """(pid, name) of a process listening on `port`, where /proc lets this user see it; else None."""
    inodes = _listen_inodes(port, proc_root)
    if not inodes:
        return None
    targets = {f"socket:[{i}]" for i in inodes}
    try:
        pids = sorted(int(p.name) for p in proc_root.iterdir() if p.name.isdigit())
    except OSError:
        return None
    for pid in pids:
        fd_dir = proc_root / str(pid) / "fd"
        try:
            fds = list(fd_dir.iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) in targets:
                    try:
                        comm = (proc_root / str(pid) / "comm").read_text().strip()
                    except OSError:
                        comm = "?"
                    return pid, comm
            except OSError:
                continue
    return None


def check_port(host: str, port: int, *, bind: Callable[[str, int], int | None] = try_bind,
               holder: Callable[[int], tuple[int, str] | None] = port_holder) -> list[PreflightIssue]:
    err = bind(host, port)
    if err is None:
        return []
    if err == errno.EADDRINUSE:
        h = holder(port)
        who = f" by pid {h[0]} ({h[1]})" if h else " (the holder is not visible to this user in /proc)"
        fix = f"stop it (kill {h[0]}) or set another server.port" if h else "stop it or set another server.port"
        return [PreflightIssue("error", "port", f"server.port {port} on {host} is already in use{who}; {fix}")]
    if err == errno.EACCES:
        return [PreflightIssue("error", "port", f"server.port {port} needs privileges to bind; use a port >= 1024")]
    if err == errno.EADDRNOTAVAIL:
        return [PreflightIssue("error", "port", f"server.host {host} is not an address of this machine; "
                                                 "use 127.0.0.1, 0.0.0.0 or one of its addresses")]
    return [PreflightIssue("error", "port", f"cannot bind {host}:{port} ({os.strerror(err)}); fix server.host/port")]


# --- GPUs --------------------------------------------------------------------------------------------------

def engine_gpu_indices(profile: Profile, snapshot: GpuSnapshot, environ: dict[str, str] | None = None) -> set[int]:
    """NVML indices the engine will use: the first tp × dp visible devices (CUDA_VISIBLE_DEVICES from the profile's
    env, else the environment), an upper bound when attention DP shares GPUs."""
    env = {**(os.environ if environ is None else environ), **profile.env}
    count = len(snapshot.gpus)
    visible: list[int] = [g.index for g in snapshot.gpus]
    cvd = env.get("CUDA_VISIBLE_DEVICES")
    if cvd is not None:
        by_uuid = {g.uuid: g.index for g in snapshot.gpus if g.uuid}
        visible = []
        for item in (x.strip() for x in cvd.split(",") if x.strip()):
            if item.isdigit() and int(item) < count:
                visible.append(int(item))
            elif item in by_uuid:
                visible.append(by_uuid[item])
            elif any(u.startswith(item) for u in by_uuid):
                visible.append(next(i for u, i in by_uuid.items() if u.startswith(item)))
    need = (max(1, profile.tp * profile.dp) if profile.nnodes == 1
            else max(1, (profile.tp * profile.dp) // profile.nnodes))
    return set(visible[:need])


def check_gpus(profile: Profile, snapshot: GpuSnapshot | None, *, own_pids: set[int] | None = None,
               environ: dict[str, str] | None = None, min_gib: float = FOREIGN_MIN_GIB) -> list[PreflightIssue]:
    if snapshot is None or not snapshot.available:
        return []
    used = engine_gpu_indices(profile, snapshot, environ)
    issues: list[PreflightIssue] = []
    for idx, p in foreign_processes(snapshot, own_pids):
        gib = p.used_gib
        amount = f"{gib:.1f} GiB" if gib is not None else "an unknown amount of memory"
        mine = idx in used
        severe = mine and (gib is None or gib >= min_gib)
        where = "the engine will use it" if mine else "the engine does not use this GPU"
        issues.append(PreflightIssue(
            "error" if severe else "warning", "gpu",
            f"GPU {idx}: pid {p.pid} ({p.name}) holds {amount} and is not this console's engine ({where}); "
            f"stop it (kill {p.pid}) before launching" if severe else
            f"GPU {idx}: pid {p.pid} ({p.name}) holds {amount} and is not this console's engine ({where})"))
    frac = profile.mem_fraction_static
    if frac is not None:
        for g in snapshot.gpus:
            if g.index not in used or g.mem_total_gib is None or g.mem_used_gib is None:
                continue
            need = frac * g.mem_total_gib
            free = g.mem_total_gib - g.mem_used_gib - (g.mem_reserved_gib or 0.0)  # v2: reserved is not in used
            if free < need:
                issues.append(PreflightIssue(
                    "error", "gpu_memory",
                    f"GPU {g.index}: {free:.1f} GiB free of {g.mem_total_gib:.1f} GiB, but kv.mem_fraction_static "
                    f"{frac} asks sglang for {need:.1f} GiB; free the GPU or lower kv.mem_fraction_static"))
    return issues


# --- engine, paths, log directory ----------------------------------------------------------------------------

def check_engine(profile: Profile, which: Callable[[str], str | None] = shutil.which) -> list[PreflightIssue]:
    if profile.is_sim:
        return []
    py = profile.engine_python
    if os.sep in py or py.startswith("."):
        p = Path(os.path.expanduser(py))
        ok = p.is_file() and os.access(p, os.X_OK)
    else:
        ok = which(py) is not None
    if ok:
        return []
    return [PreflightIssue("error", "engine", f"engine.python {py!r} is not an executable interpreter here; "
                                              "point it at the python of the SGLang install")]


def looks_local(path: str) -> bool:
    return path.startswith(("/", ".", "~"))


def check_paths(profile: Profile, exists: Callable[[str], bool] = os.path.exists,
                is_dir: Callable[[str], bool] = os.path.isdir) -> list[PreflightIssue]:
    issues: list[PreflightIssue] = []
    for fld, val in (("model.path", profile.model_path), ("drafter.model", profile.drafter.model)):
        if not val or not looks_local(val):
            continue
        p = os.path.expanduser(val)
        if not exists(p):
            issues.append(PreflightIssue("error", "path", f"{fld} {val} does not exist; fix the path "
                                                          "(or give a Hugging Face id such as org/name)"))
        elif is_dir(p) and not exists(os.path.join(p, "config.json")):
            issues.append(PreflightIssue("warning", "path", f"{fld} {val} has no config.json; "
                                                            "is it the model directory?"))
    return issues


def check_log_dir(log_dir: Path | str | None) -> list[PreflightIssue]:
    if log_dir is None:
        return []
    d = Path(os.path.expanduser(str(log_dir)))
    probe = d
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        return [PreflightIssue("error", "log_dir", f"log directory {d}: {probe} is a file, not a directory; "
                                                   "choose another sessions directory")]
    if not os.access(probe, os.W_OK | os.X_OK):
        what = "is not writable" if probe == d else f"cannot be created ({probe} is not writable)"
        return [PreflightIssue("error", "log_dir", f"log directory {d} {what}; fix its permissions or choose "
                                                   "another sessions directory")]
    return []


def preflight(profile: Profile, *, log_dir: Path | str | None = None, snapshot: GpuSnapshot | None = None,
              own_pids: set[int] | None = None, check_port_free: bool = True) -> list[PreflightIssue]:
    """All checks for launching `profile` (GPU checks only where a snapshot is given and the engine is real)."""
    issues: list[PreflightIssue] = []
    issues += check_engine(profile)
    if check_port_free:
        issues += check_port(profile.host, profile.port)
    if not profile.is_sim:
        issues += check_gpus(profile, snapshot, own_pids=own_pids)
        issues += check_paths(profile)
    issues += check_log_dir(log_dir)
    return issues
