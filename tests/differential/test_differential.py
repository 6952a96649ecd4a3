"""The twin against the real server: the same requests, compared by shape (status, JSON keys and types, SSE
event kinds and per-chunk fields, metric families, error messages where listed); never text or timing values."""

from __future__ import annotations

import httpx
import pytest

from tests.differential.allowlist import ALLOWED
from tests.differential.wire import PROBES, observe

pytestmark = pytest.mark.real_sglang


@pytest.fixture(scope="module")
def observed(pair) -> dict[str, list[str]]:
    return observe(pair, PROBES)


@pytest.mark.parametrize("probe", [p.name for p in PROBES])
def test_same_wire(observed, probe):
    unlisted = [d for d in observed[probe] if d not in ALLOWED]
    assert not unlisted, "differences not on tests/differential/allowlist.py:\n" + "\n".join(unlisted)


def test_allowlist_still_observed(observed):
    seen = {d for ds in observed.values() for d in ds}
    stale = sorted(set(ALLOWED) - seen)
    assert not stale, "allow-list entries no longer observed (remove them):\n" + "\n".join(stale)


def test_allowlist_has_reasons():
    assert all(isinstance(r, str) and len(r) > 10 for r in ALLOWED.values())


@pytest.mark.parametrize("raw", [b"", b'{"messages": [], }', b"{bad", b"x" * 10], ids=["empty", "trailing_comma",
                                                                                   "bad_json", "not_json"])
def test_keepalive_after_malformed_body(pair, raw):
    """Known 4's second half: after a refused body, the next request on the same keep-alive connection is served."""
    for base in pair:
        with httpx.Client(timeout=60) as c:
            first = c.post(base + "/v1/chat/completions", content=raw, headers={"content-type": "application/json"})
            assert first.status_code == 400, (base, first.status_code)
            assert c.get(base + "/v1/models").status_code == 200, base
