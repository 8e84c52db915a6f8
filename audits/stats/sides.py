"""One hypothesis's scores as a threshold strategy reads them: counts at thresholds, from an array or a histogram.

Every threshold strategy (:mod:`audits.stats.thresholds`) is a function of the multisets of scores
(:mod:`audits.stats.histogram`): a test's error counts are the counts of scores below, at and above its
threshold, a grid of pooled tail quantiles is a set of order statistics, and a :class:`Split`'s candidate
search counts its selection part at every candidate threshold (a histogram is never expanded into scores).
:class:`ScoreCounts` is what the strategies read; a score array (:class:`ScoreArray`) and a
:class:`ScoreHistogram` both provide it, with equal counts, so one selection routine
(:func:`audits.stats.selection.select_threshold`) serves scores and histograms and gives the same result,
bit for bit. A :class:`Split` needs each side's two parts: an array is split by
:meth:`Split.partition`, a histogram must have been gathered in its two parts (:class:`SplitHistograms`,
the trials of :meth:`Split.selection_masks`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from attacks.metrics import check_scores
from audits.stats.histogram import ScoreHistogram
from audits.stats.thresholds import Split

__all__ = [
    "ScoreArray",
    "ScoreCounts",
    "Side",
    "SideScores",
    "SplitHistograms",
    "checked",
    "distinct",
    "merged",
    "pooled",
    "parts",
    "tallies",
    "trials",
    "whole",
]


class ScoreCounts(Protocol):
    """The counts of one hypothesis's scores at thresholds, and its order statistics."""

    @property
    def trials(self) -> int: ...

    def below(self, thresholds: ArrayLike) -> NDArray[np.int64]: ...

    def at_most(self, thresholds: ArrayLike) -> NDArray[np.int64]: ...

    def quantiles(self, levels: ArrayLike) -> NDArray[np.float64]: ...


@dataclass(frozen=True, eq=False)
class ScoreArray:
    """A score array (validated, 1-D) read as a :class:`ScoreHistogram` is read: :class:`ScoreCounts`, and the
    order statistics the ROC figure reads. One threshold is counted by comparison, without a sorted copy (8
    bytes a trial at 10^7 trials); anything more from the scores sorted once, when first needed."""

    scores: NDArray[np.float64]

    @classmethod
    def merged(cls, parts: Sequence[ScoreArray]) -> ScoreArray:
        """The scores of every part together."""
        return cls(np.concatenate([p.scores for p in parts]))

    @functools.cached_property
    def values(self) -> NDArray[np.float64]:
        """The scores sorted (repeats kept)."""
        return np.sort(self.scores)

    @property
    def trials(self) -> int:
        return int(self.scores.size)

    def below(self, thresholds: ArrayLike) -> NDArray[np.int64]:
        """#{scores < t} at each threshold t."""
        t = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
        if t.size == 1:
            return np.array([np.count_nonzero(self.scores < t[0])], dtype=np.int64)
        return np.asarray(np.searchsorted(self.values, t, side="left"), dtype=np.int64)

    def at_most(self, thresholds: ArrayLike) -> NDArray[np.int64]:
        """#{scores ≤ t} at each threshold t."""
        t = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
        if t.size == 1:
            return np.array([np.count_nonzero(self.scores <= t[0])], dtype=np.int64)
        return np.asarray(np.searchsorted(self.values, t, side="right"), dtype=np.int64)

    def quantiles(self, levels: ArrayLike) -> NDArray[np.float64]:
        """``np.quantile(scores, levels, method="inverted_cdf")``."""
        q = np.asarray(levels, dtype=np.float64)
        return np.asarray(np.quantile(self.scores, q, method="inverted_cdf"), dtype=np.float64)

    def order_statistics(self, ranks: ArrayLike) -> NDArray[np.float64]:
        """``np.sort(scores)[ranks]``."""
        return self.values[np.asarray(ranks, dtype=np.int64)]

    def sorted_range(self, lo: int, hi: int) -> NDArray[np.float64]:
        """``np.sort(scores)[lo:hi]``."""
        return self.values[max(lo, 0) : hi]


@dataclass(frozen=True, eq=False)
class SplitHistograms:
    """One side's scores as the histograms of a :class:`Split`'s selection part and evaluation part."""

    selection: ScoreHistogram
    evaluation: ScoreHistogram

    @property
    def whole(self) -> ScoreHistogram:
        """The side's every score."""
        return ScoreHistogram.merged([self.selection, self.evaluation])


#: A side's histograms for a strategy: its histogram, or its two parts' for a :class:`Split`.
SideScores = ScoreHistogram | SplitHistograms
#: One side's scores for a strategy: an array, a histogram, or a :class:`Split`'s two parts' histograms.
Side = NDArray[np.float64] | ScoreHistogram | SplitHistograms


