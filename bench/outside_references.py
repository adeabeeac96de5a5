"""How far the board agrees with two outside references; prints figures, asserts nothing, and
is no tuning target (docs/elo.md, "Outside references").

References:

- Artificial Analysis' Intelligence Index, October 2026 file
  (``shared/data/artificial-analysis/2026-10-03-llmval/benchmarks.json``, ``intel``; not imported
  as a rating). AA slugs join the catalog through the model pages of the snapshot's Artificial
  Analysis scores (``https://artificialanalysis.ai/models/<slug>``).
- Arena's text board: the snapshot's ``arena-text-sc`` scores (Arena's own style-control view).

Per reference: Spearman's rank correlation between the board's rating and the reference over
the ranked models both know (the whole board) and over the board's top N of them (default 40),
then the biggest disagreements (board position vs reference position among the shared models)
with what each board row rests on. Before the board's top 15 with benchmarks and publishers.

Run: ``.venv/bin/python bench/outside_references.py [--snapshot VERSION] [--ratings FILE]
[--bootstrap 200] [--top 40] [--show 10]``; ``--ratings`` reads a stored ratings Parquet (e.g.
an earlier method's ``elo_ratings_*_b200_s0.parquet``) instead of the current method's.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analytics.core import db, paths  # noqa: E402
from analytics.llm import elo, ratings  # noqa: E402

AA_OCTOBER = Path("artificial-analysis") / "2026-10-03-llmval" / "benchmarks.json"
ARENA_TEXT = "arena-text-sc"
_AA_PAGE = re.compile(r"^https?://(?:www\.)?artificialanalysis\.ai/models/([^/?#]+)")


def aa_index(scores: pd.DataFrame, path: Path) -> pd.Series:
    """model_id -> AA Intelligence Index of the October file, for the slugs the snapshot's AA
    scores link to (a slug linked from two models counts for both)."""
    models = json.loads(path.read_text(encoding="utf-8"))["models"]
    intel = {m["slug"]: m["intel"] for m in models if m.get("intel") is not None}
    slugs = scores["source_url"].astype(str).str.extract(_AA_PAGE)[0]
    links = pd.DataFrame({"model_id": scores["model"], "slug": slugs}).dropna().drop_duplicates()
    links = links[links["slug"].isin(intel)]
    return links.assign(v=links["slug"].map(intel)).groupby("model_id")["v"].max()


def arena_text(scores: pd.DataFrame) -> pd.Series:
    """model_id -> Arena text score (style control), the highest-precedence stored row."""
    rows = elo.headline_scores(scores[scores["benchmark"] == ARENA_TEXT])
    return rows.set_index("model")["score"].astype(float)


def agreement(board: pd.DataFrame, reference: pd.Series, top: int) -> dict:
    """Spearman of rating vs reference over the ranked models both know ("all") and over the
    board's best ``top`` of them, and a table of the shared models with their positions."""
    ranked = board[board["eligible"].astype(bool)].set_index("model_id")
    shared = ranked[ranked.index.isin(reference.index)].sort_values("rating", ascending=False)
    shared = shared.assign(reference=reference.reindex(shared.index))
    shared["board_pos"] = shared["rating"].rank(ascending=False, method="min").astype(int)
    shared["ref_pos"] = shared["reference"].rank(ascending=False, method="min").astype(int)
    shared["gap"] = shared["board_pos"] - shared["ref_pos"]
    head = shared.head(top)
    return {
        "n": len(shared),
        "all": shared["rating"].corr(shared["reference"], method="spearman"),
        "top": head["rating"].corr(head["reference"], method="spearman"),
        "table": shared,
    }


def rests_on(board: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """model_id -> n_benchmarks and publishers of each row (from the ratings where they carry
    them, else from the headline scores: an earlier method's file)."""
    out = board.set_index("model_id")[["n_benchmarks"]].copy()
    if "publishers" in board:
        out["publishers"] = board.set_index("model_id")["publishers"]
    else:
        headline = elo.headline_scores(scores).assign(_p=lambda f: elo.publishers(f))
        names = headline.groupby("model")["_p"].agg(lambda s: "; ".join(sorted(set(s))))
        out["publishers"] = names.reindex(out.index)
    return out


def reason(row: pd.Series) -> str:
    """Why a board row may sit far from a reference: what its rating rests on."""
    pubs = [p for p in str(row["publishers"]).split("; ") if p]
    thin = "one publisher" if len(pubs) == 1 else f"{len(pubs)} publishers"
    return f"{int(row['n_benchmarks'])} benchmarks, {thin} ({'; '.join(pubs[:4])})"


def report(board: pd.DataFrame, scores: pd.DataFrame, *, top: int, show: int) -> str:
    """The printed report: the top 15, then per reference the two correlations and the biggest
    disagreements."""
    evidence = rests_on(board, scores)
    lines = ["Top 15 (rank, model, Elo, what it rests on):"]
    ranked = board[board["eligible"].astype(bool)].head(15)
    for _, row in ranked.iterrows():
        facts = evidence.loc[row["model_id"]]
        lines.append(f"  {int(row['rank']):>3} {row['model_id']:<40} {row['rating']:7.1f}  "
                     f"{reason(facts)}")
    aa = aa_index(scores, paths.SHARED_DATA_DIR / AA_OCTOBER)
    references = (
        ("AA Intelligence Index (October 2026)", aa),
        ("Arena text (style control)", arena_text(scores)),
    )
    for name, reference in references:
        found = agreement(board, reference, top)
        lines.append(
            f"{name}: {found['n']} shared ranked models; Spearman top {top} "
            f"{found['top']:.2f}, whole board {found['all']:.2f}"
        )
        table = found["table"]
        worst = table.reindex(table["gap"].abs().sort_values(ascending=False).index).head(show)
        for model_id, row in worst.iterrows():
            lines.append(
                f"  {model_id:<40} board #{row['board_pos']:<4} reference #{row['ref_pos']:<4} "
                f"({row['reference']:g}): {reason(evidence.loc[model_id])}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", default=None, help="a built snapshot (default: current)")
    parser.add_argument("--ratings", type=Path, default=None, help="a stored ratings Parquet")
    parser.add_argument("--bootstrap", type=int, default=ratings.BOOTSTRAP_ROUNDS,
                        help="rounds of the current method's ratings file (0: the point fit)")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--show", type=int, default=10)
    args = parser.parse_args(argv)
    version = args.snapshot or db.ensure_snapshot()
    scores = ratings.scores_of(version)
    if args.ratings:
        board = pd.read_parquet(args.ratings).rename(columns={"model": "model_id"})
    else:
        board = ratings.of_version(version, bootstrap=args.bootstrap)
    print(f"snapshot {version}; ratings {args.ratings or elo.ALGORITHM_VERSION}")
    print(report(board, scores, top=args.top, show=args.show))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
