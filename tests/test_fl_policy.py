"""Policy parsing and the snapshot-build check of the FL catalog files."""

from __future__ import annotations

import json
import shutil

import pytest

from analytics.core import paths
from analytics.fl.catalog_checks import check_fl_catalog
from analytics.fl.perturbations import PERTURBATIONS
from analytics.fl.policy import load_policy, parse_policy


def test_committed_policy_is_ours_and_complete():
    policy = load_policy()
    assert policy.models == ("cnn", "mlp")
    assert "mnist" in policy.datasets and "digits" in policy.datasets  # what our set holds
    assert set(policy.perturbations) <= set(PERTURBATIONS) and len(policy.perturbations) >= 4
    assert policy.reference_methods == ("Local Only", "Centralized")
    assert policy.conditions("C")[0] == "nominal"
    assert len(policy.conditions("C")) == len(policy.perturbations) + 1
    for model in policy.models:
        for levels in policy.targets[model].values():
            assert len(levels) == 3 and list(levels) == sorted(levels)


@pytest.mark.parametrize(
    "raw, expected",
    [
        ({"models": "linear"}, "'models' must be a list"),
        (
            {"models": ["m"], "datasets": ["d"], "perturbations": [], "targets": {}},
            "targets['m']['d'] = None",
        ),
        (
            {
                "models": ["m"],
                "datasets": ["d"],
                "perturbations": [],
                "targets": {"m": {"d": [0.5, 2, 0.9]}},
            },
            "three accuracy levels in [0, 1]",
        ),
        ({"models": ["m", "m"], "datasets": [], "perturbations": [], "targets": {}}, "duplicates"),
    ],
)
def test_bad_policy_names_the_fix(raw, expected):
    with pytest.raises(ValueError, match="fix: ") as err:
        parse_policy(raw)
    assert expected in str(err.value)


def test_catalog_check_reports_a_broken_policy(tmp_path):
    catalog = tmp_path / "catalog"
    shutil.copytree(paths.CATALOG_DIR / "fl", catalog / "fl")
    assert check_fl_catalog(catalog) == []
    raw = json.loads((catalog / "fl" / "policy.json").read_text())
    del raw["targets"]["mlp"]["digits"]
    (catalog / "fl" / "policy.json").write_text(json.dumps(raw))
    (line,) = check_fl_catalog(catalog)
    assert "policy.json" in line and "targets['mlp']['digits']" in line
