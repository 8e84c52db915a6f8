"""The audit's lower bounds from score histograms: the same bounds as from the scores, bit for bit.

The Clopper–Pearson bound (Jagielski, Ullman & Oprea 2020) and the Gaussian-DP bound (Nasr et al. 2023)
are functions of the error counts of a test, and the honest choice of the test
(:mod:`audits.stats.thresholds`) is a function of the multisets of scores: of both sides' scores for
:class:`Bonferroni`'s grid of pooled tail quantiles and for a :class:`Fixed` test, of the selection
part's scores for a :class:`Split`, whose test is then evaluated on the evaluation part. So each follows
from histograms (:class:`audits.stats.histogram.ScoreHistogram`): a :class:`Split` needs each side's two
parts apart (:class:`SplitHistograms`, gathered with :meth:`audits.stats.thresholds.Split.selection_masks`,
the trials of :meth:`Split.partition`), the other strategies the whole side.

The selection part is expanded into its sorted scores for :func:`audits.stats.selection.choose_test`
(the candidate search; 8 bytes a selection trial, for the time of the search), the evaluation part's
counts are read off its histogram; the tie draws of a randomised test come from the same seeded stream
(:func:`audits.stats.decision.drawn_counts`). The results equal those of
:func:`audits.stats.clopper_pearson_audit` and :func:`audits.stats.gdp_audit` on the scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from audits.stats._validation import check_confidence, check_delta
from audits.stats.bounds import LowerBound
from audits.stats.clopper_pearson import bound_function, chosen_share, clopper_pearson_selected
from audits.stats.decision import drawn_counts
from audits.stats.gdp import SELECTION_ALPHA_FACTOR, check_gdp_delta, gdp_selected, mu_bound
from audits.stats.histogram import ScoreHistogram
from audits.stats.selection import BoundFunction, Selection, choose_test
from audits.stats.thresholds import Bonferroni, Fixed, Split, ThresholdChoice, ThresholdStrategy, as_strategy

__all__ = ["SplitHistograms", "clopper_pearson_histograms", "gdp_histograms", "select_from_histograms"]


@dataclass(frozen=True, eq=False)
class SplitHistograms:
    """One side's scores as the histograms of a :class:`Split`'s selection part and evaluation part."""

    selection: ScoreHistogram
    evaluation: ScoreHistogram

    @property
    def whole(self) -> ScoreHistogram:
        """The side's every score."""
        return ScoreHistogram.merged([self.selection, self.evaluation])


#: A side's scores for a strategy: its histogram, or its two parts' for a :class:`Split`.
SideScores = ScoreHistogram | SplitHistograms


def _whole(side: SideScores) -> ScoreHistogram:
    return side.whole if isinstance(side, SplitHistograms) else side


def _tallies(scores_in: ScoreHistogram, scores_out: ScoreHistogram, threshold: float) -> tuple[int, int, int, int]:
    """(#{out > t}, #{out = t}, #{in < t}, #{in = t}) at the threshold t."""
    t = np.array([threshold])
    out_below, out_at_most = int(scores_out.below(t)[0]), int(scores_out.at_most(t)[0])
    in_below, in_at_most = int(scores_in.below(t)[0]), int(scores_in.at_most(t)[0])
    return scores_out.trials - out_at_most, out_at_most - out_below, in_below, in_at_most - in_below


def _evaluate(
    scores_in: ScoreHistogram,
    scores_out: ScoreHistogram,
    threshold: float,
    tie_probability: float,
    seed: int,
    bound: BoundFunction,
    alpha: float,
) -> tuple[float, dict[str, int], dict[str, float | str]]:
    """The bound of one test on these trials, its counts, and what the result states about its draws (as
    :func:`audits.stats.selection.select_threshold` states them)."""
    counts = drawn_counts(*_tallies(scores_in, scores_out, threshold), tie_probability, seed)
    n_out, n_in = scores_out.trials, scores_in.trials
    value = float(bound(np.array([counts["fp"]]), n_out, np.array([counts["fn"]]), n_in, alpha)[0])
    stated: dict[str, float | str] = {"tie_probability": tie_probability}
    if tie_probability != 1.0:
        stated |= {k: v for k, v in counts.items() if k.startswith("ties")}
        stated["tie_draws"] = f"Binomial(ties, p) per side from child 1 of SeedSequence({seed})"
    return value, counts, stated


