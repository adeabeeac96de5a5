#!/usr/bin/env bash
# The CUDA/NVML path, measured once on a real NVIDIA GPU (docs/measure.md, "GPU check").
#
# On a lent GPU machine (nothing outside reachable): installs the wheels carried in .whl/ (made
# here by scripts/gpu_wheels.sh), prints nvidia-smi and the NVML version, then runs
# `python -m measure gpu-check`: the sampler alone for 5 s, the power limit and throttle reasons,
# `measure run --device cuda` under the full protocol for every adapter that declares CUDA, and
# `measure verify` on each record. Everything is written under $OUT (default build/gpu_check).
# Without a GPU it stops at once with one line and exit status 2.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-build/gpu_check}"
PYTHON="${PYTHON:-python3}"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu_check: no NVIDIA GPU here (nvidia-smi missing or it lists no device); fix: run it on a machine with an NVIDIA GPU and its driver" >&2
  exit 2
fi

mkdir -p "$OUT"
if compgen -G ".whl/*.whl" >/dev/null; then
  # Only what the machine's own Python lacks travels (scripts/gpu_wheels.sh lists it); --no-deps
  # keeps the machine's CUDA torch in place.
  "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl
  export PYTHONPATH="/tmp/site:${PYTHONPATH:-}"
fi
export PYTHONPATH="$PWD:${PYTHONPATH:-}"
# The hubs are unreachable there: fail an adapter whose weights are absent at once, not by retries.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1

nvidia-smi | tee "$OUT/nvidia-smi.txt"
"$PYTHON" - <<'PY' | tee "$OUT/versions.txt"
import platform

import pynvml
import torch

pynvml.nvmlInit()
print("python", platform.python_version(), "torch", torch.__version__, "cuda", torch.version.cuda)
print("nvml", pynvml.nvmlSystemGetNVMLVersion(), "driver", pynvml.nvmlSystemGetDriverVersion())
PY
"$PYTHON" -m measure gpu-check --out "$OUT" "$@" 2>&1 | tee "$OUT/gpu_check.log"
