"""The registered policy of the ranked track: models, datasets, perturbations, B targets."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from analytics.core import paths

NOMINAL = "nominal"


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


def _names(raw: dict, key: str, path: Path) -> tuple[str, ...]:
    value = raw.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{path}: {key!r} must be a list of names; fix: add the {key} list")
    if len(set(value)) != len(value):
        raise ValueError(f"{path}: {key!r} has duplicates; fix: list each name once")
    return tuple(value)


def _targets(raw: dict, models, datasets, path: Path) -> dict[str, dict[str, tuple[float, ...]]]:
    table = raw.get("targets")
    if not isinstance(table, dict):
        raise ValueError(f"{path}: 'targets' must be an object; fix: add model -> dataset -> [3]")
    out: dict[str, dict[str, tuple[float, ...]]] = {}
    for model in models:
        out[model] = {}
        for dataset in datasets:
            levels = table.get(model, {}).get(dataset)
            ok = isinstance(levels, list) and len(levels) == 3
            if not ok or not all(isinstance(x, int | float) and 0 <= x <= 1 for x in levels):
                raise ValueError(
                    f"{path}: targets[{model!r}][{dataset!r}] = {levels!r}; "
                    "fix: give three accuracy levels in [0, 1]"
                )
            out[model][dataset] = tuple(float(x) for x in levels)
    return out


def parse_policy(raw: dict, path: Path = Path("<policy>")) -> Policy:
    """A Policy from its JSON object; raises ValueError with one line naming the fix."""
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: the policy must be a JSON object; fix: see docs/fl.md")
    models = _names(raw, "models", path)
    datasets = _names(raw, "datasets", path)
    perturbations = _names(raw, "perturbations", path)
    refs = _names(raw, "reference_methods", path) if "reference_methods" in raw else None
    return Policy(
        models=models,
        datasets=datasets,
        perturbations=perturbations,
        targets=_targets(raw, models, datasets, path),
        reference_methods=refs or ("Local Only", "Centralized"),
        about=str(raw.get("about", "")),
    )


def load_policy(path: Path | None = None) -> Policy:
    """Read a policy file (ours by default)."""
    path = path or policy_path()
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ValueError(f"{path}: no such policy file; fix: pass --policy FILE") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: line {exc.lineno}: invalid JSON ({exc.msg})") from exc
    return parse_policy(raw, Path(path))
