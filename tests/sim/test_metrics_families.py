"""The twin's --enable-metrics surfaces that SGLang 0.5.23 has beyond what the console reads: every /metrics family
of a single-node server with its type, labels and semantics (values from the twin's state), the /generate
meta_info timing keys in SGLang's order from the model timeline, chat's return_meta_info, and /model_info's
embedding block. (tests/differential compares the same against a real server.)"""

from __future__ import annotations

import json
import math
import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.sim.twin_process import FAST, MODEL, start_twin, stop_twin

pytestmark = pytest.mark.e2e

ARGS = MODEL + FAST + ["--mem-fraction-static", "0.96", "--enable-metrics", "--sim-seed", "2"]
#: SGLang 0.5.23's families on a single-node, non-disaggregated server after traffic, with their types
#: (the real CPU server's /metrics, tests/differential)
REAL_FAMILIES = {
    "process_cpu_seconds": "counter", "http_requests": "counter", "http_responses": "counter",
    "prompt_tokens": "counter", "generation_tokens": "counter", "num_requests": "counter", "cached_tokens": "counter",
    "time_to_first_token_seconds": "histogram", "e2e_request_latency_seconds": "histogram",
    "request_time_per_output_token_seconds": "histogram", "prompt_tokens_histogram": "histogram",
    "uncached_prompt_tokens_histogram": "histogram", "generation_tokens_histogram": "histogram",
    "inter_token_latency_seconds": "histogram", "dp_attention_token_imbalance_ratio": "histogram",
    "dp_attention_sync_wait_seconds": "histogram", "per_stage_req_latency_seconds": "histogram",
    "queue_time_seconds": "histogram", "max_total_num_tokens": "gauge", "weight_memory_usage_gb": "gauge",
    "kv_cache_memory_usage_gb": "gauge", "graph_memory_usage_gb": "gauge", "page_size": "gauge", "num_pages": "gauge",
    "context_len": "gauge", "startup_available_gpu_memory_gb": "gauge", "num_running_reqs": "gauge",
    "num_queue_reqs": "gauge", "num_grammar_queue_reqs": "gauge", "gen_throughput": "gauge", "cache_hit_rate": "gauge",
    "decode_sum_seq_lens": "gauge", "token_usage": "gauge", "full_token_usage": "gauge", "swa_token_usage": "gauge",
    "mamba_usage": "gauge", "num_used_tokens": "gauge", "kv_available_tokens": "gauge", "kv_evictable_tokens": "gauge",
    "kv_used_tokens": "gauge", "swa_available_tokens": "gauge", "swa_evictable_tokens": "gauge",
    "swa_used_tokens": "gauge", "mamba_available_tokens": "gauge", "mamba_evictable_tokens": "gauge",
    "mamba_used_tokens": "gauge", "spec_accept_length": "gauge", "spec_accept_rate": "gauge",
    "spec_cap_length": "gauge", "spec_block_accept_length": "gauge", "spec_num_steps": "gauge",
    "spec_num_draft_tokens": "gauge", "num_prefill_bootstrap_queue_reqs": "gauge",
    "num_prefill_inflight_queue_reqs": "gauge", "num_decode_prealloc_queue_reqs": "gauge",
    "num_decode_transfer_queue_reqs": "gauge", "num_decode_host_receive_queue_reqs": "gauge",
    "num_decode_deferred_kv_release_reqs": "gauge", "pending_prealloc_token_usage": "gauge",
    "prealloc_full_token_usage": "gauge", "prealloc_swa_token_usage": "gauge", "utilization": "gauge",
    "fwd_occupancy": "gauge", "new_token_ratio": "gauge", "is_cuda_graph": "gauge",
    "num_unique_running_routing_keys": "gauge", "routing_key_running_req_count": "gauge",
    "routing_key_all_req_count": "gauge", "routing_keys_active": "gauge", "http_requests_active": "gauge",
    "num_retracted_reqs": "gauge", "num_paused_reqs": "gauge", "startup_time_seconds": "gauge",
    "startup_cuda_graph_time_seconds": "gauge", "prefill_effective_tokens": "counter",
    "scheduler_idle_seconds": "counter", "scheduler_process_cpu_seconds": "counter",
    "scheduler_stage_seconds": "counter", "dp_attention_tokens": "counter", "dp_attention_steps": "counter",
    "dp_attention_pairs": "counter", "cuda_graph_passes": "counter", "realtime_tokens": "counter",
}
SCHED = {"engine_type", "model_name", "moe_ep_rank", "pp_rank", "tp_rank"}
TOK = {"engine_type", "model_name"}
#: the real non-streaming /generate meta_info with --enable-metrics, in order
GENERATE_META = ["id", "finish_reason", "prompt_tokens", "weight_version", "num_retractions", "storage_prefetch_wait",
                 "storage_staging_wait", "forward_entry_time", "prefill_finished_time", "queue_time",
                 "reasoning_tokens", "completion_tokens", "cached_tokens", "weight_versions", "cached_tokens_details",
                 "dp_rank", "e2e_latency", "request_received_ts", "first_token_latency",
                 "api_server_dispatch_finish_ts", "request_finished_ts", "decode_throughput",
                 "response_sent_to_client_ts"]


