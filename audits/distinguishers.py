"""Distinguishers the audit finds by itself, and the attack that searches among them honestly.

A distinguisher is fitted on releases from D and from D′ and returns a score function (higher:
"ran on D"). :class:`SearchedScore` fits every candidate on one half of its calibration trials,
and picks the one whose deciding lower bound, predicted from its scores on the other half at the
audit's own trial count, is largest: the test each statistic would choose, its error rates there at
their upper bounds, through the bound on the audited trials' evaluation part
(:func:`audits.stats.selection.predicted_bound`). With 10^6 audited trials a test deep in a tail, too
rare to bound anything on a validation half of 5 × 10^4, is worth its fewer errors. Predictions
within 0.01 of the best, such as every one being 0, are tied: on a categorical release, every
coordinate a few repeated values, the joint-category ratio wins the tie, as without evidence the
estimated Neyman–Pearson test is the best guess; on a one-dimensional release that repeats no value,
the tie goes to the candidates strictly monotone in the release (:data:`MONOTONE`), the form of the
most powerful test of a family with a monotone likelihood ratio (Karlin & Rubin 1956), such as a
location shift of Laplace or Gaussian noise (a two-variance Gaussian ratio turns back at its vertex and
its top scores form a band, not a tail); otherwise the bounds at 50 % confidence on the validation half
itself decide. A chosen candidate of :data:`REFITTED` (the joint-category ratio and the
classifiers, whose precision is their count of fitting releases) is then refitted on both halves. The
chosen score is run on fresh trials, which alone give the audit's bounds: selecting among
candidates on data the bounds never see (only their number enters the prediction) keeps the bounds
valid without a multiplicity correction (the "held-out" route of Jagielski, Ullman & Oprea 2020;
Nasr et al. 2021).

Candidates (:data:`CANDIDATES`), each fitted in closed form, by counting, or by one classifier fit:

* ``mean-difference projection``: Fisher's linear discriminant with a diagonal covariance,
  score = (x − (m₁ + m₀)/2) · (m₁ − m₀)/v (Fisher 1936);
* ``gaussian likelihood ratio``: the log-likelihood ratio of independent Gaussian coordinates with
  each side's own means and variances (it also sees a noise scale that depends on the data);
* ``laplace likelihood ratio``: the same with Laplace coordinates (medians and mean absolute
  deviations), the Neyman–Pearson test of the Laplace mechanism (Neyman & Pearson 1933);
* ``logistic classifier``: scikit-learn's L2-regularised logistic regression on the standardised,
  flattened releases;
* ``pooled laplace likelihood ratio``: the Laplace log-likelihood ratio with one scale per
  coordinate pooled over both sides, monotone in every coordinate and constant in the tails (with
  two scales the ratio turns back in the tails and the top threshold selects a band, not a tail);
* ``differenced laplace likelihood ratio``: the pooled Laplace ratio of a release's first coordinate and
  its successive differences x_j − x_{j−1}, the Neyman–Pearson test of a running sum of Laplace-noised
  answers (DP-Sniper's prefix sum, Bichsel et al. 2021; the counters of Chan, Shi & Song 2011), whose
  coordinates are correlated but whose increments are independent;
* ``joint-category likelihood ratio`` and ``category likelihood ratio``: the smoothed frequency
  ratio of a release's joint category, or the product over its coordinates' categories
  (:mod:`audits.categories`: repeated values such as abort codes and sentinels, quantile bins of the
  rest), the Neyman–Pearson test of a discrete release;
* ``one-hot mean-difference projection`` and ``one-hot logistic classifier``: the linear fits on
  the one-hot features (an indicator per repeated value next to the continuous part);
* ``gradient boosting``: scikit-learn's histogram gradient-boosted trees (Friedman 2001; Ke et al.
  2017) on the flattened releases, for mixed discrete and continuous outputs.

A candidate that does not apply returns None and is left out of the search: the categorical and
one-hot candidates and the boosted trees apply only to releases that repeat values (a continuous
release never does), and the joint table only when its categories are few enough to be counted.
A candidate whose scores on the held-out half are not all finite is left out too (with one
candidate, such as a user's score, that is an error).
The built-in candidates see every coordinate scaled by a power of two (exact in floating point)
that brings the fitting releases into [−1, 1], so releases of any magnitude (1e200) are scored
without overflow.

Scores are rounded to a grid of ``resolution`` × (the largest absolute validation score) before any
bound is computed (:func:`quantize`): floating-point noise in the last bits of a score cannot decide
a verdict about the mechanism (the low bits of the releases are audited separately,
:mod:`audits.floating_point`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from accountants.constraints import Integer, Interval, Optional
from attacks.base import chunk_scores
from audits.categories import BINS, MAX_JOINT, CategoryTable, ColumnCategories, repeats_values

if TYPE_CHECKING:  # attacks and the statistics are imported on first use
    from attacks.base import AttackScores

__all__ = [
    "CANDIDATES",
    "DEFAULT_RESOLUTION",
    "JOINT",
    "MONOTONE",
    "REFITTED",
    "TIE_BREAK_CONFIDENCE",
    "TIE_TOLERANCE",
    "Fit",
    "Score",
    "SearchedScore",
    "category_likelihood_ratio",
    "differenced_laplace_likelihood_ratio",
    "evaluated_trials",
    "flat",
    "gaussian_likelihood_ratio",
    "gradient_boosting",
    "joint_category_likelihood_ratio",
    "laplace_likelihood_ratio",
    "logistic_classifier",
    "mean_difference_projection",
    "one_hot_logistic_classifier",
    "one_hot_mean_difference_projection",
    "pooled_laplace_likelihood_ratio",
    "power_of_two_scales",
    "quantize",
    "successive_differences",
]

#: A score function: releases (R, ...) → (R,) scores, higher meaning "ran on D".
Score = Callable[[np.ndarray], np.ndarray]
#: Fits a score function on releases from D and from D′ (each (n, ...)); None: it does not apply.
Fit = Callable[[np.ndarray, np.ndarray], Score | None]
#: Relative resolution of the scores the bounds are computed on (:func:`quantize`).
DEFAULT_RESOLUTION = 1e-9
#: Predicted bounds within this much (in ε) of the best are tied; the validation half's bounds at
#: :data:`TIE_BREAK_CONFIDENCE` (the median bound, which moves with a candidate's power even where
#: every 95 % bound is 0 or a few thousandths) break the tie, then the order of :data:`CANDIDATES`.
TIE_TOLERANCE = 0.01
TIE_BREAK_CONFIDENCE = 0.5
#: Releases per side the logistic classifiers are fitted on at most (the fit is the search's cost; a
#: weak leak in a mixed release, such as Lyu et al.'s Algorithms 3 and 4 side by side, needs 10^5 or
#: more), and the boosted trees (whose scoring, not only their fit, grows with their size).
_MAX_CLASSIFIER_ROWS = 200_000
_MAX_BOOSTED_ROWS = 10_000
#: Coordinates the boosted trees are fitted on at most (beyond, their fit would dominate the audit).
_MAX_BOOSTED_COORDINATES = 256


def flat(values: np.ndarray) -> np.ndarray:
    """Releases (R, ...) as an (R, p) float64 matrix."""
    values = np.asarray(values, dtype=np.float64)
    return values.reshape(values.shape[0], -1)


def _variance_floor(*means: np.ndarray) -> float:
    """A variance below which a coordinate counts as constant: (1e-9 × its scale)², so that a
    deterministic coordinate gives large but finite scores."""
    scale = 1.0 + max(float(np.max(np.abs(m), initial=0.0)) for m in means)
    return min(1e-9 * scale, 1e150) ** 2


def power_of_two_scales(x: np.ndarray) -> np.ndarray:
    """Per column of ``x`` (m, p), the power of two 2^−e that brings its largest magnitude into
    [½, 1) (1 for a column of zeros): multiplying by it is exact in floating point."""
    top = np.max(np.abs(x), axis=0, initial=0.0)
    exponent = np.frexp(top)[1]
    scales: np.ndarray = np.where(top > 0, np.ldexp(1.0, -exponent), 1.0)
    return scales


def _scaled(fit: Callable[[np.ndarray, np.ndarray], Score | None]) -> Fit:
    """``fit`` on the flattened releases scaled by :func:`power_of_two_scales` of the fitting
    releases; its score applies the same scales (``fit`` and its score see (R, p) float64 only)."""

    @functools.wraps(fit)
    def scaled_fit(values_in: np.ndarray, values_out: np.ndarray) -> Score | None:
        x_in, x_out = flat(values_in), flat(values_out)
        scales = power_of_two_scales(np.concatenate([x_in, x_out]))
        fitted = fit(x_in * scales, x_out * scales)
        if fitted is None:
            return None
        inner: Score = fitted

        def score(values: np.ndarray) -> np.ndarray:
            with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused as a non-finite score
                return inner(flat(values) * scales)

        return score

    return scaled_fit


@_scaled
def mean_difference_projection(x_in: np.ndarray, x_out: np.ndarray) -> Score:
    """Fisher's diagonal linear discriminant (module docstring)."""
    m_in, m_out = x_in.mean(axis=0), x_out.mean(axis=0)
    pooled = 0.5 * (x_in.var(axis=0) + x_out.var(axis=0))
    weights = (m_in - m_out) / np.maximum(pooled, _variance_floor(m_in, m_out))
    middle = 0.5 * (m_in + m_out)

    def score(values: np.ndarray) -> np.ndarray:
        return np.asarray((values - middle) @ weights)

    return score