def select_from_histograms(
    scores_in: SideScores,
    scores_out: SideScores,
    strategy: ThresholdStrategy,
    alpha: float,
    bound: BoundFunction,
    selection_alpha: float | None = None,
) -> Selection:
    """:func:`audits.stats.selection.select_threshold` on the scores these histograms count (a
    :class:`Split` needs each side's :class:`SplitHistograms`).

    Raises:
      ValueError: a :class:`Split` without each side's parts.
    """
    if isinstance(strategy, Fixed):
        whole_in, whole_out = _whole(scores_in), _whole(scores_out)
        value, counts, stated = _evaluate(
            whole_in, whole_out, strategy.threshold, strategy.tie_probability, strategy.seed, bound, alpha
        )
        return Selection(
            strategy.threshold,
            value,
            counts["fp"],
            whole_out.trials,
            counts["fn"],
            whole_in.trials,
            alpha,
            strategy.describe(),
            stated,
            strategy.tie_probability,
        )
    if isinstance(strategy, Bonferroni):
        whole_in, whole_out = _whole(scores_in), _whole(scores_out)
        if isinstance(strategy.thresholds, int):  # as Bonferroni.grid: tail quantiles of the pooled scores
            pooled = ScoreHistogram.merged([whole_in, whole_out])
            grid = np.unique(pooled.quantiles(strategy.levels(pooled.trials)))
        else:
            grid = np.asarray(strategy.thresholds, dtype=np.float64)
        k = grid.size
        fp, fn = whole_out.trials - whole_out.below(grid), whole_in.below(grid)
        values = bound(fp, whole_out.trials, fn, whole_in.trials, alpha / k)
        best = int(np.argmax(values))
        return Selection(
            float(grid[best]),
            float(values[best]),
            int(fp[best]),
            whole_out.trials,
            int(fn[best]),
            whole_in.trials,
            alpha / k,
            strategy.describe(k),
            {"n_thresholds": k},
        )
    if not (isinstance(scores_in, SplitHistograms) and isinstance(scores_out, SplitHistograms)):
        raise ValueError("a Split strategy needs each side's scores as SplitHistograms (its two parts)")
    s_in, s_out = _expanded(scores_in.selection), _expanded(scores_out.selection)
    e_in, e_out = scores_in.evaluation, scores_out.evaluation
    level = alpha if selection_alpha is None else selection_alpha
    choice = choose_test(
        s_in,
        s_out,
        bound,
        alpha=alpha,
        selection_alpha=level,
        evaluation_sizes=(e_out.trials, e_in.trials),
        randomise=strategy.randomise,
    )
    value, counts, stated = _evaluate(
        e_in, e_out, choice.threshold, choice.tie_probability, strategy.seed, bound, alpha
    )
    return Selection(
        choice.threshold,
        value,
        counts["fp"],
        e_out.trials,
        counts["fn"],
        e_in.trials,
        alpha,
        strategy.describe(),
        {
            "n_select_in": int(s_in.size),
            "n_select_out": int(s_out.size),
            "selection_alpha": level,
            "selection_value": choice.value,
            "selection_fallback": choice.stage,
            **stated,
        },
        choice.tie_probability,
    )


def _expanded(histogram: ScoreHistogram) -> np.ndarray:
    """The sorted scores a histogram counts."""
    return np.repeat(histogram.values, histogram.counts)


def clopper_pearson_histograms(
    scores_in: SideScores,
    scores_out: SideScores,
    *,
    delta: float,
    confidence: float = 0.95,
    threshold: ThresholdChoice = "split",
) -> LowerBound:
    """:func:`audits.stats.clopper_pearson_audit` on the scores these histograms count (module docstring)."""
    delta = check_delta(delta)
    confidence = check_confidence(confidence)
    strategy = as_strategy(threshold)
    alpha = 1.0 - confidence
    sel = select_from_histograms(scores_in, scores_out, strategy, alpha, bound_function(delta))
    share = 0.5
    if (
        isinstance(strategy, Split)
        and isinstance(scores_in, SplitHistograms)
        and isinstance(scores_out, SplitHistograms)
        and sel.details["selection_fallback"] == "none"
    ):
        select_in, select_out = _expanded(scores_in.selection), _expanded(scores_out.selection)
        share = chosen_share(select_in, select_out, sel, alpha, delta)
    return clopper_pearson_selected(sel, delta=delta, confidence=confidence, fpr_share=share)


def gdp_histograms(
    scores_in: SideScores,
    scores_out: SideScores,
    *,
    delta: float,
    confidence: float = 0.95,
    threshold: ThresholdChoice = "split",
) -> LowerBound:
    """:func:`audits.stats.gdp_audit` on the scores these histograms count (module docstring)."""
    delta = check_gdp_delta(delta)
    confidence = check_confidence(confidence)
    strategy = as_strategy(threshold)
    alpha = 1.0 - confidence
    sel = select_from_histograms(scores_in, scores_out, strategy, alpha, mu_bound, SELECTION_ALPHA_FACTOR * alpha)
    return gdp_selected(sel, delta=delta, confidence=confidence)
