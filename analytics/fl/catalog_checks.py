"""Snapshot-build checks of the FL catalog files (the snapshot builder imports this module)."""

from __future__ import annotations

from pathlib import Path

from analytics.core import snapshot
from analytics.core.problems import at
from analytics.fl import simulator
from analytics.fl.policy import load_policy


def check_fl_catalog(catalog_dir: Path) -> list[str]:
    """The policy parses and the simulator profiles load, when they are present."""
    problems: list[str] = []
    policy = catalog_dir / "fl" / "policy.json"
    profiles = catalog_dir / "fl" / "simulator_profiles.json"
    if policy.is_file():
        try:
            load_policy(policy)
        except ValueError as exc:
            problems.append(str(exc))
    if profiles.is_file():
        try:
            simulator.load_profiles(profiles)
        except (ValueError, KeyError, TypeError) as exc:
            problems.append(at(profiles, None, f"invalid profile ({exc!r})", "see docs/fl.md"))
    return problems


snapshot.register_validator("fl", check_fl_catalog)
