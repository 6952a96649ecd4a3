"""Sweep plans (docs/campaigns.md#plan-format), the model: arms, workloads (domains × contexts × concurrency levels),
the cell protocol (one `CellProtocol`, filled in per cell) and optional nodes, compiled into an ordered list of cells
(`Plan.schedule`: per node, arms in launch order, each launched once; families together, shallowest depth first).

Reading a plan is parse.py (`load_plan`, fail-closed, every problem one line naming the field); what keeps it from
running is refusals.py; what earlier sessions recorded that it can use is recorded.py; its estimate is estimate.py;
its printing describe.py. Nothing here starts a process: the runner is `campaign.run`."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from console.core.launch.profile import Profile
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
    protocol: CellProtocol
    """The plan's [protocol]: every cell's protocol, its prompt set, concurrency (and n, see `n_at`) filled in per
    cell by `cell_protocol`."""
    nodes: list[Node] = field(default_factory=lambda: [DEFAULT_NODE])
    n_per_stream: int = 0
    """n(c) = max(n, n_per_stream × c): every stream sends at least n_per_stream measured requests."""
    kv_policy: str = "refuse"
    text: str = ""

    @property
    def multi_node(self) -> bool:
        return len(self.nodes) > 1

    def where(self) -> str:
        return str(self.path) if self.path else f"plan {self.name}"

    def n_at(self, concurrency: int) -> int:
        return max(self.protocol.n, self.n_per_stream * concurrency)

    def cell_protocol(self, prompt_set: str, concurrency: int, max_tokens: int | None = None) -> CellProtocol:
        return replace(self.protocol, prompt_set=prompt_set, n=self.n_at(concurrency), concurrency=concurrency,
                       max_tokens=max_tokens or self.protocol.max_tokens)

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
                                          concurrency=c, protocol=self.cell_protocol(ps, c, w.max_tokens)))
        return cells

    def cells(self) -> list[CellPlan]:
        return [c for _, arms in self.schedule() for _, cs in arms for c in cs]

    def launches(self) -> int:
        return sum(len(arms) for _, arms in self.schedule())

    def relaunches(self) -> int:
        return sum(max(len(arms) - 1, 0) for _, arms in self.schedule())
