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
        # The matrices hold the pair list itself (pair_j in scipy's index type, no copy) and
        # no values of their own: every use swaps its values into a shallow copy, so the
        # placeholder that construction needs is dropped at once (8 bytes a pair).
        values = np.empty(len(pair_j))
        self._upper = scipy.sparse.csr_matrix((values, pair_j, indptr_i), shape=(n, n))
        self._lower = self._upper.T
        self._upper.data = self._lower.data = np.empty(0)

    @classmethod
    def of(cls, n: int, pair_i: np.ndarray, pair_j: np.ndarray) -> PairIndex:
        """The index of pairs already sorted by (first, second) model."""
        index = index_dtype(n, len(pair_j))
        pair_i = np.ascontiguousarray(pair_i, dtype=index)
        pair_j = np.ascontiguousarray(pair_j, dtype=index)
        if len(pair_i) > 1 and np.any(np.diff(sort_key(pair_i, pair_j, n)) < 0):
            raise ValueError("pairs must be sorted by (first, second) model")
        return cls(n, pair_i, pair_j, offsets(pair_i, n).astype(index))

    def __len__(self) -> int:
        return len(self.pair_j)

    @property
    def pair_i(self) -> np.ndarray:
        """Each pair's first model (built on first use where the pairs were kept)."""
        if self._pair_i is None:
            self._pair_i = np.repeat(np.arange(self.n, dtype=self.pair_j.dtype), self.first_count)
        return self._pair_i

    def kept(self, keep: np.ndarray) -> PairIndex:
        """The pairs where ``keep`` is true, in the same order."""
        kept_through = np.cumsum(keep, dtype=self.pair_j.dtype)  # kept among pairs 0..k
        ends = self.indptr_i
        indptr = np.where(ends > 0, kept_through[np.maximum(ends - 1, 0)], 0)
        return PairIndex(self.n, None, self.pair_j[keep], indptr.astype(self.pair_j.dtype))

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


def index_dtype(n_models: int, n_pairs: int) -> type:
    """The integer type of model numbers and pair offsets: 32 bits while they fit (half the
    memory of the pair list, and the type scipy's sparse matrices take without a copy)."""
    return np.int32 if max(n_models, n_pairs) < np.iinfo(np.int32).max else np.int64


def sort_key(pair_i: np.ndarray, pair_j: np.ndarray, n: int) -> np.ndarray:
    """One int64 per pair ordered like (first, second) model (32-bit model numbers would
    overflow the product above 46,340 models)."""
    return pair_i.astype(np.int64) * max(n, 1) + pair_j
