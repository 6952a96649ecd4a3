"""The design lives in the repository: every `docs/...` the code or tests cite exists (with the section or anchor
it names), nothing cites documents outside the repo, and the measurement page lists every definition."""

import re
from pathlib import Path

from console.core.measure.stats import DEFINITIONS

REPO = Path(__file__).resolve().parents[2]
SOURCES = [p for d in ("console", "tests") for p in (REPO / d).rglob("*") if p.suffix in (".py", ".toml", ".md")
           and "__snapshots__" not in p.parts and "fixtures" not in p.parts]
CITE = re.compile(r"docs/([\w.-]+\.md)(?:#([\w-]+)| §(\d+))?")


def _anchors(text: str) -> set[str]:
    out = set()
    for line in text.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\s-]", "", title).strip().replace(" ", "-"))
    return out


def test_every_cited_doc_exists_with_its_section():
    missing, seen = [], 0
    for p in SOURCES:
        if p.resolve() == Path(__file__).resolve():
            continue
        for m in CITE.finditer(p.read_text(errors="replace")):
            seen += 1
            doc = REPO / "docs" / m.group(1)
            if not doc.exists():
                missing.append(f"{p.relative_to(REPO)}: docs/{m.group(1)}")
                continue
            text = doc.read_text()
            if m.group(2) and m.group(2) not in _anchors(text):
                missing.append(f"{p.relative_to(REPO)}: docs/{m.group(1)}#{m.group(2)}")
            if m.group(3) and not re.search(rf"^##+ {m.group(3)}\.", text, re.M):
                missing.append(f"{p.relative_to(REPO)}: docs/{m.group(1)} §{m.group(3)}")
    assert seen >= 15, "the code cites its design in docs/"
    assert missing == []


def test_nothing_cites_documents_outside_the_repository():
    bad = [str(p.relative_to(REPO)) for p in SOURCES if p.resolve() != Path(__file__).resolve()
           and re.search(r"DESIGN §|domain\.md|DOMAIN brief", p.read_text(errors="replace"))]
    assert bad == []


def test_the_measurement_page_lists_every_definition():
    page = (REPO / "docs" / "measurement.md").read_text()
    missing = [d.name for d in DEFINITIONS if d.name.split(" (")[0] not in page]
    assert missing == []
