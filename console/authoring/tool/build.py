"""Agentic tool-call prompts: a seeded generator of multi-turn tool-use trajectories.

A prompt is a system prompt declaring several JSON tool schemas (OpenAI function format, in a `<tools>` block),
a user task, then assistant turns that think briefly and emit one `<tool_call>` (JSON name + arguments) each,
answered by user turns carrying `<tool_response>` JSON payloads (alerts, metric series, log lines, query rows,
file listings, test output, tracking events, ...). The last turn asks for a plan and the next tool call.

Eight scenario families, two variants each (different organisation, task, tool order and data), all drawn from
`random.Random(seed)`: the same seed gives the same bytes on every machine, no material is read."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from console.authoring.gen_fit import LONG_FIT, SHORT_FIT, fit
from console.authoring.tool.families.cloud import fam_cloud
from console.authoring.tool.families.office import fam_office
from console.authoring.tool.families.repo import fam_repo
from console.authoring.tool.families.security import fam_security
from console.authoring.tool.families.sql import fam_sql
from console.authoring.tool.families.sre import fam_sre
from console.authoring.tool.families.support import fam_support
from console.authoring.tool.families.travel import fam_travel
from console.authoring.tool.schema import Scenario, _capacity, render
from console.core.workload.prompts import messages_tokens

# the name the committed sets' provenance records (this module's path when they were built)
GENERATOR = "console.core.workload.gen_tool"
SEED_BASE = 4100
SHORT_SEED_BASE = 4300


FAMILIES: list[Callable[[random.Random, int], Scenario]] = [
    fam_sre, fam_support, fam_sql, fam_repo, fam_travel, fam_cloud, fam_security, fam_office]


def _scenario(seed: int, index: int) -> Scenario:
    rng = random.Random(seed)
    return FAMILIES[index % len(FAMILIES)](rng, index // len(FAMILIES))


def build_long(count: int = 16) -> list[dict[str, Any]]:
    out = []
    for k in range(count):
        seed = SEED_BASE + k
        sc = _scenario(seed, k)
        pid = f"tool-{k + 1:02d}"
        msgs, _, _ = fit(pid, lambda n, sc=sc: render(sc, n), _capacity(sc), LONG_FIT)
        out.append({"id": pid, "domain": "tool", "messages": msgs,
                    "provenance": {"generator": GENERATOR, "family": sc.family, "variant": k // len(FAMILIES),
                                   "seed": seed}})
    return out


def build_short(count: int = 16) -> list[dict[str, Any]]:
    """~500 tokens: a compact system prompt with the tools of the first calls (plus others while they fit), the
    task, then one or two calls and their (cut) results."""
    out = []
    for k in range(count):
        seed = SHORT_SEED_BASE + k
        sc = _scenario(seed, k)
        first = sc.steps[:2]
        names = {st.name for st in first}
        keep = [t for t in sc.tools if t["function"]["name"] in names]
        short = Scenario(sc.family, sc.org, sc.role, keep, sc.task, first, sc.final, rules=[], compact=True)
        for t in sc.tools:
            if t not in keep:
                trial = Scenario(sc.family, sc.org, sc.role, keep + [t], sc.task, first, sc.final, compact=True)
                if messages_tokens(render(trial, 1)) <= SHORT_FIT[0] - 40:
                    keep.append(t)
                    short = trial
        pid = f"tool-short-{k + 1:02d}"
        msgs, _, _ = fit(pid, lambda n, sc=short: render(sc, n), _capacity(short), SHORT_FIT)
        out.append({"id": pid, "domain": "tool", "messages": msgs,
                    "provenance": {"generator": GENERATOR, "family": sc.family, "variant": k // len(FAMILIES),
                                   "seed": seed, "form": "short"}})
    return out
