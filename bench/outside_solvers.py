"""The project's Bradley-Terry fit against outside solvers of the same likelihood; prints
figures, asserts nothing.

What it measures. For each input (synthetic catalogs of ``bench/elo.py``'s generator, and
with ``--snapshot`` a built snapshot's scores) every method fits the SAME weighted
Bradley-Terry likelihood: the weighted wins of ``elo.aggregate`` per pair (a draw half to each
side) plus the project's one draw per model against an anchor of strength 1
(``analytics/llm/elo/solver.py``). The outside methods get the anchor as one more model that
draws once with every model, and their ratings are read relative to it, so no method needs
any other regularisation. Per method:

- CPU s: ``time.process_time()`` (user + system of this process) of the fit alone, best of up
  to ``--repeat`` runs (more runs only while they stay cheap). The fit starts from the
  method's natural input: ours from ``elo.weigh``'s evidence (``elo.solver.solve``), the
  others from the per-pair wins of ``elo.aggregate``, so turning those into their own form
  (choix's dense matrix, FastChat's design matrix or match-up rows) counts in their time. The
  shared preparation (``elo.build_battles``, ``elo.weigh``, ``elo.aggregate``) is printed above
  the table. Every fit runs with one BLAS thread (``threadpoolctl``), as ours does.
- peak MiB: ``tracemalloc``'s peak during one further run of the fit (so tracing never slows
  the timed runs): numpy, scipy and Python allocations made by the fit; scratch memory that
  BLAS/LAPACK or compiled code allocate on their own is not seen.
- max abs diff, models > 1 Elo off, Spearman: the largest rating difference from ours in Elo
  points (1000 + 400 log10 s) after aligning the means, how many models differ by more than
  1 point, and Spearman's rank correlation with ours.
- log-lik. below ours: the anchored log-likelihood (``elo.log_likelihood``) at ours minus at
  the method's ratings. Ours is the maximum, so a method that fits this likelihood and
  converges lands a rounding error from it; a large gap says the method stopped early.
- convergence: iterations and, where the method says, which test stopped it. The methods
  run with their own stopping rules, as their authors ship them.

Methods (rows):

1. ours: ``elo.solver.solve`` (MM sweeps + damped Newton, ``tol`` 1e-10).
2. choix ``ilsr_pairwise_dense`` (iterative Luce spectral ranking on the dense win matrix),
   ``alpha=0``, choix's defaults ``max_iter=100``, ``tol=1e-8``. ``choix.mm_pairwise`` and
   ``ilsr_pairwise`` take integer (winner, loser) lists and cannot carry weighted wins.
3. choix the same, without the anchor draws: plain Bradley-Terry, to show how far the anchor
   moves ratings (aligned by mean, as choix centres its parameters). It has no unique
   solution where a model is undefeated or the graph falls apart (the real catalog): then
   choix's error is the row.
4. FastChat LR (2024): :func:`fastchat_style_mle`, a reimplementation of FastChat's
   ``compute_elo_mle_with_tie`` (sklearn ``LogisticRegression`` on a dense design matrix with
   sample weights), as Chatbot Arena fitted it until September 2024, with sklearn's default
   ``tol`` 1e-4 as upstream. Its design matrix has two rows for each ordered pair of models
   (p(p-1)*2 x p float64), so it is skipped, with its size, above ``--memory-budget-gib``.
5. the same with ``tol=1e-6``, as in the copy of that function in LMSYS's Chatbot Arena
   notebook (``compute_mle_elo``).
6. FastChat BT (now): :func:`fastchat_bt`, a reimplementation of FastChat's current
   ``compute_bt`` (scipy L-BFGS-B on one row per match-up and outcome, with weights).
7. sklearn LR, sparse: ``LogisticRegression(fit_intercept=False, C=inf, tol=1e-6,
   max_iter=1000)`` on a sparse design matrix, one row per (pair, outcome) with the weighted
   wins as sample weights. Its objective is exactly row 5's (sklearn divides the loss by the
   total weight, so row 5's doubled rows and weight-0 rows cancel): same ratings, without the
   dense matrix.
8. the same with ``tol=1e-10``, ``max_iter=10000``: how close an L-BFGS fit of this
   likelihood gets to ours when it is asked to.

Bootstrap (``--rounds N``, default 20): N rounds of resampled benchmarks (with replacement,
the same draws as ``elo.bootstrap_ratings`` with seed 0), ours (``elo.bootstrap_ratings``,
``workers=1``, warm-started from the point fit) against FastChat's style of refitting from
scratch per round: each round ``elo.aggregate`` of the draw, then methods 4, 5 and 6 (the
bootstrap weights of method 6 normalised to sum 1, as upstream's ``compute_bootstrap_bt``
does). One round is timed first; a method whose N rounds would take more than ``--budget-s``
CPU-seconds (default 120) is printed as skipped with that estimate. Also printed: the largest
difference of the 2.5% / 97.5% interval ends from ours.

The load average (1 minute, as ``uptime`` prints it) before and after each row, and the
versions of numpy, scipy, choix and scikit-learn are printed with the tables.

Packages (bench only, not in requirements.txt for choix; scikit-learn is already pinned
there)::

    .venv/bin/pip install choix==0.4.1 scikit-learn==1.9.1

Without one of them the script exits with status 2 and a one-line message.

Run (from the repository root)::

    PYTHONPATH=. .venv/bin/python bench/outside_solvers.py [--models 200,600,1500]
        [--benchmarks 150] [--scored 0.6] [--rounds 20] [--budget-s 120]
        [--memory-budget-gib 4] [--repeat 3] [--snapshot [VERSION]]

``--snapshot`` alone adds the served snapshot's scores, ``--snapshot VERSION`` a built one;
``--models ''`` leaves the synthetic catalogs out.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import math
import os
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.optimize
import scipy.sparse
import scipy.special
import scipy.stats
import threadpoolctl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analytics.llm import elo  # noqa: E402

# The bench-only packages: module name -> the pip requirement that provides it.
PACKAGES = {"choix": "choix==0.4.1", "sklearn": "scikit-learn==1.9.1"}
LN10 = math.log(10.0)
_REPEAT_CHEAP_S = 3.0  # further timed runs only while all runs so far took less CPU than this


@dataclass
class Result:
    """One method's fit: ratings (Elo points, anchor = 1000; NaN where the method gives none)
    and a short note on convergence."""

    ratings: np.ndarray
    note: str = ""


@dataclass
class Method:
    name: str
    regularisation: str
    fit: Callable[[Inputs], Result]
    skip: Callable[[Inputs], str] = lambda inputs: ""  # why not to run it here ("": run)
    plain: bool = False  # fits plain Bradley-Terry (no anchor draws), another likelihood


@dataclass
class Inputs:
    """One catalog, prepared: the battles, ours' evidence and the per-pair wins."""

    label: str
    battles: object
    evidence: object
    pairwise: object
    prep: dict[str, float] = field(default_factory=dict)  # step -> CPU s

    @property
    def n_models(self) -> int:
        return len(self.battles.models)


