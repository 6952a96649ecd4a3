"""The verify-tax probe (docs/measurement.md#the-verify-tax-probe): what one more verified token costs a step on
this node, measured rather than assumed.

The arm's drafter is launched with random weights (`--speculative-draft-load-format dummy`): acceptance ≈ 0, so
every step emits ≈ 1 token and a request's step time is its decode wall time over its verify steps (the implied
step time τ / tok/s of each row, τ ≈ 1). The legs differ in verify width only, the drafter's own passes held
constant, so a straight line through their step times has the verify cost per token as its slope and the
proposer's overhead (its fixed work and its draft passes) in the intercept, where it cancels.

What each family holds constant (read from SGLang 0.5.23's speculative code and its server-args hooks):

- EAGLE / EAGLE3 / STANDALONE: a tree (topk > 1) runs `num_steps` draft passes of `topk` tokens per request
  whatever `num_draft_tokens` is; the tree keeps the best `num_draft_tokens − 1` of its `topk + (steps − 1)·topk²`
  candidates and the target verifies that many (the draft extend after it spans the same width, so it is part of
  the per-token cost). Legs: topk > 1, the same steps, different num_draft_tokens. With topk = 1 SGLang forces
  num_draft_tokens = steps + 1, so chain legs move the width and the draft passes together: their slope is the
  price of one more depth (a verified token and a draft pass), which is what a depth forecast needs; the draft
  pass is that slope minus the verify slope.
- DFLASH: refused. The drafter drafts the whole block in one pass and the block is the verify width
  (num_draft_tokens = block size, steps and topk forced to 1): the drafter's work moves with the width.
- NGRAM: refused. No draft weights to randomise (acceptance follows the text), and the trie lookup fills the
  very width that varies.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from console.core.fmt import utc_iso
from console.core.launch.profile import Profile, probe_widths
from console.core.measure import stats
from console.core.measure.forecast import ProbeFit, probe_fit
from console.core.measure.records import RequestRecord
from console.core.run.cell import CellProtocol
from console.core.sessions.probes import PROBE_SCHEMA, new_probe_dir, write_probe
from console.core.sessions.store import load_rows
from console.core.workload.prompts import load_set

DUMMY_FLAGS = ("--speculative-draft-load-format", "dummy")
DEFAULT_TOPK = 4
DEFAULT_PROMPTS = "tool"
"""The leaderboard's ~10k-token inputs: the probe runs at the context of the target workload."""

FAMILY_RULES = {
    "eagle3": "EAGLE3: topk > 1 at the arm's steps, different num_draft_tokens: the draft passes (steps × topk tokens "
              "per request) stay the same, only the verified width moves",
    "eagle": "EAGLE: topk > 1 at the arm's steps, different num_draft_tokens: the draft passes (steps × topk tokens "
             "per request) stay the same, only the verified width moves",
    "standalone": "STANDALONE: topk > 1 at the arm's steps, different num_draft_tokens: the draft model's passes "
                  "(steps × topk tokens per request) stay the same, only the verified width moves",
}
REFUSED = {
    "dflash": "DFLASH drafts the whole block in one pass and the block is the verify width (SGLang sets "
              "num_draft_tokens = block size, steps = topk = 1): the drafter's work moves with the width, so no two "
              "widths hold it constant",
    "ngram": "NGRAM has no draft weights to randomise (acceptance follows the text, never ≈ 0) and its trie lookup "
             "fills the very width that varies",
    "none": "the arm runs no drafter: there is no verify width to vary",
}


class ProbeRefused(ValueError):
    """One line: why this arm cannot be probed (exit 2)."""


@dataclass(frozen=True)
class ProbeLeg:
    kind: str
    """'verify' (widths at constant draft passes) | 'chain' (topk 1: width and passes together)."""
    steps: int
    topk: int
    width: int
    """num_draft_tokens: the tokens verified per request per step."""
    profile: Profile

    @property
    def label(self) -> str:
        return f"{self.kind}-s{self.steps}-k{self.topk}-t{self.width}"


@dataclass(frozen=True)
class ProbePlan:
    base: Profile
    family: str
    rule: str
    legs: tuple[ProbeLeg, ...]
    protocol: CellProtocol

    def describe(self) -> list[str]:
        out = [f"verify-tax probe of {self.base.name} ({self.base.arm.label()}), dummy draft weights, "
               f"{self.protocol.prompt_set} × {self.protocol.n} requests × {self.protocol.max_tokens} tokens, "
               f"one stream", f"rule: {self.rule}"]
        for leg in self.legs:
            out.append(f"  {leg.kind:<6} steps {leg.steps}  topk {leg.topk}  verify width {leg.width}")
        return out


