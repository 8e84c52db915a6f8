"""Gaussian-DP audit: a lower confidence bound on μ from the attack's ROC (Nasr et al. 2023).

A μ-GDP mechanism's every test has FNR ≥ Φ(Φ⁻¹(1 − FPR) − μ) (Dong, Roth & Su 2022),
i.e. μ ≥ Φ⁻¹(1 − FPR) − Φ⁻¹(FNR). The right side decreases in both rates, so with one-sided
Clopper–Pearson upper bounds FPR⁺, FNR⁺ (α/2 each)

    μ_lower = Φ⁻¹(1 − FPR⁺) − Φ⁻¹(FNR⁺) = Φ̄⁻¹(FPR⁺) + Φ̄⁻¹(FNR⁺)

is a (1 − α)-confidence lower bound on μ *if* the mechanism's trade-off curve is Gaussian
(Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini & Terzis 2023, "Tight auditing of
differentially private machine learning", USENIX Security). The implied ε at δ is
``gaussian_epsilon(μ_lower, δ)`` (Dong, Roth & Su Cor. 2.13). This is *not* a worst-case DP lower
bound: a mechanism whose curve is not Gaussian can have a smaller ε than the one reported; every
result is labelled so.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from accountants import gaussian_epsilon
from audits.stats._validation import check_confidence, check_delta, check_error_counts
from audits.stats.binomial import clopper_pearson_upper_limits
from audits.stats.bounds import CONDITIONAL_ON_GDP, LowerBound
from audits.stats.clopper_pearson import error_rate_details
from audits.stats.histogram import ScoreHistogram
from audits.stats.selection import Selection, select_threshold
from audits.stats.sides import SplitHistograms, checked
from audits.stats.thresholds import ThresholdChoice, as_strategy

__all__ = ["SELECTION_ALPHA_FACTOR", "gdp_audit", "gdp_from_counts", "gdp_selected", "mu_bound", "mu_from_rates"]


def _isf(p: np.ndarray) -> np.ndarray:
    """Φ̄⁻¹(p) = −Φ⁻¹(p), accurate for p near 0 and near 1."""
    return np.asarray(-special.ndtri(p), dtype=np.float64)  # scipy is untyped: states the array type


def mu_from_rates(fpr: ArrayLike, fnr: ArrayLike) -> np.ndarray | float:
    """max(Φ⁻¹(1 − FPR) − Φ⁻¹(FNR), 0): the smallest μ whose Gaussian curve allows these rates.

    Pass upper confidence bounds on the rates for a lower confidence bound on μ. A zero rate gives ∞.
    """
    fpr = np.asarray(fpr, dtype=float)
    fnr = np.asarray(fnr, dtype=float)
    if np.any(~np.isfinite(fpr) | (fpr < 0) | (fpr > 1)) or np.any(~np.isfinite(fnr) | (fnr < 0) | (fnr > 1)):
        raise ValueError("fpr and fnr must be rates in [0, 1]")
    with np.errstate(invalid="ignore"):
        total = _isf(fpr) + _isf(fnr)
    out = np.where(np.isnan(total), 0.0, np.maximum(total, 0.0))  # ∞ − ∞ (rates 0 and 1): no evidence
    return float(out) if out.ndim == 0 else out


#: Level (× α) of the selection rates' upper bounds when a Split ranks candidate tests for the GDP
#: bound (:mod:`audits.stats.selection`). Every point of a Gaussian curve gives the same μ, so a
#: plain maximum over tests chases noise in the tails; pessimistic rates prefer well-populated tests.
#: Measured (N(0,1) vs N(1,1), 10^5 random trials per side, 12 seeds, 20 % split): mean ratio to the
#: true ε 0.977, worst 0.968 at α/100; mean 0.970, worst 0.916 with the rates at level α.
SELECTION_ALPHA_FACTOR = 0.01


def mu_bound(fp: np.ndarray, n_out: int, fn: np.ndarray, n_in: int, alpha: float) -> np.ndarray:
    """The vectorised lower confidence bound on μ at level α from the counts of each test."""
    return np.atleast_1d(  # already 1-D: atleast_1d only states the array type
        mu_from_rates(
            np.atleast_1d(clopper_pearson_upper_limits(np.atleast_1d(fp), n_out, alpha / 2)),
            np.atleast_1d(clopper_pearson_upper_limits(np.atleast_1d(fn), n_in, alpha / 2)),
        )
    )


def check_gdp_delta(delta: float) -> float:
    """``delta`` checked for a GDP conversion: in (0, 1) (a μ-GDP curve has no finite ε at δ = 0)."""
    delta = check_delta(delta)
    if delta == 0:
        raise ValueError(
            "delta must be in (0, 1) for a GDP-based bound: a Gaussian trade-off curve with μ > 0 "
            "is (ε, 0)-DP for no finite ε, got delta=0"
        )
    return delta


def gdp_from_counts(
    fp: int,
    n_out: int,
    fn: int,
    n_in: int,
    *,
    delta: float,
    confidence: float = 0.95,
    threshold: float | None = None,
    correction: str = "none (single pre-registered threshold)",
) -> LowerBound:
    """GDP lower bound on μ (and the ε it implies at δ) from the counts of one pre-chosen test.

    Args as :func:`audits.stats.clopper_pearson_from_counts`; δ must be in (0, 1).
    """
    delta = check_gdp_delta(delta)
    confidence = check_confidence(confidence)
    fp, n_out, fn, n_in = check_error_counts(fp, n_out, fn, n_in)
    alpha = 1.0 - confidence
    mu = mu_bound(np.array([fp]), n_out, np.array([fn]), n_in, alpha)[0]
    return gdp_selected(
        Selection(threshold, mu, fp, n_out, fn, n_in, alpha, correction), delta=delta, confidence=confidence
    )


def gdp_audit(
    scores_in: ArrayLike | ScoreHistogram | SplitHistograms,
    scores_out: ArrayLike | ScoreHistogram | SplitHistograms,
    *,
    delta: float,
    confidence: float = 0.95,
    threshold: ThresholdChoice = "split",
) -> LowerBound:
    """Lower confidence bound on μ from attack scores, and the ε it implies at δ.

    The threshold is chosen honestly (as in :func:`clopper_pearson_audit`): by default on a seeded
    20 % of each side's trials, maximising μ_lower there (ranked at level α/100, see
    ``SELECTION_ALPHA_FACTOR``), and evaluated on the other 80 %.

    Args:
      scores_in: scores of the trials run on D (target in); higher means "in". Or their histograms,
        as for :func:`clopper_pearson_audit`: the same result, bit for bit.
      scores_out: scores of the trials run on D′ (target out), or their histograms.
      delta: δ in (0, 1) at which to report the implied ε.
      confidence: 1 − α in (0, 1).
      threshold: "split" (default), "bonferroni", a strategy object or a fixed number.

    Returns:
      A :class:`LowerBound` with method "gdp", ``mu`` = μ_lower, ε = gaussian_epsilon(μ_lower, δ),
      and the assumption "conditional on a Gaussian trade-off curve (μ-GDP); not a worst-case DP
      lower bound".
    """
    scores_in = checked(scores_in, "scores_in")
    scores_out = checked(scores_out, "scores_out")
    delta = check_gdp_delta(delta)
    confidence = check_confidence(confidence)
    strategy = as_strategy(threshold)
    alpha = 1.0 - confidence
    sel = select_threshold(scores_in, scores_out, strategy, alpha, mu_bound, SELECTION_ALPHA_FACTOR * alpha)
    return gdp_selected(sel, delta=delta, confidence=confidence)


def gdp_selected(sel: Selection, *, delta: float, confidence: float) -> LowerBound:
    """The GDP bound (μ and the ε it implies at δ) of the test a strategy chose (``sel``, its counts on the
    evaluation trials)."""
    point = float(mu_from_rates(sel.fp / sel.n_out, sel.fn / sel.n_in))
    details = (
        error_rate_details(sel.fp, sel.n_out, sel.fn, sel.n_in, sel.alpha)
        | {"mu_lower": float(sel.value), "empirical_mu": point if np.isfinite(point) else None}
        | sel.details
    )
    return LowerBound(
        epsilon=gaussian_epsilon(float(sel.value), delta),
        delta=delta,
        confidence=confidence,
        method="gdp",
        correction=sel.correction,
        threshold=sel.threshold,
        mu=float(sel.value),
        assumption=CONDITIONAL_ON_GDP,
        details=details,
    )
