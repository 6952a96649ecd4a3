"""ServerInfo and the admin client on SGLang 0.5.23 bodies (/server_info, /flush_cache, 401, /v1/models)."""

import json

import httpx
import pytest

from console.core.engine.admin import AuthError, AdminClient, AdminError, normalize_url
from console.core.engine.server_info import ServerInfo
from tests.conftest import fixture_bytes, replay_transport


def info(name):
    return ServerInfo.parse(json.loads(fixture_bytes(name)))


def test_server_info_eagle3():
    s = info("server_info_eagle3_tp4.json")
    assert s.version == "0.5.23"
    assert s.max_total_num_tokens == 336000
    assert s.tp_size == 4
    assert s.arm.speculative and s.arm.family == "eagle3" and s.arm.algorithm == "EAGLE3"
    assert (s.arm.steps, s.arm.topk, s.arm.draft_tokens) == (6, 1, 7)
    assert s.arm.depth == 6
    assert s.kv_cache_dtype == "auto"
    assert s.memory.weight_gb == pytest.approx(110.781)
    assert s.memory.token_capacity == 336000
    assert s.memory.graph_gb["target_verify"] == pytest.approx(1.152)
    assert s.memory.graph_total_gb == pytest.approx(1.873 + 1.152 + 0.091 + 0.447 + 0.219)
    assert s.avg_spec_accept_length == pytest.approx(3.475)
    assert s.enable_metrics
    assert not s.simulated
    assert s.launch_command.startswith("--model-path moonshotai/Kimi-K2.6")


def test_server_info_nospec():
    s = info("server_info_nospec_tp4.json")
    assert not s.arm.speculative and s.arm.family == "none" and s.arm.depth is None
    assert s.max_total_num_tokens == 484000
    assert s.avg_spec_accept_length is None


def test_capacity_falls_back_to_memory_usage():
    d = json.loads(fixture_bytes("server_info_eagle3_tp4.json"))
    del d["max_total_num_tokens"]
    assert ServerInfo.parse(d).max_total_num_tokens == 336000


def admin_with(routes, api_key=None, default=None):
    if default is not None:
        routes = {p: routes.get(p, default) for p in ("/server_info", "/get_server_info", *routes)}
    return AdminClient("http://sglang.test", api_key=api_key, transport=replay_transport(routes))


async def test_flush_cache_retries_while_busy_then_succeeds():
    busy = fixture_bytes("flush_cache_busy.txt")
    ok = fixture_bytes("flush_cache_ok.txt")
    answers = [httpx.Response(400, content=busy), httpx.Response(400, content=busy), httpx.Response(200, content=ok)]
    async with admin_with({"/flush_cache": lambda r: answers.pop(0)}) as a:
        res = await a.flush_cache(retries=5, delay_s=0.01)
    assert res.ok and res.attempts == 3 and res.body.startswith("Cache flushed.")


async def test_flush_cache_gives_up_after_retries():
    busy = fixture_bytes("flush_cache_busy.txt")
    async with admin_with({"/flush_cache": lambda r: httpx.Response(400, content=busy)}) as a:
        res = await a.flush_cache(retries=2, delay_s=0.01)
    assert not res.ok and res.status == 400 and res.attempts == 3 and res.body == "Flush cache failed.\n"


async def test_401_names_the_fix_and_metrics_needs_no_key():
    unauthorized = fixture_bytes("unauthorized.json")
    seen = {}

    def metrics(r):
        seen["metrics_auth"] = r.headers.get("authorization")
        return httpx.Response(200, content=fixture_bytes("metrics_fresh_tp4.txt"))

    routes = {"/server_info": lambda r: httpx.Response(401, content=unauthorized), "/metrics": metrics}
    async with admin_with(routes, api_key="sk-x") as a:
        a.key_source = "from $SC_KEY"
        with pytest.raises(AuthError, match=r"HTTP 401: the server refused the API key from \$SC_KEY"):
            await a.server_info()
        m = await a.metrics()
    assert m.max_total_num_tokens == 336000
    assert seen["metrics_auth"] is None  # /metrics* is always allowed without a key: don't send it
    async with admin_with(routes) as a:  # no key sent: the line says how to give one (attach: --api-key-env)
        with pytest.raises(AuthError, match="HTTP 401: the server requires an API key; pass --api-key-env VAR"):
            await a.server_info()


async def test_a_server_that_is_not_sglang_is_named_in_one_line():
    html = b"<!DOCTYPE HTML>\n<html lang=\"en\">\n<head><title>Error response</title></head>\n<body>404</body></html>\n"
    hdrs = {"content-type": "text/html;charset=utf-8", "server": "SimpleHTTP/0.6 Python/3.11.7"}
    async with admin_with({}, default=lambda r: httpx.Response(404, content=html, headers=hdrs)) as a:
        with pytest.raises(AdminError) as ei:
            await a.server_info()
    msg = str(ei.value)
    assert "not an SGLang server" in msg and "SimpleHTTP/0.6" in msg and "text/html" in msg
    assert "\n" not in msg and "<html" not in msg
    ok_json = {"content-type": "application/json"}
    async with admin_with({"/server_info": lambda r: httpx.Response(200, json={"hello": 1}, headers=ok_json)}) as a:
        with pytest.raises(AdminError, match="not an SGLang server: its /server_info JSON has none of"):
            await a.server_info()


async def test_metrics_404_says_enable_metrics():
    async with admin_with({}) as a:
        with pytest.raises(AdminError, match="without --enable-metrics"):
            await a.metrics()


async def test_unreachable_is_one_line():
    async with AdminClient("http://127.0.0.1:9", timeout_s=0.5) as a:
        with pytest.raises(AdminError) as ei:
            await a.server_info()
        assert not await a.ready()
    assert "cannot connect" in str(ei.value) and "\n" not in str(ei.value)


@pytest.mark.parametrize("raw,want", [("127.0.0.1:30000", "http://127.0.0.1:30000"),
                                      ("http://h:30000/", "http://h:30000"),
                                      ("http://h:30000/v1", "http://h:30000"),
                                      ("https://h/v1/", "https://h")])
def test_normalize_url(raw, want):
    assert normalize_url(raw) == want


@pytest.mark.parametrize("raw", ["", "ftp://h", "http://"])
def test_bad_urls(raw):
    with pytest.raises(AdminError):
        normalize_url(raw)


def test_v1_models_and_model_info_shapes():
    models = json.loads(fixture_bytes("v1_models.json"))
    assert models["data"][0]["id"] and "max_model_len" in models["data"][0]
    mi = json.loads(fixture_bytes("model_info.json"))
    assert mi["disaggregation_mode"] == "null"
