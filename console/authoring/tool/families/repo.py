"""Scenario family: a code repository, file listings and test output."""

from __future__ import annotations

import random

from console.authoring.gen_fit import pick
from console.authoring.tool.pools import ORGS, _hex, _iso, _person, _start
from console.authoring.tool.schema import COMMON_RULES, Scenario, Step, i, s, tool

# ------------------------------------------------------------------------------------------ family: repo agent

PY_SNIPPETS = [
    ["def paginate(query, page: int, per_page: int = 50):",
     "    if page < 1:",
     "        raise ValueError(\"page starts at 1\")",
     "    total = query.count()",
     "    items = query.offset((page - 1) * per_page).limit(per_page).all()",
     "    return Page(items=items, total=total, page=page, per_page=per_page)"],
    ["class Settings(BaseSettings):",
     "    model_config = SettingsConfigDict(env_prefix=\"APP_\", env_file=\".env\")",
     "    database_url: str",
     "    redis_url: str = \"redis://localhost:6379/0\"",
     "    request_timeout_s: float = 10.0",
     "    feature_flags: dict[str, bool] = {}"],
    ["@router.get(\"/v1/{resource}\", response_model=list[{model}Out])",
     "async def list_{resource}(db: Session = Depends(get_db), limit: int = 100):",
     "    rows = db.execute(select({model}).order_by({model}.id).limit(limit)).scalars().all()",
     "    return [{model}Out.model_validate(r) for r in rows]"],
    ["def test_list_{resource}_returns_items(client, seed_{resource}):",
     "    resp = client.get(\"/v1/{resource}?limit=5\")",
     "    assert resp.status_code == 200",
     "    body = resp.json()",
     "    assert len(body) == 5",
     "    assert body[0][\"id\"] < body[1][\"id\"]"],
    ["def to_dict(self) -> dict:",
     "    data = self.dict(exclude_none=True)",
     "    data[\"created_at\"] = self.created_at.isoformat()",
     "    return data"],
    ["async def fetch_{resource}(client: httpx.AsyncClient, ids: list[str]) -> list[dict]:",
     "    out = []",
     "    for chunk in batched(ids, 100):",
     "        r = await client.get(\"/internal/{resource}\", params={{\"ids\": \",\".join(chunk)}})",
     "        r.raise_for_status()",
     "        out.extend(r.json()[\"items\"])",
     "    return out"],
]
RESOURCES = [("invoices", "Invoice"), ("projects", "Project"), ("shipments", "Shipment"), ("members", "Member"),
             ("devices", "Device"), ("tickets", "Ticket"), ("playlists", "Playlist"), ("courses", "Course")]


