"""Shared test helpers: SGLang 0.5.23 wire fixtures and a mock transport that replays them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import AsyncIterator, Callable

import httpx
import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "sglang-0.5.23"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


class ChunkedStream(httpx.AsyncByteStream):
    """Replays bytes in pieces cut at random offsets (events split across reads, several per read)."""

    def __init__(self, data: bytes, seed: int = 0, max_piece: int = 700) -> None:
        self.data, self.seed, self.max_piece = data, seed, max_piece

    async def __aiter__(self) -> AsyncIterator[bytes]:
        rng = random.Random(self.seed)
        i = 0
        while i < len(self.data):
            n = rng.randint(1, self.max_piece)
            yield self.data[i:i + n]
            i += n


def replay_transport(routes: dict[str, Callable[[httpx.Request], httpx.Response]]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        fn = routes.get(request.url.path)
        if fn is None:
            return httpx.Response(404, text="Not Found")
        return fn(request)

    return httpx.MockTransport(handler)


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
