"""Boundaries docs/architecture.md#layers fixes: core never imports Textual; the UI never parses HTTP or logs."""

import ast
import re
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

DOC = PKG.parent / "docs" / "architecture.md"


def _part_name(cell: str) -> str:
    """`core/arm.py` -> console.core.arm, `core/measure/` -> console.core.measure, `__init__.py` -> console."""
    path = cell.strip().strip("`").removesuffix("/").removesuffix(".py").removesuffix("__init__").removesuffix("/")
    return ".".join(["console", *[x for x in path.split("/") if x]])


def _layers_from_the_doc() -> dict[str, set[str] | None]:
    """docs/architecture.md#layers, the one statement of the layers: each row's part and what it may import."""
    text = DOC.read_text()
    section = text[text.index("## Layers"):text.index("## Data flow")]
    out: dict[str, set[str] | None] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        may = cells[2]
        out[_part_name(cells[0])] = None if may == "anything" else (
            set() if may == "—" else {_part_name(m) for m in re.findall(r"`([^`]+)`", may)})
    return out


ALLOWED: dict[str, set[str] | None] = _layers_from_the_doc()
"""Each part of console/ and the parts it may import (besides itself), read from docs/architecture.md."""


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
    from console.core.run.interface import ConsoleRuntime
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


def test_the_layers_come_from_the_doc_and_name_real_parts():
    """The table in docs/architecture.md is read, not copied: every part it names exists in console/, and the twin's
    floors are among them."""
    mods = set(_graph())
    assert {"console.sim.content", "console.sim.config", "console.sim.model", "console.sim.ops",
            "console.sim.entrypoints", "console.sim", "console.cli", "console.core.run"} <= set(ALLOWED)
    phantom = [p for p in ALLOWED if not any(m == p or m.startswith(p + ".") for m in mods)]
    assert phantom == [], f"docs/architecture.md names parts that are not in console/: {phantom}"
    for deps in ALLOWED.values():
        assert deps is None or deps <= set(ALLOWED), deps


def test_the_twin_imports_only_downward():
    """The twin's floors: content < config < model < ops < entrypoints < the process (sim/cli.py). A planted
    upward import (the engine model reaching for the HTTP app) is against the layers."""
    floors = ["console.sim.content", "console.sim.config", "console.sim.model", "console.sim.ops",
              "console.sim.entrypoints", "console.sim"]
    for i, f in enumerate(floors):
        assert (ALLOWED[f] or set()) & set(floors) == set(floors[:i]), f
    assert _part("console.sim.entrypoints.app") not in ALLOWED[_part("console.sim.model.engine")]
    assert _part("console.sim.cli") == "console.sim" and _part("console.sim.model.engine") == "console.sim.model"