def max_tree_width(steps: int, topk: int) -> int:
    """The widest verify an EAGLE tree allows: 1 + its candidates topk + (steps − 1)·topk² (organize_draft_results
    takes the best num_draft_tokens − 1 of them)."""
    return 1 + topk + (steps - 1) * topk * topk


def _strip_adaptive(args: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--speculative-adaptive":
            continue
        if a == "--speculative-adaptive-config":
            skip = True
            continue
        if a.startswith("--speculative-adaptive-config=") or a.startswith("--speculative-draft-load-format"):
            continue
        out.append(a)
    return tuple(out)


def _leg_profile(p: Profile, kind: str, steps: int, topk: int, width: int) -> Profile:
    d = replace(p.drafter, steps=steps, topk=topk, draft_tokens=width)
    extra = _strip_adaptive(p.extra_args) + DUMMY_FLAGS
    return replace(p, name=f"{p.name.split('~', 1)[0]}~probe-{kind}-s{steps}-k{topk}-t{width}", drafter=d,
                   extra_args=extra)


def DEFAULT_WIDTHS(k0: int) -> tuple[int, ...]:
    """The tree legs' verify widths from a chain of depth k0's width k0 + 1 up: never narrower (SGLang 0.5.23's EAGLE
    worker dies at the first verify of a tree with fewer than steps + 1 draft tokens, found on the real CPU server;
    rules.py `tree-narrower-than-path`), wide apart, because each leg is its own launch and a launch draw moves a leg's
    whole median (a wider span divides its effect on the slope), yet within the batch-1 regime where each verified
    token still brings new experts."""
    return (k0 + 1, k0 + 5, k0 + 13)


TREE_PAGE_BACKENDS = ("flashinfer", "fa3", "triton")
CHAIN_ONLY_BACKENDS = ("trtllm_mha",)


def _flag(args: tuple[str, ...], name: str) -> str | None:
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def tree_refusal(p: Profile, server_args: dict[str, Any] | None = None) -> str | None:
    """Why this arm's attention backend cannot verify a tree (SGLang refuses topk > 1 with page_size > 1 outside
    flashinfer / fa3 / triton, and on trtllm_mha at all), or None. The resolved /server_info args when known,
    else the profile's own flags."""
    sa = server_args or {}
    backend = sa.get("attention_backend") or sa.get("decode_attention_backend") or _flag(p.extra_args,
                                                                                          "--attention-backend")
    page = sa.get("page_size") or _flag(p.extra_args, "--page-size")
    try:
        page_n = int(page) if page is not None else 1
    except (TypeError, ValueError):
        page_n = 1
    if backend in CHAIN_ONLY_BACKENDS:
        return f"attention backend {backend} verifies chains only (SGLang refuses topk > 1 on it)"
    if page_n > 1 and backend is not None and backend not in TREE_PAGE_BACKENDS:
        return (f"attention backend {backend} with page size {page_n} verifies chains only (SGLang refuses topk > 1 "
                f"with page_size > 1 outside {', '.join(TREE_PAGE_BACKENDS)})")
    return None


CHAIN_RULE = ("chain legs (topk 1, SGLang sets num_draft_tokens = steps + 1) at depths {depths}: the slope is the "
              "price of one more depth, a verified token and a draft pass; the drafter's fixed work cancels")


@dataclass(frozen=True)
class ProbeCost:
    """What a probe will take on this machine's clock, before it starts (the confirmation box)."""
    total_s: float | None
    """Wall seconds in all (None: the launch, the step or the TTFT not known yet; `text` then gives a floor)."""
    text: str


def probe_cost(plan: ProbePlan, state: Any) -> ProbeCost:
    """The probe's wall time from this session's figures (a `RuntimeState`): (legs + 1) relaunches at the last
    launch's startup, plus legs × (warm-up + n) requests, each its TTFT and max_tokens steps (a dummy drafter's
    draft is rejected: one token a step) at the arm's implied step. TTFT and step come from this session's latest
    cell on the probe's prompt set, else the step from the last anchor (τ / tok/s) and no TTFT (said so). Cell
    figures are the modelled node's: on the twin they are divided by its time scale."""
    launches = len(plan.legs) + 1
    startup = next((a.startup_s for a in reversed(state.arms) if a.startup_s), None)
    scale = state.sim_time_scale if state.sim_time_scale and state.sim_time_scale > 0 else 1.0
    p = plan.protocol
    reqs = len(plan.legs) * (p.warmup + p.n)
    cell = next((c for c in reversed(state.cells_done) if c.prompt_set == p.prompt_set and c.summary is not None
                 and c.summary.implied_step_ms and not c.probe), None)
    step_ms = ttft_s = None
    src = ""
    if cell is not None:
        step_ms, ttft_s = cell.summary.implied_step_ms, cell.summary.ttft_median_s
        src = f"this session's {p.prompt_set} cell"
    else:
        a = next((a for a in reversed(state.arms) if a.anchor_median_tok_s), None)
        if a is not None:
            step_ms = 1000.0 * (a.anchor_tau or 1.0) / a.anchor_median_tok_s
            try:
                med = statistics.median(x.tokens for x in load_set(p.prompt_set).prompts)
                what = f"{reqs} × ~{med:,.0f}-token {p.prompt_set} prompts"
            except (OSError, ValueError):  # a set that does not load (PromptSetError is a ValueError)
                what = f"the {p.prompt_set} prompts"
            src = f"the last anchor's step; plus the prefill of {what}, not timed in this session yet"
    parts, total = [], 0.0
    if startup:
        parts.append(f"{launches} relaunches × ~{startup:.1f} s of startup (the last launch's)")
        total += launches * startup
    if step_ms:
        per = ((ttft_s or 0.0) + p.max_tokens * step_ms / 1000.0) / scale
        parts.append(f"{reqs} requests × ~{per:.2f} s ({p.max_tokens} tokens at ~{step_ms:.1f} ms a step"
                     + (f" after ~{ttft_s:.2f} s TTFT" if ttft_s else "") + f": {src})")
        total += reqs * per
    if not parts:
        return ProbeCost(None, f"{launches} relaunches and {reqs} requests (no launch or cell timed yet)")
    known = bool(startup and step_ms and ttft_s is not None)
    text = (f"~{total:.0f} s {'in all' if known else 'at least'} on this machine's clock: " + " + ".join(parts)
            + (f" (the modelled node would take {scale:g}× as long)" if scale != 1.0 else ""))
    return ProbeCost(total if known else None, text)


def plan_probe(p: Profile, *, prompts: str | None = None, widths: list[int] | None = None,
               topk: int | None = None, chain: bool | None = None, n: int | None = None,
               max_tokens: int | None = None, warmup: int = 1,
               server_args: dict[str, Any] | None = None) -> ProbePlan:
    """The legs that separate the verify width from the drafter's own work on this family, or ProbeRefused.
    `server_args`: the arm's resolved /server_info (attention backend, page size) when it has run. What is not
    given comes from the profile's [probe] section, else the defaults (tool, 8 x 256 tokens, chain legs too)."""
    prompts = prompts or p.probe_prompts or DEFAULT_PROMPTS
    if widths is None and p.probe_widths:
        widths = probe_widths(p.probe_widths)
    topk = topk if topk is not None else p.probe_topk
    chain = chain if chain is not None else (p.probe_chain if p.probe_chain is not None else True)
    n = n if n is not None else (p.probe_n or 8)
    max_tokens = max_tokens if max_tokens is not None else (p.probe_max_tokens or 256)
    fam = p.drafter.family.lower()
    if fam in REFUSED:
        raise ProbeRefused(f"probe verify-tax: {p.name}: {REFUSED[fam]}")
    if fam not in FAMILY_RULES:
        raise ProbeRefused(f"probe verify-tax: {p.name}: drafter family {fam!r} has no probe rule "
                           f"(known: {', '.join(sorted(FAMILY_RULES))})")
    k0 = p.drafter.steps or 3
    legs: list[ProbeLeg] = []
    no_tree = tree_refusal(p, server_args)
    rule = FAMILY_RULES[fam]
    if no_tree is None:
        t = topk if topk is not None else (p.drafter.topk if (p.drafter.topk or 1) > 1 else DEFAULT_TOPK)
        assert t is not None  # the drafter's topk is taken only when set (> 1)
        if t < 2:
            raise ProbeRefused(f"probe verify-tax: --topk {t}: the width legs need topk ≥ 2 (with topk 1 SGLang "
                               f"forces num_draft_tokens = steps + 1, so the width cannot move alone)")
        cap = max_tree_width(k0, t)
        ws = sorted(set(widths)) if widths else sorted({w for w in DEFAULT_WIDTHS(k0) if w <= cap})
        bad = [w for w in ws if w < k0 + 1 or w > cap]
        if bad:
            raise ProbeRefused(f"probe verify-tax: --widths {','.join(map(str, bad))}: a tree of steps {k0} and topk "
                               f"{t} verifies {k0 + 1}..{cap} tokens (at least steps + 1: sglang's EAGLE worker dies "
                               f"below it; at most 1 + topk + (steps − 1)·topk²); pick widths in that range")
        if len(ws) < 2:
            raise ProbeRefused(f"probe verify-tax: --widths: give two or more different widths (got {ws})")
        legs = [ProbeLeg("verify", k0, t, w, _leg_profile(p, "verify", k0, t, w)) for w in ws]
        depths = sorted({max(1, k0 - 4), k0 + 4})
    else:
        if widths:
            raise ProbeRefused(f"probe verify-tax: --widths: {no_tree}, so no tree legs can run; leave --widths out "
                               f"(chain legs at three depths measure the price of one more depth)")
        if not chain:
            raise ProbeRefused(f"probe verify-tax: --no-chain: {no_tree}; the chain legs are the only legs left")
        depths = sorted({max(1, k0 - 4), k0, k0 + 4})
        rule = f"{no_tree}: " + CHAIN_RULE.format(depths=", ".join(map(str, depths)))
    if chain:
        for s in depths:
            legs.append(ProbeLeg("chain", s, 1, s + 1, _leg_profile(p, "chain", s, 1, s + 1)))
    proto = CellProtocol(prompt_set=prompts, n=n, max_tokens=max_tokens, temperature=0.0, concurrency=1,
                         warmup=warmup, ignore_eos=True, gate_short=True)
    proto.validate()
    load_set(prompts)
    return ProbePlan(p, fam, rule, tuple(legs), proto)


def request_step_ms(rows: list[RequestRecord]) -> list[float]:
    """Per-request step times of a leg's included rows: the implied step time (τ / tok/s, docs/measurement.md) of
    each request; with random draft weights τ ≈ 1, so it is the decode wall time over the tokens after the first."""
    out = []
    for r in rows:
        if r.warmup or not r.ok or r.flags:
            continue
        v = stats.implied_step_ms(stats.request_tau(r), stats.output_tok_s(r))
        if v is not None and v > 0:
            out.append(v)
    return out


@dataclass
class LegResult:
    kind: str
    steps: int
    topk: int
    width: int
    cell: str
    """The leg's cell directory, relative to the probe directory."""
    n: int
    median_step_ms: float | None
    tau: float | None
    server_arm: dict[str, Any] | None = None
    dummy_weights: bool | None = None
    twin_factors: dict[str, Any] | None = None
    """On the twin: its node speed factor and launch factor for this leg's launch (/sim/info), so the twin's
    configured cost on this node can be compared with the fit; None on a real server."""


@dataclass
class ProbeResult:
    dir: Path
    doc: dict[str, Any]
    fit: ProbeFit | None
    why: str = ""
    legs: list[LegResult] = field(default_factory=list)


def _anchor(rt) -> dict[str, Any] | None:
    for a in reversed(rt.state.arms):
        if a.anchor_median_tok_s:
            return {"profile": a.profile, "median_tok_s": a.anchor_median_tok_s, "pct_of_reference": a.anchor_pct,
                    "tau": a.anchor_tau, "n": a.anchor_n}
    return None


def fit_legs(legs: list[LegResult], probe_dir: Path, seed: int = 0) -> tuple[ProbeFit | None, str]:
    """The fit from the legs' rows on disk (recomputable: `probe.json` is a summary of the cells)."""
    def cells(kind: str) -> list[tuple[int, list[float]]]:
        return [(leg.width, request_step_ms(load_rows(probe_dir / leg.cell))) for leg in legs if leg.kind == kind]
    return probe_fit(cells("verify"), cells("chain"), seed=seed)


async def run_probe(rt, plan: ProbePlan, say: Callable[[str], None] = lambda s: None,
                    restore: Profile | None = None) -> ProbeResult:
    """Run every leg of `plan` on `rt` (a started Runtime that launched this node): relaunch the leg's arm, run
    its cell into the probe directory, fit, write probe.json. `restore`: relaunch this profile afterwards (and
    anchor it), as the dashboard does to give the operator their arm back."""
    assert rt.session is not None
    pset = rt.prompt_set(plan.protocol.prompt_set)
    pdir = new_probe_dir(rt.session.dir, "verify-tax")
    doc: dict[str, Any] = {
        "schema": PROBE_SCHEMA, "kind": "verify-tax", "started_utc": utc_iso(), "complete": False,
        "profile": plan.base.name, "arm": plan.base.arm.to_json(),
        "model_path": (rt.state.server.raw.get("model_path") if rt.state.server else None) or plan.base.model_path,
        "family": plan.family, "rule": plan.rule, "anchor": _anchor(rt),
        "node": (rt.session.meta().get("node") or {}),
        "prompt_set": {"name": pset.name, "sha256": pset.sha256, "window": pset.window,
                       "median_prompt_tokens": statistics.median(p.tokens for p in pset.prompts)
                       if pset.prompts else None},
        "protocol": asdict(plan.protocol), "simulated": rt.state.simulated, "sim_time_scale": rt.state.sim_time_scale,
        "planned_legs": len(plan.legs),
        "plan": [{"kind": leg.kind, "steps": leg.steps, "topk": leg.topk, "width": leg.width} for leg in plan.legs],
        "legs": [], "fit": None, "why": "", "tax": None,
    }
    write_probe(pdir, doc)
    legs: list[LegResult] = []
    t0 = time.monotonic()
    try:
        for i, leg in enumerate(plan.legs, 1):
            say(f"leg {i}/{len(plan.legs)}: {leg.kind}, steps {leg.steps}, topk {leg.topk}, width {leg.width}")
            cur = rt.profile
            want = leg.profile.with_sim() if (cur is not None and cur.is_sim) else leg.profile
            if cur is None or cur.launch_key() != want.launch_key() or rt.state.phase != "ready":
                await rt.relaunch(leg.profile, anchor=False, unanchored="probe leg: dummy drafts, not anchored")
            info = rt.state.server
            arm = info.arm if info else None
            if arm is None or (arm.draft_tokens, arm.topk or 1) != (leg.width, leg.topk) or arm.steps != leg.steps:
                got = arm.label() if arm else "no server info"
                raise ProbeRefused(f"probe verify-tax: leg {leg.label}: the server runs {got}, not steps {leg.steps} "
                                   f"· topk {leg.topk} · {leg.width} draft tokens; the widths cannot be compared")
            dummy = (info.raw.get("speculative_draft_load_format") == "dummy") if info else None
            res = await rt.run_cell(plan.protocol, label=f"probe-{leg.label}", parent=pdir)
            cell_dir = Path(rt.state.cell.cell_dir)
            steps_ms = request_step_ms(load_rows(cell_dir))
            si = rt.state.sim_info or None
            tf = ({k: si.get(k) for k in ("node_seed", "node_speed_factor", "launch_seed", "launch_factor")}
                  if si else None)
            lr = LegResult(leg.kind, leg.steps, leg.topk, leg.width, cell_dir.name, len(steps_ms),
                           stats.interp_median(steps_ms), res.summary.tau, arm.to_json(), dummy, tf)
            legs.append(lr)
            doc["legs"] = [asdict(x) for x in legs]
            write_probe(pdir, doc)
            med = f"{lr.median_step_ms:.3f} ms" if lr.median_step_ms else "—"
            left = (time.monotonic() - t0) / i * (len(plan.legs) - i + (1 if restore is not None else 0))
            eta = f" · ~{left:.0f} s left" if left > 0 else ""  # legs so far, per leg, for the rest and the restore
            say(f"  step {med} (n={lr.n}, τ {lr.tau:.3f}){eta}" if lr.tau else f"  step {med} (n={lr.n}){eta}")
            if res.interrupted or res.cancelled:
                break
        fit, why = fit_legs(legs, pdir)
        doc.update(fit=fit.to_json() if fit else None, why=why,
                   tax=asdict(fit.tax(f" on {pset.name}")) if fit else None,
                   complete=len(legs) == len(plan.legs) and fit is not None, finished_utc=utc_iso())
        write_probe(pdir, doc)
    finally:
        if restore is not None and rt.state.phase not in ("dead",):
            say(f"relaunching {restore.name}")
            await rt.relaunch(restore, anchor=True)
    return ProbeResult(pdir, doc, fit if legs else None, why if legs else "no leg ran", legs)
