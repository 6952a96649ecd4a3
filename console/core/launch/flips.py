"""Flips: derive the next arm from the running one by changing one knob — draft depth, drafter family or KV
dtype. Each flip is a relaunch (SGLang cannot change these at runtime, reference §2 /set_internal_state).

A flip returns a new `Profile` named for what it is (`arm_name`): the name of the profile on the search path with the
same model and arm when there is one (flipping d5 back up gives `k26-eagle3-d6` itself), else the model's tag and the
arm's slug (`k26-dflash-b16-fp8kv`); a one-line reason when the flip is not possible.
The diff shown before confirming is `profile_diff` (fields) and `argv_diff` (flags), both computed here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from console.core.launch.profile import Drafter, Profile, ProfileError, load_profile, profile_files, validate

FAMILY_CYCLE = ("none", "eagle3", "eagle", "standalone", "dflash", "ngram")
"""The order of the family flip; it visits only the families that profiles of the same model run (plus none)."""
KV_CYCLE = ("auto", "fp8_e4m3")
DFLASH_BLOCKS = (4, 8, 16, 32)
EAGLE_STEPS = (1, 10)
DEFAULT_DEPTH = {"eagle3": 6, "eagle": 6, "standalone": 3}
DEFAULT_BLOCK = 16


class FlipError(ValueError):
    """One line: why this flip cannot be made from the running arm."""


@dataclass(frozen=True)
class Flip:
    kind: str
    """'depth-' | 'depth+' | 'family' | 'kv'."""
    before: Profile
    after: Profile

    def summary(self) -> str:
        return f"{self.before.name} → {self.after.name}"


FAMILY_TOKENS = ("nospec", "eagle3", "eagle", "dflash", "ngram", "standalone")


def model_tag(p: Profile) -> str:
    """The part of a profile's name that names the model and node, not the arm: `k26` of `k26-eagle3-d6`."""
    name = p.name.split("~", 1)[0]
    slug = p.arm.slug()
    if name.endswith("-" + slug):
        return name[: -len(slug) - 1]
    parts = name.split("-")
    for i, part in enumerate(parts):
        if i and part in FAMILY_TOKENS:
            return "-".join(parts[:i])
    return name


def arm_name(after: Profile, before: Profile, directory: Path | None = None) -> str:
    """The name that says what `after` is: an existing profile of the same model and arm, else tag + slug."""
    arm = after.arm
    for f in profile_files(directory):
        try:
            q = load_profile(f)
        except ProfileError:
            continue
        if q.model_path == after.model_path and q.arm == arm:
            return q.name
    return f"{model_tag(before)}-{arm.slug()}"


def _named(after: Profile, before: Profile, directory: Path | None = None) -> Profile:
    return replace(after, name=arm_name(after, before, directory))


def flip_depth(p: Profile, delta: int, directory: Path | None = None) -> Flip:
    """Depth ±1 for autoregressive drafters (draft tokens follow steps + 1 when topk = 1); for DFLASH the
    block size moves along 4, 8, 16, 32."""
    d = p.drafter
    kind = "depth+" if delta > 0 else "depth-"
    if not d.enabled:
        raise FlipError(f"{p.name} runs no drafter: flip the family first (f)")
    if d.family == "dflash":
        cur = d.draft_tokens or DEFAULT_BLOCK
        ladder = sorted(set(DFLASH_BLOCKS) | {cur})
        i = ladder.index(cur) + (1 if delta > 0 else -1)
        if not 0 <= i < len(ladder):
            raise FlipError(f"DFLASH block {cur} is already the {'largest' if delta > 0 else 'smallest'} offered "
                            f"({', '.join(map(str, DFLASH_BLOCKS))})")
        new = replace(d, draft_tokens=ladder[i])
        after = _named(replace(p, drafter=new), p, directory)
    elif d.family in ("eagle3", "eagle", "standalone"):
        steps = d.steps if d.steps is not None else DEFAULT_DEPTH.get(d.family, 3)
        ns = steps + (1 if delta > 0 else -1)
        if not EAGLE_STEPS[0] <= ns <= EAGLE_STEPS[1]:
            raise FlipError(f"draft depth {ns} is outside {EAGLE_STEPS[0]}..{EAGLE_STEPS[1]}")
        topk = d.topk if d.topk is not None else 1
        dt = ns + 1 if topk == 1 else d.draft_tokens
        new = replace(d, steps=ns, topk=topk, draft_tokens=dt)
        after = _named(replace(p, drafter=new), p, directory)
    else:
        raise FlipError(f"depth flips are defined for EAGLE/EAGLE3/STANDALONE and DFLASH, not {d.family}")
    validate(after)
    return Flip(kind, p, after)


