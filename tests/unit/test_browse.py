"""Sessions browsing (core): listing real store sessions newest first, robust to torn files; comparing two cells
(refused across prompt-set hashes or protocols); forecasting from a cell on disk.

The builders here write sessions through the real store (`Session.create`, `CellWriter`) and a pair through
`run.pair._finish`; the UI tests of the sessions browser reuse them."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from console.core.launch.profile import resolve_profile
from console.core.measure import launches, pairs, stats
from console.core.measure.records import RequestRecord
from console.core.run.cell import CellProtocol
from console.core.run.pair import PairSpec, _finish
from console.core.sessions import browse, compare, forecasts
from console.core.sessions.pairs import Leg, recompute_pair
from console.core.sessions.store import Session, load_rows, read_json

SHA = {name: hashlib.sha256(name.encode()).hexdigest() for name in ("tool", "math", "health")}
HOST = "gpu-node-07"
PROTO = CellProtocol(prompt_set="tool", n=8, max_tokens=256, temperature=0.6, concurrency=1)
D6 = {"algorithm": "EAGLE3", "num_steps": 6, "topk": 1, "num_draft_tokens": 7, "draft_model_path": "lightseekorg/kimi-k2.5-eagle3"}
D7 = {"algorithm": "EAGLE3", "num_steps": 7, "topk": 1, "num_draft_tokens": 8, "draft_model_path": "lightseekorg/kimi-k2.5-eagle3"}
HISTS6 = [[2, 3, 3, 4, 5, 5, 8], [3, 2, 4, 4, 6, 4, 7], [1, 4, 3, 5, 4, 6, 8], [2, 2, 5, 3, 5, 5, 8]]
HISTS7 = [[2, 3, 3, 4, 4, 5, 4, 6], [3, 2, 4, 4, 5, 4, 3, 6], [1, 4, 3, 5, 4, 4, 3, 7], [2, 2, 5, 3, 4, 5, 3, 6]]


def row(i: int, tok_s: float, hist: list[int] | None, n_out: int = 256, prompt_set: str = "tool") -> RequestRecord:
    t_first = 0.40 + 0.01 * (i % 5)
    t_last = t_first + (n_out - 1) / tok_s
    v = sum(hist) if hist else None
    c = sum(k * n for k, n in enumerate(hist)) if hist else None
    return RequestRecord(request_id=f"{prompt_set}-{i % 16:02d}#{i}", prompt_id=f"{prompt_set}-{i % 16:02d}",
                         max_tokens=n_out, temperature=0.6, t_first_s=t_first, t_last_s=t_last, t_end_s=t_last + 0.002,
                         first_chunk_tokens=1, completion_tokens=n_out, n_content_chunks=60, prompt_tokens=10100,
                         finish_reason="length", spec_verify_ct=v, spec_num_correct_drafts=c,
                         spec_accept_rate=(c / (v * (len(hist) - 1))) if hist else None, spec_histogram=hist)


def make_session(root: Path, stamp: str, slug: str, host: str = HOST, engine: str = "0.5.23") -> Session:
    """A session created by the real store, renamed to a fixed timestamp so listings are deterministic."""
    s = Session.create(root, slug, {"hostname": host, "gpus": [], "engine_version": None, "console_version": "test"})
    fixed = root / f"{stamp}-{slug}"
    s.dir.rename(fixed)
    s = Session(fixed)
    s.update_meta(created_utc=stamp, engine_version=engine)
    return s


def make_cell(s: Session, label: str, tok_s: list[float], *, spec: dict | None = D6, prompt_set: str = "tool",
              proto: CellProtocol = PROTO, complete: bool = True, summary: bool = True, hists=None) -> Path:
    w = s.new_cell(label)
    proto = CellProtocol(**{**asdict(proto), "prompt_set": prompt_set, "n": len(tok_s)})
    ndt = spec["num_draft_tokens"] if spec else None
    hists = hists if hists is not None else (HISTS7 if ndt == 8 else HISTS6)
    w.write_manifest({
        "schema": 1, "label": label, "profile": "k26-eagle3-d7" if ndt == 8 else ("k26-eagle3-d6" if spec else "k26-nospec"),
        "mode": "launch", "base_url": "http://127.0.0.1:30000", "launch_argv": ["python", "-m", "console.sim"],
        "server_args": {"tp_size": 4}, "engine_version": "0.5.23", "speculative": spec or {"algorithm": None},
        "kv_capacity_tokens": 336000 if spec else 371000, "kv_cache_dtype": "auto",
        "prompt_set": {"name": prompt_set, "sha256": SHA[prompt_set], "count": 16, "window": [10050, 10250]},
        "protocol": asdict(proto), "node_usd_per_hour": 48.0, "simulated": True, "node_key": NODE_KEY,
        "launch_prior": list(LAUNCH_PRIOR),
        "started_utc": "2026-05-20T14:03:10Z", "complete": False})
    rows = [row(i, v, hists[i % len(hists)] if spec else None, proto.max_tokens, prompt_set) for i, v in enumerate(tok_s)]
    for r in rows:
        w.append(r)
    if summary:
        w.write_summary(stats.summarize(rows, num_draft_tokens=ndt).to_json())
    if complete:
        w.update_manifest(complete=True, ended_utc="2026-05-20T14:09:40Z")
    return w.dir


A_SPEEDS = [471.0, 476.5, 480.2, 483.9, 478.8, 474.1, 486.3, 481.0]
B_SPEEDS = [505.2, 509.9, 512.4, 498.7, 515.0, 507.3, 511.8, 503.6]
M_SPEEDS = [530.1, 541.7, 536.0, 528.4, 533.3, 539.9, 544.2, 531.5]


#: the fixtures' node: its launches are known to vary by 0.5% (a prior of 50 degrees of freedom, as a node whose
#: record holds many pairs), so a 6% difference between two single-launch cells resolves
LAUNCH_PRIOR = (0.5, 50.0)
NODE_KEY = "twin:127.0.0.1"


def fixture_profile(name: str):
    return replace(resolve_profile(name).with_sim(), node_launch_sd_pct=LAUNCH_PRIOR[0],
                   node_launch_sd_df=LAUNCH_PRIOR[1])


def write_pair(s: Session, a_dir: Path, b_dir: Path, order: str = "AB") -> None:
    a, b = fixture_profile("k26-eagle3-d6"), fixture_profile("k26-eagle3-d7")
    a_dir, b_dir = a_dir.resolve(), b_dir.resolve()  # as the runtime records them: absolute, made relative on write
    legs = [Leg(arm="A", index=1, profile=a.name, cell_dir=str(a_dir), anchor_median_tok_s=492.5, anchor_pct=98.5,
                kv_capacity_tokens=336000, num_draft_tokens=7, spec_label="EAGLE3 depth 6 topk 1 (7 draft tokens)"),
            Leg(arm="B", index=1, profile=b.name, cell_dir=str(b_dir), anchor_median_tok_s=501.0, anchor_pct=100.2,
                kv_capacity_tokens=330000, num_draft_tokens=8, spec_label="EAGLE3 depth 7 topk 1 (8 draft tokens)")]
    _finish(s.dir.resolve(), PairSpec(a=a, b=b, protocol=CellProtocol(prompt_set="tool", n=8, max_tokens=256), order=order),
            legs, None)


def build_sessions(root: Path) -> dict[str, Path]:
    """Two sessions: the newer one holds a pair (A1, B1 on the tool set, pair.json + report.md) and a math cell
    (another prompt set); the older one holds a finished tool cell and an interrupted cell whose manifest tore."""
    old = make_session(root, "20260520T110512Z", "k26-eagle3-d6")
    old_tool = make_cell(old, "tool-n8-m256-c1", [462.0, 468.4, 455.9, 471.2, 466.0, 459.3])
    torn = make_cell(old, "math-n8-m256-c1", [520.0, 522.0], prompt_set="math", complete=False, summary=False)
    (torn / "manifest.json").write_text('{"schema": 1, "label": "math-n8-m256-c1", "prompt_')
    new = make_session(root, "20260520T140301Z", "pair-k26-eagle3-d6-vs-k26-eagle3-d7")
    new.add_arm({"profile": "k26-eagle3-d6~sim", "argv": ["--api-key", "sk-SECRET"]})
    new.add_arm({"profile": "k26-eagle3-d7~sim"})
    a1 = make_cell(new, "A1-tool", A_SPEEDS)
    b1 = make_cell(new, "B1-tool", B_SPEEDS, spec=D7)
    math = make_cell(new, "math-n8-m256-c1", M_SPEEDS, spec=D7, prompt_set="math")
    write_pair(new, a1, b1)
    (root / ".launch-history.json").write_text("{}")
    (root / "not-a-session").mkdir()
    return {"old": old.dir, "old_tool": old_tool, "torn": torn, "new": new.dir, "a1": a1, "b1": b1, "math": math}


# --- listing ---------------------------------------------------------------------------------------

def test_list_sessions_newest_first_with_cells_pair_and_torn_entries(tmp_path):
    p = build_sessions(tmp_path)
    ss = browse.list_sessions(tmp_path)
    assert [s.dir for s in ss] == [p["new"], p["old"]]
    new, old = ss
    assert new.created == datetime(2026, 5, 20, 14, 3, 1, tzinfo=UTC)
    assert (new.slug, new.hostname, new.engine_version) == ("pair-k26-eagle3-d6-vs-k26-eagle3-d7", HOST, "0.5.23")
    assert new.arms == ["k26-eagle3-d6~sim", "k26-eagle3-d7~sim"] and new.simulated and new.complete
    assert [c.label for c in new.cells] == ["A1-tool", "B1-tool", "math-n8-m256-c1"]
    a1, b1, math = new.cells
    assert (a1.n, a1.n_ok, a1.n_included, a1.complete, a1.figures_from) == (8, 8, 8, True, "summary")
    assert a1.median_tok_s == pytest.approx(stats.interp_median(A_SPEEDS), rel=1e-9)
    assert a1.tau == pytest.approx(stats.histogram_tau(stats.pool_histograms(HISTS6 * 2)))
    assert (a1.spec, b1.spec, a1.prompt_set, a1.prompt_sha256) == ("EAGLE-3 d6", "EAGLE-3 d7", "tool", SHA["tool"])
    assert math.prompt_sha256 == SHA["math"] and math.problem is None
    assert new.pair is not None and new.pair.problem is None and new.pair.has_report
    assert new.pair.legs == [("A1", p["a1"].name), ("B1", p["b1"].name)]
    assert new.pair.verdict.startswith("k26-eagle3-d7 faster by") and (new.pair.a, new.pair.b) == ("k26-eagle3-d6", "k26-eagle3-d7")
    assert old.pair is None and not old.complete
    tool, torn = old.cells
    assert tool.complete and tool.problem is None and tool.n == 6
    assert torn.label == torn.dir.name and "manifest.json unreadable" in torn.problem and not torn.complete
    assert torn.n == 2 and torn.figures_from == "rows" and torn.median_tok_s == pytest.approx(521.0)
    assert torn.spec == "—" and torn.prompt_sha256 is None


def test_several_pairs_per_session_newest_first(tmp_path):
    p = build_sessions(tmp_path)
    write_pair(Session(p["new"]), p["b1"], p["a1"])
    s = browse.read_session(p["new"])
    assert [x.path.name for x in s.pairs] == ["pair-2.json", "pair.json"] and [x.index for x in s.pairs] == [2, 1]
    assert s.pair.path.name == "pair-2.json" and s.pair.has_report and s.pair.verdict.startswith("k26-eagle3-d7 slower")
    assert browse.report_path_of(s.pairs[0].path).name == "report-2.md"
    assert browse.pair_missing_legs(s.pairs[0].path) == []
    import shutil
    shutil.rmtree(p["b1"])
    assert browse.pair_missing_legs(s.pairs[1].path) == ["B1 (cell-002-b1-tool)"]


def test_listing_recomputes_when_rows_are_newer_than_the_summary(tmp_path):
    s = make_session(tmp_path, "20260520T090000Z", "x")
    d = make_cell(s, "tool", A_SPEEDS[:4])
    import os

    from console.core.sessions.store import CellWriter
    CellWriter(d).append(row(9, 900.0, HISTS6[0]))  # a resumed cell: one more row after the summary
    st = (d / "summary.json").stat()
    os.utime(d / "summary.json", (st.st_atime, st.st_mtime - 10))
    e = browse.read_cell(d)
    assert e.figures_from == "rows" and e.n == 5
    assert e.median_tok_s == pytest.approx(stats.interp_median(A_SPEEDS[:4] + [900.0]))


def test_listing_survives_torn_session_json_torn_pair_and_missing_rows(tmp_path):
    s = make_session(tmp_path, "20260519T230000Z", "broken")
    (s.dir / "session.json").write_text('{"schema": 1, "crea')
    (s.dir / "pair.json").write_text("{")
    (s.dir / "cell-001-empty").mkdir()
    (tmp_path / "20260518T010203Z-no-meta" / "cell-001-x").mkdir(parents=True)
    ss = browse.list_sessions(tmp_path)
    assert [x.dir.name for x in ss] == ["20260519T230000Z-broken", "20260518T010203Z-no-meta"]
    b = ss[0]
    assert "session.json unreadable" in b.problem and b.slug == "broken"
    assert b.created == datetime(2026, 5, 19, 23, 0, tzinfo=UTC)
    assert b.pair is not None and "pair.json unreadable" in b.pair.problem
    assert b.cells[0].problem == "no manifest.json" and b.cells[0].n == 0
    assert ss[1].problem == "no session.json" and ss[1].slug == "no-meta"
    assert browse.list_sessions(tmp_path / "missing") == []


def test_ago_and_local_time():
    t = datetime(2026, 5, 20, 14, 3, tzinfo=UTC)
    assert browse.ago(t, t + timedelta(seconds=3)) == "just now"
    assert browse.ago(t, t + timedelta(seconds=45)) == "45 s ago"
    assert browse.ago(t, t + timedelta(minutes=12, seconds=30)) == "12 min ago"
    assert browse.ago(t, t + timedelta(hours=5)) == "5 h ago"
    assert browse.ago(t, t + timedelta(days=3)) == "3 d ago"
    assert browse.ago(t, t - timedelta(hours=1)) == "in the future"
    assert browse.local_time(t, timezone(timedelta(hours=2))) == "2026-05-20 16:03"


# --- comparing ---------------------------------------------------------------------------------------

def test_compare_cells_is_the_pair_bootstrap_of_b_vs_a(tmp_path):
    p = build_sessions(tmp_path)
    ps = compare.compare_cells(p["a1"], p["b1"], seed=0)
    # two single-launch cells: the pair interval with one launch each, the node's prior recorded in the manifests
    var = launches.pooled([], *LAUNCH_PRIOR)
    want = pairs.compare_legs([load_rows(p["a1"])], [load_rows(p["b1"])], 0, launch=var, a_launches=[0],
                              b_launches=[1])
    assert ps.effect == want and ps.effect.resolved and ps.verdict.startswith("B faster by")
    assert ps.effect.launch_sd_pct == pytest.approx(0.5) and ps.effect.mde_pct > 0
    assert (ps.a.n, ps.b.n, ps.order) == (8, 8, "AB")
    assert ps.a.median_tok_s == pytest.approx(stats.interp_median(A_SPEEDS))
    assert ps.b.p10_tok_s == pytest.approx(stats.percentile(B_SPEEDS, 10))
    assert ps.a.kv_capacity_tokens == 336000 and ps.a.usd_per_m_tokens is not None
    # the same effect the pair's own report recomputes from the same two legs
    doc, pair_ps, _ = recompute_pair(p["new"])
    assert pair_ps.effect == ps.effect
    # reversed: B slower, same magnitude of point estimate
    rev = compare.compare_cells(p["b1"], p["a1"], seed=0)
    assert rev.verdict.startswith("B slower by")
    assert compare.comparison_caveats(p["a1"], p["b1"]) == []


def test_compare_refuses_different_prompt_set_hashes_in_one_line_naming_both(tmp_path):
    p = build_sessions(tmp_path)
    with pytest.raises(ValueError) as ei:
        compare.compare_cells(p["a1"], p["math"])
    msg = str(ei.value)
    assert "\n" not in msg and "prompt sets differ" in msg
    assert SHA["tool"][:12] in msg and SHA["math"][:12] in msg and "tool" in msg and "math" in msg


def test_compare_refuses_protocol_differences_but_not_n(tmp_path):
    s = make_session(tmp_path, "20260520T100000Z", "protos")
    base = make_cell(s, "base", A_SPEEDS)
    more_n = make_cell(s, "more-n", B_SPEEDS + [501.0, 502.0])
    assert compare.compare_cells(base, more_n).b.n == 10
    for change, word in ((dict(max_tokens=128), "max_tokens 256 vs 128"), (dict(temperature=0.0), "temperature 0.6 vs 0.0"),
                         (dict(concurrency=4), "concurrency 1 vs 4"), (dict(endpoint="generate"), "endpoint chat vs generate")):
        other = make_cell(s, f"x-{word.split()[0]}", B_SPEEDS, proto=CellProtocol(**{**asdict(PROTO), **change}))
        with pytest.raises(ValueError, match="protocols differ") as ei:
            compare.compare_cells(base, other)
        assert word in str(ei.value) and "\n" not in str(ei.value) and SHA["tool"][:12] in str(ei.value)


def test_compare_refuses_cells_measured_at_different_twin_time_scales(tmp_path):
    s = make_session(tmp_path, "20260520T100000Z", "scales")
    base = make_cell(s, "base", A_SPEEDS)
    fast = make_cell(s, "fast", B_SPEEDS)
    mf = fast / "manifest.json"
    mf.write_text(json.dumps({**json.loads(mf.read_text()), "sim_time_scale": 8.0}))
    with pytest.raises(ValueError, match="time scale") as ei:
        compare.compare_cells(base, fast)
    assert "×1" in str(ei.value) and "×8" in str(ei.value) and "\n" not in str(ei.value)
    e = browse.read_cell(fast)
    assert e.sim_time_scale == 8.0 and browse.read_cell(base).sim_time_scale is None


def test_compare_refuses_torn_manifest_and_same_cell_and_notes_cross_session(tmp_path):
    p = build_sessions(tmp_path)
    with pytest.raises(ValueError, match="manifest.json unreadable"):
        compare.compare_cells(p["torn"], p["math"])
    with pytest.raises(ValueError, match="same cell"):
        compare.compare_cells(p["a1"], p["a1"])
    ps = compare.compare_cells(p["old_tool"], p["a1"])
    assert ps.effect.point_pct is not None
    cav = compare.comparison_caveats(p["old_tool"], p["a1"])
    assert any("different sessions" in c for c in cav)


# --- forecast from disk ------------------------------------------------------------------------------

def test_cell_forecast_matches_the_cli_and_uses_a_given_tax(tmp_path):
    p = build_sessions(tmp_path)
    cf = forecasts.cell_forecast(p["old_tool"], verify_tax_ms=0.1)
    fc = cf.forecast
    assert (cf.family, cf.depth, cf.measured_positions) == ("EAGLE3", 6, 6)
    assert [pt.depth for pt in fc.points] == [3, 4, 5, 6, 7, 8]
    assert fc.verify_tax_ms == 0.1 and fc.tax.source == "given" and "--verify-tax-ms" in fc.tax_source
    at6 = fc.at(6)
    assert at6.tau == pytest.approx(fc.base_tau) and at6.tok_s == pytest.approx(fc.base_tok_s)
    assert fc.at(8).extrapolated_positions == 2
    alone = forecasts.cell_forecast(p["old_tool"]).forecast  # no sibling at another width: the published tax
    assert alone.tax.source == "published" and alone.tax_source.startswith("published (chain drafting")
    with pytest.raises(ValueError, match="no rows.jsonl"):
        forecasts.cell_forecast(tmp_path)


def test_cell_forecast_refuses_an_unresolved_session_fit_and_says_so(tmp_path):
    """A1 (d6) and B1 (d7) share set and protocol in this session, but their requests' steps overlap: the fitted
    slope's CI includes 0, so the forecast uses the published tax and says why."""
    p = build_sessions(tmp_path)
    fit, why = forecasts.session_tax(p["a1"])
    assert fit is None and "across widths 7, 8 on tool" in why and "not resolved" in why
    cf = forecasts.cell_forecast(p["a1"])
    assert cf.forecast.tax.source == "published" and why in cf.forecast.tax_source