# --- outside methods ---------------------------------------------------------------------


def win_matrix(pw, anchor: bool = True) -> np.ndarray:
    """Dense (n+1) x (n+1) weighted wins, ``W[i, j]`` = wins of i over j (a draw half each),
    with the anchor as the last model drawing once with every model (``anchor=False``: n x n,
    no anchor)."""
    n = pw.n_models
    size = n + 1 if anchor else n
    wins = np.zeros((size, size))
    wins[pw.pair_i, pw.pair_j] = pw.wins_i
    wins[pw.pair_j, pw.pair_i] = pw.wins_j
    if anchor:
        wins[:n, n] = wins[n, :n] = 0.5
    return wins


def match_rows(pw) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row per (pair, outcome) with weight, the anchor (model n) drawing once with every
    model: match-ups (rows, 2), outcome for the first model (1 or 0; the anchor's draw as two
    half rows), weight. Rows of weight 0 are left out (FastChat's ``np.unique`` over battles
    never produces them)."""
    n = pw.n_models
    models = np.arange(n)
    first = np.concatenate([pw.pair_i, pw.pair_i, models, models])
    second = np.concatenate([pw.pair_j, pw.pair_j, np.full(n, n), np.full(n, n)])
    outcome = np.concatenate([np.ones(len(pw.pair_i)), np.zeros(len(pw.pair_i)),
                              np.ones(n), np.zeros(n)])
    weight = np.concatenate([pw.wins_i, pw.wins_j, np.full(n, 0.5), np.full(n, 0.5)])
    keep = weight > 0
    matchups = np.column_stack([first[keep], second[keep]]).astype(np.int64)
    return matchups, outcome[keep], weight[keep]


def relative_to_anchor(log_strength: np.ndarray) -> np.ndarray:
    """Elo ratings of natural-log strengths whose last entry is the anchor's."""
    return elo.to_rating(log_strength[:-1] - log_strength[-1])


