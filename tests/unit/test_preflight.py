"""Preflight checks on fakes: a bound socket, a GpuSnapshot with a stale 55 GB process (docs/reference-deployment.md §4), paths, logs."""

from __future__ import annotations

import errno
import os
import socket
from dataclasses import replace

import pytest

from console.core.launch import preflight as pf
from console.core.launch.preflight import (
    check_engine, check_gpus, check_log_dir, check_paths, check_port, has_errors, port_holder,
    preflight,
)
from console.core.launch.profile import Drafter, Profile
from console.core.telemetry.nvml import GpuInfo, GpuProcess, GpuSnapshot

B200_GIB = 178.4  # 192 GB


def prof(**kw) -> Profile:
    base = dict(name="t", path=None, engine_python="sim", model_path="moonshotai/Kimi-K2.6", tp=4,
                drafter=Drafter(family="eagle3", model="lightseekorg/kimi-k2.6-eagle3", steps=6, topk=1, draft_tokens=7),
                mem_fraction_static=0.96)
    base.update(kw)
    return Profile(**base)


def gpu(i: int, procs: list[GpuProcess] = (), used: float | None = None) -> GpuInfo:
    mem = used if used is not None else 0.6 + sum(p.used_gib or 0 for p in procs)
    return GpuInfo(index=i, name="NVIDIA B200", uuid=f"GPU-{i:08x}-aaaa", mem_used_gib=mem, mem_total_gib=B200_GIB,
                   util_pct=0.0, mem_util_pct=0.0, power_w=140.0, power_limit_w=1000.0, temp_c=35.0,
                   processes=list(procs))


def snapshot(*gpus: GpuInfo) -> GpuSnapshot:
    return GpuSnapshot("ok", f"{len(gpus)} GPU(s)", driver_version="580.00", gpus=list(gpus))


STALE = GpuProcess(pid=4242, name="python", used_gib=55.0, foreign=True)


# --- port --------------------------------------------------------------------------------------------------

@pytest.fixture
def bound_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    yield s.getsockname()[1]
    s.close()


def test_a_bound_port_is_an_error_naming_the_port_and_the_pid(bound_port):
    issues = check_port("127.0.0.1", bound_port)
    assert len(issues) == 1
    i = issues[0]
    assert i.severity == "error" and i.check == "port"
    assert f"server.port {bound_port} on 127.0.0.1 is already in use by pid {os.getpid()} (" in i.message
    assert f"kill {os.getpid()}" in i.message and "\n" not in i.message
    # binding every address collides with the loopback listener too
    assert check_port("0.0.0.0", bound_port)[0].severity == "error"


def test_a_free_port_passes(bound_port):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    free = s.getsockname()[1]
    s.close()
    assert check_port("127.0.0.1", free) == []


def test_port_failures_with_fakes():
    hidden = check_port("127.0.0.1", 30000, bind=lambda h, p: errno.EADDRINUSE, holder=lambda p: None)
    assert "already in use (the holder is not visible to this user in /proc)" in hidden[0].message
    assert "use a port >= 1024" in check_port("127.0.0.1", 80, bind=lambda h, p: errno.EACCES)[0].message
    assert "is not an address of this machine" in check_port("10.9.9.9", 30000,
                                                             bind=lambda h, p: errno.EADDRNOTAVAIL)[0].message


def test_port_holder_reads_a_fake_proc(tmp_path):
    (tmp_path / "net").mkdir()
    hdr = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    row = "   0: 0100007F:7530 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777001 1 0 0\n"
    other = "   1: 0100007F:7531 00000000:0000 01 00000000:00000000 00:00000000 00000000     0        0 777002 1 0 0\n"
    (tmp_path / "net" / "tcp").write_text(hdr + row + other)
    (tmp_path / "net" / "tcp6").write_text(hdr)
    fd = tmp_path / "31337" / "fd"
    fd.mkdir(parents=True)
    os.symlink("socket:[777001]", fd / "5")
    (tmp_path / "31337" / "comm").write_text("sglang::http\n")
    (tmp_path / "99" / "fd").mkdir(parents=True)
    os.symlink("/dev/null", tmp_path / "99" / "fd" / "0")
    assert port_holder(30000, proc_root=tmp_path) == (31337, "sglang::http")
    assert port_holder(30001, proc_root=tmp_path) is None  # not listening
    assert port_holder(30002, proc_root=tmp_path) is None


# --- GPUs --------------------------------------------------------------------------------------------------

def test_a_stale_55_gb_process_on_gpu0_is_named_before_launch():
    snap = snapshot(gpu(0, [STALE]), gpu(1), gpu(2), gpu(3))
    issues = check_gpus(prof(), snap, environ={})
    assert [i.check for i in issues] == ["gpu", "gpu_memory"]
    proc_line, mem_line = issues[0].message, issues[1].message
    assert issues[0].severity == "error"
    assert proc_line.startswith("GPU 0: pid 4242 (python) holds 55.0 GiB and is not this console's engine")
    assert "kill 4242" in proc_line
    assert issues[1].severity == "error" and mem_line.startswith("GPU 0: 122.8 GiB free of 178.4 GiB")
    assert "kv.mem_fraction_static 0.96 asks sglang for 171.3 GiB" in mem_line
    assert has_errors(issues)


