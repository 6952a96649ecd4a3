"""Sweep plans (docs/campaigns.md#plan-format): a TOML file naming arms, workloads (domains × contexts ×
concurrency levels), the cell protocol and optional nodes, compiled into an ordered list of cells.

    load_plan(path)              parse (fail-closed: unknown fields, wrong types, bad values — every problem one line
                                 naming the field); raises PlanError
    refusals(plan, sim, root)    what keeps a parsed plan from running: unknown prompt set, a flag the engine rejects
                                 (`launch.check`), a concurrency the arm's KV cannot hold at this context
    plan.schedule()              per node, arms in launch order with their cells: arms grouped so that each arm is
                                 launched once per node (relaunches = arms − 1 per node), families together,
                                 shallowest depth first (the ladder's forecast base runs before the deeper arms)
    estimate(plan, sim, root)    cells, launches, duration and cost before anything runs

Nothing here starts a process: the runner is `campaign.run`.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from console.core import places
from console.core.launch.flips import arm_name
from console.core.launch.profile import Drafter, Profile, ProfileError, problems as profile_problems, resolve_profile
from console.core.run.cell import CellProtocol

CONTEXTS = {"10k": "{domain}", "short": "{domain}-short"}
"""Context name → prompt set of a domain (by name along the prompt search path, core/places.py)."""
DOMAINS = ("tool", "math", "code", "chat")
KV_POLICIES = ("refuse", "measure")
DEFAULT_CHAIN_DRAFT = {"eagle3": "lightseekorg/kimi-k2.6-eagle3"}


class PlanError(ValueError):
    """Every problem of a plan, one line each, naming the file and the field."""

    def __init__(self, problems: str | list[str]) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class Node:
    """Where arms run. On the twin a node is a twin process with its own --sim-node-seed; on real hardware a host
    reached through the profile's command template (ssh/srun), the same launch path as multi-node profiles."""

    name: str
    label: str = ""
    sim_args: tuple[str, ...] = ()
    host: str | None = None
    port: int | None = None
    template: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    usd_per_hour: float | None = None

    def apply(self, p: Profile) -> Profile:
        """The arm's profile as it launches on this node (its host, port, command template, twin seed, price)."""
        kw: dict[str, Any] = {"sim_args": tuple(p.sim_args) + tuple(self.sim_args)}
        if self.host is not None:
            kw["host"] = self.host
        if self.port is not None:
            kw["port"] = self.port
        if self.template:
            kw["template"] = tuple(self.template)
        if self.hosts:
            kw["hosts"] = tuple(self.hosts)
        if self.usd_per_hour is not None:
            kw["node_usd_per_hour"] = self.usd_per_hour
        if self.label:
            kw["node_label"] = self.label
        return replace(p, **kw)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "label": self.label, "sim_args": list(self.sim_args), "host": self.host,
                "port": self.port, "template": list(self.template), "hosts": list(self.hosts),
                "usd_per_hour": self.usd_per_hour}


DEFAULT_NODE = Node(name="node")


@dataclass(frozen=True)
class ArmSpec:
    name: str
    profile: Profile
    where: str
    """The plan field it came from: 'arms[2]' or 'arms[1] (depth 5)'."""
    nodes: tuple[str, ...] = ()
    """Nodes it runs on (empty: assigned round robin)."""

    @property
    def family(self) -> str:
        return self.profile.arm.family

    @property
    def depth(self) -> int | None:
        return self.profile.arm.depth


@dataclass(frozen=True)
class Workload:
    context: str
    domains: tuple[str, ...]
    concurrency: tuple[int, ...]
    max_tokens: int | None = None
    where: str = ""

    def prompt_set(self, domain: str) -> str:
        return CONTEXTS[self.context].format(domain=domain)


@dataclass(frozen=True)
class Protocol:
    n: int = 16
    n_per_stream: int = 0
    """n(c) = max(n, n_per_stream × c): every stream sends at least n_per_stream measured requests."""
    max_tokens: int = 2048
    temperature: float = 0.6
    warmup: int = 1
    endpoint: str = "chat"
    ignore_eos: bool = True

    def n_at(self, concurrency: int) -> int:
        return max(self.n, self.n_per_stream * concurrency)

    def cell(self, prompt_set: str, concurrency: int, max_tokens: int | None = None) -> CellProtocol:
        return CellProtocol(prompt_set=prompt_set, n=self.n_at(concurrency), max_tokens=max_tokens or self.max_tokens,
                            temperature=self.temperature, concurrency=concurrency,
                            warmup=self.warmup,
                            endpoint=self.endpoint, ignore_eos=self.ignore_eos)