def choix_ilsr(pw, anchor: bool = True) -> Result:
    """choix's iterative LSR on the dense weighted win matrix, ``alpha=0`` (no prior)."""
    import choix

    params = choix.ilsr_pairwise_dense(win_matrix(pw, anchor), alpha=0.0)
    ratings = relative_to_anchor(params) if anchor else elo.to_rating(params)
    return Result(ratings, "converged (choix tol 1e-8, L1 of the step)")


def fastchat_style_mle(
    win_mat: np.ndarray,
    scale: float = 400.0,
    base: float = 10.0,
    init_rating: float = 1000.0,
    tol: float = 1e-4,
) -> tuple[np.ndarray, str]:
    """FastChat's former Bradley-Terry fit, from a weighted win matrix (``win_matrix``).

    Reimplements ``compute_elo_mle_with_tie`` of ``fastchat/serve/monitor/elo_analysis.py``
    (github.com/lm-sys/FastChat, last present at commit 663442ef of 2024-09-02; commit e208d567
    of 2024-09-22 replaced it by ``rating_systems.compute_bt``, see :func:`fastchat_bt`).
    Upstream counts battles into pivot tables, ``ptbl_win[a, b] = 2 * wins of a over b +
    draws``, which is twice ``win_mat`` (draws half each). It then loops over every ordered
    pair (a, b), a != b, in table order and writes two rows of a dense design matrix, +log(base)
    in column a and -log(base) in column b, label 1 with weight ``ptbl_win[a, b]`` and label 0
    with weight ``ptbl_win[b, a]``: pairs that never met stay in with weight 0, and each pair's
    likelihood appears twice (once per orientation). sklearn divides the loss by the total
    sample weight, so neither changes the objective nor where the fit stops; they cost memory
    and time. The same rows in the same order are written here with numpy instead of
    upstream's Python loop over pandas ``.loc``, so this time is a lower bound of upstream's.

    ``LogisticRegression(fit_intercept=False, penalty=None)`` with sklearn's default
    ``max_iter`` 100, as upstream; sklearn 1.8 deprecated ``penalty``, and ``C=inf`` is its
    stated equivalent. ``tol``: upstream passes none, i.e. sklearn's default 1e-4; the copy of
    this function in LMSYS's Chatbot Arena notebook, ``compute_mle_elo``, passes 1e-6. The
    tolerance bounds the weight-averaged gradient, so the more models share the weight, the
    earlier the fit stops. Upstream's shift of all ratings that puts mixtral-8x7b at 1114 is
    left out (callers re-anchor). Returns ``scale * coef + init_rating`` per model (in
    ``win_mat`` order) and a convergence note (upstream returns the ratings only).
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    ptbl_win = 2.0 * win_mat
    p = len(ptbl_win)
    a, b = np.nonzero(~np.eye(p, dtype=bool))  # row-major: upstream's loop order
    row = 2 * np.arange(len(a))
    x = np.zeros((2 * len(a), p))
    x[row, a] = x[row + 1, a] = math.log(base)
    x[row, b] = x[row + 1, b] = -math.log(base)
    y = np.zeros(2 * len(a))
    y[row] = 1.0
    sample_weight = np.empty(2 * len(a))
    sample_weight[row] = ptbl_win[a, b]
    sample_weight[row + 1] = ptbl_win[b, a]
    lr = LogisticRegression(fit_intercept=False, C=np.inf, tol=tol)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        lr.fit(x, y, sample_weight=sample_weight)
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    note = f"{int(lr.n_iter_[0])} L-BFGS iterations" + ("" if converged else ", NOT converged")
    return scale * lr.coef_[0] + init_rating, note


def fastchat_lr_bytes(n_models: int) -> int:
    """Bytes of :func:`fastchat_style_mle`'s dense design matrix (anchor included)."""
    p = n_models + 1
    return 2 * p * (p - 1) * p * 8


