"""Fail-closed validation of a profile's argv against the TARGET engine: its flag catalogue, then per-version rules.

`check_profile(profile)`:

1. **Catalogue.** For a profile whose `engine.python` is a real interpreter, the catalogue is introspected in that
   interpreter (`catalogue_cache.resolve_catalogue`: a subprocess, cached per sglang version and install); the
   twin (`sim`) and every case where introspection is impossible use the pinned 0.5.23 catalogue, and the result
   says which catalogue was used and why (`source`, `source_reason`, `catalogue`).
2. **Flags.** Every emitted flag must be accepted by the catalogue rebuilt as sglang's argparse parser. Unique
   prefixes, which sglang's parser accepts (`allow_abbrev`), are refused: a later flag can make them ambiguous or
   point elsewhere. Flags sglang removed are named with their replacement (`rules.FLAG_CHANGES`); deprecated
   ones are warnings. A flag that a profile field emits and `server.extra_args` repeats is an error (the later
   value would silently win). Every rejection is collected, not just the first.
3. **Rules.** The per-version rules of `rules.py` (what sglang asserts at startup or silently overrides, e.g.
   topk = 1 => draft tokens = steps + 1) run on the parsed values.

Every error and warning is ONE line that starts with the profile field to edit (`drafter.draft_tokens: ...`,
`server.extra_args: ...`) and ends with the fix. `CheckResult.message` is the printable report: a header line,
then `  error: ...` / `  warning: ...` lines, then a `  catalogue: ...` line when a fallback was used.

Exit codes of `serving-console check PROFILE` (and of `serving-console launch PROFILE --dry-run`):
    0  accepted: every flag is known to the target engine's catalogue and no rule fails (warnings may be printed)
    2  rejected: at least one error (printed one per line on stderr), or the profile itself does not load
"""

from __future__ import annotations

import argparse
import difflib
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from console.core.launch.catalogue_cache import CatalogueResolution, Runner, resolve_catalogue
from console.core.launch.flags import PINNED_VERSION, FlagCatalogue, FlagSpec, build_parser, pinned_catalogue
from console.core.launch.profile import Profile
from console.core.launch.rules import (
    DEST_FIELD,
    FLAG_CHANGES,
    Finding,
    RuleContext,
    evaluate,
    flag_change_finding,
    parse_version,
)

EXTRA = "server.extra_args"


class CheckError(ValueError):
    pass


class _RaisingParser(argparse.ArgumentParser):
    def error(self, message: str):
        raise CheckError(message)


@dataclass
class CheckResult:
    ok: bool
    catalogue: str
    """Which catalogue the flags were checked against, in words (e.g. 'the pinned sglang 0.5.23 flag catalogue')."""
    message: str
    """The printable report: header, then one line per error / warning."""
    argv: list[str]
    """The flags checked (secrets replaced by a placeholder)."""
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    source: str = "pinned"
    """'introspected' | 'cache' | 'pinned' | 'given'."""
    source_reason: str = ""
    """Why that catalogue (for a fallback: why introspection was impossible)."""
    version: str = PINNED_VERSION
    """The engine version whose catalogue and rules were applied."""
    findings: list[Finding] = field(default_factory=list)


def check_flags(flags: list[str], catalogue: FlagCatalogue) -> argparse.Namespace:
    """Parse `flags` with the catalogue's parser; raise CheckError(one line) on any rejection."""
    return build_parser(catalogue, parser_cls=_RaisingParser, add_help=False).parse_args(flags)


# --- argv segmentation: which tokens belong to which flag, and which profile field emitted them --------------

@dataclass
class _Seg:
    start: int
    end: int
    name: str | None
    """The flag as written (before any '='); None for a stray value."""
    spec: FlagSpec | None
    """Its option (also for a unique prefix); None when unknown."""
    field: str


def _is_flag(tok: str) -> bool:
    return tok.startswith("-") and not re.fullmatch(r"-\d+(\.\d*)?([eE][-+]?\d+)?", tok)


def _resolve(name: str, cat: FlagCatalogue) -> FlagSpec | None:
    spec = cat.get(name)
    if spec is not None:
        return spec
    cands = {o.dest: o for o in cat.options for f in o.flags if f.startswith(name)}
    return next(iter(cands.values())) if len(cands) == 1 else None


