#!/usr/bin/env bash
# Install JupyterLab into the app's .venv and serve the analyst notebooks on this machine only.
#   bash scripts/notebooks.sh [jupyter lab options, e.g. --ServerApp.port=8890]
# The app's environment first, exactly as scripts/run_app.sh installs it, then the pinned
# JupyterLab (requirements-notebooks.txt, constrained to requirements.txt's pins). The server
# listens on 127.0.0.1:8888 (the next free port if taken) and opens no browser: open the
# http://127.0.0.1:8888/lab?token=... link it prints. Kernels run .venv's Python with the
# repository on PYTHONPATH, so `from analytics...` works in every notebook.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
# facenet-pytorch ships the MTCNN weights our offline adapter runs on; its metadata pins
# torch<2.3, numpy<2 and torchvision, so it is installed without them (docs/patches/).
.venv/bin/pip install --quiet --disable-pip-version-check --no-deps facenet-pytorch==2.6.0
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements-notebooks.txt
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
as_root=()  # JupyterLab refuses root unless told; it still listens on loopback with a token
if [ "$(id -u)" = 0 ]; then as_root=(--allow-root); fi
exec .venv/bin/jupyter lab --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.root_dir="$PWD" \
  --LabApp.default_url=/lab/tree/notebooks "${as_root[@]}" "$@"  # port 8888, or the next free
