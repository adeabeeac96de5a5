"""Security regressions of the community track (probe findings 1, 2, 7, 8) and fuzzing.

1. an interrupted accept never publishes an undecided result; 2. only a signed-in maintainer
saves failure marks, and a save clears only the vision caches; 7. manifest caps and declared
keys, duplicate credit; 8. server-side sign-in throttling, scrypt minimums, the hash-chained
audit log. Then hypothesis fuzzing of ``validate_bundle`` and ``inbox.add``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tracemalloc
import zipfile
from pathlib import Path

import pandas as pd
import pytest
import streamlit as st
from hypothesis import given, settings
from hypothesis import strategies as hs
from streamlit.testing.v1 import AppTest

import measure.__main__ as measure_cli
from analytics.core import atomic, db, paths, run_unit
from measure.community import audit, auth, bundle, inbox, inbox_store, status
from measure.community.auth import Maintainer
from measure.community.validate import BundleError, validate_bundle
from tests.fixtures.community.audit_log import log_lines as _lines
from tests.fixtures.community.audit_log import make_log as _log
from tests.fixtures.community.audit_log import write_lines as _write
from tests.fixtures.community.records import (
    ADAPTER,
    bundle_bytes,
    make_record,
    members_of,
    our_runs_table,
    raw_zip,
    tree_digest,
)

MAINT = Maintainer("maint")
PASSWORD = "security-test-password"
HASH = auth.hash_password(PASSWORD, salt=b"security-salt-01")
VERSION = "test-security-community"


@pytest.fixture()
def dirs(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """An empty inbox and runs holding one measurement of ours (also the defaults)."""
    root, runs = tmp_path / "inbox", tmp_path / "runs"
    monkeypatch.setattr(paths, "RUNS_DIR", runs)
    monkeypatch.setenv(inbox.ENV_INBOX, str(root))
    monkeypatch.delenv(auth.ENV_MAINTAINERS, raising=False)
    our_runs_table(runs, make_record(seed=100))
    return root, runs


def _queue(root: Path, runs: Path, seed: int = 1, github: str = "alice") -> str:
    return inbox.add(bundle_bytes(make_record(seed=seed), github), f"{seed}.zip", root, runs)["id"]


# --- 1. an interrupted accept publishes nothing undecided --------------------------------------


class Killed(BaseException):
    """A simulated SIGKILL: nothing in the code under test catches it."""


WRITES = (
    (atomic, "write_parquet"),
    (atomic, "write_json"),
    (atomic, "write_bytes"),
    (atomic, "write_all"),
    (atomic, "append_bytes"),
    (inbox_store, "move_bundle"),
)
"""Every step that writes during accept (atomic writes, the audit append and its head and
anchor, the bundle move)."""


def _kill_at(monkeypatch, step: int | None) -> list[str]:
    """Let ``step`` writes happen, then kill the process at the next one (None: never)."""
    done: list[str] = []
    for module, name in WRITES:
        real = getattr(module, name)

        def wrapped(*args, _real=real, _name=name, **kwargs):
            if step is not None and len(done) >= step:
                raise Killed(_name)
            done.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapped)
    return done


def _agree(root: Path, runs: Path, bundle_id: str) -> bool:
    """State accepted, audit's last decision an accept with the same hash, file with that hash."""
    if not (root / inbox.STATE_FILE).exists():
        return False
    entry = inbox.load_state(root)["bundles"][bundle_id]
    lines = [e for e in audit.read(root / audit.AUDIT_FILE) if e["bundle_id"] == bundle_id]
    path = runs / status.RESULTS_TABLE / f"{bundle_id}.parquet"
    return (
        entry["status"] == "accepted"
        and bool(lines)
        and lines[-1]["action"] == "accept"
        and lines[-1]["result_sha256"] == entry["result_sha256"]
        and path.is_file()
        and hashlib.sha256(path.read_bytes()).hexdigest() == entry["result_sha256"]
    )


def _shown(root: Path, runs: Path) -> list[str]:
    """What the model page would list (the page-side reader)."""
    return status.community_table(ADAPTER, runs, root)["contributor"].tolist()


