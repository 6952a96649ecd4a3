"""Acceptance health: the rules that notice when speculation silently stops paying (docs/measurement.md#alarms).

Pure: fed one finished request at a time (`Observation`, built from a `RequestRecord` by `observe`), a
`HealthMonitor` raises and clears `Alarm`s. The runtime feeds it live and writes what it raises to the session
(`alarms.jsonl`); `report` replays a session's rows through the same rules. Every threshold is a field of `Rules`,
and its false-alarm rate and detection delay are measured on the twin (tests/bench/test_acceptance_alarms.py).

Rules, each over the requests of one key (prompt set · traffic domain) of one arm:

    dummy         a model drafter is configured and the arm's last `dummy_window` requests (any key) pool to
                  τ ≤ `dummy_tau` and p_1 ≤ `dummy_p1`: acceptance reads as random draft weights would
    no-spec       a drafter is configured and `no_spec_window` requests in a row report no verify step
                  (spec_verify_ct absent or 0), or the server reports no speculative algorithm at all
    drop          τ or p_1 pooled over the last `window` requests (2 × the cell's streams, if more) falls
                  ≥ `drop_frac` below the key's baseline (the arm's first window on that key, or the baseline it
                  was given), by more than `drop_z` × the window's sampling sd, for `persist` requests in a row
    net-negative  acceptance is plausible (no dummy alarm) but the window's median tok/s is under the no-spec
                  figure recorded for this model, node and protocol by ≥ `net_margin`, for `persist` requests
    drift         (between anchors) the anchor cell's τ moved from the arm's first anchor of the session by more
                  than `drift_z` × √(sampling sd² + (launch spread × τ)²)

An alarm clears when its condition has not held for `persist` requests; acknowledging it keeps it listed but
quiet. Alarms are values: the monitor returns what changed and keeps the list.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace

from console.core.measure import stats
from console.core.measure.records import RequestRecord

KINDS = ("dummy", "no-spec", "drop", "net-negative", "drift")

#: what each alarm most likely means, in one line (an alarm names it)
CAUSES = {
    "dummy": "likely: a wrong or dummy draft checkpoint (--speculative-draft-load-format dummy), a draft head for "
             "another target, or an engine upgrade that moved the hidden-state capture layers",
    "no-spec": "likely: the speculative flags did not take effect (a renamed or ignored flag), a server launched "
               "without the drafter, or a profile that does not match the server",
    "drop": "likely: a draft checkpoint swapped or reloaded, the hidden-state capture layer changed (engine "
            "upgrade), a temperature or sampling mismatch with the drafter's training, or traffic unlike the "
            "baseline's",
    "net-negative": "likely: a draft too deep for this context (short prompts), the verify cost at this batch, or "
                    "the drafter's own cost; a shallower depth or no speculation pays more here",
    "drift": "likely: an engine or driver change between launches, a changed draft checkpoint, another node's "
             "clocks, or a temperature mismatch",
}

#: the key of the alarms about the arm as a whole (dummy weights, no verify steps): every request, any prompt set
ARM_KEY = "all requests"

#: drafters whose acceptance can read as random weights (NGRAM proposes from the context: p_1 near 0 is its
#: honest answer on text with nothing to copy)
MODEL_DRAFTERS = ("EAGLE", "EAGLE3", "STANDALONE", "DFLASH", "NEXTN")


@dataclass(frozen=True)
class Rules:
    """The thresholds (measured on the twin: tests/bench/test_acceptance_alarms.py)."""

    window: int = 8
    persist: int = 3
    drop_frac: float = 0.20
    drop_z: float = 4.0
    dummy_window: int = 4
    dummy_tau: float = 1.15
    dummy_p1: float = 0.10
    no_spec_window: int = 3
    net_margin: float = 0.03
    drift_z: float = 4.0
    drift_launch_sd: float = 0.03
    """Launch-to-launch sd of an anchor's τ as a fraction (estimate: the twin's anchors spread 2.7-3.3% between
    launches against 2.4-3.1% of sampling; the report gives no figure)."""


@dataclass(frozen=True)
class Observation:
    """One finished request as the rules read it."""

    key: str  #: prompt set · domain
    t_s: float  #: when it finished, seconds on the modelled node's clock (any origin, increasing)
    index: int  #: its position among the requests the monitor saw
    hist: tuple[int, ...] | None
    verify_ct: int | None
    correct: int | None
    completion_tokens: int
    tok_s: float | None
    concurrency: int = 1
    """Streams of its cell: at c streams requests finish in waves, the slowest of a wave last, so the windows of
    the drop and net-negative rules span at least 2c requests (never one wave's tail)."""


def observe(rec: RequestRecord, key: str, t_s: float, index: int, concurrency: int = 1) -> Observation | None:
    """The observation of a finished request (None for a failed, flagged or warm-up one)."""
    if not rec.ok or rec.warmup or rec.flags:
        return None
    return Observation(key=key, t_s=t_s, index=index, hist=tuple(rec.spec_histogram) if rec.spec_histogram else None,
                       verify_ct=rec.spec_verify_ct, correct=rec.spec_num_correct_drafts,
                       completion_tokens=rec.completion_tokens or 0, tok_s=stats.output_tok_s(rec),
                       concurrency=max(1, concurrency))


@dataclass(frozen=True)
class Reading:
    """Pooled acceptance of some requests: τ, p_1, and the sd of τ's estimate (from the verify steps' spread)."""

    tau: float | None
    p1: float | None
    tau_sd: float | None
    p1_sd: float | None
    steps: int
    n: int

    def to_json(self) -> dict:
        return asdict(self)


def pooled(obs: Iterable[Observation]) -> Reading:
    """τ and p_1 of requests pooled: from their histograms where present, else from their counters (no p_1)."""
    obs = list(obs)
    h = stats.pool_histograms(o.hist for o in obs)
    if h and sum(h):
        steps = sum(h)
        mean = sum(k * c for k, c in enumerate(h)) / steps
        var = sum(c * (k - mean) ** 2 for k, c in enumerate(h)) / max(1, steps - 1)
        p1 = (steps - h[0]) / steps
        tau_sd = math.sqrt(var / steps)
        per = [t for t in (stats.histogram_tau(o.hist) for o in obs if o.hist) if t is not None]
        if len(per) >= 3:  # steps of one request are not independent (its prompt, its context): the requests'
            tau_sd = max(tau_sd, statistics.stdev(per) / math.sqrt(len(per)))  # own spread when it is the larger
        return Reading(1.0 + mean, p1, tau_sd, math.sqrt(max(p1 * (1 - p1), 1e-4) / steps), steps, len(obs))
    v = sum(o.verify_ct or 0 for o in obs)
    c = sum(o.correct or 0 for o in obs)
    return Reading(1.0 + c / v if v else None, None, None, None, v, len(obs))


@dataclass
class Alarm:
    kind: str
    key: str
    since_s: float
    since_index: int
    saw: str  #: what the rule saw, in one line with the figures
    causes: str
    acked: bool = False
    cleared_s: float | None = None
    data: dict = field(default_factory=dict)
    since_utc: str | None = None  #: wall-clock time it was raised (set by whoever records it live)

    @property
    def active(self) -> bool:
        return self.cleared_s is None

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.key}"

    def line(self) -> str:
        state = "cleared" if not self.active else ("acknowledged" if self.acked else "ACTIVE")
        return f"{self.kind} · {self.key} · {state}: {self.saw} (since request {self.since_index + 1}); {self.causes}"

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> Alarm:
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in d.items() if k in names})


