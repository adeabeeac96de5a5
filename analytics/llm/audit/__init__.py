"""The catalog audits: identity, protocols, metadata; ``python -m analytics audit``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One audit line: what it is about, what is wrong, and why it is settled ('' = not)."""

    subject: str
    what: str
    resolution: str = ""

    settled_as = "resolved"
    """How a settled line says so ('kept apart' for an identity pair)."""

    @property
    def resolved(self) -> bool:
        return bool(self.resolution)

    def line(self) -> str:
        state = f"{self.settled_as}: {self.resolution}" if self.resolved else "UNRESOLVED"
        return f"{self.subject}: {self.what}  {state}"
