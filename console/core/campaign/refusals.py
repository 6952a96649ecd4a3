"""What a plan may not run, refused before anything launches: cells whose KV need exceeds an arm's capacity
(measured or recorded), arms the node cannot serve."""

from __future__ import annotations

from pathlib import Path

from console.core.campaign.plan import ArmSpec, Plan
from console.core.campaign.recorded import recorded_capacity

# --- refusals --------------------------------------------------------------------------------------

def max_prompt_tokens(prompt_set: str) -> int:
    from console.core.workload.prompts import load_set
    s = load_set(prompt_set)
    return max((p.tokens for p in s.prompts), default=0)


def kv_needed(concurrency: int, prompt_tokens: int, max_tokens: int) -> int:
    """KV tokens `concurrency` fixed-length requests hold at once: each its prompt plus its whole output
    (SGLang reserves prompt + min(max_new, 4096) per admitted ignore_eos request)."""
    return concurrency * (prompt_tokens + min(max_tokens, 4096))


def refusals(plan: Plan, *, sim: bool, sessions_root: Path | None = None,
             capacities: dict[str, int] | None = None) -> list[str]:
    """Every reason the plan cannot run, one line each naming the field: prompt sets that do not load, arms whose
    argv the target engine rejects (the `check` catalogue and rules), and — when `kv.policy` is 'refuse' — a
    concurrency an arm's KV capacity cannot hold at this context (capacity as recorded by a previous launch of
    the same arm; an arm never launched is checked again right after its launch)."""
    from console.core.launch.check import check_profile
    from console.core.workload.prompts import load_set
    where = plan.where()
    out: list[str] = []
    ptoks: dict[str, int] = {}
    for w in plan.workloads:
        for dom in w.domains:
            ps = w.prompt_set(dom)
            try:
                s = load_set(ps)
                ptoks[ps] = max((p.tokens for p in s.prompts), default=0)
            except ValueError as e:
                out.append(f"{where}: {w.where}.domains {dom} ({w.context}): {e}")
    for a in plan.arms:
        prof = a.profile.with_sim() if sim else a.profile
        res = check_profile(prof, introspect=not sim)
        out += [f"{where}: {a.where} ({a.name}): the engine rejects {e}" for e in res.errors]
    if not sim and plan.multi_node:
        seen: dict[tuple, str] = {}
        for i, nd in enumerate(plan.nodes):
            for a in plan.arms:
                if nd.name not in plan.arm_nodes(a):
                    continue
                p = nd.apply(a.profile)
                where_ = (p.hosts or (p.host,), p.port, p.template)
                other = seen.get(where_)
                if other is not None and other != nd.name:
                    out.append(f"{where}: nodes[{i}] ({nd.name}) launches on the same host and port as node {other} "
                               f"({p.host}:{p.port}); give it its own host, port or engine template")
                seen.setdefault(where_, nd.name)
                break
    caps = dict(capacities or {})
    if sessions_root is not None:
        for a in plan.arms:
            if a.name not in caps:
                c = recorded_capacity(sessions_root, a.profile)
                if c:
                    caps[a.name] = c
    if plan.kv_policy == "refuse":
        for a in plan.arms:
            cap = caps.get(a.name)
            if not cap:
                continue
            out += kv_refusals(plan, a, cap, ptoks)
    return out


def kv_refusals(plan: Plan, a: ArmSpec, capacity: int, ptoks: dict[str, int] | None = None) -> list[str]:
    """One line per (workload, concurrency) the arm's KV capacity cannot hold."""
    out = []
    for w in plan.workloads:
        for c in sorted(w.concurrency):
            worst = None
            for dom in w.domains:
                ps = w.prompt_set(dom)
                pt = (ptoks or {}).get(ps)
                if pt is None:
                    try:
                        pt = max_prompt_tokens(ps)
                    except ValueError:
                        continue
                need = kv_needed(c, pt, w.max_tokens or plan.protocol.max_tokens)
                if need > capacity and (worst is None or need > worst[0]):
                    worst = (need, ps, pt)
            if worst:
                need, ps, pt = worst
                mt = w.max_tokens or plan.protocol.max_tokens
                out.append(f"{plan.where()}: {w.where}.concurrency {c} for {a.where} ({a.name}): needs {c} × "
                           f"({pt:,} prompt + {mt:,} output) = {need:,} KV tokens on {ps}, capacity {capacity:,}; "
                           f"lower the concurrency or set kv.policy = \"measure\" to record the queueing")
    return out