def _accept_steps(tmp_path, monkeypatch) -> int:
    root, runs = tmp_path / "count" / "inbox", tmp_path / "count" / "runs"
    bundle_id = _queue(root, runs)
    with monkeypatch.context() as m:
        done = _kill_at(m, None)
        inbox.accept(bundle_id, MAINT, root, runs)
    return len(done)


ACCEPT_STEPS = 8  # pending result, audit head+anchor created (first line), audit line,
# head+anchor, state, result, bundle move, state (docs/community.md: audit line first)


def test_accept_has_the_steps_the_kill_test_covers(dirs, tmp_path, monkeypatch):
    assert _accept_steps(tmp_path, monkeypatch) == ACCEPT_STEPS


@pytest.mark.parametrize("step", range(ACCEPT_STEPS + 1))
def test_a_kill_at_any_accept_step_never_shows_an_undecided_result(dirs, monkeypatch, step):
    root, runs = dirs
    bundle_id = _queue(root, runs)
    with monkeypatch.context() as m:
        _kill_at(m, step)
        try:
            inbox.accept(bundle_id, MAINT, root, runs)
        except Killed:
            pass
    shown = _shown(root, runs)
    assert shown == (["alice"] if _agree(root, runs, bundle_id) else [])
    try:
        inbox.reject(bundle_id, MAINT, "changed my mind", root, runs)
    except inbox.InboxError as exc:  # the accept was durable (state and audit): it completes
        assert exc.code == "already-decided"
        assert _agree(root, runs, bundle_id) and _shown(root, runs) == ["alice"]
    else:
        assert _shown(root, runs) == []
        assert not list((runs / status.RESULTS_TABLE).glob("*.parquet"))
        assert not list((root / inbox.PENDING).glob("*"))


@pytest.mark.parametrize("step", range(ACCEPT_STEPS))
def test_deleting_the_inbox_mid_accept_leaves_nothing_public(dirs, monkeypatch, step):
    root, runs = dirs
    bundle_id = _queue(root, runs)
    with monkeypatch.context() as m:
        _kill_at(m, step)
        try:
            inbox.accept(bundle_id, MAINT, root, runs)
        except Killed:
            pass
    shutil.rmtree(root)
    assert _shown(root, runs) == []


def test_an_orphaned_result_file_is_ignored_and_a_reject_removes_it(dirs):
    root, runs = dirs
    bundle_id = _queue(root, runs)
    row = status.result_row(
        make_record(seed=1),
        "alice",
        "2026-11-21T09:00:00+00:00",
        result_id=bundle_id,
        content_sha256=inbox.load_state(root)["bundles"][bundle_id]["content_sha256"],
        flags=[],
        our_median_ms=None,
        accepted_by="nobody",
        accepted_utc="2026-11-21T10:00:00+00:00",
    )
    orphan = runs / status.RESULTS_TABLE / f"{bundle_id}.parquet"
    atomic.write_parquet(orphan, row)  # what the old accept order left after a kill
    assert _shown(root, runs) == []
    inbox.reject(bundle_id, MAINT, "not reproducible", root, runs)
    assert not orphan.exists() and _shown(root, runs) == []


def test_a_result_file_swapped_after_accept_is_not_shown(dirs):
    root, runs = dirs
    good, other = _queue(root, runs, 1), _queue(root, runs, 2, "bob")
    inbox.accept(good, MAINT, root, runs)
    assert _shown(root, runs) == ["alice"]
    path = runs / status.RESULTS_TABLE / f"{good}.parquet"
    frame = pd.read_parquet(path).assign(median_ms=1.0)
    atomic.write_parquet(path, frame)
    assert _shown(root, runs) == []
    assert inbox.published(root, runs) == {}
    assert other in inbox.load_state(root)["bundles"]


# --- 2. failure marks need a signed-in maintainer; a save clears only the vision caches -------

FIXTURE = "tests/fixtures/measure/busy_adapter.py"


