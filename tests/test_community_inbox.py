"""The review inbox: accept/reject with audit, racing processes, and the CLI contracts."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import paths
from measure.community import audit, auth, inbox, status, validate
from measure.community.auth import Maintainer
from tests.fixtures.community.records import (
    bundle_bytes,
    make_record,
    our_runs_table,
    tree_digest,
)

PASSWORD = "correct horse battery staple"
HASH = auth.hash_password(PASSWORD, salt=b"fixed-test-salt!")
MAINT = Maintainer("maint")


@pytest.fixture()
def dirs(tmp_path, monkeypatch):
    root, runs = tmp_path / "inbox", tmp_path / "runs"
    monkeypatch.setattr(paths, "RUNS_DIR", runs)
    our_runs_table(runs, make_record(seed=100))
    return root, runs


def _queue(root: Path, runs: Path, seeds, github: str = "alice") -> list[str]:
    return [
        inbox.add(bundle_bytes(make_record(seed=s), github), f"{s}.zip", root, runs)["id"]
        for s in seeds
    ]


def test_accept_stores_one_row_and_audits_the_decision(dirs):
    root, runs = dirs
    [bundle_id] = _queue(root, runs, [1])
    entry = inbox.accept(bundle_id, MAINT, root, runs)
    assert entry["status"] == "accepted" and entry["decided_by"] == "maint"
    assert not (root / "queued" / f"{bundle_id}.zip").exists()
    assert (root / "accepted" / f"{bundle_id}.zip").exists()
    rows = pd.read_parquet(runs / "community_results" / f"{bundle_id}.parquet")
    assert len(rows) == 1 and rows.loc[0, "github"] == "alice"
    assert rows.loc[0, "provenance"] == "community" and rows.loc[0, "result_id"] == bundle_id
    assert rows.loc[0, "median_ms"] == pytest.approx(make_record(seed=1)["median_ms"])
    [line] = audit.read(root / audit.AUDIT_FILE)
    assert {k: line[k] for k in ("maintainer", "action", "bundle_id")} == {
        "maintainer": "maint",
        "action": "accept",
        "bundle_id": bundle_id,
    }
    assert line["time_utc"].endswith("+00:00")


def test_reject_needs_a_reason_and_keeps_the_bundle(dirs):
    root, runs = dirs
    [bundle_id] = _queue(root, runs, [1])
    before = tree_digest(root, runs)
    with pytest.raises(inbox.InboxError) as caught:
        inbox.reject(bundle_id, MAINT, "  ", root)
    assert (caught.value.code, caught.value.where) == ("no-reason", f"rejecting {bundle_id}")
    assert caught.value.what == "needs a reason" and "--reason" in caught.value.fix
    assert tree_digest(root, runs) == before
    entry = inbox.reject(bundle_id, MAINT, "median is 3x ours; please re-run", root)
    assert entry["status"] == "rejected" and (root / "rejected" / f"{bundle_id}.zip").exists()
    assert not (runs / "community_results").exists()
    assert audit.read(root / audit.AUDIT_FILE)[-1]["reason"] == "median is 3x ours; please re-run"


def test_a_decided_bundle_cannot_be_decided_again(dirs):
    root, runs = dirs
    [bundle_id] = _queue(root, runs, [1])
    inbox.accept(bundle_id, MAINT, root, runs)
    before = tree_digest(root, runs)
    for act in (
        lambda: inbox.accept(bundle_id, MAINT, root, runs),
        lambda: inbox.reject(bundle_id, MAINT, "late", root),
    ):
        with pytest.raises(inbox.InboxError) as caught:
            act()
        assert caught.value.code == "already-decided" and caught.value.fix == "nothing to do"
        assert caught.value.what.startswith(f"already accepted (by {MAINT.name} at ")
    with pytest.raises(inbox.InboxError) as caught:
        inbox.accept("nope", MAINT, root, runs)
    assert (caught.value.code, caught.value.where) == ("unknown-id", str(root))
    assert caught.value.what == "no bundle 'nope'" and "inbox list" in caught.value.fix
    assert tree_digest(root, runs) == before


def test_an_id_collision_or_a_corrupt_state_file_is_refused(dirs, monkeypatch):
    root, runs = dirs
    monkeypatch.setattr(validate, "ID_CHARS", 1)  # one hex digit: collisions are easy to force
    by_digit: dict[str, list[int]] = {}
    for seed in range(1, 40):
        digit = validate.bundle.content_sha256(make_record(seed=seed))[:1]
        by_digit.setdefault(digit, []).append(seed)
    first, twin = next(seeds for seeds in by_digit.values() if len(seeds) > 1)[:2]
    _queue(root, runs, [first])
    before = tree_digest(root, runs)
    with pytest.raises(inbox.InboxError) as caught:
        _queue(root, runs, [twin])
    assert caught.value.code == "id-collision"
    assert tree_digest(root, runs) == before
    monkeypatch.setattr(validate, "ID_CHARS", 12)
    (root / inbox.STATE_FILE).write_text("[1, 2")
    with pytest.raises(inbox.InboxError) as caught:
        _queue(root, runs, [3])
    assert caught.value.where == str(root / inbox.STATE_FILE)
    assert caught.value.what.startswith("not an inbox state file (unreadable: ")
    (root / inbox.STATE_FILE).write_text(json.dumps({"format": "modelatlas-inbox"}))
    with pytest.raises(inbox.InboxError) as caught:
        inbox.entries(root)
    assert (caught.value.code, caught.value.what) == ("state", "'bundles' is not an object")
    assert caught.value.fix.startswith("restore it from backup")


def test_a_tampered_stored_bundle_is_not_accepted(dirs):
    root, runs = dirs
    [bundle_id] = _queue(root, runs, [1])
    path = root / "queued" / f"{bundle_id}.zip"
    data = bytearray(path.read_bytes())
    data[200] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(inbox.InboxError) as caught:
        inbox.accept(bundle_id, MAINT, root, runs)
    assert (caught.value.code, caught.value.where) == ("tampered", str(root))
    assert caught.value.what == f"bundle file of {bundle_id} changed since it was received"
    assert not (runs / "community_results").exists()


def _accept(bundle_id: str, root: Path, runs: Path) -> str:
    try:
        inbox.accept(bundle_id, Maintainer(f"m{os.getpid()}"), root, runs)
    except inbox.InboxError as exc:
        return exc.code
    return "ok"


def _add(seed: int, root: Path, runs: Path) -> str:
    try:
        return inbox.add(bundle_bytes(make_record(seed=seed)), "x.zip", root, runs)["id"]
    except inbox.InboxError as exc:
        return exc.code


def _in_child(fn, job, barrier, results) -> None:
    barrier.wait(timeout=60)  # all start together
    results.put(fn(*job))


def _race(fn, jobs: list[tuple]) -> list[str]:
    """Run ``fn(*job)`` for every job in its own process, all released at once."""
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(len(jobs)), ctx.Queue()
    procs = [ctx.Process(target=_in_child, args=(fn, job, barrier, results)) for job in jobs]
    for proc in procs:
        proc.start()
    out = [results.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    return out


def test_two_processes_accepting_the_same_bundle_count_it_once(dirs):
    root, runs = dirs
    [bundle_id] = _queue(root, runs, [1])
    outcomes = _race(_accept, [(bundle_id, root, runs)] * 2)
    assert sorted(outcomes) == ["already-decided", "ok"]
    assert len(status.load_results(runs, root)) == 1
    assert [e["action"] for e in audit.read(root / audit.AUDIT_FILE)] == ["accept"]
    assert inbox.entries(root)[0]["status"] == "accepted"


def test_processes_accepting_different_bundles_lose_nothing(dirs):
    root, runs = dirs
    ids = _queue(root, runs, [1, 2, 3, 4])
    assert _race(_accept, [(i, root, runs) for i in ids]) == ["ok"] * 4
    assert {e["id"]: e["status"] for e in inbox.entries(root)} == dict.fromkeys(ids, "accepted")
    assert sorted(status.load_results(runs, root)["result_id"]) == sorted(ids)
    assert sorted(e["bundle_id"] for e in audit.read(root / audit.AUDIT_FILE)) == sorted(ids)


def test_concurrent_uploads_queue_each_bundle_once(dirs):
    root, runs = dirs
    out = _race(_add, [(s, root, runs) for s in (1, 2, 3, 3)])
    assert out.count("duplicate") == 1
    assert len(inbox.entries(root, inbox.QUEUED)) == 3


# --- command line -----------------------------------------------------------------------------


def _cli(tmp: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MODELATLAS_")}
    clean |= {
        "HOME": str(tmp),
        "PYTHONPATH": str(paths.REPO_ROOT),
        "MODELATLAS_RUNS_DIR": str(tmp / "runs"),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "measure", *args],
        cwd=tmp,
        env=clean,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture()
def cli_bundle(tmp_path) -> tuple[Path, str]:
    """A record file packaged with ``measure submit`` and queued with ``measure inbox add``."""
    record = make_record(seed=7)
    path = tmp_path / "records" / f"{record['run_id']}.json"
    path.parent.mkdir()
    path.write_text(json.dumps(record))
    done = _cli(tmp_path, "submit", str(path), "--github", "alice", "--out", "b.zip")
    assert done.returncode == 0, done.stderr
    assert "wrote b.zip" in done.stdout
    done = _cli(tmp_path, "inbox", "--inbox-dir", "ib", "add", "b.zip")
    assert done.returncode == 0, done.stderr
    bundle_id = done.stdout.split()[1]
    assert f"queued {bundle_id} for review" in done.stdout
    return tmp_path, bundle_id


def test_cli_submit_refuses_a_bad_name_and_writes_nothing(tmp_path):
    record = make_record(seed=7)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    done = _cli(tmp_path, "submit", str(path), "--github", "not a name", "--out", "b.zip")
    assert done.returncode == 1 and not (tmp_path / "b.zip").exists()
    assert done.stderr.strip().count("\n") == 0 and "is not a GitHub user name" in done.stderr
    done = _cli(tmp_path, "inbox", "--inbox-dir", "ib", "add", str(path))
    assert done.returncode == 1 and "not a readable ZIP" in done.stderr
    assert not (tmp_path / "ib").exists()


def test_cli_accept_refuses_without_a_configured_maintainer(cli_bundle):
    tmp, bundle_id = cli_bundle
    before = tree_digest(tmp / "ib")
    done = _cli(
        tmp,
        "inbox",
        "--inbox-dir",
        "ib",
        "accept",
        bundle_id,
        "--maintainer",
        "maint",
        MODELATLAS_PASSWORD=PASSWORD,
    )
    assert done.returncode == 1 and "no maintainer is configured" in done.stderr
    done = _cli(
        tmp,
        "inbox",
        "--inbox-dir",
        "ib",
        "reject",
        bundle_id,
        "--maintainer",
        "maint",
        "--reason",
        "x",
        MODELATLAS_PASSWORD=PASSWORD,
    )
    assert done.returncode == 1 and "access is denied" in done.stderr
    done = _cli(
        tmp,
        "inbox",
        "--inbox-dir",
        "ib",
        "accept",
        bundle_id,
        "--maintainer",
        "maint",
        MODELATLAS_MAINTAINERS=f"maint:{HASH}",
        MODELATLAS_PASSWORD="wrong",
    )
    assert done.returncode == 1 and "login failed" in done.stderr
    after = tree_digest(tmp / "ib")  # the failed sign-in is counted (server-side throttle) ...
    assert {k for k in after if "login-throttle" in k} == {
        "ib/login-throttle.json",
        "ib/login-throttle.json.lock",
    }
    assert {k: v for k, v in after.items() if "login-throttle" not in k} == before  # ... only


def test_cli_accept_and_reject_with_a_maintainer(cli_bundle):
    tmp, bundle_id = cli_bundle
    env = {"MODELATLAS_MAINTAINERS": f"maint:{HASH}"}
    done = _cli(
        tmp,
        "inbox",
        "--inbox-dir",
        "ib",
        "accept",
        bundle_id,
        "--maintainer",
        "maint",
        stdin=PASSWORD + "\n",
        **env,
    )
    assert done.returncode == 0, done.stderr
    assert f"accepted {bundle_id} by maint" in done.stdout
    assert status.load_results(tmp / "runs", tmp / "ib")["result_id"].tolist() == [bundle_id]
    listed = _cli(tmp, "inbox", "--inbox-dir", "ib", "list", "--status", "accepted")
    assert bundle_id in listed.stdout and "alice" in listed.stdout
    done = _cli(
        tmp,
        "inbox",
        "--inbox-dir",
        "ib",
        "reject",
        bundle_id,
        "--maintainer",
        "maint",
        "--reason",
        "x",
        MODELATLAS_PASSWORD=PASSWORD,
        **env,
    )
    assert done.returncode == 1 and "already accepted" in done.stderr


def test_cli_hash_password_prints_a_working_entry(tmp_path):
    done = _cli(tmp_path, "maintainer", "hash-password", "--name", "bob", stdin="s3cret\n")
    assert done.returncode == 0, done.stderr
    name, stored = done.stdout.strip().split(":", 1)
    assert name == "bob" and stored.startswith("scrypt$16384$8$1$")
    table = auth.load_maintainers(environ={auth.ENV_MAINTAINERS: done.stdout.strip()})
    assert auth.authenticate("bob", "s3cret", table) == Maintainer("bob")
    assert _cli(tmp_path, "maintainer", "hash-password", stdin="\n").returncode == 1


def test_cli_hash_password_reads_the_password_variable_first(tmp_path):
    done = _cli(tmp_path, "maintainer", "hash-password", "--name", "bob", stdin="not-this\n",
                MODELATLAS_PASSWORD="from-the-env")
    assert done.returncode == 0, done.stderr
    table = auth.load_maintainers(environ={auth.ENV_MAINTAINERS: done.stdout.strip()})
    assert auth.authenticate("bob", "from-the-env", table) == Maintainer("bob")
