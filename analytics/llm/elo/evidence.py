"""Step 3 of the Elo pipeline: battles -> the weighted evidence a fit needs (seed 002, "The Elo
rating"; docs/elo.md section 2).

A battle in a category where the pair shares ``n`` benchmarks weighs ``1/sqrt(n)``. The
Bradley-Terry likelihood needs only two sums of them: per pair, the total weight of its battles
(``sqrt(n)`` per category the pair shares, :attr:`Evidence.total`), and per model, its weighted
wins (a draw counts half, :attr:`Evidence.wins`). :func:`weigh` computes both benchmark by
benchmark, for any multiplicity of the benchmarks (the bootstrap counts a benchmark drawn twice
twice, also in ``n``):

- ``n`` of every pair in a category is one cell of the category's patterns x patterns product
  (:meth:`~analytics.llm.elo.battles.CategoryPairs.shared`), so the weights are a small matrix
  product and a gather, never a loop over battles;
- a model's weighted wins on a benchmark are, over the patterns of its opponents there, the
  number it beats of each pattern (:attr:`~analytics.llm.elo.battles.Battles.counts`) times
  that pattern pair's weight: one row-wise dot product per benchmark; where models share no
  patterns (the counts would outnumber the battles) a running sum over its opponents in score
  order instead, nothing kept from one aggregate to the next.

:func:`aggregate` is the per-pair form (each pair's weighted wins, for readers and tests).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analytics.llm.elo.battles import Battles
from analytics.llm.elo.pairs import PairIndex, sort_key


@dataclass(frozen=True)
class Pairwise:
    """Weighted pairwise results: ``wins_i[p]`` is the weighted score of ``pair_i`` against
    ``pair_j`` (a draw counts half to each side)."""

    n_models: int
    pair_i: np.ndarray
    pair_j: np.ndarray
    wins_i: np.ndarray
    wins_j: np.ndarray

    @property
    def total(self) -> np.ndarray:
        """Total battle weight per pair."""
        return self.wins_i + self.wins_j


@dataclass(frozen=True)
class Evidence:
    """What a fit needs: per pair the total battle weight ``total`` (0: no battle, e.g. none
    drawn in a bootstrap round), per model its weighted wins ``wins`` (anchor not included)."""

    pairs: PairIndex
    total: np.ndarray  # (P,)
    wins: np.ndarray  # (M,)

    @property
    def n_models(self) -> int:
        return self.pairs.n

    @classmethod
    def of_pairwise(cls, pw: Pairwise) -> Evidence:
        """The evidence of per-pair wins (pairs in any order)."""
        i, j, wins_i, wins_j = pw.pair_i, pw.pair_j, pw.wins_i, pw.wins_j
        if len(i) > 1 and np.any(np.diff(sort_key(i, j, pw.n_models)) < 0):
            order = np.lexsort((j, i))
            i, j, wins_i, wins_j = i[order], j[order], wins_i[order], wins_j[order]
        n = pw.n_models
        wins = np.bincount(i, wins_i, n) + np.bincount(j, wins_j, n)
        return cls(PairIndex.of(n, i, j), wins_i + wins_j, wins)


def weigh(battles: Battles, multiplicity: np.ndarray | None = None) -> Evidence:
    """The weighted evidence of ``battles``, each benchmark counted ``multiplicity`` times
    (default once): per pair ``sum over categories of sqrt(n)``, per model ``sum over its
    battles of result / sqrt(n)`` (module docstring)."""
    m = _multiplicity(battles, multiplicity)
    total = np.zeros(len(battles.pairs))
    wins = np.zeros(len(battles.models))
    ranks = battles.rankings
    for category in battles.categories:
        drawn = category.benchmarks[m[category.benchmarks] > 0]
        if not len(drawn):
            continue
        shared = category.shared(m)  # n of every pattern pair
        per_cell = shared.ravel()
        for rows in category.row_blocks():  # each pair once: a plain indexed add, not np.add.at
            total[rows] += np.sqrt(per_cell[category.cells(rows)], dtype=np.float64)
        # 1/sqrt(n) per battle: of the whole table where it is small (a few patterns), else of
        # each benchmark's own models, so no second table of about two numbers a pair
        weight = _inverse_sqrt(shared, out=shared) if shared.dtype == np.float64 else None
        for b in drawn:
            entries, patterns = ranks.of(b)
            pattern = ranks.pattern[entries]
            if battles.counts is None:
                block = np.ix_(pattern, pattern)
                per_pair = _inverse_sqrt(shared[block]) if weight is None else weight[block]
                won = _wins(per_pair, ranks.tie_lo[entries], ranks.tie_hi[entries])
            else:  # patterns shared: by the opponents' pattern
                won = np.einsum("ij,ij->i", weight[pattern[:, None], patterns], battles.counts[b])
            wins[ranks.model[entries]] += m[b] * won
    return Evidence(battles.pairs, total, wins)


def _inverse_sqrt(shared: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """1/sqrt(n) in float64 of a table of shared-benchmark counts (0 where n is 0; ``out``:
    a float64 table to write to, e.g. ``shared`` itself)."""
    out = np.sqrt(shared, dtype=np.float64, out=out)
    return np.divide(1.0, out, out=out, where=out > 0)


def _wins(per_pair: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Weighted wins on one benchmark of its models in ascending score (``per_pair``: the
    models x models weights 1/sqrt(n), overwritten; tie blocks from ``lo`` to ``hi``),
    opponent by opponent: each beats everyone below its tie block and half of the rest of the
    block, at the pair's weight (a running sum along each row)."""
    rows = np.arange(len(per_pair))
    own = per_pair[rows, rows]  # a model does not meet itself
    running = np.cumsum(per_pair, axis=1, out=per_pair)
    below = np.where(lo > 0, running[rows, lo - 1], 0.0)
    return 0.5 * (below + running[rows, hi - 1] - own)


