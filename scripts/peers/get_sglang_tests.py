#!/usr/bin/env python3
"""Place SGLang's own OpenAI-server test files, exactly as pinned, where the peer tests read them.

    python3 scripts/peers/get_sglang_tests.py [--from SGLANG_CHECKOUT] [--dest DIR]

The files are SGLang's (Apache-2.0), used unmodified and never committed here: tests/peers/sglang_openai_server/
MANIFEST.json pins each one by commit and sha256. With --from, they are copied from a SGLang checkout (its
test/srt/openai_server/...); without it, each is fetched from the SGLang repository on GitHub at its pinned
commit (set-up only, like pip; the tests themselves never touch the network). A file whose sha256 differs is
refused, naming the file, both hashes and the commit it must come from (exit 1). Files already in place with the
right hash are kept. When files are missing, no checkout is given and GitHub cannot be reached (a machine that reaches
only the package registries, as CI's), it says so in one line and exits 3: nothing there can supply them. Default
destination: $SERVING_CONSOLE_REAL_SGLANG_HOME/peers/sglang-openai-server
(~/.cache/serving-console/real-sglang/...).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "tests" / "peers" / "sglang_openai_server" / "MANIFEST.json"
RAW = "https://raw.githubusercontent.com/sgl-project/sglang/{commit}/{path}"


def default_dest() -> Path:
    home = Path(os.environ.get("SERVING_CONSOLE_REAL_SGLANG_HOME")
                or Path.home() / ".cache" / "serving-console" / "real-sglang")
    return home / "peers" / "sglang-openai-server"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="src", type=Path, help="a SGLang checkout to copy the files from")
    ap.add_argument("--dest", type=Path, default=default_dest())
    a = ap.parse_args()
    m = json.loads(MANIFEST.read_text())
    bad = unreachable = 0
    for rel, pin in m["files"].items():
        path = f"{m['source_dir']}/{rel}"
        out = a.dest / path
        if out.exists() and hashlib.sha256(out.read_bytes()).hexdigest() == pin["sha256"]:
            continue
        if a.src:
            src = a.src / path
            if not src.exists():
                print(f"get_sglang_tests: {src} does not exist (want {path} at commit {pin['commit']})",
                      file=sys.stderr)
                bad += 1
                continue
            data = src.read_bytes()
        else:
            url = RAW.format(commit=pin["commit"], path=path)
            try:
                with urllib.request.urlopen(url, timeout=60) as r:
                    data = r.read()
            except OSError as e:
                if not unreachable:
                    print(f"get_sglang_tests: {url}: {e}", file=sys.stderr)
                unreachable += 1
                continue
        got = hashlib.sha256(data).hexdigest()
        if got != pin["sha256"]:
            print(f"get_sglang_tests: {path}: sha256 {got} is not the pinned {pin['sha256']} "
                  f"(take it from commit {pin['commit']})", file=sys.stderr)
            bad += 1
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    if bad:
        return 1
    if unreachable:
        print(f"get_sglang_tests: {unreachable} of {len(m['files'])} pinned SGLang test files are not under {a.dest} "
              "and GitHub is unreachable from here: pass --from a SGLang checkout (SGLANG_CHECKOUT=DIR for "
              "scripts/peers/setup.sh)", file=sys.stderr)
        return 3
    print(f"get_sglang_tests: {len(m['files'])} files in place under {a.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
