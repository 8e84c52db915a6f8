"""Success metrics of a membership/distinguishing attack from its per-trial scores: the ROC, its
area (AUROC) and the TPR at low FPR (Carlini et al. 2022), plus the check every score array passes.

Decision rule: "in" iff score ≥ threshold. The curve runs over every distinct pooled score (plus
+∞, where nothing is called "in"), so it has at most N + 1 points and the area under it is exactly
the Mann–Whitney statistic U / (n_in · n_out) with ties counted one half.

The metrics live with the attacks, below the audits (which import them): every attack reports them
through :meth:`attacks.AttackScores.metrics`, and the audit statistics (:mod:`audits.stats`) check
their scores with :func:`check_scores`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["ROC", "auroc", "check_scores", "roc_curve", "roc_metrics", "tpr_at_fpr"]

#: The low false-positive rates attack papers report TPR at (Carlini et al. 2022).
DEFAULT_FPRS = (0.001, 0.01)
#: Scores per block of :func:`roc_metrics`'s counts (bounds its temporary arrays).
METRICS_BLOCK = 1 << 20


def check_scores(scores: ArrayLike, name: str) -> NDArray[np.float64]:
    """``scores`` as a 1-D float64 array (itself if it is one: no copy) if it is non-empty, real and finite
    everywhere.

    Raises:
      TypeError: not real-valued (bool arrays are accepted as 0/1; strings, complex, objects not).
      ValueError: not 1-D, empty, or an entry is NaN or infinite.
    """
    array = np.asarray(scores)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a 1-D array of real scores, got dtype {array.dtype}")
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of per-trial scores, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty (no trials)")
    array = array.astype(np.float64, copy=False)
    bad = ~np.isfinite(array)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} must be finite everywhere (NaN or infinity never enters a privacy bound), "
            f"got {array[index]!r} at index {index}"
        )
    return array


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class ROC:
    """An empirical ROC curve.

    Attributes:
      thresholds: decreasing; the first is +∞ (nothing called "in").
      fpr, tpr: non-decreasing rates at each threshold, from (0, 0) to (1, 1).
      fp, tp: the underlying counts; n_out, n_in: the trials under D′ and D.
    """

    thresholds: np.ndarray
    fpr: np.ndarray
    tpr: np.ndarray
    fp: np.ndarray
    tp: np.ndarray
    n_in: int
    n_out: int

    @property
    def auroc(self) -> float:
        """Area under the curve (trapezoids; equals P[S_in > S_out] + ½ P[S_in = S_out])."""
        # exact integer trapezoids, one division at the end
        twice = np.sum(np.diff(self.fp).astype(np.int64) * (self.tp[1:] + self.tp[:-1]).astype(np.int64))
        return float(twice) / (2.0 * self.n_in * self.n_out)

    def tpr_at_fpr(self, fpr: ArrayLike = DEFAULT_FPRS) -> np.ndarray | float:
        """The largest TPR of a threshold whose empirical FPR is ≤ ``fpr`` (no interpolation).

        No randomised mixing of thresholds: every reported TPR is achieved by a real threshold.
        """
        target = np.asarray(fpr, dtype=float)
        if np.any(~np.isfinite(target) | (target < 0) | (target > 1)):
            raise ValueError(f"fpr must be rates in [0, 1], got {fpr!r}")
        # compare counts, not rounded rates: fp ≤ fpr · n_out (with a relative guard for 0.001·1000)
        limit = np.floor(target * self.n_out * (1 + 1e-12) + 1e-9)
        index = np.searchsorted(self.fp, limit, side="right") - 1
        out = self.tpr[index]
        return float(out) if out.ndim == 0 else out


def roc_curve(scores_in: ArrayLike, scores_out: ArrayLike) -> ROC:
    """The ROC of "in iff score ≥ t" over all thresholds (vectorised: sort + searchsorted).

    Args:
      scores_in: scores of the trials under D (target in); scores_out: under D′.
    """
    scores_in = check_scores(scores_in, "scores_in")
    scores_out = check_scores(scores_out, "scores_out")
    in_sorted, out_sorted = np.sort(scores_in), np.sort(scores_out)
    thresholds = np.concatenate([[np.inf], np.unique(np.concatenate([in_sorted, out_sorted]))[::-1]])
    tp = in_sorted.size - np.searchsorted(in_sorted, thresholds, side="left")
    fp = out_sorted.size - np.searchsorted(out_sorted, thresholds, side="left")
    return ROC(
        thresholds=_readonly(thresholds),
        fpr=_readonly(fp / out_sorted.size),
        tpr=_readonly(tp / in_sorted.size),
        fp=_readonly(fp),
        tp=_readonly(tp),
        n_in=int(in_sorted.size),
        n_out=int(out_sorted.size),
    )


def roc_metrics(
    scores_in: ArrayLike, scores_out: ArrayLike, fpr: ArrayLike = DEFAULT_FPRS
) -> tuple[float, NDArray[np.float64]]:
    """``(roc.auroc, roc.tpr_at_fpr(fpr))`` of ``roc = roc_curve(scores_in, scores_out)``, equal bit for
    bit, without the curve: from the sorted in-scores, the out-scores' order statistics and counts taken in
    blocks of :data:`METRICS_BLOCK`, so that its memory is one side's scores (the curve holds five arrays of
    up to N + 1 entries).

    The area is the Mann–Whitney count, summed exactly in integers: Σ over out-scores o of 2·#{in > o}
    + #{in = o} (the curve's trapezoids, step by step), over 2·n_in·n_out. The TPR at FPR f is that of
    the last threshold whose count of out-scores at or above it is at most L = ⌊f·n_out⌋ (as
    :meth:`ROC.tpr_at_fpr` compares counts): #{in > o*}/n_in, o* the (L + 1)-th largest out-score (1
    when L ≥ n_out).
    """
    scores_in = check_scores(scores_in, "scores_in")
    scores_out = check_scores(scores_out, "scores_out")
    n_in, n_out = scores_in.size, scores_out.size
    target = np.atleast_1d(np.asarray(fpr, dtype=float))
    if np.any(~np.isfinite(target) | (target < 0) | (target > 1)):
        raise ValueError(f"fpr must be rates in [0, 1], got {fpr!r}")
    limit = np.floor(target * n_out * (1 + 1e-12) + 1e-9)  # as ROC.tpr_at_fpr
    below = limit < n_out
    ranks = n_out - 1 - limit[below].astype(np.int64)
    # the out-scores' order statistics first, then the sorted in-scores: one side's copy at a time
    order_statistic = np.partition(scores_out, ranks)[ranks] if ranks.size else np.empty(0)
    in_sorted = np.sort(scores_in)
    twice = 0
    for lo in range(0, n_out, METRICS_BLOCK):  # the count is a sum over the out-scores: in any order
        block = scores_out[lo : lo + METRICS_BLOCK]
        left = np.searchsorted(in_sorted, block, side="left")
        right = np.searchsorted(in_sorted, block, side="right")
        twice += int(np.sum(2 * (n_in - right) + (right - left), dtype=np.int64))
    tpr = np.ones(target.shape)
    tpr[below] = (n_in - np.searchsorted(in_sorted, order_statistic, side="right")) / n_in
    return float(twice) / (2.0 * n_in * n_out), tpr


def auroc(scores_in: ArrayLike, scores_out: ArrayLike) -> float:
    """Area under the ROC curve (the Mann–Whitney statistic U / (n_in · n_out))."""
    return roc_curve(scores_in, scores_out).auroc


def tpr_at_fpr(scores_in: ArrayLike, scores_out: ArrayLike, fpr: ArrayLike = DEFAULT_FPRS) -> np.ndarray | float:
    """TPR at fixed FPRs (default 0.1 % and 1 %), see :meth:`ROC.tpr_at_fpr`."""
    return roc_curve(scores_in, scores_out).tpr_at_fpr(fpr)
