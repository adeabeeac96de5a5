"""Step 2 of the Elo pipeline: who meets whom, on which benchmark (docs/elo.md section 2).

For each benchmark every pair of models that both report it fights one battle. Battles are
never stored one by one (there are pairs x shared benchmarks of them); a :class:`Battles`
holds what they are made of, in memory that grows with the distinct pairs and the score rows:

- the oriented scores (higher wins) and the benchmarks' categories;
- the pairs that share at least one benchmark (:class:`~analytics.llm.elo.pairs.PairIndex`);
- per category, each model's *presence pattern* (which of the category's benchmarks it
  reports) and, per pair sharing one of them, the cell of its two patterns in a patterns x
  patterns table (:class:`CategoryPairs`): the number of benchmarks the pair shares in the
  category, the ``n`` of the seed's weight 1/sqrt(n), is that cell of one small product;
- per benchmark, its models in score order with their tie blocks (:class:`Rankings`), from
  which :mod:`analytics.llm.elo.evidence` counts each model's wins against each pattern.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse
import scipy.sparse.csgraph

from analytics.llm.elo.headline import REQUIRED_COLUMNS, require_columns
from analytics.llm.elo.pairs import PairIndex, index_dtype

_PAIR_BLOCK = 1 << 22  # models x models entries of one block of the shared-benchmark product
_TABLE_F64_MAX = 4096
"""Most presence patterns of one category for which the pairs sharing it are read from the
patterns x patterns product (128 MiB at most); above (nearly a pattern per model), from the
pairs' packed presence bits, a block at a time."""
_MASK_BLOCK = 1 << 21  # pairs per block of a pass over a category's pair bits
_COUNTS_CACHE_MAX = 1 << 23
"""Most outcome-count entries (:attr:`Battles.counts`, 8 bytes each: 64 MiB) to keep. They are
kept only when also no more than twice the pairs and score rows together (models share
presence patterns: the real catalog has about 450 thousand for 467 thousand pairs and 2.2
million battles); otherwise (every model's pattern its own: two entries per battle) each aggregate
compares the models one by one instead (:func:`analytics.llm.elo.evidence.weigh`)."""


