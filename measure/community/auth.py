"""Maintainer access: salted scrypt password hashes, constant-time checks, default deny.

Maintainers are configured as ``name -> hash`` pairs, from Streamlit secrets (a
``[maintainers]`` table, read by the page and passed in here) and from the environment variable
``MODELATLAS_MAINTAINERS="alice:scrypt$16384$8$1$<salt>$<hash>,bob:..."``. With none configured
every protected page and command refuses. ``python -m measure maintainer hash-password``
makes a hash. Documented in docs/community.md ("Maintainer access").

Sign-in is throttled server-side (``Throttle``, ``sign_in``): each attempt is recorded before its
password is checked, under a flock shared by threads and processes, and forgotten only when the
password was right. 5 attempts for one name in 15 minutes lock that name for the web; 20 from one
client (``web:<address>``, ``cli:<user>``) lock that client; the command line is refused only by
its own attempts, and there is no server-wide count, so nobody can lock every maintainer out.
Documented in docs/security.md ("Sign-in throttling").
"""

from __future__ import annotations

import fcntl
import getpass
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
from analytics.core.problems import Problem

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


class AuthError(Problem, PermissionError):
    """Access refused: ``what`` says why (never which of name or password was wrong), ``fix``
    what to do where there is something."""


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
        raise AuthError(what=what, fix=MAINTAINERS_FIX) from None
    return hmac.compare_digest(derived, key)


def _entries_from_env(text: str) -> dict[str, str]:
    out = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, stored = item.partition(":")
        if not sep:
            raise AuthError(ENV_MAINTAINERS, f"entry {item[:20]!r}… lacks NAME:", MAINTAINERS_FIX)
        out[name.strip()] = stored.strip()
    return out


MAINTAINERS_FIX = "set it to NAME:HASH pairs made by `python -m measure maintainer hash-password`"


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
            what = f"maintainer name {name!r} is not a plain name"
            raise AuthError(what=what, fix=MAINTAINERS_FIX)
        try:
            _parse(stored)
        except ValueError as exc:
            what = f"malformed password hash ({exc})"
            raise AuthError(f"maintainer {name!r}", what, MAINTAINERS_FIX) from None
    return found


_DUMMY: dict[tuple[int, int, int], str] = {}


def _dummy_hash(cost: tuple[int, int, int]) -> str:
    """A hash of a random secret at scrypt cost ``(N, r, p)``, made once per cost."""
    if cost not in _DUMMY:
        n, r, p = cost
        salt = secrets.token_bytes(SALT_BYTES)
        key = _scrypt(secrets.token_hex(16), salt, n, r, p)
        _DUMMY[cost] = f"{SCHEME}${n}${r}${p}${salt.hex()}${key.hex()}"
    return _DUMMY[cost]


def _cost(stored: str) -> tuple[int, int, int]:
    n, r, p, _salt, _key = _parse(stored)
    return n, r, p


def authenticate(name: str, password: str, maintainers: Mapping[str, str]) -> Maintainer:
    """The maintainer ``name`` if the password matches; AuthError otherwise (default deny).

    Every attempt costs the same scrypt work, whatever the name: one scrypt at each cost that
    any configured hash uses (the name's own hash at its cost, a dummy at the others), so
    neither an unknown name nor a maintainer hashed at a higher cost shows in the timing.
    """
    if not maintainers:
        raise AuthError(HOW_TO_CONFIGURE)
    stored = maintainers.get(name)
    try:
        costs = sorted({_cost(h) for h in maintainers.values()})
        own = _cost(stored) if stored is not None else None
    except ValueError as exc:
        what = f"a configured maintainer has a malformed password hash ({exc})"
        raise AuthError(what=what, fix=MAINTAINERS_FIX) from None
    matched = False
    for cost in costs:
        if cost == own:
            matched = check_password(password or "", stored)
        else:
            check_password(password or "", _dummy_hash(cost))
    if stored is None or not password or not matched:
        raise AuthError(what="maintainer login failed: unknown name or wrong password")
    return Maintainer(name)


# --- sign-in throttling, server-side ----------------------------------------------------------

THROTTLE_FILE = "login-throttle.json"
THROTTLE_VERSION = 2  # {"version": 2, "attempts": [...], "damaged_at": T?}; 1 = {name: [T, ...]}
MAX_FAILURES_PER_NAME = 5  # sign-in attempts for one name within the window, then it is locked
MAX_FAILURES_PER_CLIENT = 20  # attempts from one client, all names, in the window: it is locked
MAX_KNOWN = 1000  # (name, client) pairs remembered as having signed in (the oldest forgotten)
LOCKOUT_S = 15 * 60  # the sliding window (and so the longest lockout), seconds
MAX_ATTEMPTS = 20_000  # attempts remembered (the oldest are forgotten first)
CLI_PREFIX = "cli:"  # client keys of the command line on the server (see Throttle)
WEB_LOCAL = "web:localhost"  # the pages' client key when Streamlit gives no address (localhost)
UNKNOWN_CLIENT = "web:unknown"  # the client key when the caller names none
LEGACY_CLIENT = "legacy:"  # failures migrated from a version-1 file (no client was recorded)


