#!/usr/bin/env bash
# Install what the app needs into .venv and start it on the embedded default data.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
# facenet-pytorch ships the MTCNN weights our offline adapter runs on; its metadata pins
# torch<2.3, numpy<2 and torchvision, so it is installed without them (docs/patches/).
.venv/bin/pip install --quiet --disable-pip-version-check --no-deps facenet-pytorch==2.6.0
exec .venv/bin/python -m ui.server "$@"  # = streamlit run app.py, deep links safe (ui/server.py)
