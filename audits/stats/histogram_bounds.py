"""The audit's lower bounds from score histograms: the same bounds as from the scores, bit for bit.

The Clopper–Pearson bound (Jagielski, Ullman & Oprea 2020) and the Gaussian-DP bound (Nasr et al. 2023)
are functions of the error counts of a test, and the honest choice of the test
(:mod:`audits.stats.thresholds`) is a function of the multisets of scores, which histograms hold
(:mod:`audits.stats.sides`: one selection routine reads counts at thresholds off an array or a histogram).
A :class:`~audits.stats.thresholds.Split` needs each side's two parts apart (:class:`SplitHistograms`,
gathered with :meth:`audits.stats.thresholds.Split.selection_masks`, the trials of
:meth:`~audits.stats.thresholds.Split.partition`), the other strategies the whole side.
"""

from __future__ import annotations

from audits.stats.bounds import LowerBound
from audits.stats.clopper_pearson import clopper_pearson_audit
from audits.stats.gdp import gdp_audit
from audits.stats.histogram import ScoreHistogram
from audits.stats.sides import SplitHistograms
from audits.stats.thresholds import ThresholdChoice

__all__ = ["SideScores", "SplitHistograms", "clopper_pearson_histograms", "gdp_histograms"]

#: A side's scores for a strategy: its histogram, or its two parts' for a :class:`Split`.
SideScores = ScoreHistogram | SplitHistograms


def clopper_pearson_histograms(
    scores_in: SideScores,
    scores_out: SideScores,
    *,
    delta: float,
    confidence: float = 0.95,
    threshold: ThresholdChoice = "split",
) -> LowerBound:
    """:func:`audits.stats.clopper_pearson_audit` on the scores these histograms count."""
    return clopper_pearson_audit(scores_in, scores_out, delta=delta, confidence=confidence, threshold=threshold)


def gdp_histograms(
    scores_in: SideScores,
    scores_out: SideScores,
    *,
    delta: float,
    confidence: float = 0.95,
    threshold: ThresholdChoice = "split",
) -> LowerBound:
    """:func:`audits.stats.gdp_audit` on the scores these histograms count."""
    return gdp_audit(scores_in, scores_out, delta=delta, confidence=confidence, threshold=threshold)