def cli_client() -> str:
    """The command line's client key: ``cli:<user name of this process>``."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = f"uid{os.getuid()}"
    return f"{CLI_PREFIX}{user}"


class Throttle:
    """Sign-in attempts per maintainer name and per client, in a small JSON file shared by
    every browser session and process (``<inbox>/login-throttle.json``, guarded by flock on
    ``login-throttle.json.lock``).

    An attempt is recorded *before* its password is checked, in the same critical section as
    the lockout check (``begin``); the scrypt work runs outside the lock; a good password then
    forgets that attempt and the same client's earlier failures for that name (``finish``), a
    bad one leaves it counted. So concurrent guesses cannot all pass the check: within
    ``window_s`` at most ``per_name`` passwords are evaluated for one name and at most
    ``per_client`` for one client. An attempt whose process died counts as a failure.

    The rule (no count locks every maintainer out, there is no server-wide count):

    - ``per_name`` attempts for a name (case-insensitive, from any client) lock that name for
      every web client until the oldest of them leaves the window;
    - ``per_client`` attempts from one client (all names) lock that client, for all names;
    - a command-line client (key ``cli:<user>``, the server's own shell) is refused only by its
      own attempts (``per_name`` for one name, ``per_client`` in all): anyone who can run it
      against the inbox can edit this file anyway, so a lock that web guesses put on it would
      protect nothing and only keep maintainers out.

    A file in the version-1 format (``{name: [times]}``) is read as those names' failures from
    an unknown client (the old server-wide ``"*"`` count is dropped). A damaged file (not JSON,
    or not one of the two shapes) is kept as ``login-throttle.json.damaged`` and replaced by an
    empty one, and web sign-ins are refused for one window from then (what was counted is
    unknown, so nobody is let through unthrottled, and nobody is kept out for longer); the
    command line still signs in.
    """

    def __init__(
        self,
        path: Path,
        per_name: int = MAX_FAILURES_PER_NAME,
        per_client: int = MAX_FAILURES_PER_CLIENT,
        window_s: float = LOCKOUT_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path, self.per_name, self.per_client = Path(path), per_name, per_client
        self.window_s, self.clock = window_s, clock

    @contextmanager
    def _locked(self) -> Iterator[dict]:
        """The current state under an exclusive flock (threads and processes alike); saved."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(f"{self.path}.lock", "a") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                state = self._load()
                yield state
                self._save(state)
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _load(self) -> dict:
        now = self.clock()
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {"attempts": []}
        except (OSError, ValueError):
            text = None
        state = None if text is None else _parse_state(text)
        if state is None:  # damaged: keep it for a look, refuse the web for one window
            try:
                os.replace(self.path, f"{self.path}.damaged")
            except OSError:
                pass
            return {"attempts": [], "damaged_at": now}
        state["attempts"] = [
            a for a in state["attempts"] if now - self.window_s < a["t"] <= now + self.window_s
        ]
        damaged = state.get("damaged_at")
        if damaged is not None and not now - self.window_s < damaged <= now + self.window_s:
            state.pop("damaged_at")
        return state

    def _save(self, state: dict) -> None:
        out: dict = {"version": THROTTLE_VERSION, "attempts": state["attempts"][-MAX_ATTEMPTS:]}
        if state.get("damaged_at") is not None:
            out["damaged_at"] = state["damaged_at"]
        if state.get("known"):
            out["known"] = state["known"][-MAX_KNOWN:]
        atomic.write_json(self.path, out)

    @staticmethod
    def key(name: str) -> str:
        """The name as counted (case-insensitive, at most 64 characters)."""
        return str(name or "").strip().lower()[:64]

    @staticmethod
    def client_key(client: str | None) -> str:
        """The client as counted (at most 128 characters; none given is ``web:unknown``)."""
        return str(client or "").strip()[:128] or UNKNOWN_CLIENT

    def _wait(self, times: list[float], cap: int) -> int:
        return max(1, int(sorted(times)[-cap] + self.window_s - self.clock()) + 1)

    def _refusal(self, state: dict, name: str, client: str) -> str | None:
        local = client.startswith(CLI_PREFIX)
        minutes = f"{self.window_s / 60:.0f} min"
        damaged = state.get("damaged_at")
        if damaged is not None and not local:
            wait = max(1, int(damaged + self.window_s - self.clock()) + 1)
            return (
                f"the sign-in throttle record {self.path.name} was damaged (kept as "
                f"{self.path.name}.damaged), so web sign-in is closed for {minutes}; fix: try "
                f"again in {wait} s, or sign in with the command line on the server"
            )
        attempts = state["attempts"]
        # a client that has signed in as this name before is held to its own failures only, so
        # guesses from anywhere (many addresses, or all behind one proxy) never lock a
        # maintainer out of the address they use; a new client shares the name's count
        mine = local or [name, client] in state.get("known", [])
        by_name = [
            a["t"] for a in attempts if a["name"] == name and (not mine or a["client"] == client)
        ]
        by_client = [a["t"] for a in attempts if a["client"] == client]
        for times, cap, who in (
            (by_name, self.per_name, "for this name"),
            (by_client, self.per_client, "from this client"),
        ):
            if len(times) >= cap:
                return (
                    f"too many failed sign-ins {who} ({len(times)} in {minutes}); "
                    f"fix: try again in {self._wait(times, cap)} s"
                )
        return None

    def begin(self, name: str, client: str | None = None) -> str:
        """Refuse (AuthError) when ``name`` or ``client`` is locked out now; otherwise record a
        pending attempt, counted as a failure until ``finish(token, ok=True)``, and return its
        token. Check and record are one critical section."""
        key, who = self.key(name), self.client_key(client)
        token = secrets.token_hex(8)
        with self._locked() as state:
            refusal = self._refusal(state, key, who)
            if refusal is None:
                attempt = {"t": self.clock(), "name": key, "client": who, "id": token}
                state["attempts"].append(attempt)
        if refusal:
            raise AuthError(refusal)
        return token

    def finish(self, token: str, ok: bool) -> None:
        """After a good password forget the attempt ``token`` and its client's earlier
        failures for that name (other clients' failures stay); after a bad one keep it."""
        if not ok:
            return
        with self._locked() as state:
            mine = next((a for a in state["attempts"] if a["id"] == token), None)
            if mine is not None:
                pair = [mine["name"], mine["client"]]
                known = [k for k in state.get("known", []) if k != pair]
                state["known"] = [*known, pair][-MAX_KNOWN:]
                state["attempts"] = [
                    a
                    for a in state["attempts"]
                    if not (a["name"] == mine["name"] and a["client"] == mine["client"])
                ]


def _is_time(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def _parse_state(text: str) -> dict | None:
    """The throttle state from a version-2 or version-1 file; None when damaged."""
    try:
        found = json.loads(text)
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None
    if not isinstance(found.get("version"), int):  # version 1: {"name": [times], "*": [all]}
        if not all(isinstance(v, list) and all(_is_time(t) for t in v) for v in found.values()):
            return None
        attempts = [
            {"t": float(t), "name": Throttle.key(k), "client": LEGACY_CLIENT, "id": ""}
            for k, v in found.items()
            if k != "*"
            for t in v
        ]
        return {"attempts": sorted(attempts, key=lambda a: a["t"])}
    attempts, damaged = found.get("attempts"), found.get("damaged_at")
    if found["version"] != THROTTLE_VERSION or not isinstance(attempts, list):
        return None
    known = found.get("known", [])
    if not isinstance(known, list) or not all(
        isinstance(k, list) and len(k) == 2 and all(isinstance(x, str) for x in k) for k in known
    ):
        return None
    if damaged is not None and not _is_time(damaged):
        return None
    fields = {"t": _is_time, "name": str, "client": str, "id": str}
    for attempt in attempts:
        if not isinstance(attempt, dict) or set(attempt) != set(fields):
            return None
        for field, kind in fields.items():
            ok = kind(attempt[field]) if kind is _is_time else isinstance(attempt[field], kind)
            if not ok:
                return None
    state: dict = {"attempts": attempts, "known": known[-MAX_KNOWN:]}
    if damaged is not None:
        state["damaged_at"] = float(damaged)
    return state


def sign_in(
    name: str,
    password: str,
    maintainers: Mapping[str, str],
    throttle: Throttle | None,
    client: str | None = None,
) -> Maintainer:
    """``authenticate`` behind the server-side throttle: the attempt is counted before the
    password is checked and forgotten only when it was right. ``client`` identifies the caller
    (``web:<address>`` from the pages, ``cli_client()`` from the command line)."""
    if throttle is None or not maintainers:
        return authenticate(name, password, maintainers)
    token = throttle.begin(name, client)
    who = authenticate(name, password, maintainers)  # an exception leaves the attempt counted
    throttle.finish(token, ok=True)
    return who
