"""Maintainer access: salted scrypt password hashes, constant-time checks, default deny.

Maintainers are configured as ``name -> hash`` pairs, from Streamlit secrets (a
``[maintainers]`` table, read by the page and passed in here) and from the environment variable
``MODELATLAS_MAINTAINERS="alice:scrypt$16384$8$1$<salt>$<hash>,bob:..."``. With none configured
every protected page and command refuses. ``python -m measure maintainer hash-password``
makes a hash. Documented in docs/community.md ("Maintainer access").
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from analytics.core import atomic

ENV_MAINTAINERS = "MODELATLAS_MAINTAINERS"
ENV_PASSWORD = "MODELATLAS_PASSWORD"
SCHEME = "scrypt"
SCRYPT_N = 2**14  # CPU/memory cost (16 MiB with r=8), OWASP's scrypt minimum is 2**13
SCRYPT_R = 8  # block size
SCRYPT_P = 1  # parallelism
SALT_BYTES = 16  # per-user random salt, 128 bit
KEY_BYTES = 32  # derived key length
MIN_N, MIN_R, MIN_P = 2**14, 8, 1  # weaker hashes are refused when the config is loaded
MAX_N = 2**20  # refuse configured costs above these (memory and time spent per sign-in)
MIB = 2**20
MAX_MEMORY = 2**30  # scrypt memory per check (hashlib refuses maxmem >= 2**31)
MAX_WORK = 2**24  # N * r * p: 128 times the default's work
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


def _memory(n: int, r: int, p: int) -> int:
    """Bytes scrypt needs (OpenSSL's rule: 128 r p for B plus 128 r (N + 2) for V)."""
    return 128 * r * (n + p + 2)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode(), salt=salt, n=n, r=r, p=p, maxmem=_memory(n, r, p) + MIB, dklen=KEY_BYTES
    )


def _check_cost(n: int, r: int, p: int) -> None:
    """Refuse costs under the minimum (too weak) or beyond what this server will spend."""
    if n < MIN_N or r < MIN_R or p < MIN_P:
        raise ValueError(
            f"scrypt parameters N={n} r={r} p={p} are too weak (the minimum is N={MIN_N} "
            f"r={MIN_R} p={MIN_P}); make a new hash"
        )
    if n & (n - 1) or n > MAX_N or r > 64 or p > 16 or _memory(n, r, p) > MAX_MEMORY:
        raise ValueError(
            f"scrypt parameters N={n} r={r} p={p} are out of range (N a power of two, at most "
            f"{MAX_MEMORY // MIB} MiB of memory, r <= 64, p <= 16)"
        )
    if n * r * p > MAX_WORK:
        raise ValueError(f"scrypt parameters N={n} r={r} p={p} are out of range (too slow)")


def _parse(stored: str) -> tuple[int, int, int, bytes, bytes]:
    parts = str(stored).split("$")
    if len(parts) != 6 or parts[0] != SCHEME:
        raise ValueError("expected scrypt$N$r$p$SALT$HASH")
    try:
        n, r, p = (int(x) for x in parts[1:4])
        salt, key = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
    except ValueError:
        raise ValueError("N, r, p must be integers and SALT, HASH hex digits") from None
    _check_cost(n, r, p)
    if len(salt) < 8 or len(key) != KEY_BYTES:
        raise ValueError("salt or hash has the wrong length")
    return n, r, p, salt, key


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches ``stored``, compared in constant time.

    A malformed or unusable stored hash raises AuthError (one line), never a crash.
    """
    try:
        n, r, p, salt, key = _parse(stored)
        derived = _scrypt(password, salt, n, r, p)
    except (ValueError, MemoryError) as exc:
        what = f"a configured maintainer has a malformed password hash ({exc})"
        raise AuthError(f"{what}; {_FIX}") from None
    return hmac.compare_digest(derived, key)


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


# --- sign-in throttling, server-side ----------------------------------------------------------

THROTTLE_FILE = "login-throttle.json"
MAX_FAILURES_PER_NAME = 5  # failed sign-ins for one name within the window, then it is locked
MAX_FAILURES_TOTAL = 20  # failed sign-ins for all names within the window, then all are locked
LOCKOUT_S = 15 * 60  # the sliding window (and so the longest lockout), seconds
MAX_NAMES = 1000  # names remembered (the oldest are forgotten first)
ALL = "*"  # the key of the global count


class Throttle:
    """Failed sign-ins per maintainer name and overall, in a small JSON file shared by every
    browser session and process (``<inbox>/login-throttle.json``, guarded by flock).

    A name with ``per_name`` failures inside the last ``window_s`` seconds, or everyone after
    ``total`` failures, is refused until the oldest of those failures leaves the window.
    """

    def __init__(
        self,
        path: Path,
        per_name: int = MAX_FAILURES_PER_NAME,
        total: int = MAX_FAILURES_TOTAL,
        window_s: float = LOCKOUT_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path, self.per_name, self.total = Path(path), per_name, total
        self.window_s, self.clock = window_s, clock

    @contextmanager
    def _locked(self) -> Iterator[dict[str, list[float]]]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(f"{self.path}.lock", "a") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield self._load()
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _load(self) -> dict[str, list[float]]:
        try:
            found = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        now = self.clock()
        return {
            str(k): [float(t) for t in v if now - float(t) < self.window_s]
            for k, v in (found.items() if isinstance(found, dict) else [])
            if isinstance(v, list) and all(isinstance(t, int | float) for t in v)
        }

    def _save(self, seen: dict[str, list[float]]) -> None:
        kept = {k: v for k, v in seen.items() if v}
        names = sorted((k for k in kept if k != ALL), key=lambda k: kept[k][-1])
        for old in names[: max(0, len(names) - MAX_NAMES)]:
            kept.pop(old)
        atomic.write_json(self.path, kept)

    @staticmethod
    def key(name: str) -> str:
        """The name as counted (case-insensitive, at most 64 characters)."""
        return str(name or "").strip().lower()[:64]

    def _refusal(self, seen: dict[str, list[float]], name: str) -> str | None:
        for key, cap, who in ((self.key(name), self.per_name, "this name"), (ALL, self.total, "")):
            times = seen.get(key, [])
            if len(times) >= cap:
                wait = int(sorted(times)[-cap] + self.window_s - self.clock()) + 1
                scope = f"for {who}" if who else "on this server"
                return (
                    f"too many failed sign-ins {scope} ({len(times)} in "
                    f"{self.window_s / 60:.0f} min); fix: try again in {wait} s"
                )
        return None

    def check(self, name: str) -> None:
        """Raise AuthError when ``name`` (or everyone) is locked out now."""
        with self._locked() as seen:
            refusal = self._refusal(seen, name)
        if refusal:
            raise AuthError(refusal)

    def record(self, name: str, ok: bool) -> None:
        """Count a failed sign-in, or forget the name's failures after a good one."""
        with self._locked() as seen:
            if ok:
                seen.pop(self.key(name), None)
            else:
                for key in (self.key(name), ALL):
                    seen.setdefault(key, []).append(self.clock())
            self._save(seen)


def sign_in(
    name: str, password: str, maintainers: Mapping[str, str], throttle: Throttle | None
) -> Maintainer:
    """``authenticate`` behind the server-side throttle (every failure counts)."""
    if throttle is not None and maintainers:
        throttle.check(name)
    try:
        who = authenticate(name, password, maintainers)
    except AuthError:
        if throttle is not None and maintainers:
            throttle.record(name, ok=False)
        raise
    if throttle is not None:
        throttle.record(name, ok=True)
    return who