@pytest.fixture(scope="module")
def vision_store(tmp_path_factory) -> Path:
    """One CPU measurement of the busy-wait adapter (5 outputs for hand review)."""
    from measure.runner import RunRequest, run_measurement

    root = tmp_path_factory.mktemp("vision")
    run_measurement(RunRequest(adapter=f"{FIXTURE}:BusyWait2ms", out=root / "runs",
                               runs=1, warmup=0, calls=5))
    for table in (root / "runs").glob("vision_*/*.parquet"):  # shown as a registered model
        frame = pd.read_parquet(table)
        if "adapter" in frame.columns:
            frame.assign(adapter="mtcnn-facenet").to_parquet(table)
    for record in (root / "runs" / "records").glob("*.json"):  # sealed again as edited here
        run_unit.seal(root / "runs", record.stem)
    return root


@pytest.fixture()
def model_page(vision_store, tmp_path, monkeypatch) -> Path:
    """A copy of the store, under a snapshot version of its own (the page's DuckDB connection is
    cached per version, so each test gets one on its own copy)."""
    runs, version = tmp_path / "runs", f"{VERSION}-{tmp_path.name}"
    shutil.copytree(vision_store / "runs", runs)
    snapshot = tmp_path / "snapshots" / version
    snapshot.mkdir(parents=True)
    (snapshot / "MANIFEST.json").write_text(json.dumps({"version": version}))
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", tmp_path / "snapshots")
    monkeypatch.setattr(paths, "RUNS_DIR", runs)
    monkeypatch.setattr(db, "ensure_snapshot", lambda *a, **k: version)
    monkeypatch.setenv(inbox.ENV_INBOX, str(tmp_path / "inbox"))
    monkeypatch.delenv(auth.ENV_MAINTAINERS, raising=False)
    return tmp_path


def _model_app(signed_in: str | None = None) -> AppTest:
    at = AppTest.from_file(str(paths.REPO_ROOT / "pages/vision/model.py"), default_timeout=60)
    at.query_params["model"] = "mtcnn-facenet"
    if signed_in:
        at.session_state["maintainer"] = signed_in
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("configured", [False, True])
def test_failure_marks_cannot_be_saved_without_a_signed_in_maintainer(
    model_page, monkeypatch, configured
):
    if configured:
        monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{HASH}")
    before = tree_digest(model_page)
    at = _model_app(signed_in=None if configured else "maint")  # a stale name is not enough
    assert any("Output #" in d.value.columns for d in at.dataframe)  # shown, read-only
    assert not [b for b in at.button if b.label == "Save review"]
    assert not [d for d in at.dataframe if d.proto.editing_mode]  # no editor
    assert tree_digest(model_page) == before


_PROBE: list[int] = []


@st.cache_data(show_spinner=False)
def _probe_cache(x: int) -> int:
    _PROBE.append(x)
    return x


def test_a_maintainer_save_is_audited_and_clears_only_vision_caches(model_page, monkeypatch):
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{HASH}")
    cleared = []
    monkeypatch.setattr(st.cache_data, "clear", lambda *a, **k: cleared.append("all"))
    _PROBE.clear()
    _probe_cache(7)
    at = _model_app(signed_in="maint")
    assert [d for d in at.dataframe if d.proto.editing_mode]  # the editor
    save = next(b for b in at.button if b.label == "Save review")
    save.click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "as maint" in at.success[0].value
    [saved] = (model_page / "runs" / "vision_failures").glob("*.parquet")
    assert set(pd.read_parquet(saved)["reviewer"]) == {"maint"}
    [line] = audit.read(model_page / "inbox" / audit.AUDIT_FILE)
    assert (line["maintainer"], line["action"]) == ("maint", "review-marks")
    assert line["run_id"] == saved.stem
    _probe_cache(7)
    assert cleared == [] and _PROBE == [7]  # every other cache (the Elo fits too) survived


# --- 7. manifest size and declared keys; duplicate credit ---------------------------------------


def _rezip(members: dict[str, bytes]) -> bytes:
    entries = []
    for name in sorted(members):
        info = zipfile.ZipInfo(name, date_time=bundle.ZIP_DATE)
        info.external_attr = 0o100644 << 16
        entries.append((info, members[name]))
    return raw_zip(entries)


def _with_json(member: str, change) -> bytes:
    members = members_of(bundle_bytes(make_record(seed=3)))
    doc = json.loads(members[member])
    change(doc)
    members[member] = json.dumps(doc).encode()
    if member != bundle.MANIFEST:
        members.pop(bundle.MANIFEST)
        return bundle.zip_bytes(members)
    return _rezip(members)


