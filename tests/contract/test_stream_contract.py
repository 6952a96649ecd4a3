"""The stream client on SGLang 0.5.23 wire fixtures (written from the 0.5.23 serializers, not from the twin)."""

import json

import httpx
import pytest

from console.core.engine.stream import StreamClient
from console.core.measure import stats
from tests.conftest import ChunkedStream, fixture_bytes, replay_transport


def events_of(name):
    out = []
    for block in fixture_bytes(name).decode().split("\n\n"):
        block = block.strip()
        if block.startswith("data: "):
            out.append(block[len("data: "):])
    return out


def expected_from_chat_fixture(name):
    """Independent reading of the fixture: the figures a careful human would extract."""
    evs = [e for e in events_of(name) if e != "[DONE]"]
    objs = [json.loads(e) for e in evs]
    content = [o for o in objs if o["choices"] and (o["choices"][0]["delta"].get("content") or "")]
    text = "".join(o["choices"][0]["delta"]["content"] for o in content)
    usage = [o["usage"] for o in objs if o.get("usage")]
    sglext = [o["sglext"]["spec_tokens_details"] for o in objs if o.get("sglext")]
    finish = [o["choices"][0]["finish_reason"] for o in objs if o["choices"] and o["choices"][0]["finish_reason"]]
    return dict(text=text, n_content=len(content), first_tokens=content[0].get("usage", {}).get("completion_tokens"),
                completion=usage[-1]["completion_tokens"] if usage else None,
                spec=sglext[0] if sglext else None, finish=finish[-1] if finish else None)


def client_for(name, path="/v1/chat/completions", seed=0, status=200, ctype="text/event-stream"):
    data = fixture_bytes(name)
    transport = replay_transport({path: lambda req: httpx.Response(status, stream=ChunkedStream(data, seed=seed),
                                                                 headers={"content-type": ctype})})
    return StreamClient("http://sglang.test", transport=transport)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
async def test_chat_stream_eagle3_multi_token_chunks_and_sglext(seed):
    exp = expected_from_chat_fixture("chat_stream_eagle3.sse")
    async with client_for("chat_stream_eagle3.sse", seed=seed) as c:
        rec = await c.chat([{"role": "user", "content": "hi"}], max_tokens=exp["completion"])
    assert rec.error is None and rec.ok
    assert rec.text == exp["text"]
    assert rec.completion_tokens == exp["completion"] == 48
    assert rec.first_chunk_tokens == exp["first_tokens"] == 1  # the prefill token
    assert rec.n_content_chunks == exp["n_content"]
    assert rec.finish_reason == "length"
    assert rec.rid == "5f0c2b9e4a7d4c1f9b3e8d6a2c7f1e04"
    assert rec.prompt_tokens == 27
    sp = exp["spec"]
    assert rec.spec_verify_ct == sp["spec_verify_ct"]
    assert rec.spec_histogram == sp["spec_correct_drafts_histogram"]
    # cumulative token counts per chunk are non-decreasing and end at completion_tokens
    toks = [c[1] for c in rec.chunks]
    assert toks == sorted(toks) and toks[-1] == 48
    assert all(t2 >= t1 for (t1, _), (t2, _) in zip(rec.chunks, rec.chunks[1:]))
    # definitions applied to the record agree with the server's own counters
    assert stats.request_tau(rec) == pytest.approx(1 + sp["spec_num_correct_drafts"] / sp["spec_verify_ct"])
    p = stats.per_position_acceptance(rec.spec_histogram, k_max=6)
    assert stats.mean_accept_rate(p) == pytest.approx(sp["spec_accept_rate"])
    assert rec.t_first_s <= rec.t_last_s <= rec.t_end_s


async def test_chat_stream_stop_with_eos_only_final_output():
    exp = expected_from_chat_fixture("chat_stream_eagle3_stop.sse")
    async with client_for("chat_stream_eagle3_stop.sse") as c:
        rec = await c.chat([{"role": "user", "content": "hi"}], max_tokens=256)
    assert rec.ok and rec.finish_reason == "stop"
    assert isinstance(rec.matched_stop, int)
    assert rec.text == exp["text"]
    assert rec.completion_tokens == exp["completion"]
    assert rec.spec_histogram == exp["spec"]["spec_correct_drafts_histogram"]


