#!/usr/bin/env bash
# Download, here, the wheels scripts/gpu_check.sh installs on the GPU machine, into .whl/
# (git-ignored; the device tool carries it). The machine's image already holds torch (CUDA),
# torchvision, numpy, pandas, pyarrow, psutil, pillow, scipy and nvidia-ml-py for Python 3.12;
# what `measure run` needs beyond them is listed here: pycocotools for accuracy and
# facenet-pytorch, whose package ships the MTCNN weights (the harness never imports duckdb).
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
  pycocotools==2.0.11 facenet-pytorch==2.6.0
du -sh .whl