def _segments(flags: list[str], cat: FlagCatalogue, n_profile: int) -> list[_Seg]:
    segs: list[_Seg] = []
    i, n = 0, len(flags)
    while i < n:
        tok = flags[i]
        if not _is_flag(tok):
            segs.append(_Seg(i, i + 1, None, None, EXTRA if i >= n_profile or not segs else segs[-1].field))
            i += 1
            continue
        name, eq, _ = tok.partition("=")
        spec = _resolve(name, cat)
        j = i + 1
        if not eq:
            if spec is None:
                while j < n and not _is_flag(flags[j]):
                    j += 1
            elif spec.takes_value:
                if spec.nargs in ("+", "*"):
                    while j < n and not _is_flag(flags[j]):
                        j += 1
                elif spec.nargs == "?":
                    j += 1 if j < n and not _is_flag(flags[j]) else 0
                elif isinstance(spec.nargs, int):
                    j = min(n, j + spec.nargs)
                else:
                    j = min(n, j + 1)
        # the profile field that emits the flag (for error messages): rules.DEST_FIELD, keyed by the flag's dest
        dest = spec.dest if spec is not None else (name or "").lstrip("-").replace("-", "_")
        fld = EXTRA if i >= n_profile else DEST_FIELD.get(dest, EXTRA)
        segs.append(_Seg(i, j, name, spec, fld))
        i = j
    return segs


def _parser_says(catalogue: FlagCatalogue, tokens: list[str]) -> str | None:
    try:
        check_flags(["--model-path", "x", *tokens], catalogue)
    except CheckError as e:
        return str(e)
    return None


def _fix_for(msg: str, name: str | None, cat: FlagCatalogue) -> str:
    if msg.startswith("unrecognized arguments") and name:
        close = difflib.get_close_matches(name, [f for o in cat.options for f in o.flags], n=1, cutoff=0.75)
        return f"did you mean {close[0]}?" if close else "remove it: this engine has no such flag"
    if msg.startswith("ambiguous option"):
        return "write the full flag name"
    if "invalid choice" in msg:
        return "use one of the listed choices"
    if "expected" in msg and "argument" in msg:
        return "give the flag its value"
    return "fix the value"


def _offending(msg: str, segs: list[_Seg], flags: list[str]) -> list[_Seg]:
    m = re.search(r"unrecognized arguments: (.*)$", msg)
    if m:
        bad = set(m.group(1).split())
        return [s for s in segs if (s.name or flags[s.start]) in bad or flags[s.start] in bad]
    m = re.search(r"ambiguous option: (-[^\s=]+)", msg)
    if m:
        return [s for s in segs if s.name == m.group(1)]
    m = re.search(r"argument ((?:-[^\s/:]+)(?:/-[^\s/:]+)*)", msg)
    if m:
        names = set(m.group(1).split("/"))
        hit = [s for s in segs if s.name in names]
        dests = {s.spec.dest for s in hit if s.spec is not None}
        same = [s for s in segs if s in hit or (s.spec is not None and s.spec.dest in dests)]
        # the occurrence whose value the parser quotes goes first (it names the field to fix)
        q = re.search(r"value: '([^']*)'|choice: '([^']*)'", msg)
        val = next((g for g in q.groups() if g is not None), None) if q else None
        return sorted(same, key=lambda s: val is None or val not in flags[s.start + 1:s.end])
    return []


# --- the check ---------------------------------------------------------------------------------------------

def _resolution(profile: Profile, catalogue: FlagCatalogue | None, introspect: bool, cache_dir: Path | None,
                timeout_s: float | None, runner: Runner) -> CatalogueResolution:
    if catalogue is not None:
        return CatalogueResolution(catalogue, "given", f"catalogue given by the caller ({catalogue.source})")
    if profile.is_sim:
        return CatalogueResolution(pinned_catalogue(), "pinned",
                                   "engine.python is 'sim': the twin parses its argv with the pinned catalogue")
    if not introspect:
        return CatalogueResolution(pinned_catalogue(), "pinned", "introspection switched off by the caller")
    return resolve_catalogue(profile.engine_python, cache_dir=cache_dir, env=profile.env, timeout_s=timeout_s,
                             runner=runner)


