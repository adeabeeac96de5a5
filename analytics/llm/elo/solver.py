"""Step 4 of the Elo pipeline: the maximum-likelihood Bradley-Terry strengths (docs/elo.md
section 3), one routine (:func:`solve`) for the point fit and for every bootstrap round.

Model *i* beats *j* with probability ``s_i / (s_i + s_j)``; each model also draws once against
an anchor of strength 1 (rating 1000), which keeps every strength finite and the likelihood
strictly concave. The MM algorithm of Hunter (2004), "MM algorithms for generalized
Bradley-Terry models", Ann. Statist. 32(1), 384-406, defines the fixed point and the stopping
rule; damped Newton steps (conjugate gradients above :data:`_DENSE_NEWTON_MAX` models) reach it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse
import threadpoolctl

from analytics.core.problems import Problem
from analytics.llm.elo.evidence import Evidence, Pairwise
from analytics.llm.elo.pairs import PairIndex

ANCHOR_RATING = 1000.0  # rating of the fixed anchor (strength 1), seed 002
ELO_SCALE = 400.0  # +400 rating points = 10:1 win odds, seed 002
DEFAULT_TOL = 1e-10  # stop when one plain MM sweep moves every log-strength by less than this
DEFAULT_MAX_ITER = 500  # MM sweeps and Newton steps before ConvergenceError
_MM_SWEEPS = 4  # plain MM sweeps first: they never overshoot a far move (a resampled round)
_MAX_NEWTON_STEP = 2.0  # largest change of any log-strength in one Newton step (~350 rating)
_LOCAL_STEP = 0.1  # a Newton step moving no log-strength by this much is in the local regime
_DENSE_NEWTON_MAX = 200  # above this many models the Newton step uses conjugate gradients
_CG_RTOL_MAX = 0.1  # loosest relative residual of the conjugate-gradient Newton solve
_CG_RTOL_GRAD = 1e-2  # ... times the largest gradient entry, when smaller
_CG_ATOL_OF_TOL = 0.1
"""Conjugate gradients also stop once no model's residual over its wins W_i (anchor included)
is above this times ``tol``: after the step a model's gradient is about its residual and its
MM step about gradient / W_i, so the stopping rule is met with room to spare."""
_CG_MAX_ITER = 500  # conjugate-gradient iterations per Newton step, at most
_COMPACT_BELOW = 0.98
"""Evidence whose pairs with battles are fewer than this share of its pair list is fitted on
those pairs alone (a bootstrap round of the real catalog leaves out about 13% of the pairs)."""
_SLOW_MODES = 8  # slow modes the bootstrap rounds' conjugate gradients correct exactly
_SLOW_MODES_MAX_MODELS = 6000  # above this the dense eigenproblem of slow_modes costs too much


class ConvergenceError(Problem, RuntimeError):
    """The rating fit did not reach its tolerance within ``max_iter`` sweeps (``where``: the
    fit, ``what``: the last step against the tolerance, ``fix``: what to change)."""


@dataclass(frozen=True)
class Fit:
    """A converged fit: log-strengths (anchor = 0) and the diagnostics of the stopping rule."""

    theta: np.ndarray
    iterations: int
    last_mm_step: float
    max_abs_gradient: float
    has_battles: np.ndarray | None = None  # (M,) bool: the models fitted (the rest stay at 0)


@dataclass(frozen=True)
class SlowModes:
    """Eigenvectors of the smallest eigenvalues of a Jacobi-scaled Hessian, unscaled
    (``vectors``, n x k), and their inverse eigenvalues (:func:`slow_modes`)."""

    vectors: np.ndarray
    inverse_values: np.ndarray


def to_rating(theta: np.ndarray) -> np.ndarray:
    """Elo-scale rating 400*log10(s) + 1000 of log-strengths (seed 002)."""
    return ELO_SCALE * np.asarray(theta) / math.log(10.0) + ANCHOR_RATING


def fit(
    pw: Pairwise,
    *,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    theta0: np.ndarray | None = None,
    accelerate: bool = True,
) -> Fit:
    """Maximum-likelihood log-strengths of per-pair wins (:func:`solve`)."""
    # Many small products: one BLAS thread avoids spin-wait overhead on shared CPUs.
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        evidence = Evidence.of_pairwise(pw)
        return solve(evidence, theta0=theta0, tol=tol, max_iter=max_iter, accelerate=accelerate)


def solve(
    evidence: Evidence,
    *,
    theta0: np.ndarray | None = None,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    accelerate: bool = True,
    modes: SlowModes | None = None,
) -> Fit:
    """Maximum-likelihood log-strengths by MM sweeps (Hunter 2004), accelerated by Newton steps.

    Stops once a plain MM sweep from the current point moves no log-strength by ``tol`` or more,
    i.e. at the MM fixed point, the unique maximum; raises :class:`ConvergenceError` after
    ``max_iter`` sweeps and steps. Models without battles stay at 0 (the anchor's optimum).
    With ``accelerate`` a few plain sweeps are followed by damped Newton steps (``modes``:
    slow modes corrected exactly by the conjugate gradients); without, plain MM to the end.
    Callers limit BLAS threads (:func:`fit`, the bootstrap workers).
    """
    pairs, total = evidence.pairs, evidence.total
    fought = total > 0
    if np.count_nonzero(fought) < _COMPACT_BELOW * len(total):
        pairs, total = pairs.kept(fought), total[fought]  # the others add exact zeros
    problem = _Problem(pairs, total, evidence.wins + 0.5, tol, modes)  # anchor: +1/2
    theta = np.zeros(pairs.n) if theta0 is None else np.array(theta0, dtype=float)
    theta[~problem.drawn] = 0.0
    return problem.run(theta, max_iter, _MM_SWEEPS if accelerate else max_iter)


class _Problem:
    """One fit: pairs with their total weight, per model wins (anchor included), which models
    have battles (the rest stay at 0 and out of the common shift), tolerance, slow modes."""

    def __init__(
        self,
        pairs: PairIndex,
        total: np.ndarray,
        wins: np.ndarray,
        tol: float,
        modes: SlowModes | None,
    ) -> None:
        self.pairs, self.total, self.wins, self.tol = pairs, total, wins, tol
        self.log_wins = np.log(wins)
        self.drawn = pairs.per_model(total) > 0
        self.modes = modes
        self._second_total: np.ndarray | None = None  # per model, total as second (for L)

    def run(self, theta: np.ndarray, max_iter: int, sweeps: int) -> Fit:
        """Plain MM for the first ``sweeps`` iterations, then Newton steps, each preceded by
        the stopping test (a plain MM sweep from the iterate moves nothing by ``tol``)."""
        drawn, state = self.drawn, _PairState(len(self.total))
        expected = self.expected(theta, state)
        step = math.inf
        for iteration in range(1, max_iter + 1):
            sig = _sigmoid(theta)
            sweep = self.log_wins - np.log(expected + sig)
            step = float(np.max(np.abs(sweep), initial=0.0))
            if step < self.tol:
                gradient = float(np.max(np.abs(self.wins - expected - sig), initial=0.0))
                return Fit(theta, iteration, step, gradient, self.drawn)
            if iteration <= sweeps:
                theta = theta + sweep
            else:
                theta, expected = self.newton_step(theta, expected, sig, state)
            theta[drawn] = _best_shift(theta[drawn])  # pair terms do not change
            if iteration <= sweeps:
                expected = self.expected(theta, state)
        raise ConvergenceError(
            "rating fit",
            f"did not converge in {max_iter} sweeps (last MM step {step:.3g} >= tol {self.tol:g})",
            "raise max_iter or loosen tol; a score table whose battles are all draws or one-sided "
            "has no finite optimum",
        )

    def newton_step(
        self, theta: np.ndarray, expected: np.ndarray, sig: np.ndarray, state: _PairState
    ) -> tuple[np.ndarray, np.ndarray]:
        """One damped Newton step from ``theta`` (its expected wins and pair terms known):
        the new point and its expected wins (``theta`` itself when no step gains)."""
        grad = self.wins - expected - sig
        curv = state.curvature()
        diag = self.pairs.per_model(curv) + sig * (1.0 - sig)
        direction = self.direction(curv, diag, grad)
        del curv  # a per-pair array the line search does not need
        if np.all(np.isfinite(direction)):
            moved = self.line_search(theta, grad, _moderate(direction, grad), state)
            if moved is not None:
                return moved
        return theta, self.expected(theta, state)  # state holds a rejected trial's terms

    def line_search(
        self, theta: np.ndarray, grad: np.ndarray, direction: np.ndarray, state: _PairState
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The step, kept when it provably raises the log-likelihood L enough (Armijo) or,
        once it is small (local, quadratic convergence), when it halves the largest gradient
        entry; otherwise backtracked on L itself. Returns the new point and its expected wins,
        its pair terms left in ``state`` (None: no step gains)."""
        slope = float(grad @ direction)
        trial = theta + direction
        expected_trial = self.expected(trial, state)
        grad_trial = self.wins - expected_trial - _sigmoid(trial)
        # L is concave along the step, so L(1) - L(0) >= L'(1): Armijo holds if L'(1) does
        if float(grad_trial @ direction) >= 1e-4 * slope:
            return trial, expected_trial
        longest = float(np.max(np.abs(direction), initial=0.0))
        if longest < _LOCAL_STEP and np.max(np.abs(grad_trial)) <= 0.5 * np.max(np.abs(grad)):
            return trial, expected_trial
        value = self.log_likelihood(theta)
        noise = 1e-12 * (abs(value) + 1.0)  # L sums every pair: differences below its rounding
        alpha = 1.0
        for _ in range(30):
            trial = theta + alpha * direction
            if self.log_likelihood(trial) - value >= 1e-4 * alpha * slope - noise:
                return trial, self.expected(trial, state)
            alpha *= 0.5
        return None

    def direction(self, curv: np.ndarray, diag: np.ndarray, grad: np.ndarray) -> np.ndarray:
        """Solve (-Hessian) d = grad; -Hessian is a weighted Laplacian plus a positive diagonal:
        a dense Cholesky solve for small fits, otherwise conjugate gradients preconditioned by
        the diagonal (Jacobi) plus the exact correction of the slow ``modes`` (restricted to
        the models with battles), to a relative residual that shrinks with the gradient
        (inexact Newton: the accuracy decides the speed, not the fixed point), or until no
        model's residual over its wins is above ``_CG_ATOL_OF_TOL * tol``."""
        pairs, n = self.pairs, self.pairs.n
        if n <= _DENSE_NEWTON_MAX:
            neg_hess = np.diag(diag)
            neg_hess[pairs.pair_i, pairs.pair_j] = -curv
            neg_hess[pairs.pair_j, pairs.pair_i] = -curv
            try:
                factor = scipy.linalg.cho_factor(neg_hess, check_finite=False)
            except np.linalg.LinAlgError:  # numerically singular: fall back to scaled gradient
                return grad / diag
            return scipy.linalg.cho_solve(factor, grad, check_finite=False)
        upper, lower = pairs.matrices(curv, curv)
        scale = np.maximum(diag, 1e-300)
        modes = self.modes
        vectors = None if modes is None else modes.vectors * self.drawn[:, None]

        def precondition(r: np.ndarray) -> np.ndarray:
            if vectors is None:
                return r / scale
            return r / scale + vectors @ (modes.inverse_values * (r @ vectors))

        return _conjugate_gradients(
            diag, upper, lower, grad, precondition, _CG_ATOL_OF_TOL * self.tol, 1.0 / self.wins
        )

    def expected(self, theta: np.ndarray, state: _PairState) -> np.ndarray:
        """Per model, its expected wins in its pair battles at ``theta``, leaving the pair
        terms in ``state`` (for :meth:`_PairState.curvature`). With per-model strengths
        s = exp(theta - max theta), the first model of a pair expects total * s_i / (s_i + s_j)
        = s_i * u wins, u = total / (s_i + s_j), and the second s_j * u: a model's expected
        wins are its s times the sum of u over its pairs, either side (one exponential per
        model, one division per pair; sums of positive terms, so no cancellation for a model
        expected to win almost nothing). The sigmoid form where strengths could underflow."""
        pairs, total = self.pairs, self.total
        top = float(np.max(theta, initial=0.0))
        if top - float(np.min(theta, initial=0.0)) > 600.0:
            d = theta[pairs.pair_i] - theta[pairs.pair_j]
            state.set_probabilities(total, _sigmoid(d), _sigmoid(-d))
            return pairs.per_model(total * state.s_i, total * state.s_j)
        strength = np.exp(theta - top)
        u = state.set_strengths(total, strength, pairs.first_count, pairs.pair_j)
        return strength * pairs.per_model(u)

    def log_likelihood(self, theta: np.ndarray) -> float:
        """:func:`log_likelihood` from per-model wins: sum_i theta_i W_i - sum_pairs N_ij
        (theta_j + softplus(theta_i - theta_j)) plus the anchor draws; the pair part does not
        change with a common shift, so it is taken about the mean (less rounding)."""
        centred = theta - float(np.mean(theta[self.drawn])) if self.drawn.any() else theta
        # softplus(d) = max(d, 0) + log1p(exp(-|d|)), in two per-pair arrays (it runs over
        # every pair, and a fit's other per-pair arrays are alive meanwhile)
        d = np.take(centred, self.pairs.pair_i)
        d -= np.take(centred, self.pairs.pair_j)
        softplus = np.abs(d)
        np.negative(softplus, out=softplus)
        np.exp(softplus, out=softplus)
        np.log1p(softplus, out=softplus)
        softplus += np.maximum(d, 0.0, out=d)
        del d
        if self._second_total is None:
            self._second_total = self.pairs.per_model(np.zeros(len(self.total)), self.total)
        wins = self.wins - 0.5 - self._second_total
        return float(centred @ wins) - float(self.total @ softplus) + _anchor_terms(theta)


class _PairState:
    """A fit's per-pair arrays at its last evaluated point (:meth:`_Problem.expected`),
    allocated once per fit and overwritten by each evaluation: the pair's strengths s_i and
    s_j and u = total / (s_i + s_j), or (strengths that could underflow) its win probabilities
    p and q and u = total."""

    def __init__(self, n_pairs: int) -> None:
        self.s_i, self.s_j, self.u = np.empty(n_pairs), np.empty(n_pairs), np.empty(n_pairs)
        self.probabilities = False

    def set_strengths(
        self, total: np.ndarray, strength: np.ndarray, first_count: np.ndarray, pair_j: np.ndarray
    ) -> np.ndarray:
        """Store the pair terms of per-model strengths and return u."""
        self.probabilities = False
        self.s_i = None  # freed before its successor is made: one per-pair array fewer at peak
        self.s_i = np.repeat(strength, first_count)  # pairs are sorted by first model
        np.take(strength, pair_j, out=self.s_j, mode="clip")  # (valid indices: no checks)
        np.add(self.s_i, self.s_j, out=self.u)
        return np.divide(total, self.u, out=self.u)

    def set_probabilities(self, total: np.ndarray, p: np.ndarray, q: np.ndarray) -> None:
        self.probabilities = True
        self.s_i[:], self.s_j[:], self.u[:] = p, q, total

    def curvature(self) -> np.ndarray:
        """Per pair, total * p * q: the Hessian's off-diagonal weights at the point."""
        if self.probabilities:
            return self.u * self.s_i * self.s_j
        curv = self.s_i + self.s_j
        np.divide(self.s_i, curv, out=curv)  # p
        curv *= self.s_j
        curv *= self.u  # total / (s_i + s_j) * p * s_j = total * p * q
        return curv


def slow_modes(evidence: Evidence, theta: np.ndarray | None) -> SlowModes | None:
    """The :data:`_SLOW_MODES` eigenvectors of the Jacobi-scaled Hessian of ``evidence`` at
    ``theta`` with the smallest eigenvalues (None for fits solved densely or too large). A
    bootstrap round's Hessian differs from the full data's only by its resampled weights, so
    these modes, corrected exactly in each preconditioner step, leave conjugate gradients the
    well-conditioned rest (docs/elo.md section 5)."""
    n = evidence.n_models
    if n <= _DENSE_NEWTON_MAX or n > _SLOW_MODES_MAX_MODELS:
        return None
    problem = _Problem(evidence.pairs, evidence.total, evidence.wins + 0.5, DEFAULT_TOL, None)
    theta = np.zeros(n) if theta is None else np.asarray(theta, dtype=float)
    state = _PairState(len(evidence.total))
    problem.expected(theta, state)
    curv = state.curvature()
    sig = _sigmoid(theta)
    scale = 1.0 / np.sqrt(evidence.pairs.per_model(curv) + sig * (1.0 - sig))
    pair_i, pair_j = evidence.pairs.pair_i, evidence.pairs.pair_j
    scaled = np.diag(np.ones(n))  # D^-1/2 (-H) D^-1/2 has a unit diagonal
    off = -curv * scale[pair_i] * scale[pair_j]
    scaled[pair_i, pair_j] = off
    scaled[pair_j, pair_i] = off
    k = min(_SLOW_MODES, n - 1)
    values, vectors = scipy.linalg.eigh(scaled, subset_by_index=[0, k - 1], driver="evr")
    # with Z = D^-1/2 V, Z' (-H) Z = diag(values): the coarse problem is diagonal
    return SlowModes(vectors * scale[:, None], 1.0 / np.maximum(values, 1e-300))


def _conjugate_gradients(
    diag: np.ndarray,
    upper: scipy.sparse.csr_matrix,
    lower: scipy.sparse.csc_matrix,
    grad: np.ndarray,
    precondition: Callable[[np.ndarray], np.ndarray],
    atol: float,
    residual_weight: np.ndarray,
) -> np.ndarray:
    """Preconditioned conjugate gradients for (diag - upper - lower) x = grad, stopped at the
    relative residual of :meth:`_Problem.direction` or once no entry of the residual times its
    weight is above ``atol``."""
    norm = float(np.linalg.norm(grad))
    rtol = min(_CG_RTOL_MAX, _CG_RTOL_GRAD * float(np.max(np.abs(grad), initial=0.0)))
    x = np.zeros(len(grad))
    r = grad.copy()
    z = precondition(r)
    q = z.copy()
    rz = float(r @ z)
    for _ in range(_CG_MAX_ITER):
        if rz <= 0 or float(np.linalg.norm(r)) <= rtol * norm:
            break
        if float(np.max(np.abs(r) * residual_weight, initial=0.0)) <= atol:
            break
        aq = diag * q - upper @ q - lower @ q
        alpha = rz / float(q @ aq)
        x += alpha * q
        r -= alpha * aq
        z = precondition(r)
        rz, previous = float(r @ z), rz
        q = z + (rz / previous) * q
    return x


def _moderate(direction: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Limit every log-strength change to _MAX_NEWTON_STEP (a simple trust region): clip each
    coordinate, or scale the whole step if clipping would stop it being an ascent direction."""
    clipped = np.clip(direction, -_MAX_NEWTON_STEP, _MAX_NEWTON_STEP)
    if float(grad @ clipped) > 0:
        return clipped
    longest = float(np.max(np.abs(direction), initial=0.0))
    return direction * min(1.0, _MAX_NEWTON_STEP / longest) if longest > 0 else direction


def _best_shift(theta: np.ndarray) -> np.ndarray:
    """Add the common shift that maximises the likelihood (pair terms ignore it)."""
    delta = 0.0
    for _ in range(100):
        sig = _sigmoid(theta + delta)
        slope, curvature = float(np.sum(0.5 - sig)), float(np.sum(sig * (1 - sig)))
        if curvature <= 0:
            break
        step = float(np.clip(slope / curvature, -5.0, 5.0))  # damped: stays in the concave basin
        delta += step
        if abs(step) < 1e-15:
            break
    return theta + delta


def _anchor_terms(theta: np.ndarray) -> float:
    """The anchor draws' part of the log-likelihood: one draw against strength 1 each."""
    return float(np.sum(0.5 * theta - np.logaddexp(theta, 0.0)))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


# --- the likelihood of per-pair wins, for readers and tests ---------------------------------


def log_likelihood(theta: np.ndarray, pw: Pairwise) -> float:
    """Weighted Bradley-Terry log-likelihood of log-strengths ``theta``, anchor draws included."""
    ti, tj = theta[pw.pair_i], theta[pw.pair_j]
    pairs = pw.wins_i * ti + pw.wins_j * tj - pw.total * np.logaddexp(ti, tj)
    return float(pairs.sum()) + _anchor_terms(theta)


def gradient(theta: np.ndarray, pw: Pairwise) -> np.ndarray:
    """Gradient of :func:`log_likelihood` with respect to ``theta``."""
    expected = pw.total * _sigmoid(theta[pw.pair_i] - theta[pw.pair_j])
    grad = _per_model(pw, pw.wins_i - expected, pw.wins_j - (pw.total - expected))
    return grad + 0.5 - _sigmoid(theta)


def mm_sweep(theta: np.ndarray, pw: Pairwise) -> np.ndarray:
    """One MM update of every strength at once (Hunter 2004, eq. 3, ties as half wins).

    s_i <- W_i / sum_j N_ij / (s_i + s_j), the anchor contributing W = 1/2, N = 1, s = 1.
    Multiplying through by s_i gives the overflow-free form used here:
    log s_i <- log s_i + log W_i - log E_i, E_i = expected wins of i at the current strengths.
    """
    p = _sigmoid(theta[pw.pair_i] - theta[pw.pair_j])
    expected = _per_model(pw, pw.total * p, pw.total * (1.0 - p)) + _sigmoid(theta)
    wins = _per_model(pw, pw.wins_i, pw.wins_j) + 0.5
    return theta + np.log(wins) - np.log(expected)


def _per_model(pw: Pairwise, on_i: np.ndarray, on_j: np.ndarray) -> np.ndarray:
    return np.bincount(pw.pair_i, on_i, pw.n_models) + np.bincount(pw.pair_j, on_j, pw.n_models)
