#!/usr/bin/env bash
# Install what the app needs into .venv and start it on the embedded default data.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
exec .venv/bin/python -m streamlit run app.py "$@"