def _draft_model_for(p: Profile, family: str, directory: Path | None) -> Drafter:
    """The drafter a sibling profile (same target model) uses for `family`; else an error naming the fix."""
    best: Profile | None = None
    for f in profile_files(directory):
        try:
            q = load_profile(f)
        except ProfileError:
            continue
        if q.model_path == p.model_path and q.drafter.family == family:
            if best is None or (q.kv_cache_dtype == p.kv_cache_dtype and best.kv_cache_dtype != p.kv_cache_dtype):
                best = q
    if best is None:
        where = str(directory) if directory is not None else "the profile search path (serving-console --version)"
        raise FlipError(f"no profile in {where} runs {p.model_path} with a {family} drafter; add one (its drafter "
                        f"section is what the flip uses)")
    return best.drafter


def family_cycle(p: Profile, directory: Path | None = None) -> list[str]:
    """none, then every drafter family a profile of this model runs (this one included), in FAMILY_CYCLE order:
    none → EAGLE-3 → DFLASH for the reference deployment, none → STANDALONE → NGRAM for the CPU lane's model."""
    fams = {"none", p.drafter.family}
    for f in profile_files(directory):
        try:
            q = load_profile(f)
        except ProfileError:
            continue
        if q.model_path == p.model_path:
            fams.add(q.drafter.family)
    return [f for f in FAMILY_CYCLE if f in fams]


def flip_family(p: Profile, directory: Path | None = None) -> Flip:
    """The next family of `family_cycle`, with the drafter a sibling profile uses."""
    cycle = family_cycle(p, directory)
    if len(cycle) < 2:
        where = str(directory) if directory is not None else "the profile search path (serving-console --version)"
        raise FlipError(f"no profile in {where} runs {p.model_path} with a drafter; add one (its drafter section is "
                        "what the flip uses)")
    cur = p.drafter.family if p.drafter.family in cycle else "none"
    nxt = cycle[(cycle.index(cur) + 1) % len(cycle)]
    if nxt == "none":
        after = _named(replace(p, drafter=Drafter()), p, directory)
    else:
        after = _named(replace(p, drafter=_draft_model_for(p, nxt, directory)), p, directory)
    validate(after)
    return Flip("family", p, after)


def flip_kv(p: Profile, directory: Path | None = None) -> Flip:
    """Next KV-cache dtype in auto (the model's native bf16) ↔ fp8_e4m3."""
    cur = p.kv_cache_dtype if p.kv_cache_dtype in KV_CYCLE else "auto"
    nxt = KV_CYCLE[(KV_CYCLE.index(cur) + 1) % len(KV_CYCLE)]
    after = _named(replace(p, kv_cache_dtype=nxt), p, directory)
    validate(after)
    return Flip("kv", p, after)


def profile_diff(a: Profile, b: Profile) -> list[tuple[str, object, object]]:
    """(field, before, after) for every profile field the flip changes."""
    out: list[tuple[str, object, object]] = []
    for label, x, y in (
        ("drafter.family", a.drafter.family, b.drafter.family),
        ("drafter.model", a.drafter.model, b.drafter.model),
        ("drafter.steps", a.drafter.steps, b.drafter.steps),
        ("drafter.topk", a.drafter.topk, b.drafter.topk),
        ("drafter.draft_tokens", a.drafter.draft_tokens, b.drafter.draft_tokens),
        ("kv.dtype", a.kv_cache_dtype, b.kv_cache_dtype),
        ("kv.mem_fraction_static", a.mem_fraction_static, b.mem_fraction_static),
    ):
        if x != y:
            out.append((label, x, y))
    return out


UNSET = "— (unset)"
"""How a field the arm does not have reads in a flip diff (a DFLASH arm has no draft steps; never Python's None)."""


def diff_value(v: object) -> str:
    """A profile field's value as the flip diff prints it: None is unset, booleans read yes/no."""
    if v is None or v == "":
        return UNSET
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def profile_diff_text(a: Profile, b: Profile) -> list[tuple[str, str, str]]:
    """`profile_diff` with its values as the flip diff prints them (`diff_value`)."""
    return [(field, diff_value(x), diff_value(y)) for field, x, y in profile_diff(a, b)]


def argv_diff(a: Profile, b: Profile) -> tuple[list[str], list[str]]:
    """Flags (with values) only in a, only in b."""
    def pairs(p: Profile) -> list[str]:
        f = p.server_flags()
        out, i = [], 0
        while i < len(f):
            if i + 1 < len(f) and not f[i + 1].startswith("--"):
                out.append(f"{f[i]} {f[i + 1]}")
                i += 2
            else:
                out.append(f[i])
                i += 1
        return out

    pa, pb = pairs(a), pairs(b)
    return [x for x in pa if x not in pb], [x for x in pb if x not in pa]
