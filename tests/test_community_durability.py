"""Durability of the community inbox: the audit log's end is anchored
twice, unchained lines are never "intact", decisions and marks are written audit line first, a
killed write leaves no visible temp file, and a cut last line never swallows the next decision.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import paths
from measure import review_trail
from measure.__main__ import main
from measure.community import audit, auth, inbox, status
from measure.community.auth import Maintainer
from tests.fixtures.community.audit_log import log_lines as _lines
from tests.fixtures.community.audit_log import make_log as _log
from tests.fixtures.community.audit_log import write_lines as _write
from tests.fixtures.community.records import bundle_bytes, make_record, our_runs_table

MAINT = Maintainer("maint")
HASH = auth.hash_password("durability-test-password", salt=b"durability-salt!")


class Killed(BaseException):
    """A simulated SIGKILL: nothing in the code under test catches it."""


@pytest.fixture()
def dirs(tmp_path, monkeypatch) -> tuple[Path, Path]:
    root, runs = tmp_path / "inbox", tmp_path / "runs"
    monkeypatch.setattr(paths, "RUNS_DIR", runs)
    monkeypatch.setenv(inbox.ENV_INBOX, str(root))
    our_runs_table(runs, make_record(seed=100))
    return root, runs


def _queue(root: Path, runs: Path, seed: int = 1) -> str:
    return inbox.add(bundle_bytes(make_record(seed=seed), "alice"), f"{seed}.zip", root, runs)["id"]


def _verify_cli(folder: Path, capsys) -> tuple[int, str]:
    code = main(["audit", "verify", "--inbox", str(folder)])
    out = capsys.readouterr()
    return code, out.out + out.err


# --- item 6: the log's end and its chain -------------------------------------------------------


@pytest.mark.parametrize("also_anchor", [False, True])
def test_deleting_the_head_and_dropping_the_last_line_is_damage(tmp_path, capsys, also_anchor):
    path = _log(tmp_path)
    assert _verify_cli(tmp_path, capsys)[0] == 0
    audit.head_path(path).unlink()
    if also_anchor:
        audit.anchor_path(path).unlink()
    _write(path, _lines(path)[:-1])
    with pytest.raises(audit.AuditError, match="missing"):
        audit.verify(path)
    code, said = _verify_cli(tmp_path, capsys)
    assert code == 1 and "intact" not in said and "fix:" in said
    with pytest.raises(audit.AuditError):
        audit.append(path, "m", "accept", "x")  # nothing is appended to a damaged log


def test_a_stripped_chain_is_reported_as_unchained_never_intact(tmp_path, capsys):
    path = _log(tmp_path)
    stripped = []
    for line in _lines(path):
        entry = json.loads(line)
        entry.pop(audit.CHAIN_KEY)
        stripped.append(json.dumps(entry, sort_keys=True))
    _write(path, stripped)
    with pytest.raises(audit.AuditError) as caught:  # the head still pins them
        audit.verify(path)
    assert caught.value.where == str(path) and "no prev_sha256" in caught.value.what
    assert caught.value.fix == audit.RESTORE
    audit.head_path(path).unlink()
    audit.anchor_path(path).unlink()
    log = audit.verify(path)  # readable, but every line is reported as unchained
    assert log.legacy_lines == (1, 2, 3, 4) and log.legacy == 4
    code, said = _verify_cli(tmp_path, capsys)
    assert code == 1 and "unchained" in said and "1-4" in said and f"{path}: intact" not in said
    trail = review_trail.trail_log()  # also verified; only its own line may say "intact"
    assert all(x.startswith(f"{trail}: ") for x in said.splitlines() if ": intact" in x)


def test_a_kill_between_a_line_and_its_head_still_verifies(tmp_path, monkeypatch):
    path = _log(tmp_path, 2)
    with monkeypatch.context() as m:
        m.setattr(audit.atomic, "write_all", lambda *a, **k: (_ for _ in ()).throw(Killed()))
        with pytest.raises(Killed):
            audit.append(path, "m", "reject", "late", "x")
    assert audit.verify(path).lines == 3  # the head lags by one line: still a prefix
    audit.append(path, "m", "reject", "next", "x")
    assert [e["seq"] for e in audit.read(path)] == [1, 2, 3, 4]


# --- item 7: accept audit line first, no temp file left visible --------------------------------


def _kill_when(monkeypatch, hit) -> None:
    """Kill the process at the first ``os.replace`` (or audit append) that ``hit`` picks; after
    that nothing runs, not even the ``finally`` that would remove a temp file."""
    dead = []
    real_replace, real_unlink, real_append = os.replace, Path.unlink, audit.atomic.append_bytes

    def replace(src, dst, *a, **k):
        if dead or hit("replace", Path(dst)):
            dead.append(dst)
            raise Killed(dst)
        return real_replace(src, dst, *a, **k)

    def unlink(self, *a, **k):
        if dead:
            raise Killed(self)
        return real_unlink(self, *a, **k)

    def append_bytes(target, data):
        if dead or hit("append", Path(target)):
            dead.append(target)
            raise Killed(target)
        return real_append(target, data)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(Path, "unlink", unlink)
    monkeypatch.setattr(audit.atomic, "append_bytes", append_bytes)


KILL_POINTS = {
    "audit line": lambda kind, p: kind == "append" and p.name == audit.AUDIT_FILE,
    "state": lambda kind, p: kind == "replace" and p.name == inbox.STATE_FILE,
    "result": lambda kind, p: kind == "replace" and p.parent.name == status.RESULTS_TABLE,
}


def _accept_lines(root: Path, bundle_id: str) -> list[dict]:
    log = root / audit.AUDIT_FILE
    found = audit.read(log) if log.exists() else []
    return [e for e in found if e["bundle_id"] == bundle_id and e["action"] == "accept"]


@pytest.mark.parametrize("point", sorted(KILL_POINTS))
def test_a_killed_accept_never_lists_accepted_without_its_audit_line(dirs, monkeypatch, capsys,
                                                                     point):
    root, runs = dirs
    bundle_id = _queue(root, runs)
    with monkeypatch.context() as m:
        _kill_when(m, KILL_POINTS[point])
        with pytest.raises(Killed):
            inbox.accept(bundle_id, MAINT, root, runs)
    [entry] = inbox.entries(root)  # read-only, before any repair: the old or an audited state
    if entry["status"] == "accepted":
        [line] = _accept_lines(root, bundle_id)
        assert line["result_sha256"] == entry["result_sha256"]
    assert main(["inbox", "--inbox-dir", str(root), "list"]) == 0  # runs: paths.RUNS_DIR
    listed = capsys.readouterr().out
    assert bundle_id in listed and "no audit line" not in listed
    if "accepted" in listed:
        assert _accept_lines(root, bundle_id)
    assert not [p for p in (*root.rglob("*"), *runs.rglob("*")) if p.name.endswith(".tmp")]
    shown = status.load_results(runs, root)["result_id"].tolist()
    assert shown == ([bundle_id] if _accept_lines(root, bundle_id) else [])
    if _accept_lines(root, bundle_id):  # the audit line landed: the decision was completed
        assert inbox.entries(root)[0]["status"] == "accepted"
    assert inbox.unaudited(root) == set()


# --- item 7: marks after their audit line; the review sheet audits its saves -------------------


def _review_lines(root: Path) -> list[dict]:
    return [e for e in audit.read(root / audit.AUDIT_FILE) if e["action"] == "review-marks"]


def test_marks_are_written_only_after_their_audit_line(tmp_path):
    root, target = tmp_path / "inbox", tmp_path / "marks.parquet"

    def write() -> Path:
        assert [e["run_id"] for e in _review_lines(root)] == ["run-1"]  # the line came first
        target.write_bytes(b"marks")
        return target

    assert inbox.save_marks("run-1", MAINT, 2, write, root, file=target.name) == target
    [line] = _review_lines(root)
    assert (line["maintainer"], line["reason"], line["file"]) == ("maint", "2 failure marks",
                                                                   "marks.parquet")

    def killed() -> Path:
        raise Killed("marks write")

    with pytest.raises(Killed):
        inbox.save_marks("run-2", MAINT, 0, killed, root)
    assert [e["run_id"] for e in _review_lines(root)] == ["run-1", "run-2"]
    assert not (tmp_path / "run-2.parquet").exists()  # a line without marks, never the reverse

    def fails() -> Path:
        raise OSError("disk full")

    with pytest.raises(OSError):
        inbox.save_marks("run-3", MAINT, 0, fails, root)
    assert audit.read(root / audit.AUDIT_FILE)[-1]["action"] == "review-marks-failed"


def _review_sheet():
    spec = importlib.util.spec_from_file_location(
        "review_sheet", paths.REPO_ROOT / "scripts" / "review_sheet.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_review_sheet_checks_the_reviewer_and_audits_its_save(dirs, tmp_path, monkeypatch):
    root, runs = dirs
    monkeypatch.setenv("HOME", str(tmp_path))  # no real .streamlit/secrets.toml
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(auth.ENV_MAINTAINERS, raising=False)
    sheet = _review_sheet()
    with pytest.raises(SystemExit, match="no maintainer is configured"):
        sheet.reviewer("maint")
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{HASH}")
    with pytest.raises(SystemExit, match="'mallory' is not a configured maintainer"):
        sheet.reviewer("mallory")
    who = sheet.reviewer("maint")
    order = []
    real = sheet.runs.save_failure_marks

    def save(*args, **kwargs):
        order.append(len(_review_lines(root)))
        return real(*args, **kwargs)

    monkeypatch.setattr(sheet.runs, "save_failure_marks", save)
    marks = pd.DataFrame({"output_index": [0, 1], "input_name": ["a.png", "a.png"],
                          "failure": [True, False], "note": ["x", "y"]})
    path = sheet.store("run-9", marks, who, root, runs)
    assert order == [1]  # the audit line was there before the marks file was written
    assert path == runs / "vision_failures" / "run-9.parquet" and path.is_file()
    assert set(pd.read_parquet(path)["reviewer"]) == {"maint"}
    [line] = _review_lines(root)
    assert (line["maintainer"], line["run_id"], line["reason"]) == ("maint", "run-9",
                                                                    "1 failure marks")
    assert line["via"] == "scripts/review_sheet.py"


# --- a cut last line never swallows the next decision ------------------------------------------


def test_a_cut_last_line_does_not_swallow_the_next_event(tmp_path, capsys):
    path = _log(tmp_path, 2)
    with open(path, "ab") as handle:  # a crash in the middle of an append
        handle.write(b'{"action": "accept", "bundle_id": "cut')
    log = audit.verify(path)
    assert log.lines == 2 and log.cut and [n for n, _ in log.pending] == [3]
    code, said = _verify_cli(tmp_path, capsys)
    assert code == 0 and "interrupted append" in said
    audit.append(path, "maint", "reject", "next", "after the cut")
    raw = _lines(path)
    assert len(raw) == 4 and json.loads(raw[3])["bundle_id"] == "next"  # its own line
    log = audit.verify(path)
    assert [e["bundle_id"] for e in log.entries] == ["bundle000000", "bundle000001", "next"]
    assert log.torn_lines == (3,) and not log.cut and not log.pending
    _write(path, [*raw[:2], raw[2] + "x", raw[3]])  # the cut line, edited: the chain sees it
    with pytest.raises(audit.AuditError, match="line 4 names line 3 as cut"):
        audit.verify(path)


def test_a_cut_repeated_before_the_next_append_is_acknowledged_whole(tmp_path):
    path = _log(tmp_path, 1)
    with open(path, "ab") as handle:
        handle.write(b'{"action": "acc')  # cut once ...
        handle.write(b'\n{"action": "reject", "bun')  # ... and the next append cut again
    assert [n for n, _ in audit.verify(path).pending] == [2, 3]
    audit.append(path, "maint", "accept", "third", "")
    log = audit.verify(path)
    assert [e["bundle_id"] for e in log.entries] == ["bundle000000", "third"]
    assert log.torn_lines == (2, 3)


def test_an_accept_after_a_cut_audit_line_is_published(dirs):
    root, runs = dirs
    first, second = _queue(root, runs, 1), _queue(root, runs, 2)
    inbox.accept(first, MAINT, root, runs)
    with open(root / audit.AUDIT_FILE, "ab") as handle:
        handle.write(b'{"action": "accept", "bundle_id": "')
    inbox.accept(second, MAINT, root, runs)
    assert sorted(inbox.published(root, runs)) == sorted([first, second])
    assert [e["bundle_id"] for e in audit.read(root / audit.AUDIT_FILE)] == [first, second]