@_scaled
def gaussian_likelihood_ratio(x_in: np.ndarray, x_out: np.ndarray) -> Score:
    """Log-likelihood ratio of independent Gaussian coordinates, each side with its own means and
    variances (quadratic discriminant with diagonal covariances)."""
    m_in, m_out = x_in.mean(axis=0), x_out.mean(axis=0)
    floor = _variance_floor(m_in, m_out)
    v_in, v_out = np.maximum(x_in.var(axis=0), floor), np.maximum(x_out.var(axis=0), floor)
    offset = 0.5 * float(np.sum(np.log(v_out / v_in)))

    def score(x: np.ndarray) -> np.ndarray:
        return np.asarray(((x - m_out) ** 2 / (2 * v_out) - (x - m_in) ** 2 / (2 * v_in)).sum(axis=1) + offset)

    return score


@_scaled
def laplace_likelihood_ratio(x_in: np.ndarray, x_out: np.ndarray) -> Score:
    """Log-likelihood ratio of independent Laplace coordinates (medians, mean absolute deviations)."""
    c_in, c_out = np.median(x_in, axis=0), np.median(x_out, axis=0)
    floor = np.sqrt(_variance_floor(c_in, c_out))
    b_in = np.maximum(np.abs(x_in - c_in).mean(axis=0), floor)
    b_out = np.maximum(np.abs(x_out - c_out).mean(axis=0), floor)
    offset = float(np.sum(np.log(b_out / b_in)))

    def score(x: np.ndarray) -> np.ndarray:
        return np.asarray((np.abs(x - c_out) / b_out - np.abs(x - c_in) / b_in).sum(axis=1) + offset)

    return score


