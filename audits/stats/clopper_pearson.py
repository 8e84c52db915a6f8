"""Clopper–Pearson lower bounds on ε from an attack's false-positive and false-negative counts.

An (ε, δ)-DP mechanism limits every test between neighbouring datasets D and D′
(the hypothesis-testing view of DP, Kairouz, Oh & Viswanath 2015): for its false-positive rate FPR
and false-negative rate FNR,

    FPR + e^ε FNR ≥ 1 − δ   and   FNR + e^ε FPR ≥ 1 − δ,

so ε ≥ max(log((1 − δ − FNR)/FPR), log((1 − δ − FPR)/FNR)). Replacing FPR and FNR by one-sided
Clopper–Pearson upper bounds, at levels wα and (1 − w)α so that both hold together with probability
≥ 1 − α (union bound), gives a (1 − α)-confidence lower bound on ε (Jagielski, Ullman & Oprea
2020; Nasr, Song, Thakurta, Papernot & Carlini 2021). The threshold is chosen honestly, see
:mod:`audits.stats.thresholds`.

The share w. An even split (w = ½) suits a test whose two error rates are both uncertain; when one
of them is (nearly) known — a test that never errs on one side, as against a mechanism that outputs a
fixed value on D — the half spent there is wasted, and the bound's error rate is about α/2 instead of
α. With a :class:`~audits.stats.thresholds.Split` strategy the share is chosen for the selected test,
on the selection part alone, among :data:`FPR_SHARES` (the largest bound its selection counts predict;
½ unless another share predicts strictly more), so the bound keeps its confidence and its error rate
approaches α where one side is certain. A fixed threshold and the Bonferroni strategy keep w = ½.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from audits.stats._validation import check_confidence, check_count, check_delta, check_error_counts
from audits.stats.binomial import clopper_pearson_upper_limits
from audits.stats.bounds import WORST_CASE, LowerBound
from audits.stats.decision import expected_counts
from audits.stats.histogram import ScoreHistogram
from audits.stats.selection import BoundFunction, Selection, predicted_bounds, select_threshold
from audits.stats.sides import ScoreCounts, SplitHistograms, checked, parts, tallies
from audits.stats.thresholds import Split, ThresholdChoice, as_strategy

__all__ = [
    "ALPHA_SPLIT",
    "FPR_SHARES",
    "bound_function",
    "chosen_share",
    "clopper_pearson_audit",
    "clopper_pearson_from_counts",
    "clopper_pearson_selected",
    "clopper_pearson_upper",
    "epsilon_from_rates",
]

#: How the significance level is shared between the two error rates (the even split), as every result states it.
ALPHA_SPLIT = "α/2 on FPR and α/2 on FNR (one-sided Clopper–Pearson, union bound)"
#: The shares w of α spent on the false-positive rate that a Split strategy chooses among (½ first).
FPR_SHARES = (0.5, 0.9, 0.99, 0.1, 0.01)


def alpha_split(fpr_share: float) -> str:
    """How α is shared between the two error rates, as a result states it."""
    if fpr_share == 0.5:
        return ALPHA_SPLIT
    return f"{fpr_share:g}α on FPR and {1.0 - fpr_share:g}α on FNR (one-sided Clopper–Pearson, union bound)"


def _counts(k: ArrayLike, n: int) -> tuple[np.ndarray, int]:
    n = check_count(n, "n")
    if n == 0:
        raise ValueError("n must be >= 1 (number of trials)")
    k = np.asarray(k)
    if k.dtype.kind not in "iu" and not (k.dtype.kind == "f" and np.all(k == np.round(k))):
        raise TypeError(f"k must hold integer counts, got {k!r}")
    if np.any(k < 0) or np.any(k > n):
        raise ValueError(f"k must lie in [0, n] = [0, {n}], got {k!r}")
    return k.astype(np.int64), n


def clopper_pearson_upper(k: ArrayLike, n: int, alpha: float) -> np.ndarray | float:
    """One-sided exact (Clopper–Pearson) upper confidence bound on a binomial proportion.

    The p with P[Binomial(n, p) ≤ k] = α, i.e. the (1 − α) quantile of Beta(k + 1, n − k); 1 when
    k = n. P[p_true ≤ bound] ≥ 1 − α (Clopper & Pearson 1934).

    Args:
      k: observed successes (int or array of ints in [0, n]).
      n: trials (≥ 1).
      alpha: one-sided significance level in (0, 1).

    Returns:
      A float for scalar ``k``, else an array shaped like ``k``.
    """
    alpha = check_confidence(alpha, "alpha")
    k, n = _counts(k, n)
    out = clopper_pearson_upper_limits(np.atleast_1d(k), n, alpha).reshape(k.shape)
    return float(out) if out.ndim == 0 else out


def epsilon_from_rates(fpr: ArrayLike, fnr: ArrayLike, delta: float) -> np.ndarray | float:
    """max(log((1 − δ − FNR)/FPR), log((1 − δ − FPR)/FNR), 0), vectorised.

    The smallest ε an (ε, δ)-DP mechanism could have with a test of these error rates. Pass upper
    confidence bounds on the rates to get a lower confidence bound on ε; pass point estimates to
    get the (biased, no-confidence) empirical ε. A zero rate gives ∞.
    """
    delta = check_delta(delta)
    fpr = np.asarray(fpr, dtype=float)
    fnr = np.asarray(fnr, dtype=float)
    if np.any(~np.isfinite(fpr) | (fpr < 0) | (fpr > 1)) or np.any(~np.isfinite(fnr) | (fnr < 0) | (fnr > 1)):
        raise ValueError("fpr and fnr must be rates in [0, 1]")
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.log(1.0 - delta - fnr) - np.log(fpr)
        second = np.log(1.0 - delta - fpr) - np.log(fnr)
    first = np.where(1.0 - delta - fnr > 0, first, -np.inf)
    second = np.where(1.0 - delta - fpr > 0, second, -np.inf)
    out = np.maximum(np.maximum(first, second), 0.0)
    return float(out) if out.ndim == 0 else out


def bound_function(delta: float, fpr_share: float = 0.5) -> BoundFunction:
    """The vectorised Clopper–Pearson ε bound at δ, as a threshold strategy evaluates it: counts
    (non-integer expected counts only when ranking candidates) → ε lower bound at each test, with
    ``fpr_share`` of the level on the false-positive rate and the rest on the false-negative rate."""
    if not 0.0 < fpr_share < 1.0:
        raise ValueError(f"fpr_share must lie in (0, 1), got {fpr_share!r}")

    def bound(fp: np.ndarray, n_out: int, fn: np.ndarray, n_in: int, alpha: float) -> np.ndarray:
        return np.atleast_1d(  # already 1-D: atleast_1d only states the array type
            epsilon_from_rates(
                np.atleast_1d(clopper_pearson_upper_limits(np.atleast_1d(fp), n_out, alpha * fpr_share)),
                np.atleast_1d(clopper_pearson_upper_limits(np.atleast_1d(fn), n_in, alpha * (1.0 - fpr_share))),
                delta,
            )
        )

    return bound


def error_rate_details(
    fp: int, n_out: int, fn: int, n_in: int, alpha_test: float, fpr_share: float = 0.5
) -> dict[str, float | str]:
    """The counts, rates and Clopper–Pearson upper bounds (at ``fpr_share``·α_test on the FPR, the rest
    on the FNR) behind a bound."""
    return {
        "fp": fp,
        "n_out": n_out,
        "fn": fn,
        "n_in": n_in,
        "fpr": fp / n_out,
        "fnr": fn / n_in,
        "fpr_upper": float(clopper_pearson_upper_limits(np.array([fp]), n_out, alpha_test * fpr_share)[0]),
        "fnr_upper": float(clopper_pearson_upper_limits(np.array([fn]), n_in, alpha_test * (1.0 - fpr_share))[0]),
        "alpha_per_test": alpha_test,
        "fpr_share": fpr_share,
        "alpha_split": alpha_split(fpr_share),
    }


def _result(sel: Selection, value: float, delta: float, confidence: float, fpr_share: float) -> LowerBound:
    """The bound ``value`` of the test ``sel`` (its counts on the evaluation trials), with what stands behind it."""
    empirical = float(epsilon_from_rates(sel.fp / sel.n_out, sel.fn / sel.n_in, delta))
    details = (
        error_rate_details(sel.fp, sel.n_out, sel.fn, sel.n_in, sel.alpha, fpr_share)
        # None: a zero error count, no finite point estimate
        | {"empirical_epsilon": empirical if np.isfinite(empirical) else None}
        | sel.details
    )
    return LowerBound(
        epsilon=float(value),
        delta=delta,
        confidence=confidence,
        method="clopper-pearson",
        correction=sel.correction,
        threshold=sel.threshold,
        assumption=WORST_CASE,
        details=details,
    )


def clopper_pearson_from_counts(
    fp: int,
    n_out: int,
    fn: int,
    n_in: int,
    *,
    delta: float,
    confidence: float = 0.95,
    threshold: float | None = None,
    correction: str = "none (single pre-registered threshold)",
    fpr_share: float = 0.5,
) -> LowerBound:
    """Lower bound on ε from the counts of one test fixed in advance.

    Args:
      fp: false positives, out of ``n_out`` trials under D′ (target out).
      fn: false negatives, out of ``n_in`` trials under D (target in).
      delta: the δ at which to bound ε, in [0, 1).
      confidence: 1 − α, in (0, 1).
      threshold, correction: recorded in the result; ``correction`` must say how the test was
        chosen (the default asserts it was fixed before seeing the data).
      fpr_share: the share of α spent on the false-positive rate (fixed in advance too; module docstring).
    """
    delta = check_delta(delta)
    confidence = check_confidence(confidence)
    fp, n_out, fn, n_in = check_error_counts(fp, n_out, fn, n_in)
    alpha = 1.0 - confidence
    eps = bound_function(delta, fpr_share)(np.array([fp]), n_out, np.array([fn]), n_in, alpha)[0]
    return _result(Selection(threshold, eps, fp, n_out, fn, n_in, alpha, correction), eps, delta, confidence, fpr_share)


def clopper_pearson_audit(
    scores_in: ArrayLike | ScoreHistogram | SplitHistograms,
    scores_out: ArrayLike | ScoreHistogram | SplitHistograms,
    *,
    delta: float,
    confidence: float = 0.95,
    threshold: ThresholdChoice = "split",
) -> LowerBound:
    """Clopper–Pearson lower bound on ε from per-trial attack scores, or from their histograms.

    Args:
      scores_in: scores of the trials run on D (target record in); higher means "in". Or their
        :class:`~audits.stats.histogram.ScoreHistogram` (a :class:`~audits.stats.sides.SplitHistograms`
        for a :class:`Split`): the same result, bit for bit (:mod:`audits.stats.sides`).
      scores_out: scores of the trials run on D′ (target record out), or their histograms.
      delta: the δ at which to bound ε, in [0, 1).
      confidence: 1 − α, in (0, 1); default 0.95.
      threshold: how to choose the threshold: ``"split"`` (default, :class:`Split`: 20 % of each
        side selects the threshold, the other 80 % evaluates it, seed 0), ``"bonferroni"``
        (:class:`Bonferroni` with 100 grid points), a strategy object, or a number (a
        pre-registered threshold).

    Returns:
      A :class:`LowerBound` with method "clopper-pearson"; ``details`` holds the evaluation
      counts, the rates, their upper bounds and the level each was computed at.

    Raises:
      ValueError, TypeError: empty or non-finite scores, δ outside [0, 1), confidence outside (0, 1),
        histograms of a Split not gathered in its two parts.
    """
    scores_in = checked(scores_in, "scores_in")
    scores_out = checked(scores_out, "scores_out")
    delta = check_delta(delta)
    confidence = check_confidence(confidence)
    strategy = as_strategy(threshold)
    alpha = 1.0 - confidence
    sel = select_threshold(scores_in, scores_out, strategy, alpha, bound_function(delta))
    share = 0.5
    if isinstance(strategy, Split) and sel.details["selection_fallback"] == "none":
        share = chosen_share(*parts(strategy, scores_in, scores_out, "select"), sel, alpha, delta)
    return clopper_pearson_selected(sel, delta=delta, confidence=confidence, fpr_share=share)


def clopper_pearson_selected(sel: Selection, *, delta: float, confidence: float, fpr_share: float = 0.5) -> LowerBound:
    """The Clopper–Pearson bound of the test a strategy chose (``sel``, its counts on the evaluation
    trials), with ``fpr_share`` of the level on the false-positive rate (:func:`chosen_share`)."""
    alpha = 1.0 - confidence
    value = sel.value
    if fpr_share != 0.5:  # the same test and counts, the level shared otherwise
        value = float(
            bound_function(delta, fpr_share)(np.array([sel.fp]), sel.n_out, np.array([sel.fn]), sel.n_in, alpha)[0]
        )
    return _result(sel, value, delta, confidence, fpr_share)


def chosen_share(select_in: ScoreCounts, select_out: ScoreCounts, sel: Selection, alpha: float, delta: float) -> float:
    """The share of α on the FPR (among :data:`FPR_SHARES`) that a :class:`Split`'s selection part
    (``select_in``, ``select_out``) predicts to give the chosen test ``sel`` its largest bound; ½ unless
    another predicts strictly more, and ½ when the test was a fallback (its selection bound is 0 at every
    share). A function of the multisets of selection scores alone."""
    if sel.details["selection_fallback"] != "none":
        return 0.5
    tallied = tallies(select_in, select_out, np.array([sel.threshold]))
    fp, fn = expected_counts(*tallied, np.array([sel.tie_probability]))
    sizes = (select_out.trials, select_in.trials, sel.n_out, sel.n_in)
    levels = (float(sel.details["selection_alpha"]), alpha)
    predicted = [float(predicted_bounds(fp, fn, sizes, bound_function(delta, w), levels)[0]) for w in FPR_SHARES]
    best = int(np.argmax(predicted))  # the first of equal ones: ½
    return FPR_SHARES[best] if predicted[best] > predicted[0] else 0.5
