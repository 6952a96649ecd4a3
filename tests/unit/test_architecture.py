"""Boundaries docs/architecture.md#layers fixes: core never imports Textual; the UI never parses HTTP or logs."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "console"


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_core_never_imports_textual():
    bad = [str(p) for p in (PKG / "core").rglob("*.py") if any(m.split(".")[0] == "textual" for m in imports(p))]
    assert bad == []


def test_ui_does_not_talk_http_or_parse_logs():
    forbidden = {"httpx", "prometheus_client", "console.core.engine.sse", "console.core.launch.logparse",
                 "openai", "re"}
    bad = {str(p): sorted(imports(p) & forbidden) for p in (PKG / "ui").rglob("*.py") if imports(p) & forbidden}
    # render.py may import StartupProgress (a data type) from logparse, not call the parser
    bad.pop(str(PKG / "ui" / "render.py"), None) if set(bad.get(str(PKG / "ui" / "render.py"), [])) <= {
        "console.core.launch.logparse"} else None
    assert bad == {}


def test_console_never_imports_sglang():
    bad = [str(p) for p in PKG.rglob("*.py") if any(m.split(".")[0] == "sglang" for m in imports(p))]
    assert bad == []


# --- layers and cycles (docs/architecture.md) -------------------------------------------------------------------

ALLOWED: dict[str, set[str] | None] = {
    # package faces and data (exact names)
    "console": set(),
    "console.core": set(),
    "console.data": set(),
    # leaves
    "console.core.arm": set(),
    "console.core.redaction": set(),
    "console.core.fmt": set(),
    "console.core.places": set(),
    "console.core.measure": set(),
    "console.core.workload": {"console.core.places"},
    "console.core.telemetry": set(),
    # clients and launch, side by side (neither imports the other)
    "console.core.engine": {"console.core.fmt", "console.core.arm", "console.core.measure"},
    "console.core.launch": {"console.core.fmt", "console.core.arm", "console.core.redaction", "console.core.telemetry",
                            "console.core.places"},
    # artifacts on disk
    "console.core.sessions": {"console.core.fmt", "console", "console.core.arm", "console.core.measure", "console.core.redaction",
                              "console.core.places"},
    # what drives a server over time
    "console.core.run": {"console.core.fmt", "console.core.arm", "console.core.engine", "console.core.launch", "console.core.measure",
                         "console.core.redaction", "console.core.sessions", "console.core.telemetry",
                         "console.core.workload"},
    "console.core.campaign": {"console.core.fmt", "console.core.places", "console.core.arm", "console.core.engine",
                              "console.core.launch",
                              "console.core.measure", "console.core.redaction", "console.core.sessions",
                              "console.core.telemetry", "console.core.workload", "console.core.run"},
    "console.core.exits": {"console.core.engine", "console.core.launch"},
    # shared reports (HTML, SVG/PNG plots) over the artifacts; a campaign's analysis when given one
    "console.core.report": {"console", "console.core.fmt", "console.core.arm", "console.core.measure",
                            "console.core.redaction", "console.core.sessions", "console.core.campaign"},
    # above core
    "console.ui": {"console.core.fmt", "console.core.arm", "console.core.exits", "console.core.launch", "console.core.measure",
                   "console.core.campaign",
                   "console.core.run", "console.core.sessions", "console.core.telemetry", "console.core.workload",
                   "console.core.report"},
    "console.authoring": {"console.core.workload"},
    "console.sim": {"console.core.launch"},
    "console.cli": None,  # the entry point may import anything
    "console.cli_sweep": None,  # `sweep` (and the campaign part of `report`): a part of the entry point
    "console.cli_probe": None,  # `probe verify-tax`: a part of the entry point
}
"""Each part of console/ and the parts it may import (besides itself); a test holds the code to it."""


def _module(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    mods = {_module(p): p for p in PKG.rglob("*.py")}
    out: dict[str, set[str]] = {}
    for name, path in mods.items():
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name in mods}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                subs = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in mods}
                # `from pkg import module` imports that module; `from module import name` imports the module
                deps |= subs or ({base} if base in mods else set())
        out[name] = deps - {name}
    return out


FACES = {"console", "console.core"}


def _part(module: str) -> str:
    for part in sorted(ALLOWED, key=len, reverse=True):
        if module == part or (part not in FACES and module.startswith(part + ".")):
            return part
    return module


def test_every_part_imports_only_the_parts_below_it():
    g = _graph()
    unknown = sorted(m for m in g if _part(m) not in ALLOWED)
    assert unknown == [], f"modules in no part of the architecture (add them to ALLOWED and docs/architecture.md): {unknown}"
    bad = []
    for m, deps in g.items():
        allowed = ALLOWED.get(_part(m), set())
        if allowed is None:
            continue
        for d in deps:
            pd = _part(d)
            if pd != _part(m) and pd not in allowed:
                bad.append(f"{m} -> {d}")
    assert bad == [], "imports against the layers:\n" + "\n".join(sorted(bad))


def test_no_import_cycles_anywhere_in_console():
    g = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    assert cycles == [], f"import cycles: {cycles}"


def test_the_architecture_test_sees_a_cycle_and_a_layer_break(tmp_path, monkeypatch):
    """The two tests above can fail: a planted upward import is caught by both."""
    g = _graph()
    g["console.core.measure.stats"] = g["console.core.measure.stats"] | {"console.core.run.runtime"}
    assert _part("console.core.run.runtime") not in ALLOWED["console.core.measure"]
    reach, todo = set(), ["console.core.run.runtime"]
    while todo:
        v = todo.pop()
        if v in reach:
            continue
        reach.add(v)
        todo += list(g.get(v, ()))
    assert "console.core.measure.stats" in reach, "stats is reachable from runtime: the planted import closes a cycle"


def test_the_ui_depends_on_one_runtime_protocol_that_runtime_and_the_fake_both_provide():
    from console.core.run.protocol import ConsoleRuntime
    from console.core.run.runtime import Runtime
    from tests.ui.fake_runtime import FakeRuntime
    fake = FakeRuntime(lambda e: None)
    assert isinstance(fake, ConsoleRuntime)
    members = [m for m in ConsoleRuntime.__protocol_attrs__ if not m.startswith("_")] \
        if hasattr(ConsoleRuntime, "__protocol_attrs__") else []
    for m in members:
        assert hasattr(Runtime, m) or m in Runtime.__init__.__code__.co_names or m in ("state", "profile",
                                                                                   "attach_url", "sessions_root"), m
    ui = PKG / "ui"
    users = [p for p in ui.rglob("*.py") if "console.core.run.runtime" in imports(p)]
    assert users == [], f"the UI imports the Runtime class instead of the protocol: {users}"