def whole(side: Side) -> ScoreArray | ScoreHistogram:
    """The side's every score as :class:`ScoreCounts`."""
    if isinstance(side, SplitHistograms):
        return side.whole
    return side if isinstance(side, ScoreHistogram) else ScoreArray(side)


def pooled(scores_in: Side, scores_out: Side) -> ScoreArray | ScoreHistogram:
    """Both sides' every score together (both arrays, or both histograms).

    Raises:
      TypeError: an array on one side and a histogram on the other.
    """
    return merged(whole(scores_in), whole(scores_out))


def checked(side: ArrayLike | ScoreHistogram | SplitHistograms, name: str) -> Side:
    """``side`` as a strategy reads it: histograms as they are, anything else validated as scores
    (:func:`attacks.metrics.check_scores`, ``name`` in its messages)."""
    return side if isinstance(side, (ScoreHistogram, SplitHistograms)) else check_scores(side, name)


def _arrays(scores_in: Side, scores_out: Side) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(scores_in, (ScoreHistogram, SplitHistograms)) or isinstance(
        scores_out, (ScoreHistogram, SplitHistograms)
    ):
        raise ValueError("a Split strategy needs each side's scores as SplitHistograms (its two parts)")
    return scores_in, scores_out


def trials(side: Side) -> int:
    """The trials of one side: an array's scores, or the scores its histograms count."""
    if isinstance(side, SplitHistograms):
        return side.selection.trials + side.evaluation.trials
    return side.trials if isinstance(side, ScoreHistogram) else int(side.size)


def parts(
    split: Split, scores_in: Side, scores_out: Side, part: str
) -> tuple[ScoreArray | ScoreHistogram, ScoreArray | ScoreHistogram]:
    """The ``part`` ("select" or "evaluate") of a :class:`Split` on each side as :class:`ScoreCounts`: a
    histogram's part as it is, never expanded into scores; an array's scores in it, in trial order (copied
    through the selection bit masks, :meth:`Split.part_scores`), the other part not copied.

    Raises:
      ValueError: histograms not gathered in a Split's two parts, or ``part`` is neither.
    """
    if isinstance(scores_in, SplitHistograms) and isinstance(scores_out, SplitHistograms):
        if part not in ("select", "evaluate"):
            raise ValueError(f"part must be 'select' or 'evaluate', got {part!r:.60}")
        if part == "select":
            return scores_in.selection, scores_out.selection
        return scores_in.evaluation, scores_out.evaluation
    array_in, array_out = _arrays(scores_in, scores_out)
    part_in, part_out = split.part_scores(array_in, array_out, part)
    return ScoreArray(part_in), ScoreArray(part_out)


def tallies(
    scores_in: ScoreCounts, scores_out: ScoreCounts, thresholds: ArrayLike
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """(above_out, tied_out, below_in, tied_in) at each threshold t: #{out-scores > t}, #{out-scores = t},
    #{in-scores < t}, #{in-scores = t} (by sorted search)."""
    out_below, out_at_most = scores_out.below(thresholds), scores_out.at_most(thresholds)
    in_below, in_at_most = scores_in.below(thresholds), scores_in.at_most(thresholds)
    return scores_out.trials - out_at_most, out_at_most - out_below, in_below, in_at_most - in_below


def distinct(scores_in: ScoreArray | ScoreHistogram, scores_out: ScoreArray | ScoreHistogram) -> NDArray[np.float64]:
    """The distinct scores of both, increasing (``np.unique`` of the pooled scores)."""
    if isinstance(scores_in, ScoreArray) and isinstance(scores_out, ScoreArray):
        return np.unique(np.concatenate([scores_in.scores, scores_out.scores]))
    if isinstance(scores_in, ScoreHistogram) and isinstance(scores_out, ScoreHistogram):
        return np.union1d(scores_in.values, scores_out.values)
    raise TypeError("scores_in and scores_out must both be score arrays or both histograms")


def merged(
    scores_in: ScoreArray | ScoreHistogram, scores_out: ScoreArray | ScoreHistogram
) -> ScoreArray | ScoreHistogram:
    """Both together, as :class:`ScoreCounts` of the same kind.

    Raises:
      TypeError: an array on one side and a histogram on the other.
    """
    if isinstance(scores_in, ScoreArray) and isinstance(scores_out, ScoreArray):
        return ScoreArray.merged([scores_in, scores_out])
    if isinstance(scores_in, ScoreHistogram) and isinstance(scores_out, ScoreHistogram):
        return ScoreHistogram.merged([scores_in, scores_out])
    raise TypeError("scores_in and scores_out must both be score arrays or both histograms")
