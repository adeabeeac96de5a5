"""Protocol audit: score rows that do not follow their benchmark's one protocol.

Findings, each unresolved while its rows are in the catalog:

- a row on a benchmark id the importers exclude (``protocols.EXCLUDED_BENCHMARKS``: composite
  indices, mixed versions, a second view of one evaluation);
- a benchmark whose scores are nearly all equal (``protocols.draw_only``: its battles are
  draws);
- a row whose recorded ``method`` contradicts the ``protocol`` its benchmark declares in
  ``benchmarks.csv`` (``protocols.method_conflict``: shots, chain of thought, subset, thinking);
- a row on a benchmark ``benchmarks.csv`` does not declare.

Method text (shots, maj@k, parallel compute, fine-tuned) is read by each importer where its
source writes it (``protocols.method_drop_reason``) and such rows never reach the catalog; a
source *name* is a title ('... Fine-Tuned Chat Models'), not a method, so it is not read here.

A benchmark's declared protocol is its row in ``benchmarks.csv`` (one id per protocol: the Open
LLM Leaderboard's fixed-harness versions, FrontierMath sets and Epoch's own runs are separate
ids), so a row on the right id with no contrary method text follows it.
"""

from __future__ import annotations

import pandas as pd

from analytics.llm.audit import Finding
from analytics.llm.ingest import protocols


def _finding(bench: str, what: str, rows: int) -> Finding:
    return Finding(bench, f"{what} ({rows} rows)")


def audit(scores: pd.DataFrame, benchmarks: pd.DataFrame) -> list[Finding]:
    """Every protocol finding on the catalog's score rows."""
    out = []
    for bench, reason in sorted(protocols.EXCLUDED_BENCHMARKS.items()):
        n = int((scores["benchmark_id"] == bench).sum())
        if n:
            out.append(_finding(bench, reason, n))
    records = scores[["benchmark_id", "score"]].to_dict("records")
    for bench, reason in sorted(protocols.draw_only(records).items()):
        n = int((scores["benchmark_id"] == bench).sum())
        out.append(_finding(bench, reason, n))
    if "method" in scores and "protocol" in benchmarks:
        declared = dict(zip(benchmarks["benchmark_id"], benchmarks["protocol"], strict=True))
        rows = scores[scores["method"].astype(str).str.strip() != ""]
        for bench, method, model in zip(
            rows["benchmark_id"], rows["method"], rows["model_id"], strict=True
        ):
            conflict = protocols.method_conflict(str(declared.get(bench) or ""), str(method))
            if conflict:
                out.append(Finding(f"{bench} / {model}", f"{conflict}: {method!r}"))
    undeclared = sorted(set(scores["benchmark_id"]) - set(benchmarks["benchmark_id"]))
    for bench in undeclared:
        n = int((scores["benchmark_id"] == bench).sum())
        out.append(_finding(bench, "no protocol declared (not in benchmarks.csv)", n))
    return out
