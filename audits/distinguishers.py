"""Distinguishers the audit finds by itself, and the attack that searches among them honestly.

A distinguisher is fitted on releases from D and from D′ and returns a score function (higher:
"ran on D"). :class:`SearchedScore` fits every candidate on one half of its calibration trials,
picks the one whose deciding lower bound is largest on the other half, and is then run on fresh
trials, which alone give the audit's bounds: selecting among candidates on data the bounds never
see keeps the bounds valid without a multiplicity correction (the "held-out" route of Jagielski
et al. 2020; Nasr et al. 2021).

Candidates (:data:`CANDIDATES`), each fitted in closed form or by one convex fit:

* ``mean-difference projection``: Fisher's linear discriminant with a diagonal covariance,
  score = (x − (m₁ + m₀)/2) · (m₁ − m₀)/v (Fisher 1936);
* ``gaussian likelihood ratio``: the log-likelihood ratio of independent Gaussian coordinates with
  each side's own means and variances (it also sees a noise scale that depends on the data);
* ``laplace likelihood ratio``: the same with Laplace coordinates (medians and mean absolute
  deviations), the Neyman–Pearson test of the Laplace mechanism (Neyman & Pearson 1933);
* ``logistic classifier``: scikit-learn's L2-regularised logistic regression on the standardised,
  flattened releases.

Scores are rounded to a grid of ``resolution`` × (the largest absolute validation score) before any
bound is computed (:func:`quantize`): floating-point noise in the last bits of a score cannot decide
a verdict about the mechanism (the low bits of the releases are audited separately,
:mod:`audits.floating_point`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from audits.spec import chunk_scores

if TYPE_CHECKING:  # attacks and the statistics are imported on first use
    from attacks.base import AttackScores

__all__ = [
    "CANDIDATES",
    "DEFAULT_RESOLUTION",
    "Fit",
    "Score",
    "SearchedScore",
    "flat",
    "gaussian_likelihood_ratio",
    "laplace_likelihood_ratio",
    "logistic_classifier",
    "mean_difference_projection",
    "quantize",
]

#: A score function: releases (R, ...) → (R,) scores, higher meaning "ran on D".
Score = Callable[[np.ndarray], np.ndarray]
#: Fits a score function on releases from D and from D′ (each (n, ...)).
Fit = Callable[[np.ndarray, np.ndarray], Score]
#: Relative resolution of the scores the bounds are computed on (:func:`quantize`).
DEFAULT_RESOLUTION = 1e-9
#: Releases per side the logistic classifier is fitted on at most (the fit is the search's cost).
_MAX_CLASSIFIER_ROWS = 10_000


def flat(values: np.ndarray) -> np.ndarray:
    """Releases (R, ...) as an (R, p) float64 matrix."""
    values = np.asarray(values, dtype=np.float64)
    return values.reshape(values.shape[0], -1)


def _variance_floor(*means: np.ndarray) -> float:
    """A variance below which a coordinate counts as constant: (1e-9 × its scale)², so that a
    deterministic coordinate gives large but finite scores."""
    scale = 1.0 + max(float(np.max(np.abs(m), initial=0.0)) for m in means)
    return (1e-9 * scale) ** 2


def mean_difference_projection(values_in: np.ndarray, values_out: np.ndarray) -> Score:
    """Fisher's diagonal linear discriminant (module docstring)."""
    x_in, x_out = flat(values_in), flat(values_out)
    m_in, m_out = x_in.mean(axis=0), x_out.mean(axis=0)
    pooled = 0.5 * (x_in.var(axis=0) + x_out.var(axis=0))
    weights = (m_in - m_out) / np.maximum(pooled, _variance_floor(m_in, m_out))
    middle = 0.5 * (m_in + m_out)

    def score(values: np.ndarray) -> np.ndarray:
        return np.asarray((flat(values) - middle) @ weights)

    return score


def gaussian_likelihood_ratio(values_in: np.ndarray, values_out: np.ndarray) -> Score:
    """Log-likelihood ratio of independent Gaussian coordinates, each side with its own means and
    variances (quadratic discriminant with diagonal covariances)."""
    x_in, x_out = flat(values_in), flat(values_out)
    m_in, m_out = x_in.mean(axis=0), x_out.mean(axis=0)
    floor = _variance_floor(m_in, m_out)
    v_in, v_out = np.maximum(x_in.var(axis=0), floor), np.maximum(x_out.var(axis=0), floor)
    offset = 0.5 * float(np.sum(np.log(v_out / v_in)))

    def score(values: np.ndarray) -> np.ndarray:
        x = flat(values)
        return np.asarray(((x - m_out) ** 2 / (2 * v_out) - (x - m_in) ** 2 / (2 * v_in)).sum(axis=1) + offset)

    return score