def fastchat_lr(pw, tol: float = 1e-4) -> Result:
    ratings, note = fastchat_style_mle(win_matrix(pw), tol=tol)
    return Result(ratings[:-1] - ratings[-1] + elo.ANCHOR_RATING, note)


def fastchat_bt(
    matchups: np.ndarray,
    outcomes: np.ndarray,
    weights: np.ndarray,
    n_models: int,
    base: float = 10.0,
    scale: float = 400.0,
    init_rating: float = 1000.0,
    tol: float = 1e-6,
) -> tuple[np.ndarray, str]:
    """FastChat's current Bradley-Terry fit, from weighted match-up rows (:func:`match_rows`).

    Reimplements ``compute_bt`` with ``fit_bt`` and ``bt_loss_and_grad`` of
    ``fastchat/serve/monitor/rating_systems.py`` (github.com/lm-sys/FastChat, commit 0e6d3e4 of
    2025-04-12). Upstream's ``preprocess_for_bt`` turns battles into unique (model_a, model_b,
    outcome) rows weighted by their counts; here the rows are (pair, outcome) weighted by the
    weighted wins. Then scipy ``minimize(method="L-BFGS-B", jac=True)`` from zeros,
    ``maxiter`` 100, ``gtol`` 1e-6, on the weighted log loss with ``alpha = log(base)``, and
    ratings ``scale * x + init_rating`` (upstream's baseline-model offset left out). Returns
    the ratings and a convergence note (upstream returns the ratings only).
    """
    alpha = math.log(base)

    def loss_and_grad(ratings):  # upstream's bt_loss_and_grad
        matchup_ratings = ratings[matchups]
        logits = alpha * (matchup_ratings[:, 0] - matchup_ratings[:, 1])
        probs = scipy.special.expit(logits)
        loss = -((np.log(probs) * outcomes + np.log(1.0 - probs) * (1.0 - outcomes))
                 * weights).sum()
        matchups_grads = -alpha * (outcomes - probs) * weights
        model_grad = np.zeros_like(ratings)
        np.add.at(model_grad, matchups[:, [0, 1]],
                  matchups_grads[:, None] * np.array([1.0, -1.0], dtype=np.float64))
        return loss, model_grad

    result = scipy.optimize.minimize(
        fun=loss_and_grad,
        x0=np.zeros(n_models, dtype=np.float64),
        jac=True,
        method="L-BFGS-B",
        # upstream also passes "disp": False, scipy's default, which scipy 1.17 deprecates
        options={"maxiter": 100, "gtol": tol},
    )
    return result.x * scale + init_rating, f"{result.nit} L-BFGS iterations, {_stop(result)}"


def _stop(result) -> str:
    """Which of L-BFGS-B's tests stopped it (scipy's message, shortened)."""
    message = str(result.message)
    if "REDUCTION OF F" in message:  # scipy's default ftol 2.2e-9, relative change of the loss
        return "stopped by ftol"
    if "PROJECTED GRADIENT" in message:
        return "stopped by gtol"
    return f"NOT converged ({message.lower()})"


def fastchat_bt_rows(pw, normalise: bool = False) -> Result:
    """:func:`fastchat_bt` of per-pair wins; ``normalise``: weights summing to 1, as upstream's
    ``compute_bootstrap_bt`` passes its resampled counts (divided by the number of battles)."""
    matchups, outcomes, weights = match_rows(pw)
    if normalise:
        weights = weights / weights.sum()
    ratings, note = fastchat_bt(matchups, outcomes, weights, pw.n_models + 1)
    return Result(ratings[:-1] - ratings[-1] + elo.ANCHOR_RATING, note)


