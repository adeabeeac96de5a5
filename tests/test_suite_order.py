"""The suite's schedule (``tests/fixtures/order.py``): slowest modules first, each module's tests
together and in their own order, and a missing or damaged durations file changes nothing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fixtures import order


@dataclass
class _Item:
    nodeid: str


def _ids(items: list[_Item]) -> list[str]:
    return [item.nodeid for item in items]


ITEMS = [
    _Item("tests/test_a.py::test_one"),
    _Item("tests/test_a.py::test_two[1]"),
    _Item("tests/test_b.py::TestX::test_three"),
    _Item("tests/test_b.py::test_four"),
    _Item("tests/test_c.py::test_five"),
    _Item("tests/test_d.py::test_six"),
]


def test_the_slowest_module_runs_first_and_unknown_ones_keep_their_order() -> None:
    seconds = {"tests/test_c.py": 90.0, "tests/test_b.py": 30.0, "tests/test_gone.py": 500.0}
    assert _ids(order.slowest_first(ITEMS, seconds)) == [
        "tests/test_c.py::test_five",
        "tests/test_b.py::TestX::test_three",
        "tests/test_b.py::test_four",
        "tests/test_a.py::test_one",
        "tests/test_a.py::test_two[1]",
        "tests/test_d.py::test_six",
    ]


@pytest.mark.parametrize("text", ["", "{not json", "[1, 2]", '{"tests/test_a.py": "slow"}'])
def test_a_damaged_durations_file_leaves_the_collection_order(tmp_path: Path, text: str) -> None:
    path = tmp_path / "durations.json"
    path.write_text(text)
    assert _ids(order.slowest_first(ITEMS, order.weights(path))) == _ids(ITEMS)
    assert order.weights(tmp_path / "missing.json") == {}


def test_the_committed_file_names_modules_with_seconds() -> None:
    found = json.loads(order.DURATIONS.read_text())
    assert found and all(k.startswith("tests/test_") and k.endswith(".py") for k in found)
    assert all(isinstance(v, int | float) and v >= 0 for v in found.values())