async def test_chat_stream_plain_without_usage():
    exp = expected_from_chat_fixture("chat_stream_plain.sse")
    async with client_for("chat_stream_plain.sse") as c:
        rec = await c.chat([{"role": "user", "content": "hi"}], max_tokens=64, spec_details=False)
    assert rec.error is None
    assert rec.text == exp["text"]
    assert rec.spec_verify_ct is None and rec.spec_histogram is None
    assert rec.n_content_chunks == exp["n_content"]
    # no usage at all: the server told us no token count, so no tok/s is invented
    assert rec.completion_tokens is None
    assert stats.output_tok_s(rec) is None


async def test_generate_stream_cumulative_text_and_final_meta():
    evs = [json.loads(e) for e in events_of("generate_stream_eagle3.sse") if e != "[DONE]"]
    final = evs[-1]["meta_info"]
    async with client_for("generate_stream_eagle3.sse", path="/generate") as c:
        rec = await c.generate("hello", max_new_tokens=64)
    assert rec.ok
    assert rec.text == evs[-1]["text"]  # cumulative text: the last chunk's text is the whole output
    assert rec.completion_tokens == final["completion_tokens"]
    assert rec.finish_reason == final["finish_reason"]["type"] == "stop"
    assert rec.matched_stop == final["finish_reason"]["matched"]
    assert rec.spec_histogram == final["spec_correct_drafts_histogram"]
    assert rec.spec_verify_ct == final["spec_verify_ct"]
    assert rec.rid == final["id"]
    # chunks are counted where the text grew (the EOS-only output adds a token but no text)
    assert rec.n_content_chunks == sum(1 for a, b in zip([""] + [e["text"] for e in evs], [e["text"] for e in evs])
                                       if len(b) > len(a))


async def test_generate_stream_with_metrics_fields():
    async with client_for("generate_stream_eagle3_metrics.sse", path="/generate") as c:
        rec = await c.generate("hello", max_new_tokens=64)
    assert rec.ok and rec.spec_verify_ct


async def test_generate_in_band_error_is_one_line():
    async with client_for("generate_stream_error.sse", path="/generate") as c:
        rec = await c.generate("x" * 10, max_new_tokens=8)
    assert not rec.ok
    assert rec.error.startswith("server error in stream: The input (262150 tokens) is longer")
    assert "\n" not in rec.error


async def test_http_error_status_is_one_line():
    transport = replay_transport({"/v1/chat/completions": lambda r: httpx.Response(
        401, json={"error": "Unauthorized"})})
    async with StreamClient("http://sglang.test", transport=transport) as c:
        rec = await c.chat([{"role": "user", "content": "x"}], max_tokens=8)
    assert rec.error.startswith("HTTP 401 from /v1/chat/completions")


async def test_truncated_stream_is_flagged_not_lost():
    data = fixture_bytes("chat_stream_eagle3.sse")
    cut = data[: data.index(b'"finish_reason":"length"')]  # server died before the finish chunk
    transport = replay_transport({"/v1/chat/completions": lambda r: httpx.Response(200, stream=ChunkedStream(cut))})
    async with StreamClient("http://sglang.test", transport=transport) as c:
        rec = await c.chat([{"role": "user", "content": "x"}], max_tokens=48)
    assert rec.error == "stream ended before [DONE] (truncated)"
    assert rec.n_content_chunks > 0 and rec.t_first_s is not None  # what arrived is kept


async def test_malformed_chunk_marks_record_but_keeps_reading():
    data = fixture_bytes("chat_stream_eagle3.sse").replace(b"data: [DONE]", b"data: {not json\n\ndata: [DONE]", 1)
    transport = replay_transport({"/v1/chat/completions": lambda r: httpx.Response(200, stream=ChunkedStream(data))})
    async with StreamClient("http://sglang.test", transport=transport) as c:
        rec = await c.chat([{"role": "user", "content": "x"}], max_tokens=48)
    assert rec.error.startswith("malformed chunk (not JSON)")
    assert rec.completion_tokens == 48 and rec.spec_verify_ct == 12


async def test_nonstream_fixture_shape_is_what_we_expect():
    obj = json.loads(fixture_bytes("chat_nonstream_eagle3.json"))
    det = obj["sglext"]["spec_tokens_details"]
    h = det["spec_correct_drafts_histogram"]
    assert sum(h) == det["spec_verify_ct"]
    assert sum(k * n for k, n in enumerate(h)) == det["spec_num_correct_drafts"]
