"""Running a campaign (docs/campaigns.md#running): per node, each arm launched once (the first through
`Runtime.start`, the next through `Runtime.relaunch`, the pair runner's path), anchored right after its launch
with the anchor cell the pair runner uses, then its cells through `Runtime.run_cell` — the one cell runner, so
rows land fsync'ed in `rows.jsonl` before they are shown. Nodes run in parallel, one `Runtime` each.

Before a cell runs, its depth forecast (the one forecast, `sessions.forecasts.cell_forecast`, from the shallowest
depth of its family already measured on the same set and concurrency) is written to the journal; after it, the
measurement is compared with it. During a cell `/metrics` is sampled into the cell's `kv-samples.jsonl` (KV usage,
running and queued requests, the queue-time histogram), the evidence the concurrency curves read.

A resume (`resume_campaign`) reads what is on disk: a cell whose manifest says complete is done; the latest
incomplete cell of a key is continued (`run_cell(resume_dir=…)`: its rows are kept, only missing request ids are
sent), on a fresh launch of its arm, anchored again. Nothing recorded is rewritten.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from console.core.campaign import journal as J
from console.core.campaign.estimate import Estimate
from console.core.campaign.parse import load_plan, parse_plan
from console.core.campaign.plan import ArmSpec, CellPlan, Plan
from console.core.campaign.refusals import kv_needed, max_prompt_tokens
from console.core.fmt import num, utc_iso, utc_stamp
from console.core.launch.ports import free_port
from console.core.launch.process import EngineLost
from console.core.launch.profile import load_profile, profile_to_toml
from console.core.sessions.store import SESSION_SCHEMA, new_folder, node_fingerprint, slugify, write_json


@dataclass(frozen=True)
class SweepEvent:
    """What the runner reports: kind ('launch', 'ready', 'anchor', 'forecast', 'cell_start', 'request',
    'cell_done', 'skip', 'node_done', 'done', 'error'), the node, one printable line, and its figures."""

    kind: str
    node: str = ""
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class CellLive:
    key: str
    node: str
    arm: str
    prompt_set: str
    concurrency: int
    n: int
    est_wall_s: float
    status: str = "pending"
    """'pending' | 'running' | 'done' | 'skipped' | 'interrupted'."""
    done: int = 0
    started: float | None = None
    ended: float | None = None
    measured_tok_s: float | None = None
    measured_tau: float | None = None
    forecast_tok_s: float | None = None
    forecast_tau: float | None = None
    error_pct: float | None = None
    cell_dir: str | None = None
    note: str = ""

    def eta_s(self, ratio: float) -> float:
        if self.status in ("done", "skipped"):
            return 0.0
        if self.status == "running" and self.started is not None and self.done > 0:
            el = time.time() - self.started
            return el * (self.n - self.done) / self.done
        return self.est_wall_s * ratio


@dataclass
class SweepProgress:
    """Live state of a campaign, read by the CLI printer and the TUI at their own rate."""

    cells: dict[str, CellLive] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.time)
    phase: str = "planned"
    """'planned' | 'running' | 'done' | 'failed'."""
    error: str | None = None
    node_phase: dict[str, str] = field(default_factory=dict)

    def ratio(self) -> float:
        """Measured wall ÷ estimated wall over the finished cells (1 before any)."""
        done = [c for c in self.cells.values() if c.status == "done" and c.started and c.ended and c.est_wall_s > 0]
        if not done:
            return 1.0
        return max(0.05, sum((c.ended or 0.0) - (c.started or 0.0) for c in done) / sum(c.est_wall_s for c in done))

    def eta_s(self) -> float:
        r = self.ratio()
        per_node: dict[str, float] = {}
        for c in self.cells.values():
            per_node[c.node] = per_node.get(c.node, 0.0) + c.eta_s(r)
        return max(per_node.values(), default=0.0)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.cells.values():
            out[c.status] = out.get(c.status, 0) + 1
        return out


def largest_wave(cells: list[CellPlan], server_args: dict[str, Any]) -> dict[str, Any] | None:
    """The text of one warm-up request longer than the largest first wave of `cells` (a cell at concurrency c sends
    its set's first c prompts at once; o200k counts from the set): whole prompts of that set, in order, cycling,
    c + 1 of them (one more than the wave: the server's tokenizer and c chat templates count the wave longer than
    o200k counts its contents), at most min(chunked_prefill_size, context_length − 64) tokens (no prefill step is
    longer than the first, and no request longer than the second). None when no cell is batched."""
    from console.core.workload.prompts import load_set
    best = None
    sets: dict[str, Any] = {}
    for c in cells:
        if c.concurrency <= 1:
            continue
        if c.prompt_set not in sets:
            sets[c.prompt_set] = load_set(c.prompt_set)
        ps = sets[c.prompt_set]
        wave = sum(ps.prompts[i % len(ps.prompts)].tokens for i in range(c.concurrency))
        if best is None or wave > best[0]:
            best = (wave, c, ps)
    if best is None:
        return None
    wave, cell, ps = best
    caps = [v for v in (server_args.get("chunked_prefill_size"),
                        (server_args.get("context_length") or 0) - 64 if server_args.get("context_length") else None)
            if isinstance(v, int) and v > 0]
    cap = min(caps) if caps else wave
    parts: list[str] = []
    tokens = 0
    for i in range(cell.concurrency + 1):
        p = ps.prompts[i % len(ps.prompts)]
        if parts and tokens + p.tokens > cap:
            break
        parts.append(p.as_text())
        tokens += p.tokens
    return {"text": "\n\n".join(parts), "tokens": tokens, "wave_tokens": wave, "cap": cap, "cell": cell.key,
            "prompt_set": cell.prompt_set}


def create_campaign(plan: Plan, root: Path, *, sim: bool, time_scale: float | None, sim_args: list[str]) -> Path:
    """The campaign's folder with its once-written record (campaign.json, plan.toml, arms/*.toml)."""
    d = new_folder(Path(root), f"{utc_stamp()}-campaign-{slugify(plan.name)}")
    (d / "arms").mkdir()
    (d / "plan.toml").write_text(plan.text)
    for a in plan.arms:
        (d / "arms" / f"{a.name}.toml").write_text(profile_to_toml(a.profile))
    doc = {"schema": J.SCHEMA, "name": plan.name, "description": plan.description, "created_utc": utc_iso(),
           "plan_file": str(plan.path) if plan.path else None, "simulated": sim,
           "sim_time_scale": time_scale if sim else None, "sim_args": list(sim_args) if sim else [],
           "kv_policy": plan.kv_policy, "nodes": [n.to_json() for n in plan.nodes],
           "arms": [{"name": a.name, "where": a.where, "nodes": plan.arm_nodes(a),
                     "profile_file": f"arms/{a.name}.toml", "arm": a.profile.arm.to_json(),
                     "label": a.profile.arm.label()} for a in plan.arms],
           "cells": [{"key": c.key, "arm": c.arm, "node": c.node, "domain": c.domain, "context": c.context,
                      "prompt_set": c.prompt_set, "concurrency": c.concurrency, "n": c.protocol.n,
                      "max_tokens": c.protocol.max_tokens} for c in plan.cells()]}
    J.write_campaign_doc(d, doc)
    return d


def load_campaign(d: Path) -> tuple[Plan, dict[str, Any]]:
    """The plan a campaign recorded, its arms exactly as they were resolved when it started."""
    d = Path(d)
    if not J.is_campaign(d):
        raise ValueError(f"{d}: not a campaign directory (no {J.CAMPAIGN_FILE}); --resume takes the folder "
                         "`sweep` printed (sessions/<stamp>-campaign-<name>)")
    doc = J.campaign_doc(d)
    resolved = {}
    for a in doc.get("arms") or []:
        p = d / str(a.get("profile_file") or f"arms/{a['name']}.toml")
        resolved[a["name"]] = load_profile(p)
    text = (d / "plan.toml").read_text()
    plan = parse_plan(text, path=Path(doc["plan_file"]) if doc.get("plan_file") else d / "plan.toml",
                      name=doc.get("name"), resolved=resolved)
    return plan, doc


_QUEUE = re.compile(r"^sglang:queue_time_seconds_(sum|count)(?:\{[^}]*\})? (\S+)", re.M)


def metrics_sample(text: str) -> dict[str, Any]:
    """One /metrics sample as the cell records it (gauges of tp_rank 0; the queue-time histogram's sum and count
    summed over its label sets)."""
    from console.core.engine.metrics import snapshot
    s = snapshot(text)
    q = {"sum": 0.0, "count": 0.0}
    seen = False
    for kind, v in _QUEUE.findall(text):
        try:
            q[kind] += float(v)
            seen = True
        except ValueError:
            pass
    return {"token_usage": s.token_usage, "num_used_tokens": s.num_used_tokens,
            "max_total_num_tokens": s.max_total_num_tokens, "num_running_reqs": s.num_running_reqs,
            "num_queue_reqs": s.num_queue_reqs, "queue_time_sum_s": q["sum"] if seen else None,
            "queue_time_count": q["count"] if seen else None}


class CampaignRunner:
    def __init__(self, plan: Plan, campaign_dir: Path, *, sim: bool, sim_args: list[str], sessions_root: Path,
                 estimate: Estimate | None = None, observer: Callable[[SweepEvent], None] | None = None,
                 force: bool = False, sample_s: float = 0.1, port: int | None = None) -> None:
        self.plan = plan
        self.port = port
        """--port N: every node's server listens on N (the profiles' server.port otherwise; the twin: free ports)."""
        self.dir = Path(campaign_dir)
        self.sim = sim
        self.sim_args = list(sim_args)
        self.sessions_root = Path(sessions_root)
        self.observer = observer or (lambda e: None)
        self.force = force
        self.sample_s = sample_s
        self.journal = J.Journal(self.dir)
        self.progress = SweepProgress()
        self.runtimes: dict[str, Any] = {}
        self.skipped: list[str] = []
        est = {c.key: c for c in (estimate.cell_estimates if estimate else [])}
        scale = estimate.time_scale if estimate else 1.0
        for cp in plan.cells():
            e = est.get(cp.key)
            self.progress.cells[cp.key] = CellLive(key=cp.key, node=cp.node, arm=cp.arm, prompt_set=cp.prompt_set,
                                                   concurrency=cp.concurrency, n=cp.protocol.n,
                                                   est_wall_s=(e.node_s / scale) if e else 10.0)
            self.progress.order.append(cp.key)

    def emit(self, kind: str, node: str = "", text: str = "", **data: Any) -> None:
        try:
            self.observer(SweepEvent(kind, node, text, data))
        except Exception:
            pass

    # --- the run -------------------------------------------------------------------------------

    async def run(self, *, resume: bool = False) -> SweepProgress:
        import os
        self.journal.write("resume" if resume else "start", pid=os.getpid(), cells=len(self.progress.cells))
        self.progress.phase = "running"
        for node in J.node_dirs(self.dir).values():
            for k, (c, m) in J.cell_state(node).items():
                live = self.progress.cells.get(k)
                if live is not None and m.get("complete") is True:
                    live.status, live.cell_dir = "done", str(c)
        sched = self.plan.schedule()
        ports = self._ports(len(sched))
        results = await asyncio.gather(*[self._node(node, arms, ports[i]) for i, (node, arms) in enumerate(sched)],
                                       return_exceptions=True)
        errs = [r for r in results if isinstance(r, BaseException)]
        if errs:
            self.progress.phase = "failed"
            self.progress.error = str(errs[0])
            self.journal.write("stopped", error=str(errs[0]))
            raise errs[0]
        self.progress.phase = "done"
        self.journal.write("done", skipped=self.skipped)
        self.emit("done", text=f"campaign done: {self.dir}")
        return self.progress

    def _ports(self, n: int) -> list[int | None]:
        if self.port is not None:
            return [self.port] * n
        if not self.sim:
            return [None] * n
        out: list[int | None] = []
        while len(out) < n:
            p = free_port()
            if p not in out:
                out.append(p)
        return out

    def _session_dir(self, node: str) -> Path:
        d = self.dir / f"node-{slugify(node)}"
        if not (d / "session.json").exists():
            d.mkdir(exist_ok=True)
            write_json(d / "session.json", {"schema": SESSION_SCHEMA, "created_utc": utc_stamp(), "slug": node,
                                            "node": node_fingerprint(), "arms": [], "campaign": self.dir.name,
                                            "campaign_node": node})
        return d

    async def _node(self, node: str, arms: list[tuple[ArmSpec, list[CellPlan]]], port: int | None) -> None:
        from console.core.run.runtime import Runtime
        nd = self.plan.node(node)
        rt = None
        sess = self._session_dir(node)
        try:
            for a, cps in arms:
                state = J.cell_state(sess)
                todo = [c for c in cps if not (c.key in state and state[c.key][1].get("complete") is True)]
                if not todo:
                    continue
                prof = nd.apply(a.profile)
                if port is not None:
                    prof = replace(prof, port=port)
                self.progress.node_phase[node] = f"launching {a.name}"
                self.journal.write("launch", node=node, arm=a.name)
                self.emit("launch", node, f"[{node}] launching {a.name} ({a.profile.arm.label()})")
                t0 = time.time()
                if rt is None:
                    rt = Runtime(profile=prof, sim=self.sim,
                                 sim_args=self.sim_args if (self.sim or prof.is_sim) else [],
                                 sessions=self.sessions_root, session_dir=sess, force=self.force,
                                 observer=partial(self._runtime_event, node))
                    self.runtimes[node] = rt
                    await rt.start()
                else:
                    await rt.relaunch(prof, anchor=False)
                info = rt.state.server
                cap = info.max_total_num_tokens if info else None
                self.journal.write("ready", node=node, arm=a.name, startup_s=rt.state.startup_elapsed_s,
                                   wall_s=time.time() - t0, kv_capacity_tokens=cap)
                self.emit("ready", node, f"[{node}] {a.name} ready in {time.time() - t0:.1f} s; KV capacity "
                                         f"{cap:,} tokens" if cap else f"[{node}] {a.name} ready")
                self.progress.node_phase[node] = f"anchoring {a.name}"
                res = await rt.run_anchor()
                anchor_dir = rt.state.cells_done[-1].cell_dir if rt.state.cells_done else None
                self.journal.write("anchor", node=node, arm=a.name, cell_dir=_rel(anchor_dir, self.dir),
                                   median_tok_s=res.summary.median_tok_s, tau=res.summary.tau)
                self.emit("anchor", node, f"[{node}] anchor {a.name}: {num(res.summary.median_tok_s)} tok/s, "
                                          f"τ {num(res.summary.tau, '.2f')} (n={res.summary.n_included})")
                self._check_alive(rt, node)
                todo = [cp for cp in todo if not self._skip(node, cp, cap)]
                if todo:
                    await self._warm_batch(rt, node, todo)
                for cp in todo:
                    await self._cell(rt, node, a, cp, cap, J.cell_state(sess).get(cp.key))
                    self._check_alive(rt, node)
            self.progress.node_phase[node] = "done"
            self.emit("node_done", node, f"[{node}] every cell done")
        finally:
            if rt is not None:
                await rt.stop()

    async def _warm_batch(self, rt, node: str, todo: list[CellPlan]) -> None:
        """Unrecorded warm-up of the batched shapes, once per launch, so that no cell pays a first-shape cost:

        shape   one request longer than the largest first wave any of this arm's cells sends (its concurrency × its
                set's first prompts, `largest_wave`), capped by the server's chunked-prefill size and context: the
                requests of a wave do not reliably reach the scheduler in one step (one arrives first and is
                prefilled alone), so a batch alone may never make the long prefill step whose one-time compile a
                cell's wave then pays — 3 s on the reference node, shared by every request of that wave;
        batch   the largest concurrency sends that many requests at once (8 output tokens each): decode batch
                shapes and their graphs.

        A cell's own warm-up is sequential and cannot do either."""
        from console.core.workload.prompts import load_set
        top = max(todo, key=lambda c: (c.concurrency, c.protocol.max_tokens))
        if top.concurrency <= 1 or top.protocol.warmup < 1:
            return
        info = rt.state.server
        model = info.model_name() if info else "default"
        t0 = time.time()
        shape = largest_wave(todo, info.raw if info else {})
        srec = None
        if shape is not None:
            srec = await rt.stream.chat([{"role": "user", "content": shape["text"]}], max_tokens=8,
                                        temperature=top.protocol.temperature, model=model,
                                        request_id="warmup-shape#0", prompt_id=f"{shape['prompt_set']}-wave",
                                        ignore_eos=True)
        t1 = time.time()
        pset = load_set(top.prompt_set)
        recs = await asyncio.gather(*[
            rt.stream.chat(pset.prompts[i % len(pset.prompts)].messages_list(), max_tokens=8,
                           temperature=top.protocol.temperature, model=model, request_id=f"warmup-batch#{i}",
                           prompt_id=pset.prompts[i % len(pset.prompts)].id, ignore_eos=True)
            for i in range(top.concurrency)])
        bad = [r.error for r in ([srec] if srec is not None else []) + list(recs) if r.error]
        shape_doc = None if shape is None else {
            "cell": shape["cell"], "wave_tokens_o200k": shape["wave_tokens"], "sent_tokens_o200k": shape["tokens"],
            "cap_tokens": shape["cap"], "prompt_tokens": srec.prompt_tokens if srec is not None else None,
            "wall_s": t1 - t0}
        self.journal.write("warmup", node=node, concurrency=top.concurrency, prompt_set=top.prompt_set,
                           wall_s=time.time() - t0, errors=bad[:3], shape=shape_doc)
        what = (f"one {shape['tokens']:,}-token request (the largest first wave: {shape['cell']}), then "
                if shape is not None else "")
        self.emit("warmup", node, f"[{node}] batch warm-up: {what}{top.concurrency} × {top.prompt_set} at once, "
                  "not recorded" + (f" ({len(bad)} failed: {bad[0]})" if bad else ""))

    def _check_alive(self, rt, node: str) -> None:
        if rt.state.phase == "dead":
            raise EngineLost(f"node {node}: the engine died ({rt.state.error or 'no cause read'}); the campaign is "
                             f"kept as recorded — `serving-console sweep --resume {self.dir}` continues it")

    def _runtime_event(self, node: str, ev) -> None:
        from console.core.run import events as E
        if isinstance(ev, E.RequestFinished):
            rt = self.runtimes.get(node)
            c = rt.state.cell if rt is not None else None
            live = self._live_by_label(c.label if c else None)
            if live is not None:
                live.done = ev.done
                self.emit("request", node, "", key=live.key, done=ev.done, total=ev.total)
        elif isinstance(ev, E.Died):
            self.emit("error", node, f"[{node}] {ev.text}")
        elif isinstance(ev, E.Preflight) and ev.severity == "error":
            self.emit("error", node, f"[{node}] preflight: {ev.text}")

    def _live_by_label(self, label: str | None) -> CellLive | None:
        from console.core.campaign.plan import key_of_label
        k = key_of_label(label)
        return self.progress.cells.get(k) if k else None

    def _skip(self, node: str, cp: CellPlan, cap: int | None) -> bool:
        """With kv.policy 'refuse', a cell the launched arm's KV capacity cannot hold is skipped (journal, one
        line); the plan-time check could not know a capacity no launch had recorded yet."""
        if not cap or self.plan.kv_policy != "refuse":
            return False
        try:
            pt = max_prompt_tokens(cp.prompt_set)
        except ValueError:
            pt = 0
        need = kv_needed(cp.concurrency, pt, cp.protocol.max_tokens)
        if need <= cap:
            return False
        why = (f"{cp.key}: needs {cp.concurrency} × ({pt:,} prompt + {cp.protocol.max_tokens:,} output) = "
               f"{need:,} KV tokens, capacity {cap:,} (kv.policy refuse)")
        live = self.progress.cells[cp.key]
        live.status, live.note = "skipped", why
        self.skipped.append(why)
        self.journal.write("skip", node=node, key=cp.key, reason=why)
        self.emit("skip", node, f"[{node}] skipped {why}")
        return True

    async def _cell(self, rt, node: str, a: ArmSpec, cp: CellPlan, cap: int | None,
                    existing: tuple[Path, dict[str, Any]] | None) -> None:
        live = self.progress.cells[cp.key]
        fc = self._forecast(cp)
        if fc is not None:
            live.forecast_tok_s, live.forecast_tau = fc["tok_s"], fc["tau"]
            self.journal.write("forecast", node=node, key=cp.key, **fc)
        resume_dir = existing[0] if existing is not None else None
        ratio = self.progress.ratio()
        self.progress.node_phase[node] = f"measuring {cp.key}"
        live.status, live.started, live.done = "running", time.time(), 0
        self.journal.write("cell_start", node=node, key=cp.key,
                           resume_dir=_rel(str(resume_dir), self.dir) if resume_dir else None)
        idx = self.progress.order.index(cp.key) + 1
        self.emit("cell_start", node, f"[{node}] cell {idx}/{len(self.progress.order)} {cp.key}: "
                                      f"{cp.protocol.n} × {cp.prompt_set} at concurrency {cp.concurrency}"
                  + (f" (resuming {resume_dir.name})" if resume_dir else "")
                  + f"; ETA cell {_dur(live.est_wall_s * ratio)}, campaign {_dur(self.progress.eta_s())}"
                  + (f"; forecast {fc['tok_s']:.1f} tok/s, τ {fc['tau']:.2f} (from {fc['base_arm']})" if fc else ""),
                  key=cp.key)
        sampler = asyncio.create_task(self._sample(rt, cp.label))
        try:
            res = await rt.run_cell(cp.protocol, label=cp.label, resume_dir=resume_dir)
        finally:
            sampler.cancel()
            try:
                await sampler
            except (asyncio.CancelledError, Exception):
                pass
        cell_dir = rt.state.cells_done[-1].cell_dir if rt.state.cells_done else None
        s = res.summary
        live.ended, live.cell_dir = time.time(), cell_dir
        live.measured_tok_s, live.measured_tau = s.median_tok_s, s.tau
        live.status = "done" if res.complete else "interrupted"
        if fc is not None and s.median_tok_s:
            live.error_pct = 100.0 * (fc["tok_s"] / s.median_tok_s - 1.0)
        self.journal.write("cell_done", node=node, key=cp.key, cell_dir=_rel(cell_dir, self.dir), complete=res.complete,
                           median_tok_s=s.median_tok_s, tau=s.tau, n_included=s.n_included,
                           wall_s=live.ended - (live.started or live.ended), forecast_error_pct=live.error_pct)
        self.emit("cell_done", node, f"[{node}] {cp.key}: {num(s.median_tok_s)} tok/s median, τ {num(s.tau, '.2f')} "
                                     f"(n={s.n_included}) in {_dur(live.ended - (live.started or live.ended))}"
                  + (f"; forecast {fc['tok_s']:.1f} → measured {s.median_tok_s:.1f} ({live.error_pct:+.1f}%)"
                     if fc is not None and live.error_pct is not None else "")
                  + f"; campaign ETA {_dur(self.progress.eta_s())}", key=cp.key)

    def _forecast(self, cp: CellPlan) -> dict[str, Any] | None:
        """The pre-run forecast of this cell: from the shallowest measured depth of the same family (same draft
        model, KV dtype and model) on the same prompt set, concurrency and output length, same node first."""
        from console.core.sessions.forecasts import cell_forecast
        a = self.plan.arm(cp.arm)
        arm = a.profile.arm
        if not arm.speculative or arm.depth is None or arm.adaptive or (arm.topk or 1) != 1 and not arm.is_block:
            return None
        best = None
        for b in self.plan.arms:
            ba = b.profile.arm
            if b is a or ba.family != arm.family or ba.kv_dtype != arm.kv_dtype or ba.draft_model != arm.draft_model \
                    or b.profile.model_path != a.profile.model_path or ba.adaptive or ba.depth is None \
                    or ba.depth == arm.depth:
                continue
            bkey = replace(cp, arm=b.name).key
            for node_name, nd in J.node_dirs(self.dir).items():
                st = J.cell_state(nd).get(bkey.replace(f"@{cp.node}/", f"@{node_name}/"))
                if st is None or st[1].get("complete") is not True:
                    continue
                rank = (node_name != cp.node, ba.depth)
                if best is None or rank < best[0]:
                    best = (rank, b, st[0], node_name)
        if best is None:
            return None
        _, b, base_dir, base_node = best
        try:
            cf = cell_forecast(base_dir, [arm.depth])
        except ValueError:
            return None
        pt = cf.forecast.at(arm.depth)
        if pt is None:
            return None
        return {"tok_s": pt.tok_s, "tau": pt.tau, "step_ms": pt.step_ms, "depth": arm.depth,
                "extrapolated_positions": pt.extrapolated_positions, "base_arm": b.name, "base_node": base_node,
                "base_cell": _rel(str(base_dir), self.dir), "base_depth": cf.depth,
                "verify_tax_ms": cf.forecast.verify_tax_ms, "tax_source": cf.forecast.tax.source,
                "tax_text": cf.forecast.tax_source}

    async def _sample(self, rt, label: str) -> None:
        """/metrics during the cell, every `sample_s` wall seconds, appended to the cell's kv-samples.jsonl."""
        while True:
            c = rt.state.cell
            if c is not None and c.label == label and c.cell_dir and c.running:
                break
            await asyncio.sleep(0.02)
        path = Path(c.cell_dir) / J.SAMPLES_FILE
        taken = 0

        async def one() -> None:
            nonlocal taken
            try:
                d = metrics_sample(await rt.admin.metrics_text())
            except asyncio.CancelledError:
                raise
            except Exception:
                return
            await asyncio.to_thread(J.append_line, path, {"t": time.time(), **d})
            taken += 1

        try:
            while True:
                await one()
                await asyncio.sleep(self.sample_s)
        except asyncio.CancelledError:
            if not taken:  # a cell shorter than one round trip still records one sample (its queue counters)
                try:
                    await asyncio.wait_for(one(), timeout=5)
                except (TimeoutError, asyncio.CancelledError):
                    pass
            raise


def _rel(p: str | None, base: Path) -> str | None:
    if not p:
        return None
    try:
        return str(Path(p).resolve().relative_to(Path(base).resolve()))
    except ValueError:
        return str(p)


def _dur(s: float | None) -> str:
    from console.core.campaign.describe import fmt_duration
    return fmt_duration(s)


__all__ = ["CampaignRunner", "SweepEvent", "SweepProgress", "CellLive", "create_campaign", "load_campaign",
           "load_plan", "metrics_sample"]
