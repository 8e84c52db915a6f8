"""An attack's outcome kept as score histograms, and what the report reads off it, as off the scores.

An audit run with ``histograms=True`` (:func:`audits.runner.run_spec`) keeps each attack's scores on each
hypothesis as a :class:`audits.stats.histogram.ScoreHistogram`: 16 bytes a distinct score instead of 8
bytes a trial. Everything the report computes from an attack's scores is a function of the multiset of
scores, so it follows from the histograms, equal bit for bit: the attack metrics (the Mann–Whitney area
in integers, Mann & Whitney 1947, and the TPR at low FPR of Carlini et al. 2022), the ROC the figures
draw (:mod:`audits.figure_roc`, its digest included) and the score moments
(:func:`audits.stats.histogram.score_moments`), and the Clopper–Pearson bound of a report section (under
the :class:`audits.stats.Split` the histograms were gathered for, or a strategy that needs no split).
:func:`curve`, :func:`tpr_steps`, :func:`moments` and :func:`clopper_pearson_of` read either kind of outcome.

A :class:`HistogramScores` holds no per-trial scores: reading ``scores_in`` or ``scores_out`` (a report
section that needs every score) raises an error that says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from attacks.base import AttackScores
from audits.figure_roc import FigureROC, curve_of, figure_roc, step_tpr, step_tpr_of
from audits.stats.bounds import LowerBound
from audits.stats.histogram import ScoreHistogram, score_moments
from audits.stats.sides import SideScores, SplitHistograms
from audits.stats.thresholds import Split, ThresholdChoice, as_strategy

__all__ = [
    "HistogramScores",
    "clopper_pearson_of",
    "curve",
    "histogram_metrics",
    "moments",
    "tpr_steps",
    "trials",
]


class HistogramScores(AttackScores):
    """An attack's scores on D (``histogram_in``) and on D′ (``histogram_out``) as histograms; otherwise
    an :class:`attacks.base.AttackScores` (name, white box, metadata, metrics). ``split`` and ``parts``:
    the :class:`audits.stats.Split` the histograms were gathered for and each side's two parts under it
    (None: gathered whole)."""

    def __init__(
        self,
        attack: str,
        histogram_in: ScoreHistogram,
        histogram_out: ScoreHistogram,
        white_box: bool = False,
        metadata: Mapping[str, Any] | None = None,
        split: Split | None = None,
        parts: tuple[SplitHistograms, SplitHistograms] | None = None,
    ) -> None:
        object.__setattr__(self, "attack", attack)
        object.__setattr__(self, "histogram_in", histogram_in)
        object.__setattr__(self, "histogram_out", histogram_out)
        object.__setattr__(self, "white_box", white_box)
        object.__setattr__(self, "metadata", dict(metadata or {}))
        object.__setattr__(self, "split", split)
        object.__setattr__(self, "parts", parts)

    histogram_in: ScoreHistogram
    histogram_out: ScoreHistogram
    split: Split | None
    parts: tuple[SplitHistograms, SplitHistograms] | None

    def sides(self, threshold: ThresholdChoice) -> tuple[SideScores, SideScores]:
        """Each side's scores as a bound under ``threshold`` needs them (its parts for a Split).

        Raises:
          ValueError: a Split other than the one the histograms were gathered for.
        """
        strategy = as_strategy(threshold)
        if not isinstance(strategy, Split):
            return self.histogram_in, self.histogram_out
        if (
            self.parts is None
            or self.split is None
            or (strategy.fraction, strategy.seed)
            != (
                self.split.fraction,
                self.split.seed,
            )
        ):
            raise ValueError(
                f"{self.attack!r} kept its scores as histograms for the split {self.split}: a bound under {strategy} "
                "needs another split of the trials"
            )
        return self.parts

    @property
    def scores_in(self) -> np.ndarray:
        raise ValueError(f"{self.attack!r} kept its scores as histograms (histograms=True): no per-trial scores")

    @property
    def scores_out(self) -> np.ndarray:
        raise ValueError(f"{self.attack!r} kept its scores as histograms (histograms=True): no per-trial scores")

    def __repr__(self) -> str:
        return (
            f"HistogramScores({self.attack!r}, {self.histogram_in.trials} trials on D in "
            f"{self.histogram_in.values.size} values, {self.histogram_out.trials} on D′ in "
            f"{self.histogram_out.values.size} values)"
        )

    def metrics(self) -> dict[str, float]:
        """As :meth:`attacks.base.AttackScores.metrics`, bit for bit."""
        area, (low, high) = histogram_metrics(self.histogram_in, self.histogram_out, (0.001, 0.01))
        return {"auroc": area, "tpr_at_0.1%_fpr": float(low), "tpr_at_1%_fpr": float(high)}


def histogram_metrics(
    histogram_in: ScoreHistogram, histogram_out: ScoreHistogram, fpr: ArrayLike
) -> tuple[float, NDArray[np.float64]]:
    """:func:`attacks.metrics.roc_metrics` of the scores these histograms count, bit for bit."""
    n_in, n_out = histogram_in.trials, histogram_out.trials
    target = np.atleast_1d(np.asarray(fpr, dtype=float))
    if np.any(~np.isfinite(target) | (target < 0) | (target > 1)):
        raise ValueError(f"fpr must be rates in [0, 1], got {fpr!r}")
    left, right = histogram_in.below(histogram_out.values), histogram_in.at_most(histogram_out.values)
    twice = int(np.sum(histogram_out.counts * (2 * (n_in - right) + (right - left)), dtype=np.int64))
    limit = np.floor(target * n_out * (1 + 1e-12) + 1e-9)  # as ROC.tpr_at_fpr
    tpr = np.ones(target.shape)
    below = limit < n_out
    order_statistic = histogram_out.order_statistics(n_out - 1 - limit[below].astype(np.int64))
    tpr[below] = (n_in - histogram_in.at_most(order_statistic)) / n_in
    return float(twice) / (2.0 * n_in * n_out), tpr


def curve(attack: AttackScores) -> FigureROC:
    """The attack's ROC for drawing (:func:`audits.figure_roc.figure_roc`), from its scores or histograms."""
    if isinstance(attack, HistogramScores):
        return curve_of(attack.histogram_in, attack.histogram_out)
    return figure_roc(attack.scores_in, attack.scores_out)