def aggregate(battles: Battles, multiplicity: np.ndarray | None = None) -> Pairwise:
    """Weighted pairwise wins; each battle weighs 1/sqrt(n) (seed 002, "The Elo rating").

    n is the number of benchmarks of the battle's category both models report. ``multiplicity``
    counts each benchmark that many times (the bootstrap resamples benchmarks). Battle by
    battle, benchmark after benchmark (memory: the pairs and one benchmark's battles).
    """
    m = _multiplicity(battles, multiplicity)
    n_models, n_pairs = len(battles.models), len(battles.pairs)
    key = sort_key(battles.pair_i, battles.pair_j, n_models)  # sorted: pairs are
    wins_i, wins_j = np.zeros(n_pairs), np.zeros(n_pairs)
    for category in battles.categories:
        rows = category.row_pair
        shared = category.shared(m).ravel()[category.cells(rows)].astype(float)
        weight = np.zeros(n_pairs)
        weight[rows] = np.divide(1.0, np.sqrt(shared), out=np.zeros_like(shared),
                                              where=shared > 0)
        for b in category.benchmarks[m[category.benchmarks] > 0]:
            present = np.flatnonzero(battles.presence[:, b])
            first, second = np.triu_indices(len(present), k=1)
            pair = np.searchsorted(key, sort_key(present[first], present[second], n_models))
            score = battles.scores[present, b]
            result = 0.5 * (1.0 + np.sign(score[first] - score[second]))  # a draw: half
            wins_i[pair] += m[b] * weight[pair] * result
            wins_j[pair] += m[b] * weight[pair] * (1.0 - result)
    return Pairwise(n_models, battles.pair_i, battles.pair_j, wins_i, wins_j)


def _multiplicity(battles: Battles, multiplicity: np.ndarray | None) -> np.ndarray:
    if multiplicity is None:
        return np.ones(len(battles.benchmarks))
    return np.asarray(multiplicity, dtype=float)