def fam_repo(rng: random.Random, variant: int) -> Scenario:
    org = pick(rng, ORGS)
    repo = pick(rng, ["billing-service", "fleet-api", "member-portal", "course-catalog", "ops-dashboard"])
    res, model = pick(rng, RESOURCES)
    if variant == 0:
        task = (f"CI on main of `{repo}` has been red since the dependency bump this morning (pydantic 1.10 -> 2.x "
                f"and fastapi upgrade). Find out which tests fail and why, fix the code (not the tests, unless a "
                f"test is wrong), and make sure the whole suite passes locally before you stop.")
    else:
        task = (f"In `{repo}`, add cursor-based pagination to `GET /v1/{res}` (query params `limit` and `cursor`, "
                f"response field `next_cursor`), keep the old `page` parameter working for one release with a "
                f"deprecation header, and add tests. Follow the conventions already used in the codebase.")
    tools = [
        tool("list_directory", "List files under a path (relative to the repository root).",
             {"path": s("Directory."), "depth": i("Recursion depth.", minimum=1, maximum=4)}, ["path"]),
        tool("read_file", "Read a file, optionally a line range. Lines are numbered.",
             {"path": s("File path."), "start_line": i("First line (1-based)."), "end_line": i("Last line.")},
             ["path"]),
        tool("search_code", "Search the repository with a regular expression (ripgrep).",
             {"pattern": s("Regex."), "glob": s("Path glob, e.g. src/**/*.py."), "max_results": i("Cap.")},
             ["pattern"]),
        tool("run_command", "Run a shell command in the repository sandbox (no network).",
             {"command": s("Command line."), "timeout_s": i("Timeout in seconds.", maximum=900)}, ["command"]),
        tool("git_log", "Commit history for a path.", {"path": s("Path."), "limit": i("Max commits.")}, []),
        tool("apply_patch", "Apply a unified diff to the working tree.",
             {"patch": s("Unified diff text."), "message": s("What the change does.")}, ["patch"]),
    ]
    steps: list[Step] = []
    out = ["============================= test session starts ==============================",
           "platform linux -- Python 3.12.4, pytest-8.3.2, pluggy-1.5.0", f"rootdir: /workspace/{repo}",
           "configfile: pyproject.toml", "plugins: anyio-4.4.0, cov-5.0.0",
           f"collected {rng.randrange(180, 420)} items", ""]
    for _j in range(rng.randrange(14, 24)):
        r2, m2 = pick(rng, RESOURCES)
        err = pick(rng, [f"AttributeError: '{m2}Out' object has no attribute 'dict'",
                         "pydantic.errors.PydanticUserError: `const` is removed, use `Literal` instead",
                         f"TypeError: {m2}Out.__init__() takes 1 positional argument but 2 were given",
                         "AssertionError: assert 422 == 200",
                         "ImportError: cannot import name 'BaseSettings' from 'pydantic'"] if variant == 0 else
                   ["KeyError: 'next_cursor'", "assert [] == [{'id': 1, 'name': 'a'}]",
                    "AssertionError: assert 'Deprecation' in Headers({'content-type': 'application/json'})",
                    "AssertionError: assert 100 == 5", "assert resp.status_code == 200 (got 422)"])
        out.append(f"FAILED tests/api/test_{r2}.py::test_{pick(rng, ['list', 'create', 'update', 'export'])}_"
                   f"{r2}_{pick(rng, ['ok', 'paginates', 'validates', 'filters'])} - {err}")
    out.append(f"========= {len(out) - 7} failed, {rng.randrange(150, 380)} passed, 3 warnings in "
               f"{rng.uniform(20, 80):.2f}s =========")
    steps.append(Step("Running the suite first to see the actual failures.", "run_command",
                      {"command": "python -m pytest -q -x --no-header -rf" if variant else "python -m pytest -q -rf",
                       "timeout_s": 600}, len(out), lambda k, o=out: {"exit_code": 1, "stdout": "\n".join(o[:k]),
                                                                     "stderr": ""}))
    files = []
    for d in ["src/app/api", "src/app/models", "src/app/schemas", "src/app/services", "tests/api", "tests/unit"]:
        for r2, _ in rng.sample(RESOURCES, rng.randrange(3, 6)):
            name = f"test_{r2}.py" if d.startswith("tests") else f"{r2}.py"
            files.append({"path": f"{d}/{name}", "size": rng.randrange(400, 9000)})
    files += [{"path": p, "size": rng.randrange(200, 4000)} for p in ["pyproject.toml", "src/app/main.py",
                                                                      "src/app/deps.py", "src/app/pagination.py",
                                                                      "tests/conftest.py"]]
    steps.append(Step("Getting the layout of the project.", "list_directory", {"path": ".", "depth": 3},
                      len(files), lambda k, f=files: {"entries": f[:k]}))
    for q in range(16):
        r2, m2 = RESOURCES[q % len(RESOURCES)]
        path = f"src/app/{pick(rng, ['api', 'schemas', 'services'])}/{r2}.py"
        start = rng.randrange(10, 180)
        lines = []
        for rep in range(rng.randrange(3, 6)):
            sn = PY_SNIPPETS[(q + rep) % len(PY_SNIPPETS)]
            lines += [ln.replace("{resource}", r2).replace("{model}", m2).replace("{{", "{").replace("}}", "}")
                      for ln in sn] + [""]
        numbered = [f"{start + j:>4}  {ln}" for j, ln in enumerate(lines)]
        if q % 2 == 0:
            steps.append(Step(f"Reading {path} where the failing code path lives.", "read_file",
                              {"path": path, "start_line": start, "end_line": start + len(lines) - 1},
                              len(numbered), lambda k, nb=numbered, p=path: {"path": p, "content": "\n".join(nb[:k])}))
        else:
            pat, lit = pick(rng, [(r"\.dict\(", ".dict("), ("BaseSettings", "BaseSettings"), ("page: int", "page"),
                                  (r"Depends\(get_db\)", "Depends(get_db)"), ("model_validate", "model_validate"),
                                  (r"offset\(", "offset("), (r"\.limit\(", ".limit("),
                                  ("raise_for_status", "raise_for"), (r"status_code == \d+", "status_code")])
            hits = []
            for _rep in range(rng.randrange(3, 7)):
                r3 = pick(rng, RESOURCES)
                for sn in PY_SNIPPETS:
                    for ln in sn:
                        if lit in ln:
                            text = ln.replace("{resource}", r3[0]).replace("{model}", r3[1]).replace("{{", "{")
                            hits.append({"path": f"src/app/{pick(rng, ['api', 'schemas', 'services'])}/{r3[0]}.py",
                                         "line": rng.randrange(5, 300), "text": text.strip().replace("}}", "}")})
            if not hits:
                hits = [{"path": path, "line": start, "text": lines[0].strip()}]
            steps.append(Step(f"Searching for other uses of `{pat}` that the upgrade may have broken.",
                              "search_code", {"pattern": pat, "glob": "src/**/*.py", "max_results": 50}, len(hits),
                              lambda k, h=hits: {"matches": h[:k], "truncated": False}))
    commits = [{"sha": _hex(rng, 12), "author": _person(rng), "date": _iso(_start(rng)),
                "subject": pick(rng, ["bump pydantic to 2.8", "add export endpoint", "fix flaky test", "ruff format",
                                      "settings: read from env", "pin fastapi", "pagination helper"])}
               for _ in range(rng.randrange(8, 14))]
    steps.insert(3, Step("Checking the recent history of the pagination helper.", "git_log",
                         {"path": "src/app/pagination.py", "limit": 20}, len(commits),
                         lambda k, c=commits: {"commits": c[:k]}))
    final = pick(rng, [
        "What's next? Explain the root cause you suspect in two or three sentences, list the remaining steps, and "
        "issue the next tool call.",
        "Plan the change before touching code: give a short numbered plan, then make the next tool call "
        "(one only).",
    ])
    return Scenario("repo-agent", org, pick(rng, ["an autonomous coding agent", "a software engineering agent"]),
                    tools if variant else [tools[k] for k in (3, 2, 1, 0, 5, 4)], task, steps, final,
                    rules=pick(rng, COMMON_RULES, 5), pretty=variant == 0)