@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(ARGS, tmp_module)
    yield t
    stop_twin(t)


def families(url: str) -> dict:
    return {f.name: f for f in text_string_to_metric_families(httpx.get(url + "/metrics").text)}


def value(fam, **labels) -> float:
    vals = [s.value for s in fam.samples if all(s.labels.get(k) == v for k, v in labels.items())
            and not s.name.endswith(("_created",))]
    assert vals, (fam.name, labels)
    return vals[0]


def test_every_real_family_with_its_type_and_labels(twin):
    chat = {"model": "k", "messages": [{"role": "user", "content": "Explain the KV cache."}], "max_tokens": 40}
    httpx.post(twin.url + "/v1/chat/completions", json=chat, timeout=60).raise_for_status()
    httpx.post(twin.url + "/v1/chat/completions", json=chat | {"stream": True}, timeout=60).raise_for_status()
    httpx.post(twin.url + "/generate", json={"text": "Hello", "sampling_params": {"max_new_tokens": 8}},
               timeout=60).raise_for_status()
    fams = families(twin.url)
    for name, kind in REAL_FAMILIES.items():
        assert f"sglang:{name}" in fams, name
        assert fams[f"sglang:{name}"].type == kind, name
    lab = lambda n: {k for s in fams[f"sglang:{n}"].samples for k in s.labels} - {"le"}  # noqa: E731
    assert lab("http_responses") == {"endpoint", "method", "status_code"}
    assert lab("cached_tokens") == TOK | {"cache_source"} and lab("prompt_tokens_histogram") == TOK
    assert lab("request_time_per_output_token_seconds") == TOK | {"is_streaming"}
    assert lab("per_stage_req_latency_seconds") == SCHED | {"stage"}
    assert lab("kv_used_tokens") == SCHED and lab("realtime_tokens") == SCHED | {"mode"}
    assert lab("routing_key_all_req_count") == SCHED | {"gt"} and lab("num_paused_reqs") == SCHED | {"pid"}
    assert lab("startup_time_seconds") == TOK | {"phase"} and lab("routing_keys_active") == set()
    buckets = [s.labels["le"] for s in fams["sglang:generation_tokens_histogram"].samples
               if s.name.endswith("_bucket")]
    assert buckets[:3] == ["100.0", "300.0", "500.0"] and buckets[-2:] == ["1.1e+06", "+Inf"]


def test_family_values_follow_the_twin_state(twin):
    before = families(twin.url)
    body = {"text": "Tell me about the scheduler.", "sampling_params": {"max_new_tokens": 30, "ignore_eos": True}}
    out = httpx.post(twin.url + "/generate", json=body, timeout=60).json()
    after = families(twin.url)
    d = lambda n, **kw: value(after[f"sglang:{n}"], **kw) - value(before[f"sglang:{n}"], **kw)  # noqa: E731
    assert d("http_requests", endpoint="/generate", method="POST") == 1
    assert d("http_responses", endpoint="/generate", method="POST", status_code="200") == 1
    assert value(after["sglang:http_requests_active"], endpoint="/metrics") == 1  # this scrape itself
    g = [s for s in after["sglang:generation_tokens_histogram"].samples if s.name.endswith("_sum")][0].value
    g0 = [s for s in before["sglang:generation_tokens_histogram"].samples if s.name.endswith("_sum")][0].value
    assert g - g0 == 30 == out["meta_info"]["completion_tokens"]
    assert d("realtime_tokens", mode="decode") == 29  # the first token comes from the prefill forward
    prompt = out["meta_info"]["prompt_tokens"]
    cached = out["meta_info"]["cached_tokens"]
    assert d("realtime_tokens", mode="prefill_compute") == prompt - cached
    assert d("prefill_effective_tokens", mode="input") == prompt - cached
    assert d("cached_tokens", cache_source="device") == cached
    assert d("cuda_graph_passes", mode="decode_cuda_graph") == 29
    assert value(after["sglang:is_cuda_graph"]) == 1.0 and math.isnan(value(after["sglang:fwd_occupancy"]))
    assert value(after["sglang:page_size"]) * value(after["sglang:num_pages"], tp_rank="0") == value(
        after["sglang:max_total_num_tokens"], tp_rank="0")
    assert value(after["sglang:kv_evictable_tokens"]) > 0  # the radix cache holds the finished prompts
    busy = d("scheduler_stage_seconds", category="run_batch")
    assert 0 < busy < out["meta_info"]["e2e_latency"] * 1.01
    assert value(after["sglang:scheduler_idle_seconds"]) > 0
    assert value(after["sglang:startup_time_seconds"], phase="load_weight") > 0
    assert value(after["sglang:spec_num_steps"]) == 0  # no speculation: SGLang's zeros


