"""Pairs as the console runs them, played on the twin's engine in virtual time (seeded, no server): the legs of an
order, a fresh launch whenever the arm changes (consecutive legs of one arm share their launch), each launch
anchored, the same pinned prompts in every leg — analysed by the console's own statistics
(console.core.measure.pairs). Shared by tests/sim/test_pair_interval.py and tests/bench/test_pair_calibration.py."""

from __future__ import annotations

from dataclasses import dataclass

from console.core.measure import launches as lv, pairs
from console.core.measure.records import RequestRecord
from console.sim.model.calibrate import ARMS as _ARMS, build_engine, run_cell, warm_up

#: the arms of the calibration: no speculation, EAGLE-3 depth 6 and DFlash (block 16)
ARMS = ("nospec", "eagle3-d6", "dflash-b16")
ANCHOR = dict(domain="chat", prompt_tokens=120, max_tokens=128, n=8)


def rows_of(res, tag: str) -> list[RequestRecord]:
    """A cell's rows as the console records them: per-request span and tokens, the prompt id, the histogram."""
    out = []
    for s, ttft, h, f, n, p in zip(res.tok_s, res.ttft_ok, res.hists, res.first_tokens, res.completion_tokens,
                                   res.prompts, strict=True):
        span = (n - f) / s
        out.append(RequestRecord(request_id=f"{tag}{p}", prompt_id=f"p{p}", t_first_s=ttft, t_last_s=ttft + span,
                                 t_end_s=ttft + span, first_chunk_tokens=f, completion_tokens=n, spec_histogram=h,
                                 spec_verify_ct=sum(h), spec_num_correct_drafts=sum(k * c for k, c in enumerate(h))))
    return out


@dataclass
class TwinPair:
    order: str
    a_legs: list[list[RequestRecord]]
    b_legs: list[list[RequestRecord]]
    a_anchor_rows: list[list[RequestRecord] | None]
    b_anchor_rows: list[list[RequestRecord] | None]

    def stats(self, record: list[lv.LaunchReading] = (), prior_sd_pct: float = lv.DEFAULT_PRIOR_SD_PCT,
              prior_df: float = lv.DEFAULT_PRIOR_DF, seed: int = 0) -> pairs.PairStats:
        ia, ib = pairs.launch_ids(self.order)
        plan = pairs.LaunchPlan(ia, ib, self.a_anchor_rows, self.b_anchor_rows, prior_sd_pct, prior_df, record)
        return pairs.pair_stats(self.a_legs, self.b_legs, order=self.order, seed=seed, launches=plan)

    def reading(self, seed: int = 0) -> lv.LaunchReading | None:
        """This pair's own reading of the node's launch variance (what its pair.json would hold)."""
        return self.stats(seed=seed).launch.readings[-1] if self._repeats() else None

    def _repeats(self) -> bool:
        ia, ib = pairs.launch_ids(self.order)
        return len(set(ia)) > 1 or len(set(ib)) > 1


class TwinSession:
    """One pair session on the node of `repeat` (its node draw shared by every launch), played leg by leg and kept:
    a longer order that starts with a shorter one (A B A, then A B A B A for a sequential round) replays nothing.
    B is `b_arm` (default A's arm again) with every step `b_speed`× shorter — a constructed truth of exactly that
    speed-up. A leg starts a new launch (its own launch seed, warmed, anchored) when its arm differs from the leg
    before, else it goes on in the same launch."""

    def __init__(self, arm: str, repeat: int, *, b_arm: str | None = None, b_speed: float = 1.0,
                 domain: str = "tool", prompt_tokens: int = 10_000, max_tokens: int = 2048, n: int = 16,
                 anchor: bool = True) -> None:
        self.arm, self.repeat, self.b_arm, self.b_speed = arm, repeat, b_arm, b_speed
        self.domain, self.prompt_tokens, self.max_tokens, self.n, self.anchor = (domain, prompt_tokens, max_tokens,
                                                                                 n, anchor)
        self._legs: dict[str, tuple[list[RequestRecord], list[RequestRecord] | None, object]] = {}

    def _leg(self, prefix: str):
        if prefix in self._legs:
            return self._legs[prefix]
        k, leg = len(prefix) - 1, prefix[-1]
        which = self.arm if leg == "A" or self.b_arm is None else self.b_arm
        anc = None
        if k == 0 or prefix[-2] != leg:
            engine = build_engine(_ARMS[which], node_seed=self.repeat, launch_seed=1000 * self.repeat + k,
                                  speed=self.b_speed if leg == "B" else 1.0)
            warm_up(engine, self.prompt_tokens, self.domain)
            if self.anchor:
                res = run_cell(which, ANCHOR["domain"], prompt_tokens=ANCHOR["prompt_tokens"],
                               max_tokens=ANCHOR["max_tokens"], n=ANCHOR["n"], prompt_set=-1, engine=engine)
                anc = rows_of(res, f"{self.repeat}-{k}-anchor-")
        else:
            engine = self._leg(prefix[:-1])[2]
        cell = run_cell(which, self.domain, prompt_tokens=self.prompt_tokens, max_tokens=self.max_tokens, n=self.n,
                        prompt_set=self.repeat, engine=engine)
        self._legs[prefix] = (rows_of(cell, f"{self.repeat}-{k}-"), anc, engine)
        return self._legs[prefix]

    def pair(self, order: str = "ABA") -> TwinPair:
        legs: dict[str, list] = {"A": [], "B": []}
        anchors: dict[str, list] = {"A": [], "B": []}
        for k in range(len(order)):
            rows, anc, _ = self._leg(order[:k + 1])
            legs[order[k]].append(rows)
            anchors[order[k]].append(anc)
        return TwinPair(order, legs["A"], legs["B"], anchors["A"], anchors["B"])


def twin_pair(arm: str, repeat: int, order: str = "ABA", **kw) -> TwinPair:
    """The legs of `order` in a fresh TwinSession (keyword arguments as TwinSession's)."""
    return TwinSession(arm, repeat, **kw).pair(order)


def sequential(session: TwinSession, target_pct: float, record, *, max_rounds: int = 4, seed: int = 0,
               base: str = "ABA", quantity: str = "ci") -> tuple[pairs.PairStats, int]:
    """The console's sequential rule (core/run/pair.py): from `base`, add B A rounds while the CI's half-width
    (`quantity` "ci") or the MDE ("mde") is above `target_pct`, at most `max_rounds`. Returns the final
    statistics and the rounds added."""
    order, rounds = base, 0
    while True:
        ps = session.pair(order).stats(record=record, seed=seed)
        hw = ps.effect.half_width_pct if quantity == "ci" else ps.effect.mde_pct
        if (hw is not None and hw <= target_pct) or rounds >= max_rounds:
            return ps, rounds
        order += "BA"
        rounds += 1
