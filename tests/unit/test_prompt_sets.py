"""The pinned workload sets (issue #4 item 1): tool / math / code / chat at ~10k tokens and their short forms."""

import json
import shutil
import time
from pathlib import Path

import pytest

from console.authoring import material_source
from console.authoring.builder import SETS, build_all
from console.authoring.material_source import PINS
from console.core.workload.prompts import PromptSetError, load_set, messages_sha256, messages_tokens, verify_all
from console.sim.content.domain import detect_domain
from console.sim.content.tokens import messages_text

REPO = Path(__file__).resolve().parents[2]
PROMPTS = REPO / "console" / "shipped" / "prompts"
LONG = ["tool", "math", "code", "chat"]
SHORT = [f"{d}-short" for d in LONG]
FIT = {"long": (10050, 10250), "short": (450, 550)}
WINDOW = {"long": (9900, 10400), "short": (400, 600)}


@pytest.fixture(scope="module")
def sets():
    return {s.name: s for s in verify_all(PROMPTS)}


def _kind(name: str) -> str:
    return "short" if name.endswith("-short") else "long"


def _domain(name: str) -> str:
    return name.removesuffix("-short")


def test_every_set_is_pinned_and_verifies(sets):
    assert set(sets) == {"health", *LONG, *SHORT}
    assert list(SETS) == [n for d in LONG for n in (d, f"{d}-short")]


@pytest.mark.parametrize("name", LONG + SHORT)
def test_sixteen_prompts_in_window_with_ids_domain_provenance(sets, name):
    s = sets[name]
    lo, hi = FIT[_kind(name)]
    assert len(s) == 16
    assert s.window == WINDOW[_kind(name)], "the header line carries the cell window"
    assert [p.id for p in s.prompts] == [f"{name}-{k:02d}" for k in range(1, 17)], "stable order, unique ids"
    raw = [json.loads(ln) for ln in s.path.read_text().splitlines()[1:]]
    for p, rec in zip(s.prompts, raw):
        assert p.domain == _domain(name)
        assert lo <= p.tokens <= hi, f"{p.id}: {p.tokens} o200k tokens, outside {lo}-{hi}"
        assert p.tokens == messages_tokens(p.messages) and p.sha256 == messages_sha256(p.messages)
        prov = rec["provenance"]
        assert ("generator" in prov and isinstance(prov["seed"], int)) or prov["material"], p.id
        for m in prov.get("material", []):
            assert {"package", "version", "path", "sha256"} <= set(m), p.id
        roles = [m["role"] for m in p.messages]
        assert roles[0] == "system" and roles[-1] == "user", p.id
        assert all(a != b for a, b in zip(roles[1:], roles[2:])), f"{p.id}: user and assistant alternate"


@pytest.mark.parametrize("name", LONG + SHORT)
def test_no_two_prompts_of_a_set_share_material(sets, name):
    keys = []
    for ln in sets[name].path.read_text().splitlines()[1:]:
        prov = json.loads(ln)["provenance"]
        if "generator" in prov:
            keys.append((prov["family"], prov.get("variant"), prov["seed"]))
        else:
            keys.append(tuple((m["path"], str(m.get("part")), str(m.get("lines"))) for m in prov["material"]))
    assert len(set(keys)) == 16
    if name.startswith("code"):  # one source file per prompt
        assert len({k[0][0] for k in keys}) == 16


def test_sha256_distinct_within_and_across_sets(sets):
    hashes = [p.sha256 for s in sets.values() for p in s.prompts]
    assert len(hashes) == len(set(hashes))
    ids = [p.id for s in sets.values() for p in s.prompts]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("name", LONG + SHORT)
def test_engine_twin_detects_each_prompt_as_its_own_domain(sets, name):
    wrong = {p.id: detect_domain(messages_text(p.messages)) for p in sets[name].prompts}
    wrong = {k: v for k, v in wrong.items() if v != _domain(name)}
    assert wrong == {}, f"console/sim/content/domain.py classifies these {name} prompts otherwise: {wrong}"


def test_rebuild_reproduces_every_committed_byte_on_any_machine(tmp_path, monkeypatch):
    """The committed sets are the artifact: a rebuild reproduces them byte for byte from the seeds and the
    committed material, whatever is installed. Any look-up of an installed distribution fails the test."""
    from importlib import metadata

    def refuse(*_a, **_k):
        raise AssertionError("the prompt builder consulted an installed distribution")
    monkeypatch.setattr(metadata, "distribution", refuse)
    monkeypatch.setattr(metadata, "version", refuse)
    material_source.read.cache_clear()
    t0 = time.monotonic()
    build_all(tmp_path)
    for f in sorted(PROMPTS.glob("*.jsonl")) + [PROMPTS / "SHA256SUMS"]:
        assert (tmp_path / f.name).read_bytes() == f.read_bytes(), f.name
    assert time.monotonic() - t0 < 60, "prompts build took over 60 s"


def test_every_material_file_is_committed_and_pinned():
    entries = material_source.manifest()
    on_disk = {str(p.relative_to(material_source.material_dir())) for p in material_source.material_dir().rglob("*")
               if p.is_file() and len(p.relative_to(material_source.material_dir()).parts) > 1}
    assert set(entries) == on_disk, "MANIFEST lists exactly the vendored files"
    for key in entries:
        dist, _, version = key.split("/", 1)[0].partition("==")
        assert material_source.PINS[dist] == version, key


def test_an_edited_material_file_is_refused_in_one_line(tmp_path):
    root = tmp_path / "material"
    shutil.copytree(material_source.material_dir(), root)
    f = root / "rich==15.0.0" / "rich" / "console.py"
    f.write_bytes(f.read_bytes().replace(b"class Console", b"class Konsole", 1))
    with pytest.raises(material_source.MaterialError) as ei:
        material_source.read("rich", "rich/console.py", root)
    msg = str(ei.value)
    assert str(f) in msg and "does not match" in msg and "\n" not in msg


def test_one_byte_edit_of_a_workload_set_is_refused_naming_the_file(tmp_path):
    d = tmp_path / "prompts"
    shutil.copytree(PROMPTS, d)
    f = d / "math.jsonl"
    data = bytearray(f.read_bytes())
    i = data.index(b"Markov chain")
    data[i] = ord("m")
    f.write_bytes(bytes(data))
    with pytest.raises(PromptSetError) as ei:
        load_set("math", d)
    msg = str(ei.value)
    assert str(f) in msg and "does not match the pinned" in msg and "\n" not in msg
    with pytest.raises(PromptSetError, match="math.jsonl"):
        verify_all(d)


def test_generated_sets_need_no_material():
    assert SETS["tool"][2] is None and SETS["math"][2] is None
    used = set().union(*(p for _f, _w, p in SETS.values() if p))
    assert used <= set(PINS), "every material distribution has a pinned version"
