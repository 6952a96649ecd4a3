import json

import pytest

from console.core.measure.records import RequestRecord
from console.core.sessions.report import cell_report
from console.core.redaction import redact_mapping
from console.core.sessions.store import Session, load_rows, node_fingerprint


def test_rows_are_appended_one_line_each_and_a_torn_tail_is_ignored(tmp_path):
    s = Session.create(tmp_path, "k26 eagle3/d6", node_fingerprint())
    assert s.dir.name.endswith("-k26-eagle3-d6")
    c = s.new_cell("health")
    c.write_manifest({"label": "health", "speculative": {"algorithm": "EAGLE3", "num_draft_tokens": 3}})
    for i in range(3):
        c.append(RequestRecord(request_id=f"p#{i}", t_first_s=0.1, t_last_s=0.3, t_end_s=0.31, first_chunk_tokens=1,
                               completion_tokens=101, spec_histogram=[0, 1, 1], spec_verify_ct=2))
    with open(c.rows_path, "a") as f:
        f.write('{"request_id": "p#3", "t_first')  # a crash mid-write
    rows = load_rows(c.dir)
    assert [r.request_id for r in rows] == ["p#0", "p#1", "p#2"]
    rep = cell_report(c.dir)
    assert rep["n"] == 3 and rep["median_tok_s"] == pytest.approx(500.0) and rep["tau"] == 2.5


def test_secrets_never_reach_disk(tmp_path):
    s = Session.create(tmp_path, "x", node_fingerprint())
    c = s.new_cell("c")
    c.write_manifest({"server_args": {"api_key": "sk-SECRET", "admin_api_key": "sk-ADMIN", "port": 1,
                                      "launch_command": "--port 1 --api-key sk-SECRET"},
                      "launch_argv": ["python", "-m", "sglang.launch_server", "--api-key", "sk-SECRET"]})
    s.add_arm({"argv": ["--api-key=sk-SECRET"]})
    text = "".join(p.read_text() for p in s.dir.rglob("*.json"))
    assert "sk-SECRET" not in text and "sk-ADMIN" not in text
    assert json.loads(c.manifest_path.read_text())["server_args"]["port"] == 1


def test_redact_mapping_leaves_unset_keys():
    assert redact_mapping({"api_key": None, "x": [1, "a"]}) == {"api_key": None, "x": [1, "a"]}


def test_engine_log_relay_redacts_a_key_split_across_writes(tmp_path):
    import sys

    from console.core.launch.process import EngineProcess
    key = "sk-SPLIT-0123456789abcdef"
    code = (f"import sys,time; sys.stdout.write('api_key={key[:9]}'); sys.stdout.flush(); time.sleep(0.2); "
            f"sys.stdout.write('{key[9:]} end\\\\n'); sys.stdout.flush()")
    e = EngineProcess([sys.executable, "-c", code], tmp_path / "engine.log", secrets=[key])
    e.start()
    e.proc.wait(timeout=10)
    e._relay.join(timeout=5)
    text = (tmp_path / "engine.log").read_text()
    assert key not in text and "api_key=<redacted> end" in text


def test_time_scale_note_says_figures_are_the_modelled_nodes():
    from console.core.sessions.report import time_scale_note
    assert time_scale_note(None, {"A": 100.0}) is None
    assert time_scale_note(1.0, {"A": 100.0}) is None
    note = time_scale_note(8.0, {"A": 513.8, "B": None})  # medians given are modelled: the client clock read ×8
    assert "×8" in note and "modelled node's" in note and "A 4110.4 tok/s" in note and " B " not in note
    assert "\n" not in note


def test_figures_of_a_time_scaled_row_are_the_modelled_nodes(tmp_path):
    """A row measured against a twin at ×8 keeps the client's timestamps; every figure converts them."""
    from console.core.measure import stats
    from console.core.measure.records import RequestRecord
    from console.core.sessions.store import load_rows
    wall = RequestRecord(request_id="x#0", t_first_s=0.03, t_last_s=0.13, t_end_s=0.14, first_chunk_tokens=1,
                         completion_tokens=401, time_scale=8.0)
    assert stats.wall_output_tok_s(wall) == pytest.approx(4000.0)
    assert stats.output_tok_s(wall) == pytest.approx(500.0)
    assert stats.ttft_s(wall) == pytest.approx(0.24)
    assert stats.e2e_s(wall) == pytest.approx(1.12)
    assert stats.tpot_ms(wall) == pytest.approx(1000 * 0.11 * 8 / 400)
    # schema-1 rows (no time_scale of their own) take the manifest's scale
    cell = tmp_path / "cell-001"
    cell.mkdir()
    d = wall.to_json()
    del d["time_scale"]
    (cell / "rows.jsonl").write_text(json.dumps(d) + "\n")
    (cell / "manifest.json").write_text(json.dumps({"sim_time_scale": 8}))
    (row,) = load_rows(cell)
    assert row.time_scale == 8.0 and stats.output_tok_s(row) == pytest.approx(500.0)
