"""f-DP refinement of one-run auditing (Mahloujifar, Melis & Chaudhuri 2024, "Auditing
f-differential privacy in one run", arXiv:2410.22235), instantiated for Gaussian trade-off curves.

Same experiment as :mod:`audits.stats.one_run_bounds`: m canaries in with probability 1/2, r
guesses, v correct. For a mechanism that is f-DP with respect to each canary, the paper bounds the
tail of the number of correct guesses by a recursion on the "blow-up" f̄(x) = 1 − f(x) (the
largest power at level x). With τ the significance level (their recursive algorithm for guesses
with abstention, called audit_rh_with_cap in the reference implementations; membership
inference, i.e. alphabet size 2):

    r_v = τ · v / m,   h_v = τ · (r − v) / m,
    for i = v − 1, …, 0:
        h_i = max(h_{i+1}, f̄⁻¹(r_{i+1}))
        r_i = r_{i+1} + i / (r − i) · (h_i − h_{i+1})
    reject "f-DP" at level τ  iff  r_0 + h_0 > r / m

(r_i is capped at 1, which only ever weakens the test). For μ-GDP, f̄⁻¹(y) = Φ(Φ⁻¹(y) − μ); a
larger μ never rejects more, and rejecting μ₀ rejects every μ ≤ μ₀, so the largest rejected μ
(found by bisection that keeps the rejected end) is a (1 − τ)-confidence lower bound on μ. The
implied ε at δ is ``gaussian_epsilon(μ_lower, δ)``; as for :func:`gdp_audit` it is conditional on a
Gaussian trade-off curve and labelled so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from numpy.typing import ArrayLike
from scipy import special

from accountants import gaussian_epsilon
from audits.stats._validation import check_confidence, check_epsilon
from audits.stats.bounds import CONDITIONAL_ON_GDP, LowerBound
from audits.stats.gdp import check_gdp_delta
from audits.stats.one_run_bounds import ONE_RUN_DESIGN, best_guess_count, check_guess_counts, multiplicity_correction

__all__ = ["fdp_one_run_rejects", "gdp_blow_up_inverse", "one_run_fdp_audit", "one_run_fdp_mu"]


def gdp_blow_up_inverse(mu: float) -> Callable[[float], float]:
    """f̄⁻¹ for μ-GDP: y ↦ Φ(Φ⁻¹(y) − μ), the level at which the Gaussian test reaches power y."""
    mu = check_epsilon(mu, name="mu")

    def inverse(y: float) -> float:
        if y <= 0.0:
            return 0.0
        if y >= 1.0:
            return 1.0
        return float(special.ndtr(special.ndtri(y) - mu))

    return inverse


def _rejects(f_bar_inverse: Callable[[float], float], m: int, r: int, v: int, alpha: float) -> bool:
    correct = alpha * v / m
    wrong = alpha * (r - v) / m
    for i in range(v - 1, -1, -1):
        wrong_new = max(wrong, f_bar_inverse(correct))
        if wrong_new == wrong:  # a fixed point: nothing changes any more
            break
        correct = min(correct + i / (r - i) * (wrong_new - wrong), 1.0)
        wrong = wrong_new
    return correct + wrong > r / m


def fdp_one_run_rejects(
    f_bar_inverse: Callable[[float], float], m: int, r: int, v: int, *, confidence: float = 0.95
) -> bool:
    """Whether v correct guesses out of r (m canaries) reject "f-DP" at level 1 − confidence.

    Args:
      f_bar_inverse: the inverse of the blow-up f̄(x) = 1 − f(x) of the trade-off function f under
        test, increasing on [0, 1] (e.g. :func:`gdp_blow_up_inverse`).
      m, r, v: canaries, guesses and correct guesses.
    """
    m, r, v = check_guess_counts(m, r, v)
    alpha = 1.0 - check_confidence(confidence)
    return _rejects(f_bar_inverse, m, r, v, alpha)


def _mu(m: int, r: int, v: int, alpha: float) -> float:
    def rejects(mu: float) -> bool:
        return _rejects(gdp_blow_up_inverse(mu), m, r, v, alpha)

    if not rejects(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while rejects(hi):
        lo, hi = hi, 2.0 * hi
        if hi > 1e3:
            raise RuntimeError("one_run_fdp_mu: no upper bracket found")
    while hi - lo > 1e-10 * max(1.0, lo):
        mid = 0.5 * (lo + hi)
        if rejects(mid):
            lo = mid
        else:
            hi = mid
    return lo


def one_run_fdp_mu(m: int, r: int, v: int, *, confidence: float = 0.95) -> float:
    """The largest μ (to 1e-10) whose μ-GDP is rejected at level 1 − confidence; 0 if none."""
    m, r, v = check_guess_counts(m, r, v)
    alpha = 1.0 - check_confidence(confidence)
    return _mu(m, r, v, alpha)


def one_run_fdp_audit(
    scores_in: ArrayLike,
    scores_out: ArrayLike,
    *,
    delta: float,
    confidence: float = 0.95,
    k_pos: int | Sequence[int] | None = None,
    k_neg: int = 0,
    seed: int = 0,
) -> LowerBound:
    """One-run f-DP audit (Mahloujifar et al. 2024) for μ-GDP, from canary scores.

    Arguments as :func:`audits.stats.one_run_audit`; δ must be in (0, 1). Returns a
    :class:`LowerBound` with method "one-run-fdp", ``mu`` = μ_lower and ε =
    gaussian_epsilon(μ_lower, δ), conditional on a Gaussian trade-off curve.
    """
    delta = check_gdp_delta(delta)
    mu, k, r, v, m, grid, k_neg, alpha_test = best_guess_count(
        scores_in, scores_out, confidence, k_pos, k_neg, seed, _mu
    )
    confidence = check_confidence(confidence)
    return LowerBound(
        epsilon=gaussian_epsilon(mu, delta),
        delta=delta,
        confidence=confidence,
        method="one-run-fdp",
        correction=multiplicity_correction(grid, k_neg, k_pos is None),
        threshold=None,
        mu=mu,
        assumption=f"{CONDITIONAL_ON_GDP}; {ONE_RUN_DESIGN}",
        details={
            "m": m,
            "n_guesses": r,
            "n_correct": v,
            "k_pos": k,
            "k_neg": k_neg,
            "alpha_per_test": alpha_test,
            "mu_lower": mu,
            "tie_break_seed": seed,
        },
    )
