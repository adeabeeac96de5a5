"""The sign-in throttle under concurrency, per name and per client, and its stored file.
Password checks are replaced by a counted 50 ms stand-in, so the tests count how many
passwords were evaluated instead of timing anything."""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest

from measure.community import auth, cli
from measure.community.auth import Maintainer

PASSWORD = "throttle-test-password"
HASH = auth.hash_password(PASSWORD, salt=b"throttle-salt-01")
TABLE = {"maint": HASH, "other": HASH}
MAINT = Maintainer("maint")
THREADS, PROCESSES, PER_PROCESS = 40, 8, 5


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def evaluations(tmp_path, monkeypatch):
    """How many passwords were checked so far (one byte appended per check, so forked
    processes count too); each check takes 50 ms, long enough for every guess to overlap."""
    counter = tmp_path / "evaluations"
    counter.write_bytes(b"")

    def counted(password: str, stored: str) -> bool:
        fd = os.open(counter, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, b".")
        finally:
            os.close(fd)
        time.sleep(0.05)
        return stored == HASH and password == PASSWORD

    monkeypatch.setattr(auth, "check_password", counted)
    return lambda: len(counter.read_bytes())


def _outcome(name: str, password: str, throttle: auth.Throttle, client: str) -> str:
    try:
        auth.sign_in(name, password, TABLE, throttle, client=client)
    except auth.AuthError as exc:
        return "locked" if "too many failed sign-ins" in str(exc) else "failed"
    return "ok"


def test_40_concurrent_wrong_guesses_for_one_name_check_at_most_5_passwords(tmp_path, evaluations):
    path = tmp_path / auth.THROTTLE_FILE
    start = threading.Barrier(THREADS)
    outcomes: list[str] = []

    def guess(i: int) -> None:
        start.wait()
        outcomes.append(_outcome("maint", "wrong", auth.Throttle(path), f"web:10.0.0.{i}"))

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert evaluations() == auth.MAX_FAILURES_PER_NAME == 5
    assert sorted(outcomes) == ["failed"] * 5 + ["locked"] * (THREADS - 5)
    assert _outcome("maint", PASSWORD, auth.Throttle(path), "web:10.0.1.1") == "locked"
    assert evaluations() == 5


def _guess_in_a_process(path: str, client: str, start, results) -> None:
    start.wait()
    for _ in range(PER_PROCESS):
        results.put(_outcome("maint", "wrong", auth.Throttle(Path(path)), client))


def test_8_processes_guessing_one_name_check_at_most_5_passwords(tmp_path, evaluations):
    context = multiprocessing.get_context("fork")  # children keep the counted password check
    start, results = context.Barrier(PROCESSES), context.Queue()
    path = str(tmp_path / auth.THROTTLE_FILE)
    workers = [
        context.Process(target=_guess_in_a_process, args=(path, f"web:10.0.2.{i}", start, results))
        for i in range(PROCESSES)
    ]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=30) for _ in range(PROCESSES * PER_PROCESS)]
    for worker in workers:
        worker.join(timeout=30)
        assert worker.exitcode == 0
    assert evaluations() == auth.MAX_FAILURES_PER_NAME
    assert sorted(outcomes) == ["failed"] * 5 + ["locked"] * (PROCESSES * PER_PROCESS - 5)


def test_an_attempt_is_counted_before_its_password_is_checked(tmp_path, monkeypatch):
    path = tmp_path / auth.THROTTLE_FILE
    seen: list[list[dict]] = []

    def peek(password: str, stored: str) -> bool:
        seen.append(json.loads(path.read_text())["attempts"])
        return password == PASSWORD

    monkeypatch.setattr(auth, "check_password", peek)
    assert auth.sign_in("maint", PASSWORD, TABLE, auth.Throttle(path), client="web:a") == MAINT
    assert [(a["name"], a["client"]) for a in seen[0]] == [("maint", "web:a")]
    assert json.loads(path.read_text()) == {  # forgotten: it was right; the client is now known
        "version": 2,
        "attempts": [],
        "known": [["maint", "web:a"]],
    }


def test_one_clients_failures_lock_that_client_only(tmp_path, evaluations):
    throttle = auth.Throttle(tmp_path / auth.THROTTLE_FILE, clock=Clock())
    outcomes = [_outcome(f"guess{i % 10}", "wrong", throttle, "web:10.6.6.6") for i in range(25)]
    assert outcomes == ["failed"] * auth.MAX_FAILURES_PER_CLIENT + ["locked"] * 5
    assert evaluations() == 20
    assert _outcome("other", PASSWORD, throttle, "web:10.6.6.6") == "locked"  # all names
    assert auth.sign_in("other", PASSWORD, TABLE, throttle, client="web:10.0.0.7").name == "other"
    assert auth.sign_in("maint", PASSWORD, TABLE, throttle, client="web:10.0.0.7") == MAINT
    assert evaluations() == 22


