"""Rows filed under the wrong checkpoint: a base checkpoint never inherits its tuned
sibling's results.

Some model cards of base weights repeat the instruct model's evaluation table (LLM Stats'
``granite-3.3-8b-base`` lists AIME 2024 81.2, the instruct model's figure). A row of a base
checkpoint (name ending in ``base``) equal, on the same benchmark and from the same source, to
the row of a tuned checkpoint with the same name words is that copy: it is dropped and counted.
A base row that differs (MMLU 63.89 against 65.54) is the base model's own and stays.
"""

from __future__ import annotations

from collections import defaultdict

from analytics.llm.ingest.identity import audit_key, tuning_of

COPIED = "identity: a base checkpoint's row equal to its tuned sibling's (copied from its card)"


def copied_base_rows(rows: list[dict]) -> set[int]:
    """Indices of score rows (dicts with model_id, benchmark_id, source_name, score) that a base
    checkpoint holds only as a copy of a tuned sibling's equal row."""
    tuned: dict[tuple, set[float]] = defaultdict(set)
    base: list[tuple[int, tuple, float]] = []
    for i, row in enumerate(rows):
        key = (audit_key(row["model_id"]), row["benchmark_id"], row["source_name"])
        if tuning_of(row["model_id"]) == "base":
            base.append((i, key, float(row["score"])))
        else:
            tuned[key].add(float(row["score"]))
    return {i for i, key, score in base if score in tuned.get(key, ())}