@_scaled
def logistic_classifier(x_in: np.ndarray, x_out: np.ndarray) -> Score:
    """scikit-learn's ``LogisticRegression`` (L2, C = 1) on standardised flattened releases, fitted
    on at most 200,000 releases per side; the score is its decision function."""
    from sklearn.linear_model import LogisticRegression

    x_in, x_out = x_in[:_MAX_CLASSIFIER_ROWS], x_out[:_MAX_CLASSIFIER_ROWS]
    x = np.concatenate([x_in, x_out])
    center = x.mean(axis=0)
    spread = np.sqrt(np.maximum(x.var(axis=0), _variance_floor(center)))
    labels = np.concatenate([np.ones(len(x_in)), np.zeros(len(x_out))])
    model = LogisticRegression(C=1.0, max_iter=1_000).fit((x - center) / spread, labels)
    weights, intercept = model.coef_[0] / spread, float(model.intercept_[0])

    def score(values: np.ndarray) -> np.ndarray:
        return np.asarray((values - center) @ weights + intercept)

    return score


@_scaled
def pooled_laplace_likelihood_ratio(x_in: np.ndarray, x_out: np.ndarray) -> Score:
    """Log-likelihood ratio of independent Laplace coordinates with one pooled scale per coordinate
    (the mean absolute deviation from each side's median, over both sides): the score is monotone
    along every coordinate and constant beyond the two medians, so its top scores form a tail."""
    c_in, c_out = np.median(x_in, axis=0), np.median(x_out, axis=0)
    deviations = np.concatenate([np.abs(x_in - c_in), np.abs(x_out - c_out)])
    scale = np.maximum(deviations.mean(axis=0), np.sqrt(_variance_floor(c_in, c_out)))

    def score(x: np.ndarray) -> np.ndarray:
        return np.asarray(((np.abs(x - c_out) - np.abs(x - c_in)) / scale).sum(axis=1))

    return score