def sklearn_sparse(pw, tol: float = 1e-6, max_iter: int = 1000) -> Result:
    """sklearn's logistic regression on a sparse design matrix: one row per (pair, outcome),
    +ln 10 in the first model's column and -ln 10 in the second's, the weighted wins as sample
    weights, no penalty; by default ``tol`` 1e-6 and room to converge (``max_iter`` 1000)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    matchups, outcomes, weights = match_rows(pw)
    rows = len(outcomes)
    x = scipy.sparse.csr_matrix(
        (np.tile([LN10, -LN10], rows), matchups.ravel(), np.arange(0, 2 * rows + 1, 2)),
        shape=(rows, pw.n_models + 1),
    )
    lr = LogisticRegression(fit_intercept=False, C=np.inf, tol=tol, max_iter=max_iter)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        lr.fit(x, outcomes, sample_weight=weights)
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    coef = lr.coef_[0]  # log10 strengths
    note = f"{int(lr.n_iter_[0])} L-BFGS iterations" + ("" if converged else ", NOT converged")
    return Result(400.0 * (coef[:-1] - coef[-1]) + elo.ANCHOR_RATING, note)


def ours(inputs: Inputs) -> Result:
    fit = elo.solver.solve(inputs.evidence)
    return Result(elo.to_rating(fit.theta), f"{fit.iterations} iterations")


def over_memory_budget(budget_gib: float) -> Callable[[Inputs], str]:
    def skip(inputs: Inputs) -> str:
        size = fastchat_lr_bytes(inputs.n_models) / 2**30
        return f"skipped (design matrix {size:,.1f} GiB > {budget_gib:g} GiB)" \
            if size > budget_gib else ""
    return skip


def methods(args: argparse.Namespace) -> list[Method]:
    anchor = "anchor: 1 draw per model vs strength 1"
    return [
        Method("ours (elo.solver.solve)", anchor, ours),
        Method("choix ilsr_pairwise_dense", f"{anchor} (as data); alpha=0",
               lambda inputs: choix_ilsr(inputs.pairwise)),
        Method("choix ilsr_pairwise_dense, no anchor", "none (alpha=0): plain BT",
               lambda inputs: choix_ilsr(inputs.pairwise, anchor=False), plain=True),
        Method("FastChat LR (2024, dense design, tol 1e-4)", f"{anchor} (as data); C=inf",
               lambda inputs: fastchat_lr(inputs.pairwise),
               over_memory_budget(args.memory_budget_gib)),
        Method("FastChat LR (notebook, dense design, tol 1e-6)", f"{anchor} (as data); C=inf",
               lambda inputs: fastchat_lr(inputs.pairwise, tol=1e-6),
               over_memory_budget(args.memory_budget_gib)),
        Method("FastChat BT (now, L-BFGS-B)", f"{anchor} (as data); none",
               lambda inputs: fastchat_bt_rows(inputs.pairwise)),
        Method("sklearn LR, sparse design", f"{anchor} (as data); C=inf",
               lambda inputs: sklearn_sparse(inputs.pairwise)),
        # the same at a tolerance near ours: shows that what separates the L-BFGS rows from
        # ours is where they stop, not what they fit
        Method("sklearn LR, sparse design, tol 1e-10", f"{anchor} (as data); C=inf",
               lambda inputs: sklearn_sparse(inputs.pairwise, tol=1e-10, max_iter=10_000)),
    ]


# --- measuring ---------------------------------------------------------------------------


def timed(fn: Callable[[], Result], repeat: int) -> tuple[Result, float]:
    """The result and the least CPU time of up to ``repeat`` runs (more runs only while they
    are cheap: the minimum is the figure least disturbed by other jobs)."""
    best, spent, result = math.inf, 0.0, None
    for _ in range(max(repeat, 1)):
        start = time.process_time()
        result = fn()
        cpu = time.process_time() - start
        best, spent = min(best, cpu), spent + cpu
        if spent > _REPEAT_CHEAP_S:
            break
    return result, best


def peak_mib(fn: Callable[[], Result]) -> float:
    """tracemalloc's peak during one run of ``fn``, in MiB (what was allocated before is not
    traced, so the figure is the fit's own)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def compare(reference: np.ndarray, ratings: np.ndarray) -> tuple[float, int, float]:
    """Largest |rating difference| after aligning the means, how many models differ by more
    than 1 Elo point (a large maximum can be a few thinly linked models), and Spearman's
    correlation, over the models both rate."""
    both = np.isfinite(reference) & np.isfinite(ratings)
    ref, other = reference[both], ratings[both]
    diff = np.abs((other - other.mean()) - (ref - ref.mean()))
    rho = float(scipy.stats.spearmanr(ref, other).statistic)
    return float(np.max(diff)), int(np.count_nonzero(diff > 1.0)), rho


