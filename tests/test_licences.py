"""Licence classes (seed 002, licence paragraph) on real-world licence strings."""

from __future__ import annotations

import csv
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analytics.core.licences import LICENCE_CLASSES, licence_class
from tests.fixtures import committed

P, C, R = LICENCE_CLASSES

# Strings as published by Hugging Face hub metadata, LMArena and LLMStats (see ../shared/data).
CASES = [
    ("apache-2.0", P),
    ("Apache 2.0", P),
    ("Apache-2.0", P),
    ("Apache License, Version 2.0", P),
    ("MIT", P),
    ("MIT License", P),
    ("bsd-3-clause-clear", P),
    ("afl-3.0", P),
    ("wtfpl", P),
    ("cc-by-4.0", P),
    ("Apache-2.0 OR MIT", P),
    ("llama3.1", C),
    ("llama2", C),
    ("Llama 3.1 Community License", C),
    ("Llama 4 Community License Agreement", C),
    ("Llama 2 Community", C),
    ("gemma", C),
    ("Gemma license", C),
    ("qwen", C),
    ("tongyi-qianwen", C),
    ("Qianwen LICENSE", C),
    ("deepseek", C),
    ("DeepSeek License", C),
    ("Jamba Open Model License", C),
    ("Yi License", C),
    ("DBRX LICENSE", C),
    ("Falcon-180B TII License", C),
    ("NVIDIA Open Model", C),
    ("AI2 ImpACT Low-risk", C),
    ("Modified MIT", C),
    ("MIT + Model License (Commercial use allowed)", C),
    ("Proprietary", C),
    ("Propretary", C),
    ("other", C),
    ("Other", C),
    ("unknown", C),
    ("", C),
    ("   ", C),
    (None, C),
    (float("nan"), C),
    ("gpl-3.0", C),
    ("cc-by-sa-4.0", C),
    ("creativeml-openrail-m", C),
    ("bigscience-bloom-rail-1.0", C),
    ("bigcode-openrail-m", C),
    ("Apache 2.0 (research preview)", C),
    ("cc-by-nc-4.0", R),
    ("CC-BY-NC-4.0", R),
    ("cc-by-nc-sa-4.0", R),
    ("cc-by-nc-nd-4.0", R),
    ("CC-BY-NC", R),
    ("CC BY-NC 4.0", R),
    ("Non-commercial", R),
    ("MRL", R),
    ("Mistral Research", R),
    ("Mistral Research License", R),
    (
        "Mistral Research License (MRL) for research; "
        "Mistral Commercial License for commercial use",
        R,
    ),
    ("MNPL-0.1", R),
    ("Qwen RESEARCH LICENSE AGREEMENT", R),
    ("NCSA", P),
]

# Mixed strings classify by the weights' terms.
MIXED = [
    ("code: Apache-2.0, weights: CC-BY-NC-4.0", R),
    ("code: CC-BY-NC-4.0, weights: Apache-2.0", P),
    ("Apache-2.0 (code), CC-BY-NC-4.0 (weights)", R),
    ("code: MIT; weights: Llama 3.1 Community License", C),
    ("Apache-2.0 (model weights)", P),
    ("MIT (code) + DeepSeek Model License (weights)", C),
]


@pytest.mark.parametrize(("raw", "expected"), CASES + MIXED)
def test_known_strings(raw: str | None, expected: str) -> None:
    assert licence_class(raw) == expected


def test_classes_are_the_three_seed_classes() -> None:
    assert LICENCE_CLASSES == ("permissive", "conditional / custom", "research-only")


@given(st.one_of(st.none(), st.text(max_size=80)))
def test_always_one_of_the_classes(raw: str | None) -> None:
    assert licence_class(raw) in LICENCE_CLASSES


@given(st.sampled_from([raw for raw, _ in CASES if isinstance(raw, str) and raw]))
def test_case_insensitive(raw: str) -> None:
    assert licence_class(raw.upper()) == licence_class(raw.lower()) == licence_class(raw)


def _real_strings(shared_data) -> set[str]:
    found: set[str] = set()
    for name, column in (
        ("huggingface_v2.csv", "metadata_hub_license"),
        ("lmarena_text.csv", "license"),
    ):
        with open(shared_data / "llm-leaderboard-csv" / name, newline="") as fh:
            found |= {row[column] for row in csv.DictReader(fh) if row.get(column)}
    for path in (shared_data / "llmstats" / "models").glob("*/*/model.json"):
        value = json.loads(path.read_text()).get("license")
        if isinstance(value, str):
            found.add(value)
    return found


@pytest.mark.shared
def test_every_real_string_gets_a_class(shared_data) -> None:
    strings = _real_strings(shared_data)
    assert len(strings) > 30
    classes = {licence_class(s) for s in strings}
    assert classes == set(LICENCE_CLASSES)
    nc = [s for s in strings if "nc" in s.lower().split("-")]
    assert nc and all(licence_class(s) == R for s in nc)


def test_catalog_strings_classify() -> None:
    rows = committed.catalog_rows("models", "licence_raw")
    for row in rows:
        assert licence_class(row.get("licence_raw")) in LICENCE_CLASSES
    open_permissive = [r for r in rows if licence_class(r.get("licence_raw")) == P]
    assert all("llama" not in (r.get("licence_raw") or "").lower() for r in open_permissive)
