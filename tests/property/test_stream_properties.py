"""Property tests of the stream client's event handling (console/core/engine/stream.py) over SSEParser: a chat
stream in SGLang 0.5.23's shape, cut into arbitrary socket reads, always yields the same record — token counts
per chunk, first-chunk tokens, text, spec histogram — and never raises."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from console.core.engine.stream import StreamClient
from console.core.measure import stats
from tests.property.chat_stream import RID, chat_stream

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Reads(httpx.AsyncByteStream):
    """Replays bytes as the given reads."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    async def __aiter__(self):
        for p in self.pieces:
            yield p


def cut(data: bytes, cuts: list[int]) -> list[bytes]:
    pts = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(pts, pts[1:])]


async def record_of(pieces: list[bytes]):
    t = httpx.MockTransport(lambda r: httpx.Response(200, stream=Reads(pieces),
                                                     headers={"content-type": "text/event-stream"}))
    async with StreamClient("http://sglang.test", transport=t) as c:
        return await c.chat([{"role": "user", "content": "hi"}], max_tokens=4096)


text_piece = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)


@SETTINGS
@given(st.lists(st.tuples(text_piece, st.integers(1, 8)), min_size=1, max_size=40),
       st.lists(st.integers(0, 10**6), max_size=50))
async def test_a_chat_stream_cut_anywhere_gives_the_same_record(chunks, cuts):
    data = chat_stream(chunks)
    rec = await record_of(cut(data, cuts))
    assert rec.error is None and rec.ok, rec.error
    assert rec.rid == RID
    assert rec.text == "".join(t for t, _ in chunks)
    assert rec.n_content_chunks == len(chunks)
    assert rec.first_chunk_tokens == chunks[0][1]
    assert rec.completion_tokens == sum(n for _, n in chunks)
    cum, acc = [], 0
    for _, n in chunks:
        acc += n
        cum.append(acc)
    assert [c[1] for c in rec.chunks] == cum
    assert rec.spec_histogram == [1, 2, 3, 2, 1, 1, 2] and rec.finish_reason == "length"
    assert 0 <= rec.t_first_s <= rec.t_last_s <= rec.t_end_s
    if len(chunks) > 1 and rec.t_last_s > rec.t_first_s:
        assert stats.output_tok_s(rec) > 0


@SETTINGS
@given(st.binary(max_size=600), st.lists(st.integers(0, 10**4), max_size=20))
async def test_arbitrary_bytes_in_the_body_land_in_the_record_not_in_an_exception(blob, cuts):
    rec = await record_of(cut(blob, cuts))
    assert rec.error is not None or rec.completion_tokens is None or rec.ok


SHAPE_BUG = ("console/core/engine/stream.py _on_chat_event assumes the shape of valid JSON (delta is a dict, choices a "
             "list, content a string, histogram items ints): other shapes raise AttributeError/TypeError/ValueError out "
             "of chat(), whose docstring promises never to raise for server faults, and abort run_cell")


@pytest.mark.parametrize("event", [
    b'{"id":"a","choices":[{"index":0,"delta":"x"}]}',
    b'{"id":"a","choices":5}',
    b'{"id":"a","choices":[{"index":0,"delta":{"content":5}}]}',
    b'{"id":"a","sglext":{"spec_tokens_details":{"spec_verify_ct":1,"spec_correct_drafts_histogram":["x"]}}}',
], ids=["delta-str", "choices-int", "content-int", "histogram-str"])
async def test_a_json_event_of_the_wrong_shape_is_recorded_as_an_error(event):
    rec = await record_of([b"data: " + event + b"\n\ndata: [DONE]\n\n"])
    assert rec.error is not None