@dataclass(frozen=True)
class CategoryPairs:
    """One category's part of the pair structure (see the module docstring).

    ``patterns[q]`` is presence pattern ``q`` over the category's benchmarks (0/1);
    ``pattern[m]`` the pattern of model ``m`` (-1: it reports none of them). Which pairs share
    a benchmark of the category is kept as one bit per pair (``rows_bits``, ``np.packbits``
    over the pair list): a category most pairs share costs an eighth of a byte per pair, where
    a list of row numbers and pattern cells cost 16 bytes (at 10,000 models, 50 million pairs
    and 8 categories: 50 MB against 6.4 GB). :attr:`row_pair` and :meth:`cells` unpack them.
    """

    benchmarks: np.ndarray  # (B_c,) benchmark indices
    pattern: np.ndarray  # (M,) int
    patterns: np.ndarray  # (Q, B_c) 0/1, float64 (float32 above _TABLE_F64_MAX patterns)
    rows_bits: np.ndarray  # (ceil(P / 8),) uint8
    pairs: PairIndex  # the pair list the bits are over (shared, not copied)

    @property
    def row_pair(self) -> np.ndarray:
        """The pairs sharing a benchmark of the category (ascending pair numbers)."""
        return np.flatnonzero(np.unpackbits(self.rows_bits, count=len(self.pairs)))

    def row_blocks(self) -> Iterator[np.ndarray]:
        """:attr:`row_pair` a block of the pair list at a time (what a pass over them keeps
        unpacked is one block's numbers, not the whole list's)."""
        n = len(self.pairs)
        for start in range(0, n, _MASK_BLOCK):  # a multiple of 8: blocks start on a byte
            count = min(_MASK_BLOCK, n - start)
            bits = self.rows_bits[start // 8 : (start + count + 7) // 8]
            yield np.flatnonzero(np.unpackbits(bits, count=count)) + start

    @property
    def row_cell(self) -> np.ndarray:
        """Per :attr:`row_pair`, the flat index ``q_i * Q + q_j`` of its two patterns."""
        return self.cells(self.row_pair)

    def cells(self, rows: np.ndarray) -> np.ndarray:
        """The flat Q x Q cell of each pair in ``rows`` (pair numbers)."""
        first = self.pattern[self.pairs.pair_i[rows]]
        first *= len(self.patterns)
        first += self.pattern[self.pairs.pair_j[rows]]
        return first

    def shared(self, multiplicity: np.ndarray) -> np.ndarray:
        """The Q x Q table of benchmarks two patterns share, each counted ``multiplicity``
        times (a benchmark's multiplicity indexed by its global benchmark index), in the
        patterns' type: float32 where there are more than ``_TABLE_F64_MAX`` patterns (whole
        counts far below 2**24, so exact; half the bytes of a table that is then about two
        numbers per pair). Callers take sqrt(n) and 1/sqrt(n) in float64 (they must agree to
        the solver's tolerance)."""
        weighted = self.patterns * multiplicity[self.benchmarks].astype(self.patterns.dtype)
        return weighted @ self.patterns.T


@dataclass(frozen=True)
class Rankings:
    """Every benchmark's models in ascending oriented score, benchmark after benchmark
    (``start`` holds the offsets): ``model``, the local positions ``tie_lo`` (first) and
    ``tie_hi`` (one past the last) of each entry's block of equal scores, ``pattern``, the
    entry model's category pattern, and ``code``, the same as an index into the benchmark's
    own list of the distinct patterns among its models
    (``patterns[pattern_start[b]:pattern_start[b + 1]]``)."""

    start: np.ndarray  # (B + 1,)
    model: np.ndarray  # (S,)
    tie_lo: np.ndarray  # (S,)
    tie_hi: np.ndarray  # (S,)
    pattern: np.ndarray  # (S,)
    code: np.ndarray  # (S,)
    pattern_start: np.ndarray  # (B + 1,)
    patterns: np.ndarray  # (sum over benchmarks of their distinct patterns,)

    def of(self, b: int) -> tuple[slice, np.ndarray]:
        """Benchmark ``b``'s entries (a slice of the entry arrays) and its pattern list."""
        return slice(self.start[b], self.start[b + 1]), self.patterns[
            self.pattern_start[b] : self.pattern_start[b + 1]
        ]


@dataclass(frozen=True)
class Battles:
    """Every head-to-head battle of a score table, in compact form (module docstring).

    ``scores[m, b]`` is model ``m``'s score on benchmark ``b``, negated where lower is better
    (so the higher one always wins), NaN where it has none; ``presence`` is its mask.
    """

    models: tuple[str, ...]
    benchmarks: tuple[str, ...]
    category_codes: np.ndarray  # (B,) int, category index per benchmark
    presence: np.ndarray  # (M, B) bool
    scores: np.ndarray  # (M, B) float
    pairs: PairIndex  # the pairs that share a benchmark
    categories: tuple[CategoryPairs, ...]
    rankings: Rankings
    counts: tuple[np.ndarray, ...] | None
    """Per benchmark, an (entries x its patterns) table: how many of its other models of each
    of its patterns (the columns of :meth:`Rankings.of`) each entry beats, a draw counting
    half; None when there would be more entries than twice the pairs and score rows
    (``_COUNTS_CACHE_MAX``)."""

    @property
    def pair_i(self) -> np.ndarray:
        """First model of each pair (pair_i < pair_j, pairs sorted)."""
        return self.pairs.pair_i

    @property
    def pair_j(self) -> np.ndarray:
        """Second model of each pair."""
        return self.pairs.pair_j

    @property
    def n_battles(self) -> int:
        """Number of individual battles (model pairs per benchmark)."""
        counts = self.presence.sum(axis=0).astype(np.int64)
        return int((counts * (counts - 1) // 2).sum())


def build_battles(headline: pd.DataFrame) -> Battles:
    """Battles of a headline table (one score per model x benchmark).

    A higher score wins, or a lower one where ``higher_is_better`` is false; equal scores draw.
    """
    require_columns(headline, REQUIRED_COLUMNS)
    oriented, categories = _oriented_matrix(headline)
    models, benchmarks = tuple(oriented.index), tuple(oriented.columns)
    scores = oriented.to_numpy(dtype=float)
    presence = ~np.isnan(scores)
    codes = pd.Index(sorted(set(categories))).get_indexer(categories)
    pair_i, pair_j = _sharing_pairs(presence)
    pairs = PairIndex.of(len(models), pair_i, pair_j)
    per_category = tuple(
        _category_pairs(presence, np.flatnonzero(codes == c), pairs)
        for c in range(len(set(categories)))
    )
    rankings = _rankings(scores, presence, codes, per_category)
    entries, kinds = np.diff(rankings.start), np.diff(rankings.pattern_start)
    size = int(entries @ kinds)
    counts = None
    if size <= min(_COUNTS_CACHE_MAX, 2 * (len(pairs) + int(entries.sum()))):
        counts = tuple(_outcome_counts(rankings, b) for b in range(len(benchmarks)))
    return Battles(
        models, benchmarks, codes, presence, scores, pairs, per_category, rankings, counts
    )


def _oriented_matrix(headline: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Models x benchmarks of scores, negated where lower is better; category per column."""
    per_bench = _benchmark_attributes(headline)
    wide = headline.pivot(index="model", columns="benchmark", values="score").astype(float)
    wide = wide.sort_index().sort_index(axis=1)
    flip = np.where(per_bench.loc[wide.columns, "higher_is_better"].to_numpy(bool), 1.0, -1.0)
    return wide * flip, list(per_bench.loc[wide.columns, "category"].astype(str))


def _benchmark_attributes(headline: pd.DataFrame) -> pd.DataFrame:
    frame = headline.assign(
        higher_is_better=headline["higher_is_better"] if "higher_is_better" in headline else True
    )
    attrs = frame.groupby("benchmark")[["category", "higher_is_better"]].nunique()
    for column in ("category", "higher_is_better"):
        clash = attrs.index[attrs[column] > 1]
        if len(clash):
            raise ValueError(f"benchmark {clash[0]!r} has more than one {column}")
    return frame.groupby("benchmark")[["category", "higher_is_better"]].first()


def _sharing_pairs(presence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (i < j, sorted) of models that report a common benchmark: the shared-count
    product one block of rows at a time, so no models x models array is ever whole."""
    n = len(presence)
    dense = presence.astype(np.float32)  # counts up to 2**24 are exact
    rows = max(1, _PAIR_BLOCK // max(n, 1))
    index = index_dtype(n, 0)  # PairIndex.of widens it if the pairs outgrow it
    found_i, found_j = [np.zeros(0, dtype=index)], [np.zeros(0, dtype=index)]
    for start in range(0, n, rows):
        block = dense[start : start + rows] @ dense.T
        local = np.arange(len(block))[:, None] + start
        i, j = np.nonzero((block > 0) & (np.arange(n)[None, :] > local))
        found_i.append((i + start).astype(index))
        found_j.append(j.astype(index))
    # contiguous index arrays: every gather over the pairs reads them
    return np.concatenate(found_i), np.concatenate(found_j)


def _category_pairs(
    presence: np.ndarray, benchmarks: np.ndarray, pairs: PairIndex
) -> CategoryPairs:
    """One category's patterns and the bits of the pairs that share one of its benchmarks."""
    part = presence[:, benchmarks]
    has = part.any(axis=1)
    distinct, inverse = np.unique(part[has], axis=0, return_inverse=True)
    pattern = np.full(len(presence), -1, dtype=np.intp)
    pattern[has] = inverse.ravel()
    patterns = distinct.astype(np.float64 if len(distinct) <= _TABLE_F64_MAX else np.float32)
    if len(patterns) <= _TABLE_F64_MAX:  # few patterns: one small product, then a lookup
        meets = (patterns @ patterns.T).ravel() > 0
        q_i, q_j = pattern[pairs.pair_i], pattern[pairs.pair_j]
        rows = (q_i >= 0) & (q_j >= 0)
        rows[rows] = meets[q_i[rows] * len(patterns) + q_j[rows]]
    else:  # a pattern per model: AND the pairs' packed presence bits, a block of pairs at once
        bits = np.packbits(part, axis=1)
        rows = np.zeros(len(pairs), dtype=bool)
        for start in range(0, len(pairs), _MASK_BLOCK):
            block = slice(start, start + _MASK_BLOCK)
            both = bits[pairs.pair_i[block]] & bits[pairs.pair_j[block]]
            rows[block] = both.any(axis=1)
    return CategoryPairs(benchmarks, pattern, patterns, np.packbits(rows), pairs)


def _rankings(
    scores: np.ndarray,
    presence: np.ndarray,
    category_codes: np.ndarray,
    categories: tuple[CategoryPairs, ...],
) -> Rankings:
    """Every benchmark's models by score, their tie blocks and pattern codes."""
    model, lo, hi, pattern, code, patterns = [], [], [], [], [], []
    for b in range(scores.shape[1]):
        present = np.flatnonzero(presence[:, b])
        order = present[np.argsort(scores[present, b], kind="stable")]
        ranked = scores[order, b]
        model.append(order)
        lo.append(np.searchsorted(ranked, ranked, side="left"))
        hi.append(np.searchsorted(ranked, ranked, side="right"))
        pattern.append(categories[category_codes[b]].pattern[order])
        distinct, local = np.unique(pattern[-1], return_inverse=True)
        code.append(local.ravel())
        patterns.append(distinct)
    start = np.cumsum([0, *map(len, model)])
    pattern_start = np.cumsum([0, *map(len, patterns)])
    join = [np.concatenate(x).astype(np.intp) if x else np.zeros(0, np.intp)
            for x in (model, lo, hi, pattern, code, patterns)]
    return Rankings(start, *join[:5], pattern_start, join[5])


def _outcome_counts(rankings: Rankings, b: int) -> np.ndarray:
    """:attr:`Battles.counts` of benchmark ``b``: with ``E[t]`` the pattern counts of
    its first ``t`` models (ascending score), an entry beats all of its models below its tie
    block and half of the others in the block, itself excepted: (E[lo] + E[hi]) / 2 - self/2."""
    entries, patterns = rankings.of(b)
    code = rankings.code[entries]
    k = len(code)
    below = np.zeros((k + 1, len(patterns)))
    below[np.arange(1, k + 1), code] = 1.0
    np.cumsum(below, axis=0, out=below)
    counts = below[rankings.tie_lo[entries]]
    counts += below[rankings.tie_hi[entries]]
    counts *= 0.5
    counts[np.arange(k), code] -= 0.5
    return counts


def main_graph(battles: Battles) -> np.ndarray:
    """Per model, whether it is in the main comparison graph (docs/elo.md section 4).

    Models are linked when they share a benchmark; the main graph is the connected component with
    the most models (ties: the one holding the alphabetically first model). Ratings of different
    components are fitted apart (only the anchor links them), so they are not comparable.
    """
    n = len(battles.models)
    if n == 0:
        return np.zeros(0, dtype=bool)
    links = scipy.sparse.coo_matrix(
        (np.ones(len(battles.pair_i)), (battles.pair_i, battles.pair_j)), shape=(n, n)
    )
    _, labels = scipy.sparse.csgraph.connected_components(links, directed=False)
    sizes = np.bincount(labels)
    first_model = np.full(len(sizes), n)
    np.minimum.at(first_model, labels, np.arange(n))
    main = min(range(len(sizes)), key=lambda c: (-sizes[c], first_model[c]))
    return labels == main


def battle_table(headline: pd.DataFrame) -> pd.DataFrame:
    """Every battle as a row (reference enumeration for small inputs and for reading).

    Columns: model_a, model_b, benchmark, category, result_a (1 win, 0.5 draw, 0 loss), weight.
    """
    battles = build_battles(headline)
    cats = sorted(set(headline["category"].astype(str)))
    presence, scores = battles.presence, battles.scores
    rows = []
    for b, bench in enumerate(battles.benchmarks):
        same = battles.category_codes == battles.category_codes[b]
        present = np.flatnonzero(presence[:, b])
        for a, i in enumerate(present):
            for j in present[a + 1 :]:
                n = int((presence[i, same] & presence[j, same]).sum())
                result = 0.5 * (1 + np.sign(scores[i, b] - scores[j, b]))
                category = cats[battles.category_codes[b]]
                row = (battles.models[i], battles.models[j], bench, category, result)
                rows.append((*row, 1 / math.sqrt(n)))
    columns = ["model_a", "model_b", "benchmark", "category", "result_a", "weight"]
    return pd.DataFrame(rows, columns=columns)