def successive_differences(x: np.ndarray) -> np.ndarray:
    """The rows of ``x`` (m, p) as their first coordinate and their p − 1 successive differences."""
    return np.concatenate([x[:, :1], np.diff(x, axis=1)], axis=1)


def differenced_laplace_likelihood_ratio(values_in: np.ndarray, values_out: np.ndarray) -> Score | None:
    """:func:`pooled_laplace_likelihood_ratio` of the first coordinate and the successive differences
    (:func:`successive_differences`) of the releases scaled by one power of two that brings them into
    [−1, 1]; None for a release of one coordinate or one that repeats values."""
    x_in, x_out = flat(values_in), flat(values_out)
    pooled = np.concatenate([x_in, x_out])
    if x_in.shape[1] < 2 or repeats_values(pooled):
        return None
    common = float(power_of_two_scales(pooled.reshape(-1, 1))[0])  # one scale for all: differences stay exact
    inner = pooled_laplace_likelihood_ratio(
        successive_differences(x_in * common), successive_differences(x_out * common)
    )
    if inner is None:
        return None

    def score(values: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused as a non-finite score
            return inner(successive_differences(flat(values) * common))

    return score


@_scaled
def joint_category_likelihood_ratio(x_in: np.ndarray, x_out: np.ndarray) -> Score | None:
    """The smoothed frequency ratio of the releases' joint category (:class:`audits.categories.CategoryTable`);
    None when the joint has too many categories to be counted."""
    pooled = np.concatenate([x_in, x_out])
    if x_in.shape[1] > 1 and BINS ** x_in.shape[1] > MAX_JOINT and not repeats_values(pooled):
        return None  # a continuous release of several coordinates: too many bins to count
    categories = ColumnCategories(pooled)
    if CategoryTable.joint_cells(categories, x_in, x_out) is None:
        return None
    return CategoryTable(categories, x_in, x_out, joint=True).score


@_scaled
def category_likelihood_ratio(x_in: np.ndarray, x_out: np.ndarray) -> Score | None:
    """The product over coordinates of their categories' smoothed frequency ratios; None for a
    release that repeats no value (a continuous one)."""
    categories = _repeated_categories(x_in, x_out)
    if categories is None:
        return None
    return CategoryTable(categories, x_in, x_out, joint=False).score


def _repeated_categories(x_in: np.ndarray, x_out: np.ndarray) -> ColumnCategories | None:
    """The pooled releases' categories per coordinate; None when no value repeats (a continuous
    release) or no coordinate has a repeated value."""
    pooled = np.concatenate([x_in, x_out])
    if not repeats_values(pooled):
        return None
    categories = ColumnCategories(pooled)
    return categories if categories.has_atoms else None


def _on_one_hot(fit: Fit, x_in: np.ndarray, x_out: np.ndarray) -> Score | None:
    """``fit`` on the one-hot features (:meth:`audits.categories.ColumnCategories.features`); None
    for a release that repeats no value."""
    categories = _repeated_categories(x_in, x_out)
    if categories is None:
        return None
    fitted = fit(categories.features(x_in), categories.features(x_out))
    if fitted is None:
        return None
    inner: Score = fitted

    def score(values: np.ndarray) -> np.ndarray:
        return inner(categories.features(values))

    return score


@_scaled
def one_hot_mean_difference_projection(values_in: np.ndarray, values_out: np.ndarray) -> Score | None:
    """Fisher's diagonal discriminant on the one-hot features (an indicator per repeated value, the
    continuous part with its repeated values replaced by the mean of the others); None for a
    release that repeats no value."""
    return _on_one_hot(mean_difference_projection, values_in, values_out)


@_scaled
def one_hot_logistic_classifier(values_in: np.ndarray, values_out: np.ndarray) -> Score | None:
    """The logistic classifier on the one-hot features; None for a release that repeats no value."""
    return _on_one_hot(logistic_classifier, values_in, values_out)


@_scaled
def gradient_boosting(values_in: np.ndarray, values_out: np.ndarray) -> Score | None:
    """scikit-learn's ``HistGradientBoostingClassifier`` (100 trees of at most 15 leaves, no early
    stopping, seed 0) on the flattened releases, fitted on at most 10,000 releases per side; the
    score is its decision function (the log odds of D). None for a release that repeats no value
    or has more than 256 coordinates. Fitted and run on one thread, so that the audit's forked
    worker processes never inherit an OpenMP thread pool."""
    x_in, x_out = flat(values_in)[:_MAX_BOOSTED_ROWS], flat(values_out)[:_MAX_BOOSTED_ROWS]
    pooled = np.concatenate([x_in, x_out])
    if x_in.shape[1] > _MAX_BOOSTED_COORDINATES or not repeats_values(pooled):
        return None
    if not ColumnCategories(pooled).has_atoms:
        return None
    from sklearn.ensemble import HistGradientBoostingClassifier
    from threadpoolctl import threadpool_limits

    labels = np.concatenate([np.ones(len(x_in)), np.zeros(len(x_out))])
    model = HistGradientBoostingClassifier(max_iter=100, max_leaf_nodes=15, early_stopping=False, random_state=0)
    with threadpool_limits(limits=1, user_api="openmp"):
        model.fit(pooled, labels)

    def score(values: np.ndarray) -> np.ndarray:
        with threadpool_limits(limits=1, user_api="openmp"):
            return np.asarray(model.decision_function(flat(values)), dtype=np.float64)

    return score


#: The name of the joint-category ratio among :data:`CANDIDATES`.
JOINT = "joint-category likelihood ratio"
#: The distinguishers the search tries, in order of preference on ties. The joint-category ratio
#: comes first: it applies only where the releases' categories can be counted, and there it tends
#: to the Neyman–Pearson test as the calibration grows, so it is the choice when the held-out
#: bounds cannot tell the candidates apart (a small violation, such as Lyu et al.'s Algorithm 4 at
#: ε = 0.1, where every selection bound is 0).
CANDIDATES: Mapping[str, Fit] = {
    JOINT: joint_category_likelihood_ratio,
    "mean-difference projection": mean_difference_projection,
    "gaussian likelihood ratio": gaussian_likelihood_ratio,
    "laplace likelihood ratio": laplace_likelihood_ratio,
    "logistic classifier": logistic_classifier,
    "pooled laplace likelihood ratio": pooled_laplace_likelihood_ratio,
    "differenced laplace likelihood ratio": differenced_laplace_likelihood_ratio,
    "category likelihood ratio": category_likelihood_ratio,
    "one-hot mean-difference projection": one_hot_mean_difference_projection,
    "one-hot logistic classifier": one_hot_logistic_classifier,
    "gradient boosting": gradient_boosting,
}


#: The candidates whose score is strictly monotone in a one-dimensional release (a linear function of it):
#: on such a release a tie goes to them (module docstring), the first listed of equal median bounds.
MONOTONE = ("mean-difference projection", "logistic classifier")


#: The candidates refitted on both calibration halves once chosen: their precision is their count of
#: fitting releases (a frequency table's cells; a classifier's weights on rare indicators, whose noise
#: decides a tail test: Lyu et al.'s Algorithms 3 and 4 side by side bound ε at 0.18 on average at 10^6
#: audited trials with 50,000 fitting releases per side, 0.21 with 200,000). The moment and median fits are
#: precise at half the calibration already.
REFITTED = frozenset({JOINT, "logistic classifier", "one-hot logistic classifier", "gradient boosting"})


def quantize(scores: np.ndarray, grid: float) -> np.ndarray:
    """``scores`` rounded to multiples of ``grid`` (> 0)."""
    return np.round(np.asarray(scores, dtype=np.float64) / grid) * grid


def _categorical(values_in: np.ndarray, values_out: np.ndarray) -> bool:
    """Whether every coordinate of the releases takes a few repeated values and nothing else (the
    joint-category ratio is then the Neyman–Pearson test estimated without a model)."""
    pooled = np.concatenate([flat(values_in), flat(values_out)])
    return repeats_values(pooled) and not any(c.continuous for c in ColumnCategories(pooled).columns)


def _one_dimensional(values_in: np.ndarray, values_out: np.ndarray) -> bool:
    """Whether the releases are one number each and repeat no value (a continuous scalar release)."""
    x_in, x_out = flat(values_in), flat(values_out)
    return x_in.shape[1] == 1 and not repeats_values(np.concatenate([x_in, x_out]))


def evaluated_trials(n: int) -> int:
    """Trials of ``n`` per side in the evaluation part of the audit's default :class:`audits.stats.Split`."""
    from audits.stats.thresholds import Split

    return n - min(max(round(Split().fraction * n), 1), n - 1)


def _as_numbers(scores: Any, name: str) -> np.ndarray:
    """A score function's output as float64, or an error naming the score."""
    values = np.asarray(scores)
    if values.dtype.kind not in "biuf":
        raise ValueError(
            f"score {name!r} must return real numbers (one per release, higher meaning D), got dtype {values.dtype}"
        )
    return values.astype(np.float64, copy=False)


def _checked_scores(scores: Any, n: int, name: str) -> np.ndarray:
    values = _as_numbers(scores, name)
    if values.shape != (n,):
        raise ValueError(f"score {name!r} must return one score per release, shape ({n},), got {values.shape}")
    if not np.isfinite(values).all():
        raise ValueError(
            f"score {name!r} returned NaN or infinite scores for {int(np.count_nonzero(~np.isfinite(values)))} "
            f"of {n} releases: a privacy bound cannot be computed from them"
        )
    return values


class SearchedScore:
    """The audited attack of a user's mechanism: a distinguisher chosen on calibration trials.

    Call :meth:`calibrate` with the calibration releases on D and D′ (the audit loop does, via
    ``AuditSpec.calibration``) before any trial is observed.

    Args:
      candidates: name → :data:`Fit`; with one candidate nothing is selected.
      delta, confidence: of the deciding bounds the validation half predicts.
      deciding: the bound methods that decide the verdict ("gdp", "clopper_pearson").
      resolution: relative resolution of the scores (:func:`quantize`).
      trials: the audited trials per side the chosen score will be bounded on; each candidate is ranked
        by the bound its validation scores predict at that size (default: the validation half's own).
    """

    white_box = False

    def __init__(
        self,
        candidates: Mapping[str, Fit],
        *,
        delta: float,
        confidence: float,
        deciding: Sequence[str],
        resolution: float = DEFAULT_RESOLUTION,
        trials: int | None = None,
    ) -> None:
        if not candidates:
            raise ValueError("SearchedScore needs at least one candidate distinguisher")
        Interval(0, 1, closed="neither", what="a relative resolution").check(resolution, "resolution")
        Optional(Integer(2, expected="an int >= 2 (audited trials per side)")).check(trials, "trials")
        self.trials = trials
        self.candidates = dict(candidates)
        self.delta, self.confidence, self.deciding, self.resolution = delta, confidence, tuple(deciding), resolution
        self.chosen: str | None = None
        self.score: Score | None = None
        self.grid = resolution
        self.validation: dict[str, float] = {}
        self.tie_break: dict[str, float] = {}

    @property
    def name(self) -> str:
        return "distinguisher" if self.chosen is None else self.chosen

    def _selection_epsilon(self, scores_in: np.ndarray, scores_out: np.ndarray) -> float:
        """The largest deciding bound the validation scores predict for the audit: the test each
        statistic would choose, its validation error rates at their upper bounds, through the bound
        on the evaluation part of the audited trials (:func:`audits.stats.selection.predicted_bound`)."""
        from accountants.gaussian_dp import gaussian_epsilon
        from audits.stats.clopper_pearson import FPR_SHARES, bound_function
        from audits.stats.gdp import SELECTION_ALPHA_FACTOR, mu_bound
        from audits.stats.selection import predicted_bound

        alpha = 1.0 - self.confidence
        audited = (scores_out.size, scores_in.size) if self.trials is None else (self.trials, self.trials)
        sizes = (evaluated_trials(audited[0]), evaluated_trials(audited[1]))
        values = []
        if "clopper_pearson" in self.deciding:
            shares = [bound_function(self.delta, w) for w in FPR_SHARES[1:]]
            cp = predicted_bound(
                scores_in,
                scores_out,
                bound_function(self.delta),
                levels=(alpha, alpha),
                evaluation_sizes=sizes,
                alternatives=shares,
            )
            values.append(cp)
        if "gdp" in self.deciding and self.delta > 0:
            levels = (SELECTION_ALPHA_FACTOR * alpha, alpha)
            mu = predicted_bound(scores_in, scores_out, mu_bound, levels=levels, evaluation_sizes=sizes)
            values.append(gaussian_epsilon(mu, self.delta))
        return max(values, default=0.0)

    def _tie_break_epsilon(self, scores_in: np.ndarray, scores_out: np.ndarray) -> float:
        """The largest deciding bound at :data:`TIE_BREAK_CONFIDENCE` on the validation scores
        themselves (their own split): it moves with a candidate's power where every predicted bound
        is 0 or a few thousandths apart, without favouring the deepest tail test of the validation
        half, whose luck a prediction at a larger trial count would amplify."""
        from audits.stats import lower_bounds

        usable = [m for m in self.deciding if m != "gdp" or self.delta > 0]
        bounds = lower_bounds(usable, scores_in, scores_out, delta=self.delta, confidence=TIE_BREAK_CONFIDENCE)
        return max(bound.epsilon for bound in bounds.values())

    def calibrate(self, result_in: Any, result_out: Any) -> dict[str, Any]:
        """Fit every candidate on the first half of the calibration releases, select on the second
        half, and fix the score grid; returns the diagnostics for the report."""
        values_in, values_out = np.asarray(result_in.values), np.asarray(result_out.values)
        half_in, half_out = len(values_in) // 2, len(values_out) // 2
        fitted: dict[str, Score] = {}
        validation: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for name, fit in self.candidates.items():
            score = fit(values_in[:half_in], values_out[:half_out])
            if score is None:  # the candidate does not apply to these releases
                continue
            held_in = _as_numbers(score(values_in[half_in:]), name)
            held_out = _as_numbers(score(values_out[half_out:]), name)
            finite = np.isfinite(held_in).all() and np.isfinite(held_out).all()
            if len(self.candidates) > 1 and not finite:  # e.g. an overflow on held-out releases far out
                continue
            fitted[name] = score
            validation[name] = (
                _checked_scores(held_in, len(values_in) - half_in, name),
                _checked_scores(held_out, len(values_out) - half_out, name),
            )
        if not fitted:
            raise ValueError(f"no candidate distinguisher applies to these releases (tried {sorted(self.candidates)})")
        self.validation = {}
        quantized: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for name, (scores_in, scores_out) in validation.items():
            grid = self.resolution * max(float(np.max(np.abs(np.concatenate([scores_in, scores_out])))), 1e-300)
            quantized[name] = (quantize(scores_in, grid), quantize(scores_out, grid))
            self.validation[name] = self._selection_epsilon(*quantized[name])
        best = max(self.validation.values())
        tied = [name for name, epsilon in self.validation.items() if epsilon >= best - TIE_TOLERANCE]
        self.tie_break = {}
        categorical = JOINT in tied and _categorical(values_in[:half_in], values_out[:half_out])
        if categorical:
            self.chosen = JOINT  # no evidence either way: the frequency ratio of a categorical release
        else:
            if JOINT in tied and len(tied) > 1:  # it bins the continuous part: a tie goes to one that sees the values
                tied.remove(JOINT)
            monotone = [n for n in tied if n in MONOTONE]
            if monotone and _one_dimensional(values_in[:half_in], values_out[:half_out]):
                tied = monotone  # a threshold on the release itself: a tail, never a band
            if len(tied) > 1:  # e.g. every bound 0 on a small validation half: the median bounds decide
                self.tie_break = {n: self._tie_break_epsilon(*quantized[n]) for n in tied}
            self.chosen = max(tied, key=lambda n: self.tie_break.get(n, 0.0))  # first on ties
        self.score = fitted[self.chosen]
        both = np.concatenate(validation[self.chosen])
        if self.chosen in REFITTED:  # refitted on both halves: the rows double, the audited trials stay unseen
            refit = self.candidates[self.chosen](values_in, values_out)
            if refit is not None:
                refit_in, refit_out = (
                    _as_numbers(refit(values_in), self.chosen),
                    _as_numbers(refit(values_out), self.chosen),
                )
                if np.isfinite(refit_in).all() and np.isfinite(refit_out).all():
                    self.score, both = refit, np.concatenate([refit_in, refit_out])
        self.grid = self.resolution * max(float(np.max(np.abs(both))), 1e-300)
        return {
            "distinguisher": self.chosen,
            "distinguisher_validation_epsilon": dict(self.validation),
            "distinguishers_not_applicable": [n for n in self.candidates if n not in fitted],
            "distinguisher_tie_break_epsilon": dict(self.tie_break),
            "score_grid": self.grid,
        }

    def observe(self, result: Any, on_d: bool) -> np.ndarray:
        if self.score is None:
            raise RuntimeError("SearchedScore.observe before calibrate: the distinguisher is not chosen yet")
        values = np.asarray(result.values)
        return quantize(_checked_scores(self.score(values), len(values), self.name), self.grid)

    def conclude(self, seen_on_d: Sequence[np.ndarray], seen_on_d_prime: Sequence[np.ndarray]) -> AttackScores:
        return chunk_scores(
            self.name,
            seen_on_d,
            seen_on_d_prime,
            white_box=False,
            metadata={
                "selected_on": "the second half of the calibration trials (disjoint from the audited trials)",
                "validation_epsilon": dict(self.validation),
                "score_resolution": f"scores rounded to multiples of {self.grid:.3g} "
                f"({self.resolution:g} × the largest validation score)",
            },
        )
