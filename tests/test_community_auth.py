"""Maintainer access (salted scrypt, constant-time, default deny) and the append-only audit log."""

from __future__ import annotations

import json
import os

import pytest

from measure.community import audit, auth

SALT = b"0123456789abcdef"
STORED = auth.hash_password("hunter2-but-longer", salt=SALT)


def test_hash_format_and_a_fresh_salt_each_time():
    scheme, n, r, p, salt, key = STORED.split("$")
    assert (scheme, n, r, p) == ("scrypt", "16384", "8", "1") and salt == SALT.hex()
    assert len(bytes.fromhex(key)) == auth.KEY_BYTES
    one, two = auth.hash_password("same"), auth.hash_password("same")
    assert one != two and auth.check_password("same", one) and auth.check_password("same", two)
    with pytest.raises(ValueError, match="empty"):
        auth.hash_password("")


def test_authenticate_accepts_only_the_right_password():
    table = {"alice": STORED}
    assert auth.authenticate("alice", "hunter2-but-longer", table) == auth.Maintainer("alice")
    for name, password in [("alice", "hunter2"), ("bob", "hunter2-but-longer"), ("alice", "")]:
        with pytest.raises(auth.AuthError) as caught:
            auth.authenticate(name, password, table)
        assert str(caught.value) == "maintainer login failed: unknown name or wrong password"


def test_default_deny_when_nobody_is_configured():
    with pytest.raises(auth.AuthError) as caught:
        auth.authenticate("alice", "anything", {})
    assert caught.value.what == "no maintainer is configured, so access is denied"
    assert "python -m measure maintainer hash-password" in caught.value.fix
    assert isinstance(caught.value, PermissionError)  # what callers catch keeps working
    assert auth.load_maintainers({}, environ={}) == {}


def test_comparison_is_constant_time_and_unknown_names_cost_the_same(monkeypatch):
    compared, derived = [], []
    real_compare, real_scrypt = auth.hmac.compare_digest, auth._scrypt
    monkeypatch.setattr(
        auth.hmac, "compare_digest", lambda a, b: compared.append(1) or real_compare(a, b)
    )
    monkeypatch.setattr(auth, "_scrypt", lambda *a: derived.append(1) or real_scrypt(*a))
    auth._dummy_hash((auth.SCRYPT_N, auth.SCRYPT_R, auth.SCRYPT_P))
    derived.clear()
    with pytest.raises(auth.AuthError):
        auth.authenticate("nobody", "x", {"alice": STORED})
    assert compared == [1] and derived == [1]


def test_maintainers_from_environment_and_secrets():
    env = {auth.ENV_MAINTAINERS: f" alice:{STORED} , bob:{STORED}"}
    assert auth.load_maintainers(environ=env) == {"alice": STORED, "bob": STORED}
    other = auth.hash_password("x", salt=SALT)
    merged = auth.load_maintainers({"alice": other, "carol": other}, environ=env)
    assert merged == {"alice": STORED, "bob": STORED, "carol": other}  # environment wins


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("alice", "lacks NAME:"),
        ("alice:plain-text-password", "malformed password hash"),
        (f"alice:{STORED[:-2]}", "wrong length"),
        ("al ice:" + STORED, "not a plain name"),
        ("alice:scrypt$1048577$8$1$00$00", "out of range"),
    ],
)
def test_a_malformed_entry_is_named_not_ignored(value, fragment):
    with pytest.raises(auth.AuthError, match=fragment):
        auth.load_maintainers(environ={auth.ENV_MAINTAINERS: value})


def test_audit_log_appends_and_fsyncs(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    path = tmp_path / audit.AUDIT_FILE
    audit.append(path, "alice", "accept", "abc123abc123")
    first = path.read_bytes()
    audit.append(path, "bob", "reject", "def456def456", "median 3x ours", github="eve")
    assert path.read_bytes().startswith(first)  # earlier lines untouched
    entries = audit.read(path)
    assert [e["action"] for e in entries] == ["accept", "reject"]
    assert all(set(audit.FIELDS) <= set(e) for e in entries)
    assert entries[1]["reason"] == "median 3x ours" and entries[1]["github"] == "eve"
    assert len(synced) >= 2
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_audit_log_names_a_corrupt_line(tmp_path):
    path = tmp_path / audit.AUDIT_FILE
    path.write_text('{"action": "accept"}\nnot json\n')
    with pytest.raises(ValueError, match="line 2 is not JSON"):
        audit.read(path)