def test_cell_forecast_dflash_blocks_and_refusals(tmp_path):
    s = make_session(tmp_path, "20260520T100000Z", "dflash")
    dfl = {"algorithm": "DFLASH", "num_steps": None, "topk": None, "num_draft_tokens": 8}
    d = make_cell(s, "tool", A_SPEEDS, spec=dfl, hists=HISTS7)
    cf = forecasts.cell_forecast(d)
    assert cf.depth == 8 and [pt.depth for pt in cf.forecast.points] == [4, 8, 16, 32]
    nospec = make_cell(s, "nospec", A_SPEEDS, spec=None)
    with pytest.raises(ValueError, match="no per-position acceptance"):
        forecasts.cell_forecast(nospec)
    tree = make_cell(s, "tree", A_SPEEDS, spec={**D6, "topk": 4})
    with pytest.raises(ValueError, match="tree drafting"):
        forecasts.cell_forecast(tree)


def test_pair_json_written_by_the_builder_has_relative_legs(tmp_path):
    p = build_sessions(tmp_path)
    doc = read_json(p["new"] / "pair.json")
    assert [leg["cell_dir"] for leg in doc["legs"]] == [p["a1"].name, p["b1"].name]
    assert "sk-SECRET" not in json.dumps(read_json(p["new"] / "session.json"))


def test_the_published_tax_prices_only_the_model_it_was_measured_on(tmp_path):
    """The real CPU server's verify tax is ~42 ms/token (probe, docs/real-sglang.md): the reference node's 0.397 ms
    would price its depths 100x too cheap, so another model gets no forecast until its tax is probed or fitted."""
    import json

    import pytest

    from console.core.sessions.forecasts import cell_forecast
    p = build_sessions(tmp_path)
    cell = p["a1"]
    m = json.loads((cell / "manifest.json").read_text())
    assert cell_forecast(cell).forecast.tax.source == "published"  # no model recorded: as before
    m.setdefault("server_args", {})["model_path"] = "moonshotai/Kimi-K2.6"
    (cell / "manifest.json").write_text(json.dumps(m))
    assert cell_forecast(cell).forecast.tax.source == "published"
    m["server_args"]["model_path"] = "/root/.cache/serving-console/real-sglang/model"
    (cell / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ValueError, match=r"the verify tax of /root/.*/model on this node is unknown: the published "
                                         r"0.397 ms/token is moonshotai/Kimi-K2.6 on 4×B200; run the verify-tax probe"):
        cell_forecast(cell)
    assert cell_forecast(cell, verify_tax_ms=42.0).forecast.tax.source == "given"