@dataclass
class _Key:
    recent: deque = field(default_factory=deque)
    baseline: Reading | None = None
    first: list = field(default_factory=list)
    drop_run: int = 0
    net_run: int = 0
    clear_run: dict = field(default_factory=dict)


class HealthMonitor:
    """The rules over one arm's requests. `algorithm`: the server's speculative algorithm (None: no drafter);
    `baselines`: key → the reading a drop is measured against (else the key's first window); `nospec_tok_s`:
    key → the no-spec median tok/s recorded for this model, node and protocol."""

    def __init__(self, algorithm: str | None, *, rules: Rules | None = None,
                 baselines: dict[str, Reading] | None = None, nospec_tok_s: dict[str, float] | None = None) -> None:
        self.algorithm = algorithm
        self.rules = rules or Rules()
        self.nospec_tok_s = dict(nospec_tok_s or {})
        self.keys: dict[str, _Key] = {}
        for k, b in (baselines or {}).items():
            self.keys[k] = _Key(baseline=b)
        self.alarms: list[Alarm] = []
        self._no_verify = 0
        self._seen = 0
        self._last: deque[Observation] = deque()
        self._arm = _Key()

    def seed_baselines(self, baselines: dict[str, Reading]) -> None:
        """Baselines for keys that have none yet (recorded history): a key already measured keeps its own."""
        for k, b in baselines.items():
            st = self.keys.setdefault(k, _Key())
            if st.baseline is None and not st.first:
                st.baseline = b

    # --- the list ------------------------------------------------------------------------------

    def active(self) -> list[Alarm]:
        return [a for a in self.alarms if a.active]

    def unacked(self) -> list[Alarm]:
        return [a for a in self.alarms if a.active and not a.acked]

    def _find(self, kind: str, key: str) -> Alarm | None:
        return next((a for a in self.alarms if a.kind == kind and a.key == key and a.active), None)

    def acknowledge(self, alarm_id: str | None = None) -> list[Alarm]:
        """Acknowledge one active alarm (by id) or all; returns those acknowledged now."""
        out = []
        for a in self.alarms:
            if a.active and not a.acked and (alarm_id is None or a.id == alarm_id):
                a.acked = True
                out.append(a)
        return out

    def _raise(self, kind: str, key: str, t: float, index: int, saw: str, **data) -> list[Alarm]:
        a = self._find(kind, key)
        if a is not None:
            a.saw, a.data = saw, data  # still holding: keep its start, update what it sees
            return []
        a = Alarm(kind, key, t, index, saw, CAUSES[kind], data=data)
        self.alarms.append(a)
        return [a]

    def _holds(self, kind: str, key: str, ok: bool, t: float, st: _Key) -> list[Alarm]:
        """Clear an active alarm once its condition failed for `persist` requests in a row."""
        a = self._find(kind, key)
        if a is None:
            st.clear_run.pop(kind, None)
            return []
        if ok:
            st.clear_run[kind] = 0
            return []
        st.clear_run[kind] = st.clear_run.get(kind, 0) + 1
        if st.clear_run[kind] >= self.rules.persist:
            a.cleared_s = t
            st.clear_run.pop(kind, None)
            return [a]
        return []

    # --- events ------------------------------------------------------------------------------

    def server(self, algorithm: str | None, configured: str | None, t: float = 0.0) -> list[Alarm]:
        """The server's speculative algorithm once it is ready, against the profile's (`configured`)."""
        self.algorithm = algorithm
        if configured and not algorithm:
            return self._raise("no-spec", "server", t, 0, f"the profile configures {configured} but /server_info "
                               f"reports no speculative algorithm")
        return []

    def feed(self, o: Observation) -> list[Alarm]:
        """One finished request; returns the alarms raised or cleared by it."""
        r = self.rules
        self._seen += 1
        st = self.keys.setdefault(o.key, _Key())
        changed: list[Alarm] = []
        if self.algorithm is None:
            return changed
        # no verify step at all on a speculative server
        if o.completion_tokens > 1 and not o.verify_ct:
            self._no_verify += 1
        else:
            self._no_verify = 0
        if self._no_verify >= r.no_spec_window:
            changed += self._raise("no-spec", ARM_KEY, o.t_s, o.index,
                                   f"{self._no_verify} requests in a row report no verify step "
                                   f"(spec_verify_ct absent or 0) on a {self.algorithm} server")
        changed += self._holds("no-spec", ARM_KEY, self._no_verify > 0, o.t_s, self._arm)

        win = max(r.window, 2 * o.concurrency)
        st.recent.append(o)
        while len(st.recent) > win:
            st.recent.popleft()
        if st.baseline is None:
            st.first.append(o)
            if len(st.first) >= win:
                st.baseline = pooled(st.first)

        # dummy: the arm's last few requests, whatever their key, read as random draft weights
        self._last.append(o)
        while len(self._last) > r.dummy_window:
            self._last.popleft()
        dummy = False
        if self.algorithm in MODEL_DRAFTERS and len(self._last) >= r.dummy_window:
            w = pooled(self._last)
            dummy = (w.tau is not None and w.tau <= r.dummy_tau and (w.p1 is None or w.p1 <= r.dummy_p1))
            if dummy:
                p1 = "—" if w.p1 is None else f"{w.p1:.2f}"
                changed += self._raise("dummy", ARM_KEY, o.t_s, o.index,
                                       f"τ {w.tau:.2f}, p_1 {p1} over the last {w.n} requests ({w.steps} verify "
                                       f"steps): {self.algorithm} accepts as random draft weights would",
                                       tau=w.tau, p1=w.p1)
        changed += self._holds("dummy", ARM_KEY, dummy, o.t_s, self._arm)

        # drop against the key's baseline
        b = st.baseline
        dropped = False
        if (b is not None and b.tau is not None and len(st.recent) >= win
                and (not st.first or st.recent[0].index > st.first[-1].index)):
            w = pooled(st.recent)
            dropped, what = _dropped(w, b, r)
            dropped = dropped and not dummy  # a dummy alarm on this key already says more
            st.drop_run = st.drop_run + 1 if dropped else 0
            if st.drop_run >= r.persist:
                changed += self._raise("drop", o.key, o.t_s, o.index, what, tau=w.tau, p1=w.p1,
                                       baseline_tau=b.tau, baseline_p1=b.p1)
        changed += self._holds("drop", o.key, dropped, o.t_s, st)

        # net-negative against the recorded no-spec figure
        ref = self.nospec_tok_s.get(o.key)
        neg = False
        if ref and not dummy and len(st.recent) >= win:
            speeds = [x.tok_s for x in st.recent if x.tok_s is not None]
            if len(speeds) >= win // 2:
                med = statistics.median(speeds)
                neg = med < ref * (1.0 - r.net_margin)
                st.net_run = st.net_run + 1 if neg else 0
                if st.net_run >= r.persist:
                    w = pooled(st.recent)
                    tau = "—" if w.tau is None else f"{w.tau:.2f}"
                    changed += self._raise("net-negative", o.key, o.t_s, o.index,
                                           f"median {med:.1f} tok/s over the last {len(speeds)} requests is "
                                           f"{100 * (1 - med / ref):.1f}% under the no-spec {ref:.1f} tok/s recorded "
                                           f"for this model, node and protocol, at a plausible τ {tau}",
                                           tok_s=med, nospec_tok_s=ref, tau=w.tau)
        changed += self._holds("net-negative", o.key, neg, o.t_s, st)
        return changed

    def anchor(self, key: str, reading: Reading, first: Reading | None, t: float, index: int) -> list[Alarm]:
        """An anchor cell of the arm finished: its τ against the arm's first anchor of the session (`first`)."""
        if first is None or first.tau is None or reading.tau is None or self.algorithm is None:
            return []
        d = reading.tau / first.tau - 1.0
        sd = math.sqrt(((reading.tau_sd or 0) / first.tau) ** 2 + ((first.tau_sd or 0) / first.tau) ** 2
                       + self.rules.drift_launch_sd ** 2)
        if abs(d) > self.rules.drift_z * sd:
            return self._raise("drift", key, t, index,
                               f"anchor τ {reading.tau:.2f} against the arm's first anchor {first.tau:.2f} "
                               f"({100 * d:+.1f}%, beyond {self.rules.drift_z:g} × {100 * sd:.1f}% of sampling and "
                               f"launch-to-launch spread)", tau=reading.tau, first_tau=first.tau)
        a = self._find("drift", key)
        if a is not None:
            a.cleared_s = t
            return [a]
        return []


