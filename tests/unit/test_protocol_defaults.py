"""Protocol defaults with a real model in mind (issue #19 item 1): a real model stops at end-of-sequence after a
varying number of tokens, so every measurement, the anchor included, asks for fixed-length outputs (ignore_eos) and
flags (excludes) the rows that stop short anyway."""

import asyncio

from console.core.run.cell import ANCHOR_PROTOCOL, CellProtocol, gate, run_cell
from console.core.measure.records import RequestRecord
from console.core.workload.prompts import load_set


def _stopped_at_eos(tokens: int) -> RequestRecord:
    return RequestRecord(request_id="health-tool-1#0", t_first_s=0.1, t_last_s=0.9, t_end_s=0.91,
                         first_chunk_tokens=1, completion_tokens=tokens, finish_reason="stop", matched_stop=2)


def test_the_anchor_asks_for_fixed_length_outputs_and_flags_a_natural_stop():
    assert ANCHOR_PROTOCOL.ignore_eos and ANCHOR_PROTOCOL.gate_short
    rec = _stopped_at_eos(12)  # what the real CPU server sent: 12 of 128 tokens, finish_reason stop
    gate(rec, ANCHOR_PROTOCOL, None)
    assert rec.flags == ["short"]
    full = _stopped_at_eos(ANCHOR_PROTOCOL.max_tokens)
    gate(full, ANCHOR_PROTOCOL, None)
    assert full.flags == []


def test_measurement_cells_default_to_ignore_eos_with_the_short_gate():
    p = CellProtocol(prompt_set="tool")
    assert p.ignore_eos and p.gate_short


class _Stream:
    """Answers every request with a natural stop after 12 tokens, whatever ignore_eos says (a server that
    does not honour it), and records what was asked."""

    def __init__(self):
        self.asked = []

    async def chat(self, messages, *, max_tokens, ignore_eos, request_id, **kw):
        self.asked.append(ignore_eos)
        rec = _stopped_at_eos(12)
        rec.request_id = request_id
        return rec


class _Admin:
    async def flush_cache(self):
        from console.core.engine.admin import FlushResult
        return FlushResult(True, 200, "", 1)


class _Obs:
    def __init__(self):
        self.status = []

    def cell_event(self, kind, **data):
        if kind == "status":
            self.status.append(data["text"])


def test_a_server_that_does_not_honour_ignore_eos_is_said_so_and_its_short_rows_excluded():
    stream, obs = _Stream(), _Obs()
    res = asyncio.run(run_cell(stream, _Admin(), load_set("health"), ANCHOR_PROTOCOL, observer=obs))
    assert stream.asked and all(stream.asked), "ignore_eos sent on every request, warm-up included"
    assert res.summary.n_included == 0 and all(r.flags == ["short"] for r in res.rows)
    line = obs.status[-1]
    assert "8 of 8 rows stopped before 128 tokens although ignore_eos was sent" in line and "stop" in line
