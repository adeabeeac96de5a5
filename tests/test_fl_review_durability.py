"""Durability of FL review decisions: decisions are
serialised across threads and processes, a second decision is refused in one line, a cut line
never swallows the next decision, a kill leaves the old or the new state; the FL submit page
refuses an oversized upload before reading it; vision marks are written audit line first.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import streamlit as st

from analytics.core import hashing, paths, safezip
from analytics.fl import review
from measure import review_trail
from measure.community import audit, inbox
from measure.community.auth import Maintainer

LINE = re.compile(r"^[^\n\r]+: [^\n\r]+; fix: [^\n\r]+$")
NAME = "A_cnn_Mine.zip"
CAP = safezip.LIMITS["fl-submission"].bundle_bytes


class Killed(BaseException):
    """A simulated SIGKILL: nothing in the code under test catches it."""


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private runs folder holding one stored, unverified upload (``NAME``)."""
    folder = tmp_path / "runs"
    monkeypatch.setattr(paths, "RUNS_DIR", folder)
    review.uploads_dir().mkdir(parents=True)
    (review.uploads_dir() / NAME).write_bytes(b"zip bytes")
    review.record_received(NAME, hashing.file_sha256(review.uploads_dir() / NAME), "mine.zip")
    return folder


def _state() -> review.State:
    return review.states()[0][NAME]


def _decisions() -> list[dict]:
    found, _ = review.events()
    return [e for e in found if e["event"] in (review.ACCEPTED, review.REJECTED)]


def _slow_reads(monkeypatch: pytest.MonkeyPatch, seconds: float = 0.3) -> None:
    """Widen the check-then-append window: without the lock both deciders pass the check."""
    real = review._read

    def slow(path: Path):
        found = real(path)
        time.sleep(seconds)
        return found

    monkeypatch.setattr(review, "_read", slow)


def _one_winner(outcomes: dict[str, object]) -> None:
    """Exactly one decision stands, the other is a one-line refusal naming the winner, and the
    state equals the one recorded decision."""
    won = {a: o for a, o in outcomes.items() if not isinstance(o, str)}
    lost = {a: o for a, o in outcomes.items() if isinstance(o, str)}
    assert len(won) == 1 and len(lost) == 1, outcomes
    (action, state), (message,) = next(iter(won.items())), lost.values()
    assert LINE.match(message) and f"already {state.status}" in message
    (decision,) = _decisions()
    assert decision["event"] == state.status == _state().status
    assert decision["by"] == f"m-{action}"


# --- (a) accept and reject at the same moment: exactly one is recorded ----------------------