def point_table(inputs: Inputs, args: argparse.Namespace) -> np.ndarray:
    """The point fits' table of one input; returns our log-strengths (the bootstrap's start)."""
    print("| method | regularisation | CPU s | peak MiB | CPU / ours | peak / ours "
          "| max abs diff (Elo) | models > 1 Elo off | Spearman | log-lik. below ours "
          "| convergence | load before -> after |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    reference = base_cpu = base_peak = None

    def likelihood(ratings: np.ndarray) -> float:
        theta = (ratings - elo.ANCHOR_RATING) * LN10 / elo.ELO_SCALE
        return elo.log_likelihood(theta, inputs.pairwise)

    for method in methods(args):
        before = os.getloadavg()[0]
        skip = method.skip(inputs)
        if skip:
            print(f"| {method.name} | {method.regularisation} | {skip} | | | | | | | | | "
                  f"{before:.2f} -> {os.getloadavg()[0]:.2f} |", flush=True)
            continue
        try:
            result, cpu = timed(lambda m=method: m.fit(inputs), args.repeat)
            peak = peak_mib(lambda m=method: m.fit(inputs))
        except (RuntimeError, ValueError, MemoryError) as error:  # e.g. choix: no convergence
            first = str(error).split(". ")[0]  # choix's messages go on with a guess
            print(f"| {method.name} | {method.regularisation} | error: {first} | | | | | | | | | "
                  f"{before:.2f} -> {os.getloadavg()[0]:.2f} |", flush=True)
            continue
        if reference is None:
            reference, base_cpu, base_peak = result.ratings, cpu, peak
        diff, off, rho = compare(reference, result.ratings)
        # the anchored likelihood of each fit: ours is its maximum, so a method that fits the
        # same likelihood lands at most a rounding error below it (plain BT maximises another)
        gap = "n/a" if method.plain else f"{likelihood(reference) - likelihood(result.ratings):.2g}"
        print(f"| {method.name} | {method.regularisation} | {cpu:.3f} | {peak:,.1f} "
              f"| {cpu / base_cpu:.1f} | {peak / base_peak:.1f} | {diff:.2g} | {off:,} "
              f"| {rho:.6f} "
              f"| {gap} | {result.note} | {before:.2f} -> {os.getloadavg()[0]:.2f} |", flush=True)
    theta = (reference - elo.ANCHOR_RATING) * LN10 / elo.ELO_SCALE
    return theta


def draws(n_benchmarks: int, rounds: int, seed: int = 0) -> list[np.ndarray]:
    """The benchmark multiplicities of ``elo.bootstrap_ratings``'s rounds (same generator,
    same order), so every method refits the same resamples."""
    rng = np.random.default_rng(seed)
    return [np.bincount(rng.integers(0, n_benchmarks, n_benchmarks), minlength=n_benchmarks)
            for _ in range(rounds)]


def outside_round(inputs: Inputs, draw: np.ndarray, fit: Callable) -> tuple[np.ndarray, float]:
    """One FastChat-style round: per-pair wins of the draw, then a fit from scratch; returns
    the ratings (NaN for models without a drawn battle, as ours) and the CPU s of the
    re-weighing (``elo.aggregate``)."""
    start = time.process_time()
    pw = elo.aggregate(inputs.battles, draw)
    reweigh = time.process_time() - start
    ratings = fit(pw).ratings
    fought = (np.bincount(pw.pair_i, pw.total, pw.n_models)
              + np.bincount(pw.pair_j, pw.total, pw.n_models)) > 0
    return np.where(fought, ratings, np.nan), reweigh


def interval_ends(samples: np.ndarray) -> np.ndarray:
    """2.5% and 97.5% of each model's round ratings (NaN for a model no round drew: with few
    rounds, a model of one benchmark may miss them all)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's "All-NaN slice"
        return np.nanpercentile(samples, [2.5, 97.5], axis=0)


def bootstrap_table(inputs: Inputs, theta: np.ndarray, args: argparse.Namespace) -> None:
    rounds = args.rounds
    print(f"\nBootstrap, {rounds} rounds (benchmarks resampled with replacement, seed 0; "
          f"workers=1):\n")
    print("| method | CPU s | per round s | of which re-weighing s | CPU / ours "
          "| max abs interval-end diff (Elo) | load before -> after |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    before = os.getloadavg()[0]
    start = time.process_time()
    elo.bootstrap_ratings(inputs.battles, 1, seed=0, theta0=theta, workers=1)
    estimate = (time.process_time() - start) * rounds
    if estimate > args.budget_s:
        print(f"| ours (elo.bootstrap_ratings) | skipped (over budget: est. {estimate:.0f} s) "
              f"| | | | | {before:.2f} -> {os.getloadavg()[0]:.2f} |", flush=True)
        return
    start = time.process_time()
    samples = elo.bootstrap_ratings(inputs.battles, rounds, seed=0, theta0=theta, workers=1)
    base = time.process_time() - start
    reference = interval_ends(samples)
    print(f"| ours (elo.bootstrap_ratings) | {base:.2f} | {base / rounds:.3f} | (elo.weigh, "
          f"inside) | 1.0 | 0 | {before:.2f} -> {os.getloadavg()[0]:.2f} |", flush=True)
    outside = [
        ("FastChat LR (2024, dense design, tol 1e-4)", fastchat_lr,
         over_memory_budget(args.memory_budget_gib)),
        ("FastChat LR (notebook, dense design, tol 1e-6)",
         lambda pw: fastchat_lr(pw, tol=1e-6), over_memory_budget(args.memory_budget_gib)),
        ("FastChat BT (now, L-BFGS-B, weights sum 1)",
         lambda pw: fastchat_bt_rows(pw, normalise=True), lambda inputs: ""),
    ]
    multiplicities = draws(len(inputs.battles.benchmarks), rounds)
    for name, fit, skip in outside:
        before = os.getloadavg()[0]
        why = skip(inputs)
        if why:
            print(f"| {name} | {why} | | | | | {before:.2f} -> {os.getloadavg()[0]:.2f} |")
            continue
        out = np.full((rounds, inputs.n_models), np.nan)
        start = time.process_time()
        out[0], reweigh = outside_round(inputs, multiplicities[0], fit)
        first = time.process_time() - start
        if first * rounds > args.budget_s:
            print(f"| {name} | skipped (over budget: est. {first * rounds:.0f} s) | {first:.2f} "
                  f"| {reweigh:.2f} | | | {before:.2f} -> {os.getloadavg()[0]:.2f} |",
                  flush=True)
            continue
        for k in range(1, rounds):
            out[k], more = outside_round(inputs, multiplicities[k], fit)
            reweigh += more
        cpu = time.process_time() - start
        diff = float(np.nanmax(np.abs(interval_ends(out) - reference)))
        print(f"| {name} | {cpu:.2f} | {cpu / rounds:.3f} | {reweigh:.2f} | {cpu / base:.1f} "
              f"| {diff:.2g} | {before:.2f} -> {os.getloadavg()[0]:.2f} |", flush=True)


# --- inputs ------------------------------------------------------------------------------


def prepare(label: str, headline) -> Inputs:
    """Battles, ours' evidence and the per-pair wins of a headline table, each step timed."""
    prep = {}
    start = time.process_time()
    battles = elo.build_battles(headline)
    prep["elo.build_battles"] = time.process_time() - start
    start = time.process_time()
    evidence = elo.weigh(battles)
    prep["elo.weigh (ours' input)"] = time.process_time() - start
    start = time.process_time()
    pairwise = elo.aggregate(battles)
    prep["elo.aggregate (the others' input)"] = time.process_time() - start
    return Inputs(label, battles, evidence, pairwise, prep)


def synthetic(n_models: int, args: argparse.Namespace) -> Inputs:
    # bench/elo.py's seeded generator, loaded by path: the bench folder is no package, and
    # putting it on sys.path would let its module names shadow the project's (pages)
    spec = importlib.util.spec_from_file_location("bench_elo", Path(__file__).with_name("elo.py"))
    bench_elo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_elo)
    scores = bench_elo.synthetic_scores(n_models, args.benchmarks, 8, missing=1.0 - args.scored)
    label = (f"synthetic {n_models:,} models x {args.benchmarks} benchmarks, "
             f"{args.scored:.0%} scored")
    return prepare(label, elo.headline_scores(scores))


