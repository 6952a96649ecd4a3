#!/usr/bin/env bash
# The peer clients' additions to the real-sglang environment (issue #14 §4; docs/real-sglang.md, "Peer clients"):
#  1. `datasets`, one of sglang 0.5.23's own requirements that build.sh's CPU set leaves out: sglang.benchmark.serving
#     (bench_serving) and sglang.test.test_utils import it at module level. Installed under the env's current pins
#     (pip freeze as constraints), so no sglang pin moves; it brings pyarrow, pandas, multiprocess.
#  2. SGLang's own OpenAI-server test files, pinned by sha256 (scripts/peers/get_sglang_tests.py; never committed).
# Idempotent: a second run with both in place only checks them (~2 s). Needs build.sh's env first.
set -euo pipefail
cd "$(dirname "$0")/../.."
HOME_DIR="${SERVING_CONSOLE_REAL_SGLANG_HOME:-$HOME/.cache/serving-console/real-sglang}"
PY="$HOME_DIR/env/bin/python"
PEERS="$HOME_DIR/peers"
if [ ! -x "$PY" ] || [ ! -f "$HOME_DIR/build.json" ]; then
  echo "peers/setup.sh: no real-sglang environment at $HOME_DIR: run bash scripts/real_sglang/build.sh first" >&2
  exit 1
fi
mkdir -p "$PEERS"
T0=$(date +%s)
if ! "$PY" -c "import datasets" 2>/dev/null; then
  "$PY" -m pip freeze --exclude-editable | grep -v ' @ ' > "$PEERS/env-pins.txt"
  "$PY" -m pip install -q -c "$PEERS/env-pins.txt" datasets >>"$PEERS/setup.log" 2>&1 \
    || { tail -20 "$PEERS/setup.log" >&2; echo "peers/setup.sh: datasets does not fit beside the env's pins" >&2; exit 1; }
fi
# exit 3: the files are missing and nothing here can supply them (no checkout, no GitHub): recorded in peers.json,
# so that the lane fails on them unless it is told, out loud, to leave them out (docs/real-sglang.md, "Peer clients")
TESTS=present
python3 scripts/peers/get_sglang_tests.py ${SGLANG_CHECKOUT:+--from "$SGLANG_CHECKOUT"} \
  --dest "$PEERS/sglang-openai-server" || { rc=$?; [ "$rc" = 3 ] || exit "$rc"; TESTS=unavailable; }
"$PY" - "$PEERS/peers.json" "$(( $(date +%s) - T0 ))" "$TESTS" <<'PYEOF'
import json, sys, importlib.metadata as md
json.dump({"datasets": md.version("datasets"), "pyarrow": md.version("pyarrow"), "setup_s": int(sys.argv[2]),
           "sglang_tests": sys.argv[3]}, open(sys.argv[1], "w"))
PYEOF
echo "peers/setup.sh: ready ($PEERS); SGLang's OpenAI-server test files: $TESTS"
