"""The installed tool is complete (issue #24, docs/install.md): a wheel built from this checkout, installed into a
fresh virtualenv outside it, run from an empty directory, knows the shipped profiles, plans and prompt sets, measures
a cell on the twin, verifies the pinned sets and reports the cell it made; a profile in ./profiles/ shadows the
shipped one and says so; sessions land in ./sessions/ of that directory, never in the package.

The wheel is built offline (`pip wheel --no-build-isolation`, setuptools and wheel from the test extras) and installed
`--no-deps`; the console's dependencies are borrowed from this interpreter's site-packages by a `.pth` path line,
which adds the directory without running the `.pth` files in it — so the checkout's editable install is NOT on the
fresh interpreter's path, and the test asserts that `console` is imported from the fresh venv. No registry is asked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("wheel")
    wheels = root / "dist"
    b = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                        "-w", str(wheels), str(REPO)], capture_output=True, text=True, timeout=300)
    assert b.returncode == 0, b.stderr[-3000:]
    (whl,) = wheels.glob("serving_console-*.whl")
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # the console's dependencies: this interpreter's site-packages as a plain path (its .pth files are not run)
    (site / "_borrowed_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    i = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
                        "--no-index", str(whl)], capture_output=True, text=True, timeout=300)
    if i.returncode != 0 and "no such option: --python" in i.stderr:  # pip < 22.3
        i = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                            "--target", str(site), str(whl)], capture_output=True, text=True, timeout=300)
    assert i.returncode == 0, i.stderr[-3000:]
    work = root / "empty"
    work.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SERVING_CONSOLE_") and k not in ("PYTHONPATH", "XDG_CONFIG_HOME")}
    env["XDG_CONFIG_HOME"] = str(root / "xdg")  # an empty user config dir, not the machine's
    return {"py": py, "site": site, "work": work, "env": env, "wheel": whl}


def run(inst: dict, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([str(inst["py"]), "-m", "console.cli", *args], cwd=inst["work"], env=inst["env"],
                          capture_output=True, text=True, timeout=timeout)


def test_the_wheel_holds_the_shipped_profiles_plans_and_pinned_prompt_sets(installed):
    import zipfile
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for want in ("console/shipped/profiles/k26-eagle3-d6.toml", "console/shipped/profiles/campaigns/smoke.toml",
                 "console/shipped/profiles/adaptive/k26-eagle3.json", "console/shipped/prompts/SHA256SUMS",
                 "console/shipped/prompts/health.jsonl", "console/shipped/prompts/tool.jsonl"):
        assert want in names, want
    shipped = {p.relative_to(REPO / "console").as_posix() for p in (REPO / "console" / "shipped").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert shipped <= {n.removeprefix("console/") for n in names}, shipped - names


def test_console_comes_from_the_fresh_venv_not_the_checkout(installed):
    p = subprocess.run([str(installed["py"]), "-c", "import console; print(console.__file__)"], cwd=installed["work"],
                       env=installed["env"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert Path(p.stdout.strip()).is_relative_to(installed["site"]), p.stdout
    assert not Path(p.stdout.strip()).is_relative_to(REPO)


def test_version_names_where_profiles_prompts_and_sessions_are(installed):
    r = run(installed, "--version", timeout=60)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("serving-console 0.1.0")
    shipped = installed["site"] / "console" / "shipped"
    assert f"{shipped / 'profiles'}  [shipped]" in out and f"{shipped / 'prompts'}  [shipped]" in out
    assert f"{installed['work'] / 'profiles'}  [./profiles]  (absent)" in out
    assert f"sessions: {installed['work'] / 'sessions'}" in out


def test_the_readme_journey_runs_from_an_empty_directory(installed):
    work = installed["work"]
    c = run(installed, "check", "k26-eagle3-d6", timeout=60)
    assert c.returncode == 0, c.stderr
    assert c.stdout.startswith(str(installed["site"] / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml"))
    v = run(installed, "prompts", "verify", timeout=120)
    assert v.returncode == 0, v.stderr
    assert sum(ln.startswith("ok  ") for ln in v.stdout.splitlines()) == 9
    assert all(str(installed["site"]) in ln for ln in v.stdout.splitlines() if ln.startswith("ok  "))
    b = run(installed, "bench", "--profile", "k26-eagle3-d6", "--sim", "--sim-time-scale", "8", "--prompts", "health",
            "--n", "2", "--max-tokens", "32", "--json")
    assert b.returncode == 0, b.stderr[-3000:]
    cell = json.loads(b.stdout)["cell"]
    cell_dir = Path(cell["rows_path"]).parent
    assert cell_dir.is_relative_to(work / "sessions"), cell_dir  # ./sessions of the directory it runs in
    assert not any((installed["site"] / "console").rglob("rows.jsonl")), "nothing recorded inside the package"
    assert cell["n_included"] == 2 and cell["tau"] is not None
    r = run(installed, "report", str(cell_dir), "--json", timeout=120)
    assert r.returncode == 0, r.stderr
    (rep,) = json.loads(r.stdout)["cells"]
    assert rep["median_tok_s"] == pytest.approx(cell["median_tok_s"]) and rep["simulated"] is True
    s = run(installed, "sweep", "smoke", "--sim", "--dry-run", timeout=120)  # a plan by name
    assert s.returncode == 0, s.stderr[-2000:]
    assert "campaign smoke: 8 cells" in s.stdout + s.stderr


def test_a_profile_in_the_working_directory_shadows_the_shipped_one_and_says_so(installed):
    work = installed["work"]
    mine = work / "profiles"
    mine.mkdir(exist_ok=True)
    shipped = installed["site"] / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml"
    (mine / "k26-eagle3-d6.toml").write_text(shipped.read_text().replace("port = 30000", "port = 30123"))
    try:
        c = run(installed, "check", "k26-eagle3-d6", timeout=60)
        assert c.returncode == 0, c.stderr
        assert c.stdout.startswith(str(mine / "k26-eagle3-d6.toml"))
        assert (f"note: profile 'k26-eagle3-d6' from {mine / 'k26-eagle3-d6.toml'} (./profiles) shadows {shipped}"
                in c.stdout)
        d = run(installed, "launch", "k26-eagle3-d6", "--dry-run", timeout=60)
        assert d.returncode == 0 and "--port 30123" in d.stdout, d.stdout + d.stderr
        n = run(installed, "check", "nosuch", timeout=60)
        assert n.returncode == 2 and n.stderr.count("\n") == 1
        assert f"searched {mine} (./profiles)" in n.stderr and f"{shipped.parent} (shipped)" in n.stderr
    finally:
        (mine / "k26-eagle3-d6.toml").unlink()
        mine.rmdir()
