"""Admission of anonymous work (uploads validated for visitors): at most a few at once in the
server process, and at most so many per client in a sliding window, so no single visitor, and
no crowd of them, can keep the server validating.

The counts live in the serving process (a Streamlit server is one process whose sessions are
threads); a restart forgets them, which costs an attacker nothing they could not get by waiting
out the window. The client is whatever key the caller gives (``ui.community.client``: the TCP
peer, or a configured trusted proxy header).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from analytics.core.problems import Problem


class Busy(Problem, RuntimeError):
    """Work refused for now: too many at once, or too many from this client lately."""


@dataclass
class Gate:
    """``at_once`` jobs at a time in this process; ``per_client`` starts per ``window_s``."""

    what: str  # what is admitted, for the refusal ("an FL upload")
    at_once: int = 2
    per_client: int = 10
    window_s: float = 600.0
    clients_kept: int = 10_000  # clients remembered (the longest idle are forgotten first)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _running: int = 0
    _starts: dict[str, deque] = field(default_factory=dict, repr=False)

    def _refusal(self, client: str | None, now: float) -> Busy | None:
        if self._running >= self.at_once:
            what = f"{self._running} uploads are being checked now, the most at once"
            return Busy(self.what, what, "try again in a minute")
        if client is None:
            return None
        starts = self._starts.get(client, deque())
        while starts and now - starts[0] > self.window_s:
            starts.popleft()
        if len(starts) >= self.per_client:
            wait_s = int(self.window_s - (now - starts[0])) + 1
            what = f"{len(starts)} uploads from you in {self.window_s / 60:.0f} minutes, the most"
            return Busy(self.what, what, f"try again in {wait_s} s")
        return None

    def _count(self, client: str, now: float) -> None:
        starts = self._starts.pop(client, deque())
        starts.append(now)
        self._starts[client] = starts  # most recent last: the longest idle are forgotten first
        while len(self._starts) > self.clients_kept:
            self._starts.pop(next(iter(self._starts)))

    @contextmanager
    def admit(self, client: str | None) -> Iterator[None]:
        """Run the block as one admitted job; raises ``Busy`` (one line) when refused. A
        ``None`` client (the command line, a trusted caller) is held to ``at_once`` only."""
        now = time.monotonic()
        with self._lock:
            refused = self._refusal(client, now)
            if refused is not None:
                raise refused
            self._running += 1
            if client is not None:
                self._count(client, now)
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