def laplace_likelihood_ratio(values_in: np.ndarray, values_out: np.ndarray) -> Score:
    """Log-likelihood ratio of independent Laplace coordinates (medians, mean absolute deviations)."""
    x_in, x_out = flat(values_in), flat(values_out)
    c_in, c_out = np.median(x_in, axis=0), np.median(x_out, axis=0)
    floor = np.sqrt(_variance_floor(c_in, c_out))
    b_in = np.maximum(np.abs(x_in - c_in).mean(axis=0), floor)
    b_out = np.maximum(np.abs(x_out - c_out).mean(axis=0), floor)
    offset = float(np.sum(np.log(b_out / b_in)))

    def score(values: np.ndarray) -> np.ndarray:
        x = flat(values)
        return np.asarray((np.abs(x - c_out) / b_out - np.abs(x - c_in) / b_in).sum(axis=1) + offset)

    return score


def logistic_classifier(values_in: np.ndarray, values_out: np.ndarray) -> Score:
    """scikit-learn's ``LogisticRegression`` (L2, C = 1) on standardised flattened releases, fitted
    on at most 10,000 releases per side; the score is its decision function."""
    from sklearn.linear_model import LogisticRegression

    x_in, x_out = flat(values_in)[:_MAX_CLASSIFIER_ROWS], flat(values_out)[:_MAX_CLASSIFIER_ROWS]
    x = np.concatenate([x_in, x_out])
    center = x.mean(axis=0)
    spread = np.sqrt(np.maximum(x.var(axis=0), _variance_floor(center)))
    labels = np.concatenate([np.ones(len(x_in)), np.zeros(len(x_out))])
    model = LogisticRegression(C=1.0, max_iter=1_000).fit((x - center) / spread, labels)
    weights, intercept = model.coef_[0] / spread, float(model.intercept_[0])

    def score(values: np.ndarray) -> np.ndarray:
        return np.asarray((flat(values) - center) @ weights + intercept)

    return score


#: The distinguishers the search tries, in order of preference on ties.
CANDIDATES: Mapping[str, Fit] = {
    "mean-difference projection": mean_difference_projection,
    "gaussian likelihood ratio": gaussian_likelihood_ratio,
    "laplace likelihood ratio": laplace_likelihood_ratio,
    "logistic classifier": logistic_classifier,
}


def quantize(scores: np.ndarray, grid: float) -> np.ndarray:
    """``scores`` rounded to multiples of ``grid`` (> 0)."""
    return np.round(np.asarray(scores, dtype=np.float64) / grid) * grid


def _checked_scores(scores: Any, n: int, name: str) -> np.ndarray:
    values = np.asarray(scores, dtype=np.float64)
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
      delta, confidence: of the selection statistic (the deciding bounds on the validation half).
      deciding: the bound methods that decide the verdict ("gdp", "clopper_pearson").
      resolution: relative resolution of the scores (:func:`quantize`).
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
    ) -> None:
        if not candidates:
            raise ValueError("SearchedScore needs at least one candidate distinguisher")
        if not 0 < resolution < 1:
            raise ValueError(f"resolution must be in (0, 1), got {resolution!r}")
        self.candidates = dict(candidates)
        self.delta, self.confidence, self.deciding, self.resolution = delta, confidence, tuple(deciding), resolution
        self.chosen: str | None = None
        self.score: Score | None = None
        self.grid = resolution
        self.validation: dict[str, float] = {}

    @property
    def name(self) -> str:
        return "distinguisher" if self.chosen is None else self.chosen

    def _selection_epsilon(self, scores_in: np.ndarray, scores_out: np.ndarray) -> float:
        from audits.stats import clopper_pearson_audit, gdp_audit

        methods = {"clopper_pearson": clopper_pearson_audit, "gdp": gdp_audit}
        usable = [m for m in self.deciding if m != "gdp" or self.delta > 0]
        return max(
            methods[m](scores_in, scores_out, delta=self.delta, confidence=self.confidence).epsilon for m in usable
        )

    def calibrate(self, result_in: Any, result_out: Any) -> dict[str, Any]:
        """Fit every candidate on the first half of the calibration releases, select on the second
        half, and fix the score grid; returns the diagnostics for the report."""
        values_in, values_out = np.asarray(result_in.values), np.asarray(result_out.values)
        half_in, half_out = len(values_in) // 2, len(values_out) // 2
        fitted: dict[str, Score] = {}
        validation: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for name, fit in self.candidates.items():
            score = fit(values_in[:half_in], values_out[:half_out])
            fitted[name] = score
            validation[name] = (
                _checked_scores(score(values_in[half_in:]), len(values_in) - half_in, name),
                _checked_scores(score(values_out[half_out:]), len(values_out) - half_out, name),
            )
        self.validation = {}
        for name, (scores_in, scores_out) in validation.items():
            grid = self.resolution * max(float(np.max(np.abs(np.concatenate([scores_in, scores_out])))), 1e-300)
            self.validation[name] = self._selection_epsilon(quantize(scores_in, grid), quantize(scores_out, grid))
        self.chosen = max(self.validation, key=lambda n: self.validation[n])  # first on ties
        self.score = fitted[self.chosen]
        both = np.concatenate(validation[self.chosen])
        self.grid = self.resolution * max(float(np.max(np.abs(both))), 1e-300)
        return {
            "distinguisher": self.chosen,
            "distinguisher_validation_epsilon": dict(self.validation),
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
