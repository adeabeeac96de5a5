"""The committed review trail vouches for every committed hand-review marks file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from analytics.core import paths
from analytics.vision import runs
from measure import review_trail
from measure.community import audit


def test_the_committed_trail_is_intact_and_covers_every_committed_marks_file():
    log, problems = review_trail.check(paths.REPO_ROOT / "data" / "runs")
    assert problems == []
    marks = sorted((paths.REPO_ROOT / "data/runs/vision_failures").glob("*.parquet"))
    assert marks and set(review_trail.latest(paths.REPO_ROOT / "data/runs")) >= {
        p.stem for p in marks
    }
    assert log.lines >= len(marks)


@pytest.fixture()
def runs_copy(tmp_path):
    for name in ("vision_failures", review_trail.TRAIL_DIR):
        shutil.copytree(paths.REPO_ROOT / "data/runs" / name, tmp_path / name,
                        ignore=shutil.ignore_patterns(".lock"))
    return tmp_path


def _first_marks(runs_dir):
    return sorted((runs_dir / "vision_failures").glob("*.parquet"))[0]


def test_an_edited_mark_is_found(runs_copy):
    path = _first_marks(runs_copy)
    frame = pd.read_parquet(path)
    frame.loc[0, "failure"] = not bool(frame.loc[0, "failure"])
    frame.to_parquet(path)
    _, problems = review_trail.check(runs_copy)
    assert len(problems) == 1 and path.name in problems[0] and "does not match" in problems[0]


def test_marks_without_an_entry_are_found(runs_copy):
    shutil.copy(_first_marks(runs_copy), runs_copy / "vision_failures" / "other-run.parquet")
    _, problems = review_trail.check(runs_copy)
    assert len(problems) == 1 and "has no entry in the review trail" in problems[0]


def test_an_edited_trail_line_is_found(runs_copy):
    log = review_trail.trail_log(runs_copy)
    log.write_text(log.read_text().replace("founding engineer", "someone else", 1))
    with pytest.raises(audit.AuditError):
        review_trail.check(runs_copy)


def test_a_stored_review_writes_its_entry_first(runs_copy):
    run_id = _first_marks(runs_copy).stem
    marks = pd.DataFrame({"output_index": [0, -1], "input_name": ["a.png", "b.png"],
                          "failure": [False, True], "note": ["", "missed"]})
    before = review_trail.trail_log(runs_copy).read_text()

    def entry(frame):
        return review_trail.record(run_id, frame, "alice", "test", runs_copy)

    runs.save_failure_marks(run_id, marks, "alice", runs_copy, entry)
    assert review_trail.trail_log(runs_copy).read_text().startswith(before)  # appended only
    entry = review_trail.latest(runs_copy)[run_id]
    assert entry["maintainer"] == "alice" and entry["failures"] == 1 and entry["outputs"] == 2
    assert review_trail.check(runs_copy)[1] == []


def test_audit_verify_checks_the_trail(runs_copy, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MODELATLAS_")}
    cmd = [sys.executable, "-m", "measure", "audit", "verify", "--inbox", str(tmp_path / "inbox"),
           "--runs", str(runs_copy)]
    ok = subprocess.run(cmd, cwd=paths.REPO_ROOT, env=env, capture_output=True, text=True)
    assert ok.returncode == 0 and "every committed marks file matches" in ok.stdout
    frame = pd.read_parquet(_first_marks(runs_copy))
    frame.loc[0, "reviewer"] = "mallory"
    frame.to_parquet(_first_marks(runs_copy))
    bad = subprocess.run(cmd, cwd=paths.REPO_ROOT, env=env, capture_output=True, text=True)
    assert bad.returncode == 1 and _first_marks(runs_copy).name in bad.stderr
