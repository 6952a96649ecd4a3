"""Property tests of the startup-log phase parser (console/core/launch/logparse.py): SGLang 0.5.23 launch logs
with their TP ranks interleaved in any order and delivered in any pieces, with or without random garbage lines,
never raise, and the phases never go backwards (statuses only move pending → active → done, done phases form a
prefix, `ready` never reverts)."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from console.core.launch.logparse import PHASE_KEYS, StartupParser
from tests.conftest import fixture_bytes

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LOGS = {"launch_eagle3_tp4.log": True, "launch_dflash_tp4.log": True,
        "launch_crash_cuda_oom.log": False, "launch_crash_compressed_tensors.log": False}
RANK = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?((?: [A-Z_]+\d+)*)\]")
STATUS = {"pending": 0, "active": 1, "done": 2}


def records(text: str) -> dict[str, list[str]]:
    """The log's records grouped by writer (rank tag, '' for the launcher); a record is a timestamped line with
    its continuation lines (traceback, tqdm redraws), which stay together."""
    groups: dict[str, list[str]] = {}
    last = ""
    for line in text.splitlines(keepends=True):
        m = RANK.match(line)
        if m:
            last = m.group(1).strip()
            groups.setdefault(last, []).append(line)
        else:
            groups.setdefault(last, [""])[-1] += line
    return groups


def interleave(groups: dict[str, list[str]], rng: random.Random) -> list[str]:
    """A random merge of the writers' records that keeps each writer's own order."""
    queues = {k: list(v) for k, v in groups.items() if v}
    out = []
    while queues:
        k = rng.choice(sorted(queues))
        out.append(queues[k].pop(0))
        if not queues[k]:
            del queues[k]
    return out


class Watch:
    """Feeds a parser and checks after every piece that nothing went backwards."""

    def __init__(self, tp: int, has_draft: bool | None) -> None:
        self.sp = StartupParser(tp=tp, has_draft=has_draft, clock=iter(range(10**9)).__next__)
        self.prev = [0] * len(PHASE_KEYS)
        self.ready = False

    def check(self) -> None:
        p = self.sp.progress
        now = [STATUS[ph.status] for ph in p.phases]
        assert all(a >= b for a, b in zip(now, self.prev)), (self.prev, now)
        assert now == sorted(now, reverse=True), now  # done… active? pending…
        assert now.count(1) <= 1
        assert not (self.ready and not p.ready)
        assert 0.0 <= p.fraction() <= 1.0
        self.prev, self.ready = now, p.ready

    def feed(self, text: str) -> None:
        self.sp.feed(text)
        self.check()

    def finish(self):
        self.sp.finish()
        self.check()
        return self.sp.progress


def pieces(text: str, rng: random.Random, max_piece: int) -> list[str]:
    out, i = [], 0
    while i < len(text):
        n = rng.randint(1, max_piece)
        out.append(text[i:i + n])
        i += n
    return out


@pytest.mark.parametrize("name", sorted(LOGS))
@SETTINGS
@given(seed=st.integers(0, 2**32), max_piece=st.sampled_from([16, 200, 5000]), has_draft=st.sampled_from([True, None]))
def test_interleaved_ranks_in_random_pieces_never_raise_or_go_backwards(name, seed, max_piece, has_draft):
    rng = random.Random(seed)
    text = "".join(interleave(records(fixture_bytes(name).decode()), rng))
    w = Watch(tp=4, has_draft=has_draft)
    for piece in pieces(text, rng, max_piece):
        w.feed(piece)
    p = w.finish()
    if LOGS[name]:
        assert p.ready and all(ph.status == "done" for ph in p.phases)
    else:
        assert p.error_line and not p.ready


@pytest.mark.parametrize("name", ["launch_eagle3_tp4.log", "launch_crash_cuda_oom.log"])
@SETTINGS
@given(seed=st.integers(0, 2**32),
       junk=st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=120), min_size=1, max_size=30))
def test_random_garbage_lines_anywhere_never_raise_or_go_backwards(name, seed, junk):
    rng = random.Random(seed)
    lines = fixture_bytes(name).decode().splitlines(keepends=True)
    for j in junk:
        lines.insert(rng.randrange(len(lines) + 1), j + rng.choice(["\n", "\r", "\r\n", ""]))
    w = Watch(tp=rng.choice([1, 4, 8]), has_draft=rng.choice([True, False, None]))
    for piece in pieces("".join(lines), rng, 300):
        w.feed(piece)
    w.finish()


@SETTINGS
@given(st.lists(st.text(max_size=200), max_size=40), st.integers(1, 8), st.sampled_from([True, False, None]))
def test_pure_garbage_never_raises_or_goes_backwards(chunks, tp, has_draft):
    w = Watch(tp=tp, has_draft=has_draft)
    for c in chunks:
        w.feed(c)
    w.finish()
