"""Attach through an SGLang model gateway (router): /readiness, /workers, a worker's /server_info, /engine_metrics;
and the profile derived from a server's /server_info."""

import json
import tomllib
from pathlib import Path

import httpx
import pytest

from console.core.engine.admin import AdminClient
from console.core.engine.server_info import ServerInfo
from console.core.launch.profile import load_profile, profile_from_dict, profile_from_server_info, profile_to_toml
from tests.conftest import fixture_bytes

REPO = Path(__file__).resolve().parents[2]
INFO = fixture_bytes("server_info_eagle3_tp4.json")
METRICS = fixture_bytes("metrics_eagle3_tp4.txt")


def gateway(request: httpx.Request) -> httpx.Response:
    host, path = request.url.host, request.url.path
    if host == "gw":
        routes = {
            "/ready": httpx.Response(404),
            "/readiness": httpx.Response(200, json={"status": "ready"}),
            "/workers": httpx.Response(200, json={"workers": [{"id": "w0", "url": "http://w0:31000",
                                                               "is_healthy": True}], "total": 1}),
            "/server_info": httpx.Response(200, json={"model_id": "kimi", "workers": 1}),
            "/metrics": httpx.Response(200, text="smg_requests_total 3\n"),
            "/engine_metrics": httpx.Response(200, content=METRICS),
        }
        return routes.get(path, httpx.Response(404))
    if host == "w0" and path == "/server_info":
        return httpx.Response(200, content=INFO)
    return httpx.Response(404)


@pytest.fixture(autouse=True)
def route_all(monkeypatch):
    orig = httpx.AsyncClient.__init__

    def init(self, *a, **kw):
        kw["transport"] = httpx.MockTransport(gateway)
        orig(self, *a, **kw)

    monkeypatch.setattr(httpx.AsyncClient, "__init__", init)


async def test_gateway_readiness_workers_server_info_and_metrics():
    async with AdminClient("http://gw:30000") as a:
        assert await a.ready()
        assert await a.workers() == ["http://w0:31000"]
        info = await a.server_info()
        assert info.version == "0.5.23" and info.arm.steps == 6
        m = await a.metrics()
        assert m.max_total_num_tokens == 336000 and m.spec_accept_length == pytest.approx(3.35)


def test_profile_derived_from_server_info_round_trips():
    info = ServerInfo.parse(json.loads(INFO))
    p = profile_from_server_info(info, "http://gpu-node:30000")
    assert (p.model_path, p.tp, p.drafter.family, p.drafter.steps, p.drafter.draft_tokens) == \
        ("moonshotai/Kimi-K2.6", 4, "eagle3", 6, 7)
    assert (p.host, p.port) == ("gpu-node", 30000)
    q = profile_from_dict(tomllib.loads(profile_to_toml(p)), name=p.name)
    assert q.server_flags() == p.server_flags()


@pytest.mark.parametrize("path", sorted((REPO / "console" / "shipped" / "profiles").glob("*.toml")), ids=lambda p: p.stem)
def test_every_shipped_profile_round_trips_through_toml(path):
    p = load_profile(path)
    q = profile_from_dict(tomllib.loads(profile_to_toml(p)), name=p.name)
    assert q.server_flags() == p.server_flags() and q.node_usd_per_hour == p.node_usd_per_hour
