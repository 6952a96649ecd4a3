import shutil
from pathlib import Path

import pytest

from console.authoring.builder import build_all
from console.core.workload.prompts import PromptSetError, count_tokens, load_set, verify_all

REPO = Path(__file__).resolve().parents[2]


def test_committed_sets_verify():
    sets = {s.name: s for s in verify_all(REPO / "console" / "shipped" / "prompts")}
    assert "health" in sets and len(sets["health"]) == 8
    assert {p.domain for p in sets["health"].prompts} == {"tool", "math", "code", "chat"}


def test_rebuild_reproduces_the_committed_health_bytes(tmp_path):
    """The health set is literal text in builder.py: any rebuild reproduces it and its SHA256SUMS line."""
    build_all(tmp_path)
    assert (tmp_path / "health.jsonl").read_bytes() == (REPO / "console" / "shipped" / "prompts" / "health.jsonl").read_bytes()
    line = [x for x in (REPO / "console" / "shipped" / "prompts" / "SHA256SUMS").read_text().splitlines() if x.endswith("health.jsonl")]
    assert line and line[0] in (tmp_path / "SHA256SUMS").read_text()


def test_one_byte_edit_is_refused_naming_the_file(tmp_path):
    d = tmp_path / "prompts"
    shutil.copytree(REPO / "console" / "shipped" / "prompts", d)
    f = d / "health.jsonl"
    data = bytearray(f.read_bytes())
    i = data.index(b"Lisbon")
    data[i] = ord("l")
    f.write_bytes(bytes(data))
    with pytest.raises(PromptSetError) as ei:
        load_set("health", d)
    assert str(f) in str(ei.value) and "does not match the pinned" in str(ei.value)


def test_o200k_counts_offline():
    # "Hello, world!" is 4 o200k tokens: Hello , world !
    assert count_tokens("Hello, world!") == 4


def test_unknown_set_lists_known():
    with pytest.raises(PromptSetError, match="known: .*health"):
        load_set("nope", REPO / "console" / "shipped" / "prompts")