def test_generate_meta_info_timing_keys_in_order_and_consistent(twin):
    t0 = time.time()
    body = {"text": "Hello there", "sampling_params": {"max_new_tokens": 12, "ignore_eos": True}}
    m = httpx.post(twin.url + "/generate", json=body, timeout=60).json()["meta_info"]
    assert list(m) == GENERATE_META
    assert m["storage_prefetch_wait"] == m["storage_staging_wait"] == 0.0
    assert t0 - 1 < m["request_received_ts"] == m["api_server_dispatch_finish_ts"] < time.time()
    assert m["request_received_ts"] <= m["forward_entry_time"] <= m["prefill_finished_time"] <= m["request_finished_ts"]
    assert m["forward_entry_time"] - m["request_received_ts"] == pytest.approx(m["queue_time"], abs=1e-6)
    assert m["prefill_finished_time"] - m["request_received_ts"] == pytest.approx(m["first_token_latency"], abs=1e-6)
    assert m["request_finished_ts"] - m["request_received_ts"] == pytest.approx(m["e2e_latency"], abs=1e-6)
    decode_s = m["e2e_latency"] - m["first_token_latency"]
    assert m["decode_throughput"] == pytest.approx(11 / decode_s, rel=1e-6)
    assert m["response_sent_to_client_ts"] >= m["request_received_ts"]


def test_generate_stream_meta_info_and_chat_return_meta_info(twin):
    body = {"text": "Hi", "stream": True, "sampling_params": {"max_new_tokens": 5, "ignore_eos": True}}
    r = httpx.post(twin.url + "/generate", json=body, timeout=60)
    metas = [json.loads(b[6:])["meta_info"] for b in r.text.split("\n\n") if b.startswith("data: {")]
    first, last = metas[0], metas[-1]
    assert list(first)[5:10] == ["storage_prefetch_wait", "storage_staging_wait", "forward_entry_time",
                                 "prefill_finished_time", "queue_time"]
    assert "response_sent_to_client_ts" in first and "request_finished_ts" not in first
    assert list(last)[-6:] == ["request_received_ts", "first_token_latency", "api_server_dispatch_finish_ts",
                               "response_sent_to_client_ts", "request_finished_ts", "decode_throughput"]
    assert last["response_sent_to_client_ts"] == first["response_sent_to_client_ts"]

    chat = {"model": "k", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4, "return_meta_info": True}
    out = httpx.post(twin.url + "/v1/chat/completions", json=chat, timeout=60).json()
    choice = out["choices"][0]
    assert list(choice)[-2:] == ["matched_stop", "meta_info"] and list(choice["meta_info"]) == GENERATE_META
    assert choice["meta_info"]["id"] == out["id"] and choice["meta_info"]["completion_tokens"] == 4
    plain = httpx.post(twin.url + "/v1/chat/completions", json=chat | {"return_meta_info": False}, timeout=60).json()
    assert "meta_info" not in plain["choices"][0]
    bad = httpx.post(twin.url + "/v1/chat/completions", json=chat | {"stream": True}, timeout=60)
    assert bad.status_code == 400 and bad.json()["message"] == (
        "return_meta_info is not supported with streaming. Please set stream=false when using "
        "return_meta_info=true.")


def test_natural_stops_on_the_wire(twin):
    # no max_tokens: the chat ends with EOS after a few hundred tokens (it ran to the context limit before)
    chat = {"model": "k", "messages": [{"role": "user", "content": "Say hi."}]}
    out = httpx.post(twin.url + "/v1/chat/completions", json=chat, timeout=120).json()
    assert out["choices"][0]["finish_reason"] == "stop" and out["choices"][0]["matched_stop"] == 163586
    assert 2 <= out["usage"]["completion_tokens"] <= 16384
    g = httpx.post(twin.url + "/generate", json={"text": "Write a story."}, timeout=120).json()["meta_info"]
    assert g["completion_tokens"] <= 128  # /generate's default max_new_tokens still caps
    fixed = httpx.post(twin.url + "/v1/chat/completions", json=chat | {"max_tokens": 900, "ignore_eos": True},
                       timeout=120).json()
    assert fixed["usage"]["completion_tokens"] == 900 and fixed["choices"][0]["finish_reason"] == "length"


def test_model_info_embedding_block(twin):
    info = httpx.get(twin.url + "/model_info").json()
    e = info["embedding"]
    assert list(info)[-1] == "embedding"
    assert (e["family"], e["task"], e["enabled"], e["bcg_eligibility"]) == ("none", "none", False, "disabled")
    server = httpx.get(twin.url + "/server_info").json()
    prefill = server["cuda_graph_config"]["prefill"]
    assert e["bcg"] == {"prefill_backend": prefill["backend"], "enabled": prefill["backend"] == "breakable",
                        "capture_token_budget": prefill["max_bs"], "capture_batch_sizes": prefill["bs"]}
    assert e["cache"] == {"kv_cache_disabled": False, "radix_cache_disabled": False,
                          "chunked_prefill_disabled": False}
