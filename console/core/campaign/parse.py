"""Reading a sweep plan (docs/campaigns.md): finding it along the search path, its TOML into a `Plan`, every
problem one line naming the field."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from console.core import places
from console.core.campaign.plan import (
    CONTEXTS,
    DEFAULT_NODE,
    DOMAINS,
    KV_POLICIES,
    ArmSpec,
    Node,
    Plan,
    PlanError,
    Workload,
)
from console.core.launch.flips import arm_name
from console.core.launch.profile import Drafter, Profile, ProfileError, problems as profile_problems, resolve_profile
from console.core.run.cell import CellProtocol

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
    n_per_stream = proto_kw.pop("n_per_stream", 0)
    proto = CellProtocol(prompt_set="", **proto_kw)  # each cell's prompt set and concurrency: Plan.cell_protocol
    try:
        replace(proto, prompt_set="x").validate()
    except ValueError as e:
        errs.append(f"{where}: protocol: {e}")
    if n_per_stream < 0:
        errs.append(f"{where}: protocol.n_per_stream must be ≥ 0, got {n_per_stream}")

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
                n_per_stream=n_per_stream, nodes=nodes, kv_policy=policy, text=text)


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