@dataclass(frozen=True)
class CellPlan:
    arm: str
    node: str
    domain: str
    context: str
    prompt_set: str
    concurrency: int
    protocol: CellProtocol

    @property
    def key(self) -> str:
        """The cell's identity in the campaign: arm, node, prompt set, concurrency."""
        return f"{self.arm}@{self.node}/{self.prompt_set}/c{self.concurrency}"

    @property
    def label(self) -> str:
        """The cell manifest's label: 'sweep <key>' (the analysis and a resume find the cell by it)."""
        return f"sweep {self.key}"


def key_of_label(label: Any) -> str | None:
    return label[len("sweep "):] if isinstance(label, str) and label.startswith("sweep ") else None


@dataclass
class Plan:
    name: str
    path: Path | None
    description: str
    arms: list[ArmSpec]
    workloads: list[Workload]
    protocol: Protocol
    nodes: list[Node] = field(default_factory=lambda: [DEFAULT_NODE])
    kv_policy: str = "refuse"
    text: str = ""

    @property
    def multi_node(self) -> bool:
        return len(self.nodes) > 1

    def where(self) -> str:
        return str(self.path) if self.path else f"plan {self.name}"

    def arm(self, name: str) -> ArmSpec:
        return next(a for a in self.arms if a.name == name)

    def node(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    def arm_nodes(self, a: ArmSpec) -> list[str]:
        if a.nodes:
            return list(a.nodes)
        i = self.arms.index(a)
        return [self.nodes[i % len(self.nodes)].name]

    def schedule(self) -> list[tuple[str, list[tuple[ArmSpec, list[CellPlan]]]]]:
        """Per node (plan order), its arms in launch order, each with its cells (workload order, then
        concurrency ascending). Arms are grouped per family and launched shallowest depth first."""
        fam_order: dict[str, int] = {}
        for a in self.arms:
            fam_order.setdefault(a.family, len(fam_order))
        out = []
        for node in self.nodes:
            arms = [a for a in self.arms if node.name in self.arm_nodes(a)]
            arms.sort(key=lambda a: (a.family != "none", fam_order[a.family], a.depth or 0,
                                     a.profile.kv_cache_dtype, self.arms.index(a)))
            out.append((node.name, [(a, self._cells(a, node.name)) for a in arms]))
        return out

    def _cells(self, a: ArmSpec, node: str) -> list[CellPlan]:
        cells = []
        for w in self.workloads:
            for d in w.domains:
                for c in sorted(w.concurrency):
                    ps = w.prompt_set(d)
                    cells.append(CellPlan(arm=a.name, node=node, domain=d, context=w.context, prompt_set=ps,
                                          concurrency=c, protocol=self.protocol.cell(ps, c, w.max_tokens)))
        return cells

    def cells(self) -> list[CellPlan]:
        return [c for _, arms in self.schedule() for _, cs in arms for c in cs]

    def launches(self) -> int:
        return sum(len(arms) for _, arms in self.schedule())

    def relaunches(self) -> int:
        return sum(max(len(arms) - 1, 0) for _, arms in self.schedule())


# --- parsing -------------------------------------------------------------------------------------

_TOP = {"name", "description", "protocol", "workload", "arms", "nodes", "kv"}
_PROTOCOL = {"n": int, "n_per_stream": int, "max_tokens": int, "temperature": (int, float), "warmup": int,
             "endpoint": str, "ignore_eos": bool}
_WORKLOAD = {"context": str, "domains": list, "concurrency": list, "max_tokens": int}
_ARM = {"profile": str, "flips_of": str, "family": list, "depth": list, "kv": list, "node": str, "nodes": list}
_NODE = {"name": str, "label": str, "sim_args": list, "host": str, "port": int, "template": list, "hosts": list,
         "usd_per_hour": (int, float)}
_KV = {"policy": str}


def _typed(where: str, fld: str, v: Any, typ) -> str | None:
    ok = isinstance(v, typ) and not (isinstance(v, bool) and typ is not bool and bool not in (
        typ if isinstance(typ, tuple) else (typ,)))
    if not ok:
        word = {int: "an integer", str: "a string", list: "a list", bool: "true or false"}.get(typ, "a number")
        return f"{where}: {fld} must be {word}, got {v!r}"
    return None


def _fields(where: str, prefix: str, d: Any, schema: dict[str, Any], errs: list[str]) -> dict[str, Any]:
    if not isinstance(d, dict):
        errs.append(f"{where}: {prefix} must be a table")
        return {}
    out = {}
    for k, v in d.items():
        if k not in schema:
            errs.append(f"{where}: unknown field {prefix}.{k}; known: {', '.join(schema)}")
            continue
        e = _typed(where, f"{prefix}.{k}", v, schema[k])
        if e:
            errs.append(e)
            continue
        out[k] = v
    return out


def find_plan(ref: str | Path) -> Path:
    """A plan by path (`x.toml`, `dir/x.toml`) or by name: the first `campaigns/<name>.toml` along the profile search
    path (core/places.py). PlanError naming every place searched when there is none."""
    ref = str(ref)
    p = Path(ref)
    if p.suffix == ".toml" or len(p.parts) > 1 or ref.startswith(".") or p.is_file():
        return p
    pl = places.plan_places()
    hit = places.find(ref, pl, ".toml")
    if hit is None:
        raise PlanError(places.not_found("plan", ref, pl, ".toml"))
    return hit.path


def plan_files(directory: Path | None = None) -> list[Path]:
    """The plans a chooser offers: those of `directory`, else the first of each name along the search path."""
    if directory is not None:
        return sorted(Path(directory).glob("*.toml"))
    return places.first_of_each(places.plan_places(), ".toml")


def load_plan(path: Path | str, *, profiles: Path | None = None) -> Plan:
    path = find_plan(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise PlanError(f"{path}: cannot read plan ({e.strerror})") from None
    return parse_plan(text, path=path, profiles=profiles)


def parse_plan(text: str, path: Path | None = None, name: str | None = None, *,
               profiles: Path | None = None, resolved: dict[str, Profile] | None = None) -> Plan:
    """Parse a plan. `resolved` maps arm names to the profiles a campaign recorded (a resume launches exactly
    what the campaign launched, whatever the profile search path now holds)."""
    where = str(path) if path else f"plan {name or '?'}"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PlanError(f"{where}: not valid TOML ({e})") from None
    errs: list[str] = []
    for k in data:
        if k not in _TOP:
            errs.append(f"{where}: unknown field {k}; known: {', '.join(sorted(_TOP))}")
    pname = data["name"] if isinstance(data.get("name"), str) else (name or (path.stem if path else "plan"))
    desc = data["description"] if isinstance(data.get("description"), str) else ""

    pr = _fields(where, "protocol", data.get("protocol", {}), _PROTOCOL, errs)
    proto_kw: dict[str, Any] = {k: (float(v) if k == "temperature" else v) for k, v in pr.items()}
    proto = Protocol(**proto_kw)
    try:
        proto.cell("x", 1).validate()
    except ValueError as e:
        errs.append(f"{where}: protocol: {e}")
    if proto.n_per_stream < 0:
        errs.append(f"{where}: protocol.n_per_stream must be ≥ 0, got {proto.n_per_stream}")

    workloads = _workloads(where, data.get("workload"), errs)
    nodes = _nodes(where, data.get("nodes"), errs)
    kv = _fields(where, "kv", data.get("kv", {}), _KV, errs)
    policy = kv.get("policy", "refuse")
    if policy not in KV_POLICIES:
        errs.append(f"{where}: kv.policy {policy!r} is not one of {', '.join(KV_POLICIES)} (refuse: a concurrency "
                    "the arm's KV cannot hold is refused; measure: run it and record the queueing)")
    arms = _arms(where, data.get("arms"), {n.name for n in nodes}, errs, profiles, resolved)
    if errs:
        raise PlanError(errs)
    return Plan(name=pname, path=path, description=desc, arms=arms, workloads=workloads, protocol=proto,
                nodes=nodes, kv_policy=policy, text=text)


def _workloads(where: str, raw: Any, errs: list[str]) -> list[Workload]:
    if raw is None:
        errs.append(f"{where}: no [[workload]]; add at least one (context, domains, concurrency)")
        return []
    if isinstance(raw, dict):
        raw = [raw]
    out: list[Workload] = []
    seen: dict[str, str] = {}
    for i, w in enumerate(raw if isinstance(raw, list) else []):
        at = f"workload[{i}]"
        d = _fields(where, at, w, _WORKLOAD, errs)
        ctx = d.get("context", "10k")
        if ctx not in CONTEXTS:
            errs.append(f"{where}: {at}.context {ctx!r} is not one of {', '.join(CONTEXTS)}")
            continue
        doms = d.get("domains", list(DOMAINS))
        bad = [x for x in doms if x not in DOMAINS]
        if bad or not doms:
            errs.append(f"{where}: {at}.domains {bad or doms!r}: use some of {', '.join(DOMAINS)}")
            continue
        conc = d.get("concurrency", [1])
        if not conc or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in conc):
            errs.append(f"{where}: {at}.concurrency must be a list of integers ≥ 1, got {conc!r}")
            continue
        if len(set(conc)) != len(conc):
            errs.append(f"{where}: {at}.concurrency lists a level twice: {conc!r}")
            continue
        if "max_tokens" in d and d["max_tokens"] < 2:
            errs.append(f"{where}: {at}.max_tokens must be ≥ 2, got {d['max_tokens']}")
            continue
        wl = Workload(context=ctx, domains=tuple(doms), concurrency=tuple(conc), max_tokens=d.get("max_tokens"),
                      where=at)
        for dom in doms:
            ps = wl.prompt_set(dom)
            if ps in seen:
                errs.append(f"{where}: {at}: prompt set {ps} is already measured by {seen[ps]}; list each domain "
                            "and context once")
            seen[ps] = at
        out.append(wl)
    if not isinstance(raw, list):
        errs.append(f"{where}: workload must be an array of tables ([[workload]])")
    return out


def _nodes(where: str, raw: Any, errs: list[str]) -> list[Node]:
    if raw is None:
        return [DEFAULT_NODE]
    if not isinstance(raw, list) or not raw:
        errs.append(f"{where}: nodes must be a non-empty array of tables ([[nodes]])")
        return [DEFAULT_NODE]
    out: list[Node] = []
    for i, n in enumerate(raw):
        at = f"nodes[{i}]"
        d = _fields(where, at, n, _NODE, errs)
        nm = d.get("name")
        if not nm:
            errs.append(f"{where}: {at}.name is required (a short name: node-a)")
            continue
        if any(x.name == nm for x in out):
            errs.append(f"{where}: {at}.name {nm!r} is used twice")
            continue
        for lst in ("sim_args", "template", "hosts"):
            if lst in d and not all(isinstance(x, str) for x in d[lst]):
                errs.append(f"{where}: {at}.{lst} must be a list of strings")
        out.append(Node(name=nm, label=d.get("label", ""), sim_args=tuple(d.get("sim_args", ())), host=d.get("host"),
                        port=d.get("port"), template=tuple(d.get("template", ())), hosts=tuple(d.get("hosts", ())),
                        usd_per_hour=float(d["usd_per_hour"]) if "usd_per_hour" in d else None))
    return out or [DEFAULT_NODE]


def _arms(where: str, raw: Any, node_names: set[str], errs: list[str], profiles: Path | None,
          resolved: dict[str, Profile] | None) -> list[ArmSpec]:
    if not isinstance(raw, list) or not raw:
        errs.append(f"{where}: no [[arms]]; add at least one (profile = \"k26-nospec\", or flips_of = …)")
        return []
    out: list[ArmSpec] = []
    for i, a in enumerate(raw):
        at = f"arms[{i}]"
        d = _fields(where, at, a, _ARM, errs)
        if not d:
            continue
        nodes = tuple(d.get("nodes", ())) + ((d["node"],) if "node" in d else ())
        for nn in nodes:
            if nn not in node_names:
                errs.append(f"{where}: {at}.node {nn!r} is not a node of this plan ({', '.join(sorted(node_names))})")
        if ("profile" in d) == ("flips_of" in d):
            errs.append(f"{where}: {at}: give exactly one of profile (an arm) or flips_of "
                        "(arms derived from a profile)")
            continue
        base_ref = d.get("profile") or d.get("flips_of")
        if not base_ref:  # an empty string passes the type check; Path(None) would raise a TypeError below
            errs.append(f"{where}: {at}.{'profile' if 'profile' in d else 'flips_of'} is empty; name a profile")
            continue
        try:
            base = resolve_profile(base_ref) if profiles is None else _resolve_in(base_ref, profiles)
        except ProfileError as e:
            field_ = "profile" if "profile" in d else "flips_of"
            errs += [f"{where}: {at}.{field_}: {p}" for p in e.problems]
            continue
        if "profile" in d:
            extra = [k for k in ("family", "depth", "kv") if k in d]
            if extra:
                errs.append(f"{where}: {at}: {', '.join(extra)} apply to flips_of, not to a profile arm")
                continue
            cands = [(base, at)]
        else:
            cands = _flips(where, at, base, d, errs, profiles)
        for prof, at2 in cands:
            name = prof.name
            if resolved is not None and name in resolved:
                prof = resolved[name]
            dup = next((x for x in out if x.profile.launch_key() == prof.launch_key()), None)
            if dup is not None:
                errs.append(f"{where}: {at2} ({name}) launches the same flags as {dup.where} ({dup.name}); "
                            "list each arm once")
                continue
            if any(x.name == name for x in out):
                errs.append(f"{where}: {at2}: arm name {name!r} is used twice; name the profiles apart")
                continue
            out.append(ArmSpec(name=name, profile=prof, where=at2, nodes=nodes))
    return out


def _resolve_in(ref: str, directory: Path) -> Profile:
    import os
    old = os.environ.get("SERVING_CONSOLE_PROFILES")
    os.environ["SERVING_CONSOLE_PROFILES"] = str(directory)
    try:
        return resolve_profile(ref)
    finally:
        if old is None:
            os.environ.pop("SERVING_CONSOLE_PROFILES", None)
        else:
            os.environ["SERVING_CONSOLE_PROFILES"] = old


def _flips(where: str, at: str, base: Profile, d: dict[str, Any], errs: list[str],
           profiles: Path | None) -> list[tuple[Profile, str]]:
    """Arms derived from `base`: family × depth × KV dtype (each list defaults to the base's own value)."""
    from console.core.launch.flips import DFLASH_BLOCKS, _draft_model_for
    fams = d.get("family", [base.drafter.family])
    kvs = d.get("kv", [base.kv_cache_dtype])
    out = []
    for fam in fams:
        if fam not in ("none", "eagle3", "eagle", "dflash"):
            errs.append(f"{where}: {at}.family {fam!r}: flips cover none, eagle3, eagle and dflash")
            continue
        if fam == "none":
            depths: list[Any] = [None]
        else:
            depths = d.get("depth", [base.arm.depth] if base.drafter.family == fam else [])
            if not depths:
                errs.append(f"{where}: {at}.depth is required to flip {base.name} to family {fam}")
                continue
        if fam == base.drafter.family or fam == "none":
            drafter = base.drafter
        else:
            try:
                drafter = _draft_model_for(base, fam, profiles)
            except ValueError as e:
                errs.append(f"{where}: {at}.family {fam}: {e}")
                continue
        for dep in depths:
            if dep is not None and (not isinstance(dep, int) or isinstance(dep, bool) or dep < 1):
                errs.append(f"{where}: {at}.depth {dep!r} must be an integer ≥ 1")
                continue
            if fam == "dflash" and dep not in DFLASH_BLOCKS:
                errs.append(f"{where}: {at}.depth {dep}: a DFlash block size is one of "
                            f"{', '.join(map(str, DFLASH_BLOCKS))}")
                continue
            for kv in kvs:
                if fam == "none":
                    dr = Drafter()
                elif fam == "dflash":
                    dr = Drafter(family=fam, model=drafter.model, draft_tokens=dep)
                else:
                    assert dep is not None  # only the none family flips without a depth
                    topk = drafter.topk or 1
                    dr = Drafter(family=fam, model=drafter.model, steps=dep, topk=topk,
                                 draft_tokens=dep + 1 if topk == 1 else drafter.draft_tokens)
                p = replace(base, drafter=dr, kv_cache_dtype=kv)
                p = replace(p, name=arm_name(p, base, profiles), description=f"{p.arm.label()} (flip of {base.name})")
                probs = [x for x in profile_problems(p)]
                tag = f"{at} ({p.arm.short()})"
                if probs:
                    errs += [f"{where}: {tag}: {x}" for x in probs]
                    continue
                out.append((p, tag))
    return out


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


def _same_arm(m: dict[str, Any], p: Profile) -> bool:
    arm = m["arm"] if isinstance(m.get("arm"), dict) else None
    if arm is None or arm != p.arm.to_json():
        return False
    sa = m["server_args"] if isinstance(m.get("server_args"), dict) else {}
    model = str(sa.get("model_path") or "").removeprefix("sim:")
    if model and model != p.model_path:
        return False
    mf = sa.get("mem_fraction_static")
    if p.mem_fraction_static is not None and isinstance(mf, (int, float)) and abs(mf - p.mem_fraction_static) > 1e-6:
        return False
    tp = sa.get("tp_size")
    return not (isinstance(tp, int) and tp != p.tp)


def recorded_cells(root: Path) -> list[tuple[Path, dict[str, Any]]]:
    """(cell dir, manifest) of every recorded cell under `root` (sessions and campaigns), newest last."""
    import json
    out: list[tuple[Path, dict[str, Any]]] = []
    root = Path(root)
    if not root.is_dir():
        return out
    for mp in sorted(root.glob("**/cell-*/manifest.json")):
        try:
            m = json.loads(mp.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(m, dict):
            out.append((mp.parent, m))
    return out


def recorded_capacity(root: Path, p: Profile, cells: list[tuple[Path, dict[str, Any]]] | None = None) -> int | None:
    """KV capacity (max_total_num_tokens) a previous launch of the same arm reported, newest first."""
    for _, m in reversed(cells if cells is not None else recorded_cells(root)):
        cap = m.get("kv_capacity_tokens")
        if isinstance(cap, int) and cap > 0 and _same_arm(m, p):
            return cap
    return None


# --- the estimate ----------------------------------------------------------------------------------

ASSUMED_TOK_S = 150.9
"""Per-stream rate assumed for a cell nothing was measured for: the reference node's no-speculation single-stream
rate (docs/reference-deployment.md §3); divided by (1 + (c − 1)/8) at concurrency c."""
ASSUMED_TTFT_MS_PER_PROMPT_TOKEN = 0.024
ASSUMED_LAUNCH_S = {"sim": 10.0, "real": 900.0}
"""Wall seconds of a launch never recorded in launch history: the twin's compressed start; a 1T model's cold start."""
TWIN_SCALE_STREAMS = 64
"""Time scale × streams above which a time-scaled twin's cells measure the client (and a shared CPU), not the node:
the reference campaign at ×8 agreed with ×2 within 10% at 1 stream, 17% at 8, and not at 32 (docs/campaigns.md)."""
MODELLED_LAUNCH_S = 720.0
"""Node seconds a launch costs where the node is modelled (the twin's ~12-minute modelled cold start)."""


@dataclass
class CellEstimate:
    key: str
    node_s: float
    """Node seconds of measuring (modelled node's on the twin)."""
    source: str
    """'measured' (a recorded cell of the same arm, set, concurrency and output length), 'forecast' or 'assumed'."""
    per_stream_tok_s: float


@dataclass
class Estimate:
    cells: int
    launches: int
    relaunches: int
    nodes: int
    cell_estimates: list[CellEstimate]
    launch_wall_s: dict[str, float]
    """Per arm: wall seconds of its launch (launch history, else assumed)."""
    launch_source: dict[str, str]
    wall_s: float
    """Wall clock here: nodes in parallel, cells ÷ time scale on the twin, launches as history says."""
    node_s: float
    """Node time billed (all nodes): measuring + launches."""
    usd: float | None
    usd_per_hour: dict[str, float | None]
    time_scale: float

    def to_json(self) -> dict[str, Any]:
        from dataclasses import asdict
        return asdict(self)

    def sources(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.cell_estimates:
            out[c.source] = out.get(c.source, 0) + 1
        return out


def _prior(cells: list[tuple[Path, dict[str, Any]]], p: Profile, cp: CellPlan) -> tuple[float, float] | None:
    """(per-request E2E s, per-stream tok/s) of the newest recorded complete cell of this arm, set, concurrency
    and output length, from its summary (modelled node's figures)."""
    import json
    for d, m in reversed(cells):
        if not m.get("complete") or not _same_arm(m, p):
            continue
        ps = m["prompt_set"] if isinstance(m.get("prompt_set"), dict) else {}
        pr = m["protocol"] if isinstance(m.get("protocol"), dict) else {}
        if ps.get("name") != cp.prompt_set or pr.get("concurrency") != cp.concurrency \
                or pr.get("max_tokens") != cp.protocol.max_tokens:
            continue
        try:
            s = json.loads((d / "summary.json").read_text())
        except (OSError, ValueError):
            continue
        if s.get("e2e_median_s") and s.get("median_tok_s"):
            return float(s["e2e_median_s"]), float(s["median_tok_s"])
    return None


def _forecast_prior(cells: list[tuple[Path, dict[str, Any]]], p: Profile, cp: CellPlan) -> tuple[float, float] | None:
    """(per-request E2E s, per-stream tok/s) forecast for an arm never measured at this workload from the newest
    recorded complete cell of another depth of its family (same draft model, KV dtype, model, set, concurrency
    and output length): the one forecast (`sessions.browse.cell_forecast`)."""
    import json

    from console.core.arm import Arm
    from console.core.sessions.browse import cell_forecast
    arm = p.arm
    if not arm.speculative or arm.depth is None or arm.adaptive or (not arm.is_block and (arm.topk or 1) != 1):
        return None
    for d, m in reversed(cells):
        if not m.get("complete") or not isinstance(m.get("arm"), dict):
            continue
        b = Arm.from_json(m["arm"])
        ps = m["prompt_set"] if isinstance(m.get("prompt_set"), dict) else {}
        pr = m["protocol"] if isinstance(m.get("protocol"), dict) else {}
        if b.family != arm.family or b.kv_dtype != arm.kv_dtype or b.draft_model != arm.draft_model \
                or b.depth in (None, arm.depth) or b.adaptive or ps.get("name") != cp.prompt_set \
                or pr.get("concurrency") != cp.concurrency or pr.get("max_tokens") != cp.protocol.max_tokens:
            continue
        try:
            pt = cell_forecast(d, [arm.depth]).forecast.at(arm.depth)
            ttft = json.loads((d / "summary.json").read_text()).get("ttft_median_s") or 0.0
        except (ValueError, OSError):
            continue
        if pt is not None and pt.tok_s > 0:
            return float(ttft) + (cp.protocol.max_tokens - 1) / pt.tok_s, pt.tok_s
    return None


def estimate(plan: Plan, *, sim: bool, time_scale: float | None = None, sessions_root: Path | None = None
             ) -> Estimate:
    from console.core.launch.history import launch_history
    scale = time_scale if (sim and time_scale) else 1.0
    cells = recorded_cells(sessions_root) if sessions_root is not None else []
    ptok: dict[str, int] = {}
    ests: list[CellEstimate] = []
    node_wall: dict[str, float] = {}
    node_s = 0.0
    launch_wall: dict[str, float] = {}
    launch_src: dict[str, str] = {}
    usd_h: dict[str, float | None] = {}
    usd = 0.0
    any_price = False
    for node, arms in plan.schedule():
        wall = 0.0
        n_node_s = 0.0
        nd = plan.node(node)
        for a, cps in arms:
            prof = nd.apply(a.profile)
            prof = prof.with_sim() if sim else prof
            hist = launch_history(sessions_root).get(prof) if sessions_root is not None else None
            lw = float(hist["total_s"]) if hist and hist.get("total_s") else ASSUMED_LAUNCH_S["sim" if sim else "real"]
            launch_wall[a.name] = lw
            launch_src[a.name] = "launch history" if hist else "assumed"
            wall += lw
            n_node_s += MODELLED_LAUNCH_S if sim else lw
            # the anchor: 8 × 128 tokens at one stream
            anchor_s = 8 * (128 / ASSUMED_TOK_S + 0.05)
            wall += anchor_s / scale
            n_node_s += anchor_s
            for cp in cps:
                pr = _prior(cells, a.profile, cp)
                fp = None if pr is not None else _forecast_prior(cells, a.profile, cp)
                if pr is not None:
                    e2e, rate = pr
                    src = "measured"
                elif fp is not None:
                    e2e, rate = fp
                    src = "forecast"
                else:
                    if cp.prompt_set not in ptok:
                        try:
                            ptok[cp.prompt_set] = max_prompt_tokens(cp.prompt_set)
                        except ValueError:
                            ptok[cp.prompt_set] = 0
                    rate = ASSUMED_TOK_S / (1 + (cp.concurrency - 1) / 8)
                    e2e = ptok[cp.prompt_set] * ASSUMED_TTFT_MS_PER_PROMPT_TOKEN / 1000 + \
                        cp.protocol.max_tokens / rate
                    src = "assumed"
                waves = math.ceil(cp.protocol.n / cp.concurrency)
                s = waves * e2e + cp.protocol.warmup * min(e2e, 64 / rate + 0.5)
                ests.append(CellEstimate(cp.key, s, src, rate))
                wall += s / scale
                n_node_s += s
        node_wall[node] = wall
        node_s += n_node_s
        price = next((nd.usd_per_hour for _ in [0] if nd.usd_per_hour is not None), None)
        if price is None and arms:
            price = arms[0][0].profile.node_usd_per_hour
        usd_h[node] = price
        if price is not None:
            usd += price * n_node_s / 3600
            any_price = True
    return Estimate(cells=len(ests), launches=plan.launches(), relaunches=plan.relaunches(), nodes=len(plan.nodes),
                    cell_estimates=ests, launch_wall_s=launch_wall, launch_source=launch_src,
                    wall_s=max(node_wall.values(), default=0.0), node_s=node_s, usd=usd if any_price else None,
                    usd_per_hour=usd_h, time_scale=scale)


def fmt_duration(s: float | None) -> str:
    if s is None:
        return "—"
    s = max(0, int(round(s)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"


def plan_lines(plan: Plan, est: Estimate, *, sim: bool) -> list[str]:
    """The plan as printed before anything runs (headless and in the TUI)."""
    out = [f"campaign {plan.name}: {est.cells} cells, {len(plan.arms)} arms on {est.nodes} node(s), "
           f"{est.launches} launches ({est.relaunches} relaunches)" + (" · on the engine twin" if sim else "")]
    if plan.description:
        out.append(f"  {plan.description}")
    p = plan.protocol
    out.append(f"  protocol: n = max({p.n}, {p.n_per_stream} × concurrency), max_tokens {p.max_tokens}, "
               f"temperature {p.temperature:g}, warm-up {p.warmup}, {p.endpoint}"
               + (", ignore_eos" if p.ignore_eos else ""))
    for w in plan.workloads:
        out.append(f"  workload {w.context}: {', '.join(w.domains)} × concurrency "
                   f"{', '.join(map(str, sorted(w.concurrency)))}" + (f", max_tokens {w.max_tokens}" if w.max_tokens
                                                                    else ""))
    for node, arms in plan.schedule():
        nd = plan.node(node)
        tag = f"node {node}" + (f" ({nd.label})" if nd.label else "") if plan.multi_node else "order"
        out.append(f"  {tag}: " + " → ".join(f"{a.name} ({len(cs)} cells)" for a, cs in arms)
                   + " · each arm anchored after its launch")
    src = est.sources()
    scale = f" at time scale ×{est.time_scale:g}" if est.time_scale != 1 else ""
    out.append(f"  estimate: {fmt_duration(est.wall_s)} wall{scale}; {est.node_s / 3600:.2f} node-hours"
               + (f" ≈ ${est.usd:,.2f}" if est.usd is not None else " (no $/h in the profiles)")
               + " (" + ", ".join(f"{v} cells {k}" for k, v in sorted(src.items())) + "; launches: "
               + ", ".join(sorted({f'{v}' for v in est.launch_source.values()})) + ")")
    if sim:
        out.append("  figures on the twin are the modelled node's; the cost is what the modelled node would bill")
        cmax = max((c for w in plan.workloads for c in w.concurrency), default=1)
        if est.time_scale * cmax > TWIN_SCALE_STREAMS:
            out.append(f"  warning: the twin at ×{est.time_scale:g} with {cmax} streams: the client's own work "
                       f"scales with S × streams ({est.time_scale * cmax:g}); above {TWIN_SCALE_STREAMS} the "
                       f"high-concurrency cells read the client, not the node (docs/campaigns.md#the-twins-time-scale)"
                       f"; --sim-time-scale {max(1, TWIN_SCALE_STREAMS // cmax):g} keeps them honest")
    if plan.multi_node:
        out.append("  arms on different nodes run in parallel; comparisons across nodes are uncontrolled")
    return out
