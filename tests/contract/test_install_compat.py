"""The console must install into sglang 0.5.23's virtualenv without moving any of its pins.

`sglang-0.5.23-requires.txt` is the `Requires-Dist` list of the released wheel's METADATA (non-extra lines),
committed: nothing here asks a registry or reads installed distributions. For every distribution both sides name,
the console's range must admit what sglang requires. Markers are evaluated for a complete, fixed environment (a
Linux x86_64 CPython of each supported minor version), never the interpreter running the tests.
"""

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

HERE = Path(__file__).parent
REPO = HERE.parents[1]


def ours() -> dict[str, Requirement]:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    return {canonicalize_name(r.name): r for r in map(Requirement, deps)}


PYTHONS = ("3.11", "3.12", "3.13")


def target_env(python: str) -> dict[str, str]:
    return {"sys_platform": "linux", "platform_machine": "x86_64", "platform_system": "Linux", "os_name": "posix",
            "implementation_name": "cpython", "platform_python_implementation": "CPython",
            "python_version": python, "python_full_version": f"{python}.0", "implementation_version": f"{python}.0",
            "platform_release": "", "platform_version": "", "extra": ""}


def theirs(python: str = "3.12") -> dict[str, Requirement]:
    out = {}
    for line in (HERE / "sglang-0.5.23-requires.txt").read_text().splitlines():
        r = Requirement(line.split("Requires-Dist:", 1)[1].strip())
        if r.marker is None or r.marker.evaluate(target_env(python)):
            out[canonicalize_name(r.name)] = r
    return out


def admits(our: Requirement, their: Requirement) -> bool:
    pins = [s.version for s in their.specifier if s.operator == "=="]
    if pins:
        return our.specifier.contains(Version(pins[0]), prereleases=True)
    lows = [Version(s.version) for s in their.specifier if s.operator in (">=", ">")]
    if lows:  # some version at or above their floor must satisfy ours: try their floor and far above
        return any(our.specifier.contains(v, prereleases=True) for v in (max(lows), Version("999")))
    return True


def test_openai_range_admits_sglangs_pin():
    assert ours()["openai"].specifier.contains("2.8.0")


@pytest.mark.parametrize("python", PYTHONS)
def test_every_shared_dependency_is_compatible(python):
    a, b = ours(), theirs(python)
    shared = sorted(set(a) & set(b))
    assert {"openai", "numpy", "fastapi", "uvicorn", "prometheus-client", "nvidia-ml-py"} <= set(shared)
    bad = [f"{n}: ours {a[n].specifier} vs sglang {b[n].specifier}" for n in shared if not admits(a[n], b[n])]
    assert bad == []


def test_we_never_depend_on_sglang_or_torch():
    assert not {"sglang", "torch"} & set(ours())
