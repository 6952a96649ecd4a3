"""How often a pair is wrong, measured on the twin with its launch-level variation on
(docs/measurement.md#launch-variance): false positives of self-pairs, power against constructed true differences, the MDE, and the sequential
mode's error rate. Every pair is played as the console runs it (tests/sim/twin_pairs.py: each arm change a fresh
launch on the repeat's node, every launch warmed and anchored, the same pinned prompts in every leg) on the
reference cell (tool, 10k in / 2,048 out, n = 16 per leg) and analysed by the console's own statistics with a
node record of the 20 pairs before it.

    pytest -m bench -s tests/bench/test_pair_calibration.py        (PAIR_CAL_SELF=200, PAIR_CAL_POWER=200,
                                                                    PAIR_CAL_SEQ=200, PAIR_CAL_WORKERS=2)

Figures printed: per arm, self-pair false positives at nominal 95% with their Wilson 95% interval (the console's
interval, and the request-only interval pairs used before for contrast); the share of pairs resolving a true 3%,
5% and 10% speed-up (B's steps shortened by exactly that) for A B A and A B A B; the median MDE; and the sequential
rules on self-pairs and on a true 5%: `--until-ci 3` for EAGLE-3, `--until-mde 5` (at most 4 rounds) for every arm,
the design that answers "can this pair see a 5% change?" when A B A at n = 16 cannot.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from console.core.measure import pairs
from tests.sim.twin_pairs import ARMS, TwinSession, sequential

pytestmark = pytest.mark.bench

N_SELF = int(os.environ.get("PAIR_CAL_SELF", "200"))
N_POWER = int(os.environ.get("PAIR_CAL_POWER", "200"))
N_SEQ = int(os.environ.get("PAIR_CAL_SEQ", "200"))
WORKERS = int(os.environ.get("PAIR_CAL_WORKERS", "2"))
RECORD = 20  #: the node record each analysed pair pools: the own readings of the RECORD pairs before it
SPEEDS = (1.03, 1.05, 1.10)
SEQ_RULES = {"eagle3-d6": [("ci", 3.0), ("mde", 5.0)], "nospec": [("mde", 5.0)], "dflash-b16": [("mde", 5.0)]}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def _legs(task):
    arm, repeat, speed = task
    s = TwinSession(arm, repeat, b_speed=speed)
    return task, s.pair("ABA"), s.pair("ABAB")


def _seq(task):
    arm, repeat, speed, record, quantity, target = task
    ps, rounds = sequential(TwinSession(arm, repeat, b_speed=speed), target, record, seed=repeat, quantity=quantity)
    width = ps.effect.half_width_pct if quantity == "ci" else ps.effect.mde_pct
    return (arm, speed, quantity, target), ps.effect.resolved, rounds, width


def _rate(k, n):
    lo, hi = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.1f}% (Wilson 95% [{100 * lo:.1f}, {100 * hi:.1f}]%)"


def test_pair_error_rates_on_the_twin():
    t0 = time.time()
    self_tasks = [(arm, r, 1.0) for arm in ARMS for r in range(N_SELF + RECORD)]
    power_tasks = [(arm, 5000 + r, sp) for arm in ARMS for sp in SPEEDS
                   for r in range(N_POWER if sp == 1.05 else max(1, N_POWER // 2))]
    with ProcessPoolExecutor(WORKERS) as ex:
        got = {task: (aba, abab) for task, aba, abab in ex.map(_legs, self_tasks + power_tasks, chunksize=4)}
    readings = {arm: [got[(arm, r, 1.0)][0].reading(seed=r) for r in range(N_SELF + RECORD)] for arm in ARMS}
    print(f"\n{len(got)} twin pairs in {time.time() - t0:.0f} s; node record: the {RECORD} pairs before each")
    fp_ok = True
    seq_tasks = []
    for arm in ARMS:
        rec_all = readings[arm]
        fp = {"ABA": 0, "ABAB": 0, "request-only": 0, "prior only": 0}
        sds, mdes = [], {"ABA": [], "ABAB": []}
        for r in range(RECORD, RECORD + N_SELF):
            rec = [x for x in rec_all[r - RECORD:r] if x is not None]
            aba, abab = got[(arm, r, 1.0)]
            s3, s4 = aba.stats(record=rec, seed=r), abab.stats(record=rec, seed=r)
            fp["ABA"] += s3.effect.resolved
            fp["ABAB"] += s4.effect.resolved
            fp["prior only"] += aba.stats(seed=r).effect.resolved
            fp["request-only"] += pairs.pair_stats(aba.a_legs, aba.b_legs, seed=r).effect.resolved
            sds.append(s3.launch.sd_pct)
            mdes["ABA"].append(s3.effect.mde_pct)
            mdes["ABAB"].append(s4.effect.mde_pct)
            if r < RECORD + N_SEQ:
                seq_tasks += [(arm, r, 1.0, rec, q, t) for q, t in SEQ_RULES.get(arm, [])]
        print(f"\n{arm}: self-pairs flagging a difference at nominal 95%")
        for k, v in fp.items():
            print(f"  {k:>13}: {_rate(v, N_SELF)}")
        print(f"  pooled launch sd: median {statistics.median(sds):.2f}% (IQR {statistics.quantiles(sds, n=4)[0]:.2f}"
              f"–{statistics.quantiles(sds, n=4)[2]:.2f}); median MDE ABA {statistics.median(mdes['ABA']):.1f}%, "
              f"ABAB {statistics.median(mdes['ABAB']):.1f}%")
        fp_ok &= fp["ABA"] / N_SELF <= 0.05 and fp["ABAB"] / N_SELF <= 0.05
        rec = [x for x in rec_all[-RECORD:] if x is not None]
        for sp in SPEEDS:
            n = N_POWER if sp == 1.05 else max(1, N_POWER // 2)
            hits = {"ABA": 0, "ABAB": 0}
            for r in range(n):
                aba, abab = got[(arm, 5000 + r, sp)]
                hits["ABA"] += aba.stats(record=rec, seed=r).effect.resolved
                hits["ABAB"] += abab.stats(record=rec, seed=r).effect.resolved
            print(f"  true {100 * (sp - 1):.0f}% faster B: resolved ABA {_rate(hits['ABA'], n)}, "
                  f"ABAB {_rate(hits['ABAB'], n)}")
            if sp == 1.05:
                seq_tasks += [(arm, 5000 + r, sp, rec, q, t) for r in range(max(1, N_SEQ // 2))
                              for q, t in SEQ_RULES.get(arm, [])]
    with ProcessPoolExecutor(WORKERS) as ex:
        seq = list(ex.map(_seq, seq_tasks, chunksize=2))
    for arm, rules in SEQ_RULES.items():
        for q, t in rules:
            for sp, what in ((1.0, "self-pairs (false positives)"), (1.05, "true 5% (power)")):
                rows = [x for x in seq if x[0] == (arm, sp, q, t)]
                if not rows:
                    continue
                k = sum(x[1] for x in rows)
                rounds = [x[2] for x in rows]
                print(f"\nsequential --until-{q} {t:g} (≤ 4 rounds), {arm}, {what}: resolved {_rate(k, len(rows))};"
                      f" rounds added median {statistics.median(rounds)}, max {max(rounds)}; target reached in "
                      f"{sum(1 for x in rows if x[3] is not None and x[3] <= t)}/{len(rows)}")
                if sp == 1.0:
                    fp_ok &= k / len(rows) <= 0.05
    print(f"\n{time.time() - t0:.0f} s in all")
    assert fp_ok