def test_a_name_under_attack_is_locked_on_the_web_but_not_on_the_command_line(
    tmp_path, evaluations, monkeypatch
):
    root = tmp_path / "inbox"
    monkeypatch.setenv("HOME", str(tmp_path))  # no secrets.toml of the machine running the tests
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{HASH},other:{HASH}")
    throttle = auth.Throttle(root / auth.THROTTLE_FILE)
    for i in range(auth.MAX_FAILURES_PER_NAME):  # from as many addresses as guesses
        assert _outcome("maint", "wrong", throttle, f"web:10.9.0.{i}") == "failed"
    assert _outcome("maint", PASSWORD, throttle, "web:10.0.0.7") == "locked"
    assert auth.sign_in("other", PASSWORD, TABLE, throttle, client="web:10.0.0.7").name == "other"
    monkeypatch.setenv(auth.ENV_PASSWORD, PASSWORD)
    assert cli.login("maint", root) == MAINT
    monkeypatch.setenv(auth.ENV_PASSWORD, "wrong")  # the command line counts its own failures
    for _ in range(auth.MAX_FAILURES_PER_NAME):
        with pytest.raises(auth.AuthError, match="login failed"):
            cli.login("maint", root)
    with pytest.raises(auth.AuthError, match="too many failed sign-ins for this name"):
        cli.login("maint", root)
    assert evaluations() == 5 + 1 + 1 + 5


def test_a_good_password_forgets_only_its_own_clients_failures(tmp_path, evaluations):
    throttle = auth.Throttle(tmp_path / auth.THROTTLE_FILE, clock=Clock())
    for _ in range(auth.MAX_FAILURES_PER_NAME - 1):
        assert _outcome("maint", "wrong", throttle, "web:attacker") == "failed"
    assert auth.sign_in("maint", PASSWORD, TABLE, throttle, client="web:owner") == MAINT
    assert _outcome("maint", "wrong", throttle, "web:attacker") == "failed"  # the 5th counts
    assert _outcome("maint", PASSWORD, throttle, "web:newcomer") == "locked"
    # the owner signed in from this address before: others' guesses never lock it out
    assert auth.sign_in("maint", PASSWORD, TABLE, throttle, client="web:owner") == MAINT
    assert evaluations() == 7


def test_an_old_format_file_counts_per_name_and_drops_the_global_count(tmp_path, evaluations):
    clock, path = Clock(), tmp_path / auth.THROTTLE_FILE
    now = clock.now
    old = {"maint": [now - 10.0] * 5, "other": [now - 20.0] * 3, "*": [now - 5.0] * 20}
    path.write_text(json.dumps(old))
    throttle = auth.Throttle(path, clock=clock)
    assert _outcome("maint", PASSWORD, throttle, "web:a") == "locked"
    assert _outcome("other", "wrong", throttle, "web:a") == "failed"  # 4th and 5th of "other"
    assert _outcome("other", "wrong", throttle, "web:b") == "failed"
    assert _outcome("other", PASSWORD, throttle, "web:c") == "locked"
    assert json.loads(path.read_text())["version"] == auth.THROTTLE_VERSION
    clock.now += auth.LOCKOUT_S + 1
    assert auth.sign_in("maint", PASSWORD, TABLE, throttle, client="web:a") == MAINT
    assert evaluations() == 3


@pytest.mark.parametrize(
    "damaged",
    [
        b"{not json",
        b"\xff\xfe\x00",
        b"[1, 2]",
        b'{"maint": "x"}',
        b'{"version": 2, "attempts": [{"t": "soon"}]}',
        b'{"version": 7, "attempts": []}',
    ],
)
def test_a_damaged_file_closes_web_sign_in_for_one_window_only(tmp_path, evaluations, damaged):
    clock, path = Clock(), tmp_path / auth.THROTTLE_FILE
    path.write_bytes(damaged)
    throttle = auth.Throttle(path, clock=clock)
    with pytest.raises(auth.AuthError, match="was damaged .*; fix: try again in 901 s"):
        auth.sign_in("maint", PASSWORD, TABLE, throttle, client="web:a")
    assert Path(f"{path}.damaged").read_bytes() == damaged  # kept for a look
    clock.now += auth.LOCKOUT_S - 1
    with pytest.raises(auth.AuthError, match="was damaged"):  # another process, still closed
        auth.sign_in("other", PASSWORD, TABLE, auth.Throttle(path, clock=clock), client="web:b")
    assert evaluations() == 0  # nobody got through unthrottled
    assert auth.sign_in("maint", PASSWORD, TABLE, throttle, client=auth.cli_client()) == MAINT
    clock.now += 2
    assert auth.sign_in("maint", PASSWORD, TABLE, throttle, client="web:a") == MAINT
    assert json.loads(path.read_text())["attempts"] == []
    assert evaluations() == 2