def test_gpu_checks_respect_own_pids_small_processes_and_unused_gpus():
    # our own engine's pid is not foreign (its memory still counts against the fraction)
    own = check_gpus(prof(), snapshot(gpu(0, [STALE]), gpu(1), gpu(2), gpu(3)), own_pids={4242}, environ={})
    assert [(i.severity, i.check) for i in own] == [("error", "gpu_memory")]
    tiny = GpuProcess(pid=77, name="Xorg", used_gib=0.1)
    issues = check_gpus(prof(), snapshot(gpu(0, [tiny]), gpu(1), gpu(2), gpu(3)), environ={})
    assert [(i.severity, i.check) for i in issues] == [("warning", "gpu")]
    # tp 4 uses GPUs 0-3: a process on GPU 5 is only a warning
    issues = check_gpus(prof(), snapshot(*[gpu(i) for i in range(5)], gpu(5, [STALE])), environ={})
    assert [(i.severity, i.check) for i in issues] == [("warning", "gpu")]
    assert "the engine does not use this GPU" in issues[0].message
    # the profile's CUDA_VISIBLE_DEVICES moves the engine to GPUs 4-7
    p = prof(env={"CUDA_VISIBLE_DEVICES": "4,5,6,7"})
    issues = check_gpus(p, snapshot(gpu(0, [STALE]), *[gpu(i) for i in range(1, 8)]), environ={})
    assert [(i.severity, i.check) for i in issues] == [("warning", "gpu")]
    issues = check_gpus(p, snapshot(*[gpu(i) for i in range(4)], gpu(4, [STALE]), *[gpu(i) for i in range(5, 8)]),
                        environ={})
    assert [i.severity for i in issues] == ["error", "error"]
    # no driver, or no snapshot at all: nothing to say
    assert check_gpus(prof(), GpuSnapshot("no_driver", "no NVIDIA driver")) == []
    assert check_gpus(prof(), None) == []
    assert check_gpus(prof(), snapshot(gpu(0), gpu(1), gpu(2), gpu(3)), environ={}) == []


def test_unknown_memory_of_a_foreign_process_still_counts():
    ghost = GpuProcess(pid=9, name="?", used_gib=None)
    issues = check_gpus(prof(mem_fraction_static=None), snapshot(gpu(0, [ghost])), environ={})
    assert issues[0].severity == "error" and "holds an unknown amount of memory" in issues[0].message


# --- engine, paths, log directory ------------------------------------------------------------------------------

def test_engine_interpreter_must_exist(tmp_path):
    assert check_engine(prof()) == []
    assert check_engine(prof(engine_python="python3"), which=lambda x: "/usr/bin/python3") == []
    miss = check_engine(prof(engine_python=str(tmp_path / "venv" / "bin" / "python")))
    assert miss[0].severity == "error" and "is not an executable interpreter here" in miss[0].message
    assert check_engine(prof(engine_python="nopython"), which=lambda x: None)[0].check == "engine"


def test_local_looking_paths_must_exist(tmp_path):
    assert check_paths(prof()) == []  # Hugging Face ids
    issues = check_paths(prof(model_path="/models/Kimi-K2.6",
                              drafter=Drafter(family="eagle3", model="~/drafts/nope", steps=6, topk=1, draft_tokens=7)))
    assert [i.message for i in issues] == [
        "model.path /models/Kimi-K2.6 does not exist; fix the path (or give a Hugging Face id such as org/name)",
        "drafter.model ~/drafts/nope does not exist; fix the path (or give a Hugging Face id such as org/name)"]
    assert check_paths(prof(model_path="./rel/model"), exists=lambda p: False)[0].severity == "error"
    model = tmp_path / "model"
    model.mkdir()
    warn = check_paths(prof(model_path=str(model)))
    assert [(i.severity, i.check) for i in warn] == [("warning", "path")] and "has no config.json" in warn[0].message
    (model / "config.json").write_text("{}")
    assert check_paths(prof(model_path=str(model))) == []


def test_log_directory_must_be_writable(tmp_path, monkeypatch):
    assert check_log_dir(tmp_path / "sessions" / "new" / "logs") == []  # created on demand
    f = tmp_path / "afile"
    f.write_text("x")
    assert "is a file, not a directory" in check_log_dir(f / "logs")[0].message
    monkeypatch.setattr(pf.os, "access", lambda p, m: False)
    issue = check_log_dir(tmp_path)[0]
    assert issue.severity == "error" and issue.check == "log_dir" and f"log directory {tmp_path} is not writable" \
        in issue.message
    assert "cannot be created" in check_log_dir(tmp_path / "x" / "y")[0].message
    assert check_log_dir(None) == []


def test_preflight_collects_everything_and_leaves_force_to_the_caller(tmp_path, bound_port):
    real = prof(engine_python=str(tmp_path / "nope"), port=bound_port, model_path="/nonexistent/k26")
    issues = preflight(real, log_dir=tmp_path / "logs", snapshot=snapshot(gpu(0, [STALE]), gpu(1), gpu(2), gpu(3)))
    checks = [i.check for i in issues]
    assert checks == ["engine", "port", "gpu", "gpu_memory", "path"]
    assert all(i.severity == "error" and "\n" not in i.message for i in issues)
    assert all(i.line().startswith("error: ") for i in issues)
    # the twin: no GPU or path checks, and a free port passes
    sim = replace(prof(), port=bound_port + 1 if bound_port < 65535 else bound_port - 1)
    assert [i for i in preflight(sim, log_dir=tmp_path, snapshot=snapshot(gpu(0, [STALE]))) if i.check != "port"] == []