def test_accept_and_reject_from_two_threads_record_exactly_one(runs, monkeypatch):
    _slow_reads(monkeypatch)
    start, outcomes = threading.Barrier(2), {}

    def decide(action: str) -> None:
        start.wait()
        try:
            outcomes[action] = review.decide(NAME, action, f"m-{action}", reason="both at once")
        except review.ReviewError as exc:
            outcomes[action] = str(exc)

    threads = [threading.Thread(target=decide, args=(a,)) for a in ("accept", "reject")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    _one_winner(outcomes)


CHILD = textwrap.dedent(
    """
    import json, os, sys, time
    from pathlib import Path
    from analytics.fl import review
    real = review._read
    def slow(path):
        found = real(path)
        time.sleep(0.3)  # widen the check-then-append window
        return found
    review._read = slow
    action, ready, go = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    ready.touch()
    while not go.exists():
        time.sleep(0.001)
    try:
        state = review.decide("@NAME@", action, "m-" + action, reason="both at once")
        print(json.dumps({"status": state.status}))
    except review.ReviewError as exc:
        print(json.dumps({"refused": str(exc)}))
    """
).replace("@NAME@", NAME)


def _child_env(runs: Path) -> dict[str, str]:
    return {**os.environ, "MODELATLAS_RUNS_DIR": str(runs), "PYTHONPATH": str(paths.REPO_ROOT)}


def test_accept_and_reject_from_two_processes_record_exactly_one(runs, tmp_path):
    go = tmp_path / "go"
    children = {
        action: subprocess.Popen(
            [sys.executable, "-c", CHILD, action, str(tmp_path / f"ready-{action}"), str(go)],
            cwd=paths.REPO_ROOT,
            env=_child_env(runs),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for action in ("accept", "reject")
    }
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready-{a}").exists() for a in children):
        assert time.monotonic() < deadline, "children did not start"
        time.sleep(0.01)
    go.touch()  # both are past their imports: they decide at the same moment
    outcomes = {}
    for action, child in children.items():
        out, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
        result = json.loads(out)
        outcomes[action] = result.get("refused") or SimpleNamespace(status=result["status"])
    _one_winner(outcomes)


def test_a_decided_upload_refuses_further_decisions_in_one_line(runs):
    review.decide(NAME, "reject", "m1", reason="fake")
    for action, seen in [("accept", review.UNVERIFIED), ("reject", review.UNVERIFIED),
                         ("accept", review.ACCEPTED)]:
        with pytest.raises(review.ReviewError, match="already rejected by m1") as err:
            review.decide(NAME, action, "m2", reason="again", seen=seen)
        assert LINE.match(str(err.value))
    assert [e["event"] for e in _decisions()] == ["rejected"]


def test_a_withdrawal_needs_the_accepted_state_to_have_been_seen(runs):
    review.decide(NAME, "accept", "m1")
    with pytest.raises(review.ReviewError) as err:
        review.decide(NAME, "reject", "m2", reason="stale page")  # shown unverified
    assert err.value.where == NAME and err.value.what.startswith("already accepted by m1 at ")
    assert err.value.fix == "reload the list and review it again"
    state = review.decide(NAME, "reject", "m2", reason="fake", seen=review.ACCEPTED)
    assert state.status == _state().status == review.REJECTED
    assert [e["event"] for e in _decisions()] == ["accepted", "rejected"]


# --- (b) a record that ends mid-line ---------------------------------------------------------


def _cut_record() -> str:
    """The record with a decision cut short at its end (no newline); returns that fragment."""
    fragment = json.dumps({"by": "m0", "event": "rejected", "zip": NAME}, sort_keys=True)[:30]
    with open(review.log_path(), "ab") as handle:
        handle.write(fragment.encode())
    return fragment


def test_a_cut_last_line_is_reported_and_never_swallows_the_next_decision(runs):
    fragment = _cut_record()
    found, problems = review.states()
    assert found[NAME].status == review.UNVERIFIED  # the cut event never happened
    assert len(problems) == 1 and LINE.match(problems[0]) and "cut short" in problems[0]
    state = review.decide(NAME, "accept", "m1")
    assert state.status == review.ACCEPTED
    found, problems = review.states()
    assert found[NAME].status == review.ACCEPTED and found[NAME].decided_by == "m1"
    assert len(problems) == 1 and LINE.match(problems[0]) and ":2:" in problems[0]
    lines = review.log_path().read_text().split("\n")
    assert lines[1] == fragment and json.loads(lines[2])["event"] == "accepted"
    assert lines[-1] == ""  # ends with a newline again


def test_a_decision_appended_by_hand_without_the_chain_never_counts(runs):
    sha = hashing.file_sha256(review.uploads_dir() / NAME)
    line = json.dumps({"event": "accepted", "zip": NAME, "sha256": sha, "by": "m0", "at": "t"})
    with open(review.log_path(), "ab") as handle:
        handle.write(line.encode())  # no newline: a cut line, skipped and acknowledged later
    assert _state().status == review.UNVERIFIED
    review.record_received("other.zip", "0" * 64, "other.zip")
    assert _state().status == review.UNVERIFIED
    with open(review.log_path(), "ab") as handle:
        handle.write((line + "\n").encode())  # a whole line, inserted after chained ones
    found, problems = review.states()
    assert found[NAME].status == review.UNVERIFIED and "inserted" in problems[0]


# --- (c) a kill between steps leaves the old or the new state --------------------------------


def _consistent() -> None:
    """The state is exactly what the record's complete lines say: never a decision without its
    line, never a line without its decision."""
    decided = _decisions()
    assert _state().status == (decided[-1]["event"] if decided else review.UNVERIFIED)


def _killing_write(monkeypatch: pytest.MonkeyPatch, keep: float) -> None:
    real = os.write

    def write(fd: int, data: bytes) -> int:
        if b'"accepted"' in data:
            real(fd, data[: int(len(data) * keep)])
            raise Killed("mid-append")
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)


@pytest.mark.parametrize("keep", [0.0, 0.5])
def test_a_kill_mid_append_leaves_the_old_state_and_frees_the_lock(runs, monkeypatch, keep):
    _killing_write(monkeypatch, keep)
    with pytest.raises(Killed):
        review.decide(NAME, "accept", "m1")
    monkeypatch.undo()
    monkeypatch.setattr(paths, "RUNS_DIR", runs)
    _consistent()
    assert _state().status == review.UNVERIFIED
    assert len(review.events()[1]) == (1 if keep else 0)  # the cut line is reported
    state = review.decide(NAME, "reject", "m2", reason="after the kill")  # lock not held
    assert state.status == _state().status == review.REJECTED
    _consistent()


def test_a_failed_fsync_is_one_line_and_the_state_matches_the_record(runs, monkeypatch):
    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(review.ReviewError) as err:
        review.decide(NAME, "accept", "m1")
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    assert LINE.match(str(err.value)) and err.value.where == NAME
    assert err.value.what.startswith("the decision could not be written to")
    _consistent()  # the write landed before fsync failed: the new state, with its line


def test_a_killed_process_leaves_the_old_state_and_no_held_lock(runs, tmp_path):
    script = textwrap.dedent(
        """
        import os
        from analytics.fl import review
        real = os.write
        def write(fd, data):
            if b'"accepted"' in data:
                real(fd, data[: len(data) // 2])
                os._exit(137)  # SIGKILL-like: no cleanup, no unlock
            return real(fd, data)
        os.write = write
        review.decide("@NAME@", "accept", "m1")
        """
    ).replace("@NAME@", NAME)
    child = subprocess.run(
        [sys.executable, "-c", script],
        cwd=paths.REPO_ROOT,
        env=_child_env(runs),
        capture_output=True,
        timeout=60,
    )
    assert child.returncode == 137, child.stderr
    _consistent()
    assert _state().status == review.UNVERIFIED and "cut short" in review.events()[1][0]
    assert review.decide(NAME, "accept", "m2").status == _state().status == review.ACCEPTED
    _consistent()


# --- (d) the FL submit page refuses an oversized upload without reading it ------------------


class _Upload:
    """A Streamlit upload whose bytes must not be read."""

    def __init__(self, size: int, name: str = "big.zip") -> None:
        self.size, self.name, self.file_id = size, name, "f1"

    def getvalue(self) -> bytes:
        raise AssertionError("the upload was read before its size was checked")


def test_an_oversized_fl_upload_is_refused_by_size_before_it_is_read(runs):
    from ui import fl

    stored, problems = fl.receive_uploaded(_Upload(CAP + 1))
    assert stored is None and len(problems) == 1
    assert LINE.match(problems[0]) and problems[0].startswith("big.zip: ")
    assert "over the 64 MiB cap" in problems[0]
    assert sorted(p.name for p in review.uploads_dir().iterdir()) == sorted(
        [
            NAME,
            review.LOG_NAME,
            review.LOCK_NAME,
            f"{review.LOG_NAME}.head",
            f"{review.LOG_NAME}.anchor",
        ]
    )  # nothing stored


def test_the_submit_page_shows_the_size_refusal_in_one_line(runs, monkeypatch):
    from streamlit.runtime.uploaded_file_manager import UploadedFile
    from streamlit.testing.v1 import AppTest

    small = replace(safezip.LIMITS["fl-submission"], bundle_bytes=1000)
    monkeypatch.setitem(safezip.LIMITS, "fl-submission", small)

    def unread(self) -> bytes:
        raise AssertionError("getvalue called on an oversized upload")

    monkeypatch.setattr(UploadedFile, "getvalue", unread)
    st.cache_data.clear()
    at = AppTest.from_file(str(paths.REPO_ROOT / "pages" / "fl" / "submit.py"), default_timeout=60)
    at.run()
    at.file_uploader[0].upload("big.zip", b"PK" + b"x" * 2000, "application/zip").run()
    assert not at.exception
    assert not at.success and at.error[0].value == "Not stored: 1 problem."
    (line,) = [t.value for t in at.text]
    assert LINE.match(line) and line.startswith("big.zip: ") and "cap" in line


# --- (e) vision hand-review marks: the audit line before the marks file ---------------------


def test_vision_save_review_writes_the_audit_line_before_the_marks(tmp_path, monkeypatch):
    from analytics.vision import runs as vision_runs
    from ui import vision as loaders

    root = tmp_path / "inbox"
    monkeypatch.setenv(inbox.ENV_INBOX, str(root))
    monkeypatch.setattr(paths, "RUNS_DIR", tmp_path / "runs")
    real, seen = vision_runs.save_failure_marks, []

    def marks_write(run_id: str, marks: pd.DataFrame, reviewer: str, **kwargs) -> Path:
        lines = [e for e in audit.read(root / audit.AUDIT_FILE) if e["action"] == "review-marks"]
        assert [(e["run_id"], e["maintainer"]) for e in lines] == [("run-1", "maint")]
        seen.append(run_id)
        return real(run_id, marks, reviewer, **kwargs)  # before_write: the review trail's entry

    monkeypatch.setattr(vision_runs, "save_failure_marks", marks_write)
    marks = pd.DataFrame(
        {"output_index": [0, 1], "input_name": ["a.jpg", "b.jpg"], "failure": [True, False]}
    )
    path = loaders.save_review("run-1", marks, Maintainer("maint"))
    assert seen == ["run-1"] and path.is_file()
    (line,) = audit.read(root / audit.AUDIT_FILE)
    assert (line["reason"], line["file"]) == ("1 failure marks", "run-1.parquet")
    trail, unvouched = review_trail.check(tmp_path / "runs")  # the committed trail vouches too
    (entry,) = trail.entries
    assert unvouched == [] and (entry["run_id"], entry["maintainer"]) == ("run-1", "maint")