def check_profile(profile: Profile, catalogue: FlagCatalogue | None = None, *, introspect: bool = True,
                  cache_dir: Path | None = None, timeout_s: float | None = None,
                  runner: Runner = subprocess.run) -> CheckResult:
    """Validate `profile`'s argv against the target engine's catalogue and the per-version rules (never raises
    for a bad argv: the result carries one line per error and per warning)."""
    res = _resolution(profile, catalogue, introspect, cache_dir, timeout_s, runner)
    cat = res.catalogue
    label = res.label
    version = parse_version(cat.version) or parse_version(PINNED_VERSION)
    vtext = ".".join(map(str, version)) if version else cat.version
    flags = profile.server_flags(api_key="<api-key>" if (profile.api_key_env or profile.api_key_file) else None)
    where = str(profile.path) if profile.path else profile.name
    n_profile = len(flags) - len(profile.extra_args)
    segs = _segments(flags, cat, n_profile)
    findings: list[Finding] = []

    # removed / deprecated flags (named with their replacement), stripped before parsing when removed
    keep: list[_Seg] = []
    for s in segs:
        f = None
        if s.name is not None and (s.spec is None or s.name in cat or s.name in FLAG_CHANGES):
            says = _parser_says(cat, flags[s.start:s.end]) if s.name not in cat else None
            f = flag_change_finding(s.name, s.field, cat, version, parser_says=says)
        if f is not None:
            findings.append(f)
        if f is None or f.severity != "error":
            keep.append(s)

    # a flag emitted by a profile field and repeated in extra_args (or repeated within extra_args)
    seen: dict[str, _Seg] = {}
    for s in keep:
        if s.spec is None or "Append" in s.spec.action or s.spec.nargs == "*":
            continue
        first = seen.get(s.spec.dest)
        if first is not None and s.field == EXTRA:
            if first.field != EXTRA:
                text = (f"{s.name} is also set by {first.field} (as {first.name}) and the later value would silently "
                        f"win; remove it from server.extra_args (or change {first.field})")
            else:
                text = (f"{s.name} is given twice (also as {first.name}) and the later value would silently win; "
                        "keep one")
            findings.append(Finding("error", "duplicate-flag", EXTRA, text))
        seen.setdefault(s.spec.dest, s)

    # parse; on a rejection record one line, strip the offending flag and parse the rest again
    ns: argparse.Namespace | None = None
    for _ in range(len(keep) + 1):
        toks = [t for s in keep for t in flags[s.start:s.end]]
        try:
            ns = check_flags(toks, cat)
            break
        except CheckError as e:
            msg = str(e)
            bad = _offending(msg, keep, flags)
            first = bad[0] if bad else None
            fld = first.field if first else EXTRA
            findings.append(Finding("error", "catalogue", fld,
                                    f"{label} rejects the argv: {msg}; "
                                    f"{_fix_for(msg, first.name if first else None, cat)}"))
            if not bad:
                break
            keep = [s for s in keep if s not in bad]

    if ns is not None:
        # sglang's parser accepts a unique prefix; a future flag can make it ambiguous or point elsewhere
        for s in keep:
            if s.name is not None and s.spec is not None and s.name not in cat:
                full = next((f for f in s.spec.flags if f.startswith(s.name)), s.spec.flags[0])
                findings.append(Finding("error", "abbreviation", s.field,
                                        f"{s.name} is an abbreviation of {full}; write the full flag name"))
        given = {s.spec.dest: s.name for s in keep if s.spec is not None and s.name is not None}
        origin = {s.spec.dest: s.field for s in keep if s.spec is not None}
        ctx = RuleContext(version=version, catalogue=cat, values=vars(ns), given=given, origin=origin)
        findings += evaluate(ctx)

    if res.source == "pinned" and res.installed_version:
        iv = parse_version(res.installed_version)
        if iv != version:
            findings.append(Finding(
                "warning", "catalogue-fallback", "engine.python",
                f"{res.python} has sglang {res.installed_version} but its catalogue could not be read, so the pinned "
                f"{cat.version} catalogue and rules were used and may not match it; make introspection work there "
                "(it needs torch) before trusting this check"))

    errors = [f.line() for f in findings if f.severity == "error"]
    warnings = [f.line() for f in findings if f.severity != "error"]
    if errors:
        head = f"{where}: REJECTED by {label} and the sglang {vtext} rules ({len(errors)} error(s))"
    else:
        head = f"{where}: argv accepted by {label} and the sglang {vtext} rules"
    lines = [head] + [f"  error: {e}" for e in errors] + [f"  warning: {w}" for w in warnings]
    if res.source == "pinned":
        lines.append(f"  catalogue: pinned sglang {cat.version} because {res.reason}")
    elif res.source in ("introspected", "cache"):
        lines.append(f"  catalogue: {res.reason}")
    return CheckResult(ok=not errors, catalogue=label, message="\n".join(lines), argv=flags, errors=errors,
                       warnings=warnings, source=res.source, source_reason=res.reason, version=vtext,
                       findings=findings)
