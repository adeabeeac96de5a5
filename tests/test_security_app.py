"""The app serves on this machine only unless the user asks otherwise (issue: localhost default)."""

from __future__ import annotations

import tomllib

from analytics.core import paths

CONFIG = paths.REPO_ROOT / ".streamlit" / "config.toml"


def test_streamlit_config_binds_to_localhost():
    settings = tomllib.loads(CONFIG.read_text())
    assert settings["server"]["address"] == "localhost"


def test_quick_start_does_not_override_the_address():
    script = (paths.REPO_ROOT / "scripts" / "run_app.sh").read_text()
    assert "--server.address" not in "".join(
        line for line in script.splitlines() if not line.lstrip().startswith("#")
    )


def test_secrets_file_is_never_committed():
    ignored = (paths.REPO_ROOT / ".gitignore").read_text().splitlines()
    assert "/.streamlit/secrets.toml" in ignored


def test_cli_output_piped_into_a_closed_reader_ends_quietly():
    """`python -m analytics … | head -c 1` must not print a BrokenPipeError traceback."""
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "analytics", "fit", "--params-b", "8", "--vram-gb", "24"]
    proc = subprocess.Popen(
        [*cmd, "--json"], cwd=paths.REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # the reader goes away before the command writes
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0 and "Traceback" not in err, err