def tpr_steps(attack: AttackScores, fpr: ArrayLike) -> NDArray[np.float64]:
    """The attack's :func:`audits.figure_roc.step_tpr`, from its scores or histograms."""
    if isinstance(attack, HistogramScores):
        return step_tpr_of(attack.histogram_in, attack.histogram_out, fpr)
    return step_tpr(attack.scores_in, attack.scores_out, fpr)


def trials(attack: AttackScores) -> tuple[int, int]:
    """The attack's trials on D and on D′."""
    if isinstance(attack, HistogramScores):
        return attack.histogram_in.trials, attack.histogram_out.trials
    return attack.scores_in.size, attack.scores_out.size


def clopper_pearson_of(
    attack: AttackScores, *, delta: float, confidence: float = 0.95, threshold: ThresholdChoice = "split"
) -> LowerBound:
    """:func:`audits.stats.clopper_pearson_audit` of the attack's scores, from its scores or its histograms."""
    from audits.stats.clopper_pearson import clopper_pearson_audit

    sides = attack.sides(threshold) if isinstance(attack, HistogramScores) else (attack.scores_in, attack.scores_out)
    return clopper_pearson_audit(*sides, delta=delta, confidence=confidence, threshold=threshold)


def moments(attack: AttackScores) -> dict[str, float]:
    """The mean and variance of the attack's scores on each side (:func:`audits.stats.histogram.score_moments`:
    exact sums, the same for the scores and their histograms)."""
    if isinstance(attack, HistogramScores):
        sides: tuple[Any, Any] = (attack.histogram_in, attack.histogram_out)
    else:
        sides = (attack.scores_in, attack.scores_out)
    (in_mean, in_var), (out_mean, out_var) = (score_moments(side) for side in sides)
    return {"in_mean": in_mean, "in_var": in_var, "out_mean": out_mean, "out_var": out_var}
