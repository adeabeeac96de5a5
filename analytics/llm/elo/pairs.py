"""The model pairs that meet in some battle, indexed for fast per-model sums (used by every step
after the headline pick: the battles list them, the evidence and the fit sum over them)."""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse


class PairIndex:
    """A pair list sorted by (first, second) model, first < second, with the offsets of each
    model's pairs as first model and the upper-triangle matrix (row ``pair_i``, column
    ``pair_j``) and its transpose, whose values each use swaps in (structure built once)."""

    def __init__(
        self, n: int, pair_i: np.ndarray | None, pair_j: np.ndarray, indptr_i: np.ndarray
    ) -> None:
        self.n, self._pair_i, self.pair_j, self.indptr_i = n, pair_i, pair_j, indptr_i
        self.first_count = np.diff(indptr_i)  # pairs per model as first: a sorted gather
        # per-model sums over the first side are segment sums (np.add.reduceat) from the
        # starts of the models that are some pair's first (each runs to the next such start)
        self._has_first = self.first_count > 0
        self._starts = indptr_i[:-1][self._has_first]
        values = np.empty(len(pair_j))  # never read: every use swaps its own values in
        self._upper = scipy.sparse.csr_matrix((values, pair_j, indptr_i), shape=(n, n))
        self._lower = self._upper.T

    @classmethod
    def of(cls, n: int, pair_i: np.ndarray, pair_j: np.ndarray) -> PairIndex:
        """The index of pairs already sorted by (first, second) model."""
        pair_i, pair_j = np.ascontiguousarray(pair_i), np.ascontiguousarray(pair_j)
        if len(pair_i) > 1 and np.any(np.diff(pair_i * max(n, 1) + pair_j) < 0):
            raise ValueError("pairs must be sorted by (first, second) model")
        return cls(n, pair_i, pair_j, offsets(pair_i, n))

    def __len__(self) -> int:
        return len(self.pair_j)

    @property
    def pair_i(self) -> np.ndarray:
        """Each pair's first model (built on first use where the pairs were kept)."""
        if self._pair_i is None:
            self._pair_i = np.repeat(np.arange(self.n), self.first_count)
        return self._pair_i

    def kept(self, keep: np.ndarray) -> PairIndex:
        """The pairs where ``keep`` is true, in the same order."""
        kept_before = np.concatenate([[0], np.cumsum(keep)])
        return PairIndex(self.n, None, self.pair_j[keep], kept_before[self.indptr_i])

    def per_model(self, values: np.ndarray, second: np.ndarray | None = None) -> np.ndarray:
        """Per model, the sum of a per-pair quantity over its pairs, either side (``second``:
        another quantity for the side where it is the second model): segment sums over its
        pairs as first model (contiguous: ``np.add.reduceat``) plus the product of the lower
        triangle carrying the values with a vector of ones, a scatter in pair order. Neither
        has ``bincount``'s index checks, and a sparse product of a pairs-by-models matrix
        would gather the second side out of order (about 4x slower)."""
        second = values if second is None else second
        lower = copy.copy(self._lower)
        lower.data = second
        out = lower @ np.ones(self.n)
        if len(self._starts):
            out[self._has_first] += np.add.reduceat(values, self._starts)
        return out

    def matrices(
        self, upper_values: np.ndarray, lower_values: np.ndarray
    ) -> tuple[scipy.sparse.csr_matrix, scipy.sparse.csc_matrix]:
        """The pair structure's upper triangle (row pair_i, column pair_j) and the lower one
        (its transpose), carrying the given per-pair values: shallow copies with the values
        swapped in, the structure neither rebuilt nor re-checked (and thread-safe)."""
        upper, lower = copy.copy(self._upper), copy.copy(self._lower)
        upper.data, lower.data = upper_values, lower_values
        return upper, lower


def offsets(index: np.ndarray, n: int) -> np.ndarray:
    """Offsets of each of ``n`` models' entries in an array sorted by ``index`` (CSR indptr)."""
    return np.concatenate([[0], np.cumsum(np.bincount(index, minlength=n))])
