"""Per-task fixed settings: the shared input set, the score threshold, the accuracy benchmark.

Read from ``data/catalog/vision/tasks.json`` (seed 000, section 02: one input set and one
score threshold per task).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from analytics.core import paths


@dataclass(frozen=True)
class Task:
    """One task's shared settings; paths are absolute."""

    name: str
    inputs: Path
    score_threshold: float
    benchmark: str
    ground_truth: Path | None
    accuracy_images: Path | None
    note: str = ""


def tasks_file() -> Path:
    return paths.CATALOG_DIR / "vision" / "tasks.json"


def load_tasks() -> dict[str, Task]:
    """Every task in the catalog, by name."""
    file = tasks_file()
    try:
        raw = json.loads(file.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{file}: unreadable ({exc}); fix the JSON") from None
    base = file.parent
    out = {}
    for name, spec in raw.items():
        acc = spec.get("accuracy") or {}
        try:
            out[name] = Task(
                name=name,
                inputs=base / spec["inputs"],
                score_threshold=float(spec["score_threshold"]),
                benchmark=acc.get("benchmark") or "",
                ground_truth=base / acc["ground_truth"] if acc.get("ground_truth") else None,
                accuracy_images=base / acc["images"] if acc.get("images") else None,
                note=acc.get("note") or "",
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(
                f"{file}: task {name!r} is malformed ({exc}); fix that entry"
            ) from None
    return out


def get_task(name: str) -> Task:
    """One task's settings, or a one-line error naming the known tasks."""
    known = load_tasks()
    if name not in known:
        raise ValueError(f"task {name!r} is not in {tasks_file()}; known: {', '.join(known)}")
    return known[name]
