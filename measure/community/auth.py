"""Maintainer access: salted scrypt password hashes, constant-time checks, default deny.

Maintainers are configured as ``name -> hash`` pairs, from Streamlit secrets (a
``[maintainers]`` table, read by the page and passed in here) and from the environment variable
``MODELATLAS_MAINTAINERS="alice:scrypt$16384$8$1$<salt>$<hash>,bob:..."``. With none configured
every protected page and command refuses. ``python -m measure maintainer hash-password``
makes a hash. Documented in docs/community.md ("Maintainer access").
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

ENV_MAINTAINERS = "MODELATLAS_MAINTAINERS"
ENV_PASSWORD = "MODELATLAS_PASSWORD"
SCHEME = "scrypt"
SCRYPT_N = 2**14  # CPU/memory cost (16 MiB with r=8), OWASP's scrypt minimum is 2**13
SCRYPT_R = 8  # block size
SCRYPT_P = 1  # parallelism
SALT_BYTES = 16  # per-user random salt, 128 bit
KEY_BYTES = 32  # derived key length
MAX_N = 2**20  # refuse configured costs above this (1 GiB of memory with r=8)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

HOW_TO_CONFIGURE = (
    "no maintainer is configured, so access is denied; fix: create a hash with "
    "`python -m measure maintainer hash-password --name NAME` and put the printed "
    f"NAME:HASH in the environment variable {ENV_MAINTAINERS} (comma-separated for several), "
    'or under [maintainers] as NAME = "HASH" in .streamlit/secrets.toml'
)


class AuthError(PermissionError):
    """Access refused; the message says why (never which of name or password was wrong)."""


@dataclass(frozen=True)
class Maintainer:
    """A maintainer who has just proved their password (returned only by ``authenticate``)."""

    name: str


def hash_password(password: str, salt: bytes | None = None) -> str:
    """``scrypt$N$r$p$<salt hex>$<key hex>`` for a password, with a fresh random salt."""
    if not password:
        raise ValueError("the password is empty; fix: type a password")
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    key = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"{SCHEME}${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${key.hex()}"


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode(), salt=salt, n=n, r=r, p=p, maxmem=256 * r * n, dklen=KEY_BYTES
    )


def _parse(stored: str) -> tuple[int, int, int, bytes, bytes]:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != SCHEME:
        raise ValueError("expected scrypt$N$r$p$SALT$HASH")
    n, r, p = (int(x) for x in parts[1:4])
    if n < 2 or n & (n - 1) or n > MAX_N or not 1 <= r <= 64 or not 1 <= p <= 16:
        raise ValueError(f"scrypt parameters N={n} r={r} p={p} are out of range")
    salt, key = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
    if len(salt) < 8 or len(key) != KEY_BYTES:
        raise ValueError("salt or hash has the wrong length")
    return n, r, p, salt, key


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches ``stored``, compared in constant time."""
    n, r, p, salt, key = _parse(stored)
    return hmac.compare_digest(_scrypt(password, salt, n, r, p), key)


def _entries_from_env(text: str) -> dict[str, str]:
    out = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, stored = item.partition(":")
        if not sep:
            raise AuthError(f"{ENV_MAINTAINERS}: entry {item[:20]!r}… lacks NAME:; {_FIX}")
        out[name.strip()] = stored.strip()
    return out


_FIX = "fix: set it to NAME:HASH pairs made by `python -m measure maintainer hash-password`"


def load_maintainers(
    secrets_table: Mapping[str, str] | None = None, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Configured maintainers, ``name -> hash``; the environment overrides secrets by name.

    Raises AuthError naming the malformed entry, so a typo never silently locks people out.
    """
    environ = os.environ if environ is None else environ
    found = {str(k): str(v) for k, v in (secrets_table or {}).items()}
    found |= _entries_from_env(environ.get(ENV_MAINTAINERS, ""))
    for name, stored in found.items():
        if not _NAME.match(name):
            raise AuthError(f"maintainer name {name!r} is not a plain name; {_FIX}")
        try:
            _parse(stored)
        except ValueError as exc:
            raise AuthError(
                f"maintainer {name!r}: malformed password hash ({exc}); {_FIX}"
            ) from None
    return found


_DUMMY: list[str] = []


def _dummy_hash() -> str:
    if not _DUMMY:
        _DUMMY.append(hash_password(secrets.token_hex(16)))
    return _DUMMY[0]


def authenticate(name: str, password: str, maintainers: Mapping[str, str]) -> Maintainer:
    """The maintainer ``name`` if the password matches; AuthError otherwise (default deny).

    An unknown name costs the same scrypt work as a known one, so timing does not reveal names.
    """
    if not maintainers:
        raise AuthError(HOW_TO_CONFIGURE)
    stored = maintainers.get(name)
    matched = check_password(password or "", stored or _dummy_hash())
    if stored is None or not password or not matched:
        raise AuthError("maintainer login failed: unknown name or wrong password")
    return Maintainer(name)
