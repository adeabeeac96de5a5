"""The registered policy of the ranked track: models, datasets, perturbations, B targets.

The policy file is checked for shape and size before anything uses it (caps in ``CAPS``); every
refusal is a ``PolicyError`` whose message is one line naming the file and the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from analytics.core import paths, safejson
from analytics.core.problems import Problem

NOMINAL = "nominal"
CAPS = {
    "bytes": 1 << 20,  # the policy file
    "depth": 6,  # policy -> targets -> model -> dataset -> levels is 4
    "models": 16,
    "datasets": 64,
    "perturbations": 64,
    "reference_methods": 8,
    "name_chars": 80,
    "about_chars": 4000,
}
"""Declared caps of a policy (ours: 2 models, 7 datasets, 8 perturbations, 2 references)."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\- ]*$")
_FIX_NAMES = "letters, digits, ' ._-', starting with a letter or digit"


class PolicyError(Problem, ValueError):
    """A policy refused: ``where`` (the file), ``what`` and ``fix``; one line."""

    exit_status = 2  # a refused input file (docs/fl.md: "exit status 2 for fl-score")


@dataclass(frozen=True)
class Policy:
    models: tuple[str, ...]
    datasets: tuple[str, ...]
    perturbations: tuple[str, ...]
    targets: dict[str, dict[str, tuple[float, ...]]]
    reference_methods: tuple[str, ...] = ("Local Only", "Centralized")
    about: str = field(default="", compare=False)

    def conditions(self, protocol: str) -> tuple[str, ...]:
        """Run conditions a submission of this protocol holds."""
        return (NOMINAL, *self.perturbations) if protocol == "C" else (NOMINAL,)


def policy_path() -> Path:
    """Location of our committed policy (resolved at call time)."""
    return paths.CATALOG_DIR / "fl" / "policy.json"


def _error(path: Path, what: str, fix: str) -> PolicyError:
    return PolicyError(str(path), what, fix)


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _names(raw: dict, key: str, path: Path) -> tuple[str, ...]:
    value = raw.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _error(path, f"{key!r} must be a list of names", f"add the {key} list")
    if len(value) > CAPS[key]:
        raise _error(
            path,
            f"{key!r} has {len(value)} names, over the cap of {CAPS[key]}",
            f"list at most {CAPS[key]}",
        )
    for name in value:
        if len(name) > CAPS["name_chars"] or not _NAME.match(name):
            raise _error(
                path,
                f"{key!r} name {_short(name)} is not a plain name",
                f"use 1-{CAPS['name_chars']} {_FIX_NAMES}",
            )
    if len(set(value)) != len(value):
        raise _error(path, f"{key!r} has duplicates", "list each name once")
    return tuple(value)


def _levels(levels: object, model: str, dataset: str, path: Path) -> tuple[float, ...]:
    ok = isinstance(levels, list) and len(levels) == 3
    numbers = ok and all(isinstance(x, int | float) and not isinstance(x, bool) for x in levels)
    if not numbers or not all(0 <= x <= 1 for x in levels):
        raise _error(
            path,
            f"targets[{model!r}][{dataset!r}] = {_short(levels)}",
            "give three accuracy levels in [0, 1]",
        )
    return tuple(float(x) for x in levels)


def _targets(raw: dict, models, datasets, path: Path) -> dict[str, dict[str, tuple[float, ...]]]:
    table = raw.get("targets")
    if not isinstance(table, dict):
        raise _error(path, "'targets' must be an object", "add model -> dataset -> [3]")
    out: dict[str, dict[str, tuple[float, ...]]] = {}
    for model in models:
        per_model = table.get(model, {})
        if not isinstance(per_model, dict):
            raise _error(
                path,
                f"targets[{model!r}] = {_short(per_model)} is not an object",
                "give dataset -> three accuracy levels",
            )
        out[model] = {d: _levels(per_model.get(d), model, d, path) for d in datasets}
    return out


def _about(raw: dict, path: Path) -> str:
    about = raw.get("about", "")
    if not isinstance(about, str) or len(about) > CAPS["about_chars"]:
        raise _error(path, "'about' must be a text", f"write at most {CAPS['about_chars']} chars")
    return about


def parse_policy(raw: dict, path: Path = Path("<policy>")) -> Policy:
    """A Policy from its JSON object; raises PolicyError with one line naming the fix."""
    if not isinstance(raw, dict):
        raise _error(path, "the policy must be a JSON object", "see docs/fl.md")
    models = _names(raw, "models", path)
    datasets = _names(raw, "datasets", path)
    perturbations = _names(raw, "perturbations", path)
    refs = _names(raw, "reference_methods", path) if "reference_methods" in raw else None
    if NOMINAL in perturbations:
        raise _error(path, f"{NOMINAL!r} is listed as a perturbation", "drop it from the list")
    return Policy(
        models=models,
        datasets=datasets,
        perturbations=perturbations,
        targets=_targets(raw, models, datasets, path),
        reference_methods=refs or ("Local Only", "Centralized"),
        about=_about(raw, path),
    )


def _read_capped(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(CAPS["bytes"] + 1)
    except FileNotFoundError:
        raise _error(path, "no such policy file", "pass --policy FILE") from None
    except OSError as exc:
        raise _error(path, f"unreadable ({exc.strerror or exc})", "pass a readable file") from None


def load_policy(path: Path | None = None) -> Policy:
    """Read a policy file (ours by default), within the caps of ``CAPS``."""
    path = Path(path or policy_path())
    data = _read_capped(path)
    if len(data) > CAPS["bytes"]:
        raise _error(path, f"over the cap of {CAPS['bytes']} bytes", "keep the policy small")
    try:
        raw = safejson.loads(data, CAPS["bytes"], CAPS["depth"])
    except safejson.JsonLimitError as exc:
        raise _error(path, str(exc), "write the policy as in docs/fl.md") from None
    return parse_policy(raw, path)
