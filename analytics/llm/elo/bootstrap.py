"""Step 5 of the Elo pipeline: rating and rank intervals from refits on resampled benchmarks
(docs/elo.md section 5).

Each round draws as many benchmarks as there are, with replacement, re-weighs the battles for
that draw (:func:`analytics.llm.elo.evidence.weigh`: what it keeps per benchmark is the same
compact form as the point fit's) and refits them with the point fit's routine
(:func:`analytics.llm.elo.solver.solve`), warm-started from the point fit.
"""

from __future__ import annotations

import concurrent.futures
import concurrent.futures.process
import multiprocessing
import os
import threading

import numpy as np
import pandas as pd
import threadpoolctl

import analytics.llm.elo.evidence as evidence
import analytics.llm.elo.solver as solver
from analytics.llm.elo.battles import Battles

_POOL_MIN_WORK = 2_000_000  # rounds x pairs below which the rounds run in this process
"""Forking worker processes costs a few hundredths of a second; below this much work the
rounds are cheaper in this process."""
_MAX_WORKERS = 4
_RANK_DECIMALS = 6  # round ratings are ranked to 1e-6 points: far above float noise, far below 0.1


def bootstrap_ratings(
    battles: Battles,
    rounds: int,
    *,
    seed: int = 0,
    theta0: np.ndarray | None = None,
    tol: float = solver.DEFAULT_TOL,
    workers: int | None = None,
    drawn_only: bool = False,
) -> np.ndarray:
    """Ratings refitted on ``rounds`` resamples of the benchmarks (with replacement, seeded).

    Returns a (rounds, models) array; a model none of whose battles was drawn in a round is NaN
    there (the resample says nothing about it). The resamples are drawn up front from one
    generator and each round is a function of its draw alone, so the result does not depend on
    ``workers`` (processes; default: one per CPU, at most 4; small jobs run in this process).

    A round is fitted by :func:`~analytics.llm.elo.solver.solve` on the pairs and models it
    drew (the others have no battle: they add nothing and stay at the anchor), from ``theta0``,
    to the point fit's stopping rule, with the slow modes of the full data's Hessian
    (:func:`~analytics.llm.elo.solver.slow_modes`, found once) in its conjugate gradients.
    ``drawn_only`` is accepted for compatibility: every round is fitted on what it drew.
    """
    del drawn_only
    rng = np.random.default_rng(seed)
    n_bench = len(battles.benchmarks)
    draws = [
        np.bincount(rng.integers(0, n_bench, n_bench), minlength=n_bench) for _ in range(rounds)
    ]
    if not draws:
        return np.empty((0, len(battles.models)))
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        modes = solver.slow_modes(evidence.weigh(battles), theta0)  # before any worker forks
    job = _Rounds(battles, draws, theta0, tol, modes)
    workers = workers or default_workers()
    work = rounds * max(len(battles.pairs), 1)
    if workers > 1 and rounds > 1 and work >= _POOL_MIN_WORK:
        chunks = [c for c in np.array_split(np.arange(rounds), workers) if len(c)]
        return np.vstack(_map_chunks(job, chunks))
    return job(np.arange(rounds))


class _Rounds:
    """Bootstrap rounds of one battle set: ``job(indices)`` fits the draws of those rounds."""

    def __init__(
        self,
        battles: Battles,
        draws: list[np.ndarray],
        theta0: np.ndarray | None,
        tol: float,
        modes: solver.SlowModes | None,
    ) -> None:
        self.battles, self.draws, self.theta0, self.tol, self.modes = (
            battles, draws, theta0, tol, modes
        )

    def __call__(self, indices: np.ndarray) -> np.ndarray:
        out = np.full((len(indices), len(self.battles.models)), np.nan)
        with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
            for k, index in enumerate(indices):
                weighed = evidence.weigh(self.battles, self.draws[index])
                result = self._solve(weighed)
                drawn = result.has_battles
                out[k, drawn] = solver.to_rating(result.theta[drawn])
        return out

    def _solve(self, weighed: evidence.Evidence) -> solver.Fit:
        try:
            return solver.solve(weighed, theta0=self.theta0, tol=self.tol, modes=self.modes)
        except solver.ConvergenceError:  # far from theta0 (not seen on real data): cold start
            return solver.solve(weighed, tol=self.tol, modes=self.modes)


_FORKED: list[_Rounds] = []  # the job forked worker processes run (inherited, never pickled)
_FORK_LOCK = threading.Lock()


def _run_forked(indices: np.ndarray) -> np.ndarray:
    return _FORKED[0](indices)


def _map_chunks(job: _Rounds, chunks: list[np.ndarray]) -> list[np.ndarray]:
    """``job`` of every chunk of round indices, in order: in worker processes forked for this
    call (they inherit the job, so nothing large is pickled, only round indices and results),
    or in threads where forking is unsafe (a process running other threads, such as the app;
    numpy and scipy release the GIL in the heavy steps) or fails."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        with _FORK_LOCK:
            _FORKED[:] = [job]
            context = multiprocessing.get_context("fork")
            try:
                with concurrent.futures.ProcessPoolExecutor(len(chunks), context) as pool:
                    return list(pool.map(_run_forked, chunks))
            except (OSError, concurrent.futures.process.BrokenProcessPool):
                pass  # no worker processes here: fall back to threads
            finally:
                _FORKED.clear()
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(chunks)) as threads:
        return list(threads.map(job, chunks))


def default_workers() -> int:
    """Worker processes of a bootstrap: one per CPU this process may use, at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(_MAX_WORKERS, cpus))


def intervals(samples: np.ndarray, table: pd.DataFrame) -> pd.DataFrame:
    """95% percentile intervals of ratings over the rounds that drew the model, and the
    2.5%-97.5% range of its rank among the models eligible on the full data that were drawn in
    the same round (rank_low is the better, numerically smaller, end). A round ranks its
    ratings rounded to :data:`_RANK_DECIMALS` decimals, ties sharing the better rank, so models
    of equal evidence, whose round ratings differ only by floating-point noise (~1e-13), get
    the same rank in every round."""
    eligible = table["eligible"].to_numpy(bool)
    seen = ~np.all(np.isnan(samples), axis=0)
    out = pd.DataFrame(index=table.index)
    out["rating_low"] = _nan_quantile(samples, seen, 0.025, "linear")
    out["rating_high"] = _nan_quantile(samples, seen, 0.975, "linear")
    ranks = np.full(samples.shape, np.nan)
    if eligible.any():
        import scipy.stats  # here, not at the top: importing it costs pages about 1 s

        denoised = np.round(samples[:, eligible], _RANK_DECIMALS)
        ranks[:, eligible] = scipy.stats.rankdata(
            -denoised, method="min", axis=1, nan_policy="omit"
        )
    for column, q, method in (("rank_low", 0.025, "lower"), ("rank_high", 0.975, "higher")):
        out[column] = pd.array(_nan_quantile(ranks, seen & eligible, q, method)).astype("Int64")
    return out


def _nan_quantile(values: np.ndarray, columns: np.ndarray, q: float, method: str) -> np.ndarray:
    out = np.full(values.shape[1], np.nan)
    if columns.any():
        out[columns] = np.nanquantile(values[:, columns], q, axis=0, method=method)
    return out
