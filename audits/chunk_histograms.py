"""Where the driver of an audit run with ``histograms=True`` folds each chunk's scores: one histogram per
attack and hypothesis (two under a :class:`audits.stats.Split`: its selection part and its evaluation part).

The chunks' outcomes are those of every audit (:mod:`audits.chunks`, :mod:`audits.ray_backend`, the
checkpoint files of :mod:`audits.checkpoint`): a chunk's scores, 8 bytes a trial of one chunk. The driver
counts them into :class:`audits.stats.histogram.HistogramBuilder` as they are read, in chunk order, and
drops them; what it holds is 16 bytes a distinct score per attack, hypothesis and part, and the split's
parts, a bit per trial (:meth:`audits.stats.Split.selection_masks`, drawn from the strategy's seed before
any trial, as :meth:`audits.stats.Split.partition` draws them). The split is the one the bounds on the
scores would use, so the bounds, the metrics and the figures are those of the scores, bit for bit
(:mod:`audits.stats.sides`, :mod:`audits.histogram_scores`).

An attack is counted into histograms when its observations are 1-D float64 scores, one per trial (the
first chunk decides); any other attack keeps its observations as in every audit. Such an attack's name,
white-box flag and metadata are those its ``conclude`` gives on the first chunk (they state what the
attack assumed and read, never its scores).

A declared resolution R (:func:`rounded`, ``dp-audit --resolution R``) rounds those scores to multiples of R
as they are read, so that a continuous score (a Gaussian log-likelihood ratio, as many distinct values as
trials) is counted into at most (largest − smallest score)/R + 1 values per histogram, whatever the trials.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from attacks.base import Attack
from audits.distinguishers import quantize
from audits.histogram_scores import HistogramScores
from audits.stats.histogram import HistogramBuilder, ScoreHistogram
from audits.stats.sides import SideScores, SplitHistograms
from audits.stats.thresholds import Split, ThresholdStrategy

__all__ = ["ChunkHistograms", "rounded"]


def _scores(seen: Any) -> bool:
    return isinstance(seen, np.ndarray) and seen.ndim == 1 and seen.dtype == np.float64


def rounded(seen: Any, resolution: float | None) -> Any:
    """An attack's observation of a chunk with its scores rounded to multiples of ``resolution``
    (:func:`audits.distinguishers.quantize`) when it is one float64 score per trial (what histograms count)
    and a resolution is declared; otherwise ``seen`` itself.

    Every lower bound stays valid: the rounded score is a function of the release, fixed before the audited
    trials and applied alike on D and D′, so it is a test statistic as any other, and the bounds hold for
    every test (the auditing construction of Jagielski, Ullman & Oprea 2020; post-processing, Dwork & Roth
    2014, Proposition 2.1). Rounding can only cost power: ``quantize`` is non-decreasing, so every threshold
    test of the rounded score is a threshold test of the score itself; what is lost is the thresholds
    inside a step of R, which merges the scores of that step.
    """
    return quantize(seen, resolution) if resolution is not None and _scores(seen) else seen


class ChunkHistograms:
    """The histograms of the audited trials' scores, per attack and hypothesis, for ``trials`` trials per
    hypothesis and the threshold ``strategy`` the bounds use (module docstring)."""

    def __init__(self, trials: int, strategy: ThresholdStrategy) -> None:
        self.trials = trials
        self.split = strategy if isinstance(strategy, Split) else None
        self.masks = None if self.split is None else self.split.selection_masks(trials, trials)
        self.builders: dict[tuple[str, bool], list[HistogramBuilder]] = {}
        self.read: dict[tuple[str, bool], int] = {}
        self.first: dict[tuple[str, bool], np.ndarray] = {}
        self.counted: dict[str, bool] = {}

    def keep(self, attack: str, on_d: bool, seen: Any) -> bool:
        """Count ``seen``, ``attack``'s observation of the next chunk on D (``on_d``) or D′, into its
        histograms if it is counted so (True), else leave it to the caller (False).

        Raises:
          ValueError: an attack counted into histograms gave something other than one score per trial.
        """
        counted = self.counted.setdefault(attack, _scores(seen))
        if not counted:
            return False
        key = (attack, on_d)
        lo = self.read.get(key, 0)
        if not _scores(seen) or lo + seen.size > self.trials:
            raise ValueError(
                f"attack {attack!r} must give one float64 score per trial in every chunk to be counted into "
                f"histograms, got {type(seen).__name__} {getattr(seen, 'shape', '')} after {lo:,} scores"
            )
        if key not in self.builders:
            self.builders[key] = [HistogramBuilder() for _ in range(1 if self.masks is None else 2)]
            self.first[key] = np.array(seen)
        selection, *evaluation = self.builders[key]
        if self.masks is None:
            selection.add(seen)
        else:
            mask = self.masks[0 if on_d else 1]
            bits = np.unpackbits(mask[lo // 8 : (lo + seen.size + 7) // 8])[lo % 8 : lo % 8 + seen.size].astype(bool)
            selection.add(seen[bits])
            evaluation[0].add(seen[~bits])
        self.read[key] = lo + seen.size
        return True

    def holds(self, attack: str) -> bool:
        """Whether ``attack``'s scores were counted into histograms."""
        return self.counted.get(attack, False)

    def sides(self, attack: str) -> tuple[SideScores, SideScores]:
        """``attack``'s scores on D and on D′: each side's histogram, or its two parts' under a Split.

        Raises:
          ValueError: a side (or part) holds no score yet.
        """
        sides: list[SideScores] = []
        for on_d in (True, False):
            builders = self.builders.get((attack, on_d), [])
            if not builders or any(builder.histogram is None and not builder.pending for builder in builders):
                raise ValueError(f"attack {attack!r} holds no score on {'D' if on_d else 'D′'} (or a part of it) yet")
            parts = [builder.result() for builder in builders]
            sides.append(parts[0] if len(parts) == 1 else SplitHistograms(parts[0], parts[1]))
        return sides[0], sides[1]

    def concluded(self, attack: Attack) -> HistogramScores:
        """``attack``'s outcome: its histograms, with the name, white-box flag and metadata its ``conclude``
        gives on the first chunk."""
        template = attack.conclude([self.first[(attack.name, True)]], [self.first[(attack.name, False)]])
        sides = self.sides(attack.name)
        whole: Sequence[ScoreHistogram] = [side.whole if isinstance(side, SplitHistograms) else side for side in sides]
        side_in, side_out = sides
        parts = (
            (side_in, side_out)
            if isinstance(side_in, SplitHistograms) and isinstance(side_out, SplitHistograms)
            else None
        )
        return HistogramScores(
            template.attack, whole[0], whole[1], template.white_box, template.metadata, self.split, parts
        )