def snapshot(version: str | None) -> Inputs:
    """A built snapshot's scores, loaded as ``bench/elo.py`` does (``None``: the served one)."""
    from analytics.core import db
    from analytics.llm import ratings

    con = db.connect(version)
    scores = ratings.load_scores(con)
    label = f"snapshot {version or db.current_version()}"
    return prepare(label, elo.headline_scores(scores.dropna(subset=["score"])))


def report(inputs: Inputs, args: argparse.Namespace) -> None:
    battles = inputs.battles
    print(f"\n## {inputs.label}\n")
    print(f"{inputs.n_models:,} models x {len(battles.benchmarks)} benchmarks, "
          f"{len(battles.pair_i):,} pairs, {battles.n_battles:,} battles; preparation CPU s: "
          + ", ".join(f"{step} {cpu:.2f}" for step, cpu in inputs.prep.items()) + "\n")
    theta = point_table(inputs, args)
    if args.rounds > 0:
        bootstrap_table(inputs, theta, args)


def missing_package() -> str:
    """The one-line message for the first bench-only package that is not installed."""
    for module, requirement in PACKAGES.items():
        if importlib.util.find_spec(module) is None:
            return (f"bench/outside_solvers.py needs {requirement.split('==')[0]}: "
                    f"{sys.executable} -m pip install {requirement} (bench only)")
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="200,600,1500",
                        help="comma-separated synthetic catalog sizes ('' for none)")
    parser.add_argument("--benchmarks", type=int, default=150)
    parser.add_argument("--scored", type=float, default=0.6, help="share of cells scored")
    parser.add_argument("--rounds", type=int, default=20, help="bootstrap rounds (0: none)")
    parser.add_argument("--budget-s", type=float, default=120.0,
                        help="skip a bootstrap method whose rounds would take more CPU-s")
    parser.add_argument("--memory-budget-gib", type=float, default=4.0,
                        help="skip FastChat's dense design matrix above this size")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per fit, at most")
    parser.add_argument("--snapshot", nargs="?", const="", default=None,
                        help="also a snapshot's scores (no value: the served one)")
    args = parser.parse_args(argv)
    message = missing_package()
    if message:
        print(message, file=sys.stderr)
        return 2
    versions = ", ".join(f"{name} {importlib.metadata.version(name)}"
                         for name in ("numpy", "scipy", "choix", "scikit-learn"))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"# Outside solvers, {time.strftime('%Y-%m-%d %H:%M')}\n\n{versions}; {cpus} CPUs, "
          f"one BLAS thread; load average (1, 5, 15 min) "
          + " ".join(f"{a:.2f}" for a in os.getloadavg()))
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        for n_models in (int(m) for m in args.models.split(",") if m.strip()):
            report(synthetic(n_models, args), args)
        if args.snapshot is not None:
            report(snapshot(args.snapshot or None), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