@pytest.mark.parametrize(
    ("member", "change", "code", "fragment"),
    [
        (bundle.MANIFEST, lambda d: d.update(extra="x"), "schema", "unknown key 'extra'"),
        (
            bundle.MANIFEST,
            lambda d: d["members"][0].update(note="x"),
            "schema",
            "members[] has unknown key 'note'",
        ),
        (bundle.SUBMISSION, lambda d: d.update(credit="me"), "schema", "unknown key 'credit'"),
        (
            bundle.MANIFEST,
            lambda d: d.update(pad=os.urandom(300_000).hex()),
            "oversized-member",
            "MANIFEST.json is",
        ),
    ],
)
def test_manifest_and_submission_keys_and_size_are_capped(dirs, member, change, code, fragment):
    root, runs = dirs
    data = _with_json(member, change)
    before = tree_digest(runs)
    tracemalloc.start()
    try:
        with pytest.raises(BundleError) as caught:
            inbox.add(data, "big.zip", root, runs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert caught.value.code == code and fragment in str(caught.value)
    assert "\n" not in str(caught.value) and "; fix: " in str(caught.value)
    assert peak < 8 * len(data) + 16 * 2**20  # refused before the JSON is parsed into objects
    assert not root.exists() and tree_digest(runs) == before


def test_cli_add_refuses_an_oversized_manifest_in_one_line(dirs, tmp_path, capsys):
    root, runs = dirs
    path = tmp_path / "big.zip"
    path.write_bytes(_with_json(bundle.MANIFEST, lambda d: d.update(pad="ab" * 70_000)))
    assert measure_cli.main(["inbox", "--inbox-dir", str(root), "add", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "over its 64 KiB cap" in err


def test_a_copied_record_keeps_the_first_uploaders_credit_and_names_them(dirs):
    root, runs = dirs
    first = _queue(root, runs, seed=4, github="alice")
    before = tree_digest(root, runs)
    with pytest.raises(inbox.InboxError) as caught:
        inbox.add(bundle_bytes(make_record(seed=4), "mallory"), "copy.zip", root, runs)
    dup = caught.value
    assert (dup.code, dup.where) == ("duplicate", "copy.zip")
    assert dup.what.startswith(f"duplicate of bundle {first} ")
    assert "first sent by 'alice'" in dup.what
    assert dup.fix.startswith("if the run is yours")
    assert "\n" not in str(dup) and tree_digest(root, runs) == before
    with pytest.raises(inbox.InboxError) as caught:
        inbox.add(bundle_bytes(make_record(seed=4), "ALICE"), "again.zip", root, runs)
    assert caught.value.fix == "nothing to do, it is already in"
    inbox.accept(first, MAINT, root, runs)
    with pytest.raises(inbox.InboxError, match="accepted\\), first sent by 'alice'"):
        inbox.add(bundle_bytes(make_record(seed=4), "mallory"), "copy.zip", root, runs)
    assert _shown(root, runs) == ["alice"]


# --- 8. sign-in throttling, scrypt minimums, malformed hashes ---------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_throttle_locks_a_name_then_the_client_and_releases_after_the_window(tmp_path):
    clock = Clock()
    throttle = auth.Throttle(tmp_path / auth.THROTTLE_FILE, clock=clock)
    table = {"maint": HASH}
    for _ in range(auth.MAX_FAILURES_PER_NAME):
        with pytest.raises(auth.AuthError, match="login failed"):
            auth.sign_in("Maint", "wrong", table, throttle)
    again = auth.Throttle(tmp_path / auth.THROTTLE_FILE, clock=clock)  # another session/process
    with pytest.raises(auth.AuthError, match="too many failed sign-ins for this name") as caught:
        auth.sign_in("maint", PASSWORD, table, again)
    assert "; fix: try again in" in str(caught.value)
    assert auth.sign_in("other", PASSWORD, {**table, "other": HASH}, again).name == "other"
    clock.now += auth.LOCKOUT_S + 1
    assert auth.sign_in("maint", PASSWORD, table, again) == MAINT
    for i in range(auth.MAX_FAILURES_PER_CLIENT):
        clock.now += 1
        with pytest.raises(auth.AuthError, match="login failed"):
            auth.sign_in(f"guess{i % 4}", "wrong", table, throttle)
    with pytest.raises(auth.AuthError, match="from this client"):  # not everyone: no global count
        auth.sign_in("maint", PASSWORD, table, throttle)
    assert auth.sign_in("maint", PASSWORD, table, throttle, client="web:10.0.0.2") == MAINT


def test_a_good_sign_in_clears_only_that_names_failures(tmp_path):
    throttle = auth.Throttle(tmp_path / auth.THROTTLE_FILE, clock=Clock())
    for _ in range(auth.MAX_FAILURES_PER_NAME - 1):
        with pytest.raises(auth.AuthError):
            auth.sign_in("maint", "wrong", {"maint": HASH}, throttle)
    assert auth.sign_in("maint", PASSWORD, {"maint": HASH}, throttle) == MAINT
    with pytest.raises(auth.AuthError, match="login failed"):
        auth.sign_in("maint", "wrong", {"maint": HASH}, throttle)  # counting from zero again


def _review_app() -> AppTest:
    at = AppTest.from_file(str(paths.REPO_ROOT / "pages/vision/review.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _try_sign_in(at: AppTest, password: str) -> AppTest:
    at.text_input(key="review_login_name").input("maint")
    at.text_input(key="review_login_password").input(password)
    next(b for b in at.button if b.label == "Sign in").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_reload_does_not_reset_the_sign_in_lockout(dirs, monkeypatch):
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{HASH}")
    at = _review_app()
    for _ in range(auth.MAX_FAILURES_PER_NAME):
        _try_sign_in(at, "wrong")
    fresh = _try_sign_in(_review_app(), PASSWORD)  # a new browser session, right password
    assert "too many failed sign-ins" in fresh.error[0].value
    assert not fresh.dataframe


def _stored(n: int, r: int, p: int) -> str:
    return f"scrypt${n}${r}${p}${'00' * 16}${'11' * 32}"


@pytest.mark.parametrize(
    ("stored", "fragment"),
    [
        (_stored(2**10, 8, 1), "too weak"),
        (_stored(2**14, 1, 1), "too weak"),
        (_stored(2, 8, 1), "too weak"),
        (_stored(2**20, 8, 1), "out of range"),  # passed before, then crashed hashlib at sign-in
        (_stored(2**14, 8, 16 * 8), "out of range"),
        ("scrypt$x$8$1$00$00", "must be integers"),
        ("scrypt$16384$8$1$zz$00", "hex digits"),
    ],
)
def test_weak_or_malformed_hashes_are_refused_in_one_line(stored, fragment):
    with pytest.raises(auth.AuthError) as caught:
        auth.load_maintainers(environ={auth.ENV_MAINTAINERS: f"maint:{stored}"})
    assert caught.value.where == "maintainer 'maint'" and fragment in caught.value.what
    assert caught.value.fix == auth.MAINTAINERS_FIX and "\n" not in str(caught.value)
    with pytest.raises(auth.AuthError, match="malformed password hash"):
        auth.authenticate("maint", "x", {"maint": stored})  # no ValueError, no traceback


def test_cli_accept_with_an_unusable_hash_is_one_line_not_a_crash(
    dirs, tmp_path, capsys, monkeypatch
):
    root, runs = dirs
    bundle_id = _queue(root, runs)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{_stored(2**20, 8, 1)}")
    monkeypatch.setenv(auth.ENV_PASSWORD, "x")
    argv = ["inbox", "--inbox-dir", str(root), "accept", bundle_id, "--maintainer", "maint"]
    assert measure_cli.main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "out of range" in err
    assert _shown(root, runs) == []


# --- 8. the hash-chained audit log -------------------------------------------------------------


def _edit(line: str) -> str:
    return line.replace('"reason": "reason', '"reason": "REASON')


@pytest.mark.parametrize(
    ("damage", "line_no"),
    [
        (lambda ls: [ls[0], _edit(ls[1]), *ls[2:]], 3),  # edited
        (lambda ls: [*ls[:-1], _edit(ls[-1])], 4),  # edited last line (the head catches it)
        (lambda ls: [ls[0], *ls[2:]], 2),  # dropped
        (lambda ls: ls[1:], 1),  # dropped first
        (lambda ls: ls[:-1], 4),  # dropped last (the head catches it)
        (lambda ls: [ls[0], ls[2], ls[1], ls[3]], 2),  # reordered
        (lambda ls: [*ls[:2], '{"action": "accept"}', *ls[2:]], 3),  # inserted, unchained
        (lambda ls: [ls[0], "not json", *ls[2:]], 2),
    ],
)
def test_audit_verify_names_the_damaged_line(tmp_path, capsys, damage, line_no):
    from measure.__main__ import main

    path = _log(tmp_path)
    assert audit.verify(path).lines == 4
    assert main(["audit", "verify", "--inbox", str(tmp_path)]) == 0
    assert "intact, 4 lines" in capsys.readouterr().out
    _write(path, damage(_lines(path)))
    with pytest.raises(audit.AuditError, match=f"line {line_no} "):
        audit.verify(path)
    assert main(["audit", "verify", "--inbox", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"line {line_no} " in err and "fix:" in err
    with pytest.raises(audit.AuditError):
        audit.append(path, "m", "accept", "x")  # nothing is appended to a damaged log
    assert path.read_text().count("\n") == len(damage(_lines(_log(tmp_path / "again"))))


def test_a_legacy_prefix_is_verified_and_pinned_by_the_first_chained_line(tmp_path):
    path = tmp_path / audit.AUDIT_FILE
    old = [
        json.dumps(
            {
                "time_utc": "2026-01-01T00:00:00+00:00",
                "maintainer": "a",
                "action": "accept",
                "bundle_id": f"old{i}",
                "reason": "",
            },
            sort_keys=True,
        )
        for i in range(2)
    ]
    _write(path, old)
    assert audit.verify(path).legacy == 2
    audit.append(path, "maint", "reject", "new1", "x")
    log, good = audit.verify(path), _lines(path)
    assert (log.lines, log.legacy) == (3, 2)
    _write(path, [old[0].replace('"a"', '"b"'), *_lines(path)[1:]])
    with pytest.raises(audit.AuditError, match="line 3 "):
        audit.verify(path)
    _write(path, [*good, old[0]])
    with pytest.raises(audit.AuditError, match="line 4 has no prev_sha256"):
        audit.verify(path)


def test_a_damaged_audit_log_gives_one_line_on_the_pages_and_hides_results(dirs, monkeypatch):
    root, runs = dirs
    bundle_id = _queue(root, runs)
    inbox.accept(bundle_id, MAINT, root, runs)
    log = root / audit.AUDIT_FILE
    _write(log, [_lines(log)[0].replace('"maint"', '"someone-else"')])
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{HASH}")
    at = AppTest.from_file(str(paths.REPO_ROOT / "pages/vision/review.py"), default_timeout=60)
    at.session_state["maintainer"] = "maint"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    [damaged] = [e.value for e in at.error if "audit log is damaged" in e.value]
    assert "\n" not in damaged and "line 1 " in damaged
    with pytest.raises(inbox.InboxError) as caught:
        status.load_results(runs, root)
    assert caught.value.code == "audit"
    model = AppTest.from_file(str(paths.REPO_ROOT / "pages/vision/model.py"), default_timeout=60)
    model.query_params["model"] = ADAPTER
    model.run()
    assert not model.exception, [e.value for e in model.exception]
    assert any("Community results are hidden" in e.value for e in model.error)


# --- fuzzing: nothing but the project's one-line errors, within a memory bound ------------------

MEMORY_CAP = 48 * 2**20  # bytes traced during one call on a fuzzed input of at most 64 KiB
JSON = hs.recursive(
    hs.none() | hs.booleans() | hs.integers() | hs.floats(allow_nan=False) | hs.text(max_size=12),
    lambda inner: (
        hs.lists(inner, max_size=4) | hs.dictionaries(hs.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
NAMES = hs.sampled_from(
    [
        bundle.MANIFEST,
        bundle.SUBMISSION,
        bundle.RECORD,
        bundle.REQUIREMENTS,
        bundle.PIP_FREEZE,
        "adapter/x.py",
        "../evil",
        "/abs",
        "a/./b",
        "dir/",
    ]
) | hs.text(min_size=1, max_size=20)
_GOOD = make_record(seed=30)


def _paths(doc, prefix=()):
    """Key paths into a record (list items: the first two only)."""
    yield prefix
    items = (
        doc.items()
        if isinstance(doc, dict)
        else enumerate(doc[:2] if isinstance(doc, list) else [])
    )
    for key, value in items:
        yield from _paths(value, (*prefix, key))


RECORD_PATHS = [p for p in _paths(_GOOD) if p]


def _only_own_errors(call) -> None:
    """``call()`` succeeds or raises BundleError/InboxError (one line), within MEMORY_CAP."""
    tracemalloc.start()
    try:
        call()
    except (BundleError, inbox.InboxError) as exc:
        assert "\n" not in str(exc) and "; fix: " in str(exc), str(exc)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < MEMORY_CAP, peak


@pytest.fixture(scope="module")
def warm():
    """Import and cache what validation loads once (registry, tasks), outside the traced calls."""
    validate_bundle(bundle_bytes(make_record(seed=31)), "warm.zip", compare_ours=False)


@settings(max_examples=40)
@given(data=hs.binary(max_size=4096))
def test_fuzz_random_bytes(warm, dirs, data):
    root, runs = dirs
    _only_own_errors(lambda: validate_bundle(data, "f.zip", runs_dir=runs))
    _only_own_errors(lambda: inbox.add(data, "f.zip", root, runs))
    _only_own_errors(lambda: inbox.add(b"PK\x03\x04" + data, "f.zip", root, runs))


@settings(max_examples=40)
@given(members=hs.dictionaries(NAMES, hs.binary(max_size=512) | JSON.map(
    lambda v: json.dumps(v).encode()), max_size=8))
def test_fuzz_random_zip_members(warm, dirs, members):
    root, runs = dirs
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, value in members.items():
            archive.writestr(name, value)
    data = buffer.getvalue()
    _only_own_errors(lambda: inbox.add(data, "z.zip", root, runs))


def _set(doc, path, value, delete):
    target = doc
    for key in path[:-1]:
        target = target[key]
    if delete and isinstance(target, dict):
        target.pop(path[-1])
    else:
        target[path[-1]] = value


@settings(max_examples=100)
@given(
    path=hs.sampled_from(RECORD_PATHS),
    value=JSON,
    delete=hs.booleans(),
    member=hs.sampled_from([bundle.RECORD, bundle.SUBMISSION, bundle.MANIFEST]),
)
def test_fuzz_structured_bundle_content(warm, dirs, path, value, delete, member):
    root, runs = dirs
    members = members_of(bundle_bytes(_GOOD))
    if member == bundle.RECORD:
        record = json.loads(json.dumps(_GOOD))
        _set(record, path, value, delete)
        members[bundle.RECORD] = json.dumps(record).encode()
        members.pop(bundle.MANIFEST)
        data = bundle.zip_bytes(members)  # a fresh manifest: the record checks are reached
    else:
        doc = json.loads(members[member])
        key = sorted(doc)[len(path) % len(doc)]
        doc[key] = value
        members[member] = json.dumps(doc).encode()
        data = _rezip(members)
    _only_own_errors(lambda: validate_bundle(data, "s.zip", runs_dir=runs))
    _only_own_errors(lambda: inbox.add(data, "s.zip", root, runs))


def test_a_save_with_a_damaged_audit_log_writes_nothing_and_says_so(model_page, monkeypatch):
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{HASH}")
    log = model_page / "inbox" / audit.AUDIT_FILE
    log.parent.mkdir(parents=True)
    log.write_text("not json\n")
    at = _model_app(signed_in="maint")
    next(b for b in at.button if b.label == "Save review").click().run()
    assert not at.exception, [e.value for e in at.exception]
    [error] = [e.value for e in at.error if e.value.startswith("Not saved:")]
    assert "line 1 is not JSON" in error and "\n" not in error
    assert not (model_page / "runs" / "vision_failures").exists()