def _dropped(w: Reading, b: Reading, r: Rules) -> tuple[bool, str]:
    """Whether window `w` sits ≥ drop_frac under baseline `b` in τ or p_1, beyond drop_z × its sampling sd."""
    assert b.tau is not None
    out = []
    if w.tau is not None and w.tau <= (1 - r.drop_frac) * b.tau:
        sd = math.hypot(w.tau_sd or 0.0, b.tau_sd or 0.0)
        if b.tau - w.tau > r.drop_z * sd:
            out.append(f"τ {w.tau:.2f} against {b.tau:.2f} ({100 * (w.tau / b.tau - 1):+.0f}%)")
    if w.p1 is not None and b.p1 is not None and w.p1 <= (1 - r.drop_frac) * b.p1:
        sd = math.hypot(w.p1_sd or 0.0, b.p1_sd or 0.0)
        if b.p1 - w.p1 > r.drop_z * sd:
            out.append(f"p_1 {w.p1:.2f} against {b.p1:.2f} ({100 * (w.p1 / b.p1 - 1):+.0f}%)")
    if not out:
        return False, ""
    return True, (" and ".join(out) + f" over the last {w.n} requests, sustained: acceptance fell ≥ "
                  f"{100 * r.drop_frac:.0f}% below this arm's baseline")


def replay(rows: Sequence[tuple[RequestRecord, str, float]], algorithm: str | None, *, rules: Rules | None = None,
           baselines: dict[str, Reading] | None = None, nospec_tok_s: dict[str, float] | None = None,
           concurrency: int = 1) -> HealthMonitor:
    """Feed (row, key, t_s) in order through a fresh monitor: what `report` recomputes from a session's rows."""
    m = HealthMonitor(algorithm, rules=rules, baselines=baselines, nospec_tok_s=nospec_tok_s)
    for i, (rec, key, t) in enumerate(rows):
        o = observe(rec, key, t, i, concurrency)
        if o is not None:
            m.feed(o)
    return m


def with_acked(alarms: Sequence[Alarm], acked_ids: Iterable[str]) -> list[Alarm]:
    ids = set(acked_ids)
    return [replace(a, acked=a.acked or a.id in ids) for a in alarms]
