"""Boundaries DESIGN §1 fixes: core never imports Textual; the UI never parses HTTP or logs."""

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
