"""Argument checks for the audit statistics: every message names the argument, its value and what
was expected. Scalars reuse :mod:`accountants.validation`, arrays of attack scores :mod:`attacks.metrics`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from accountants.validation import check_count, check_delta, check_epsilon
from attacks.metrics import check_scores

__all__ = [
    "by_label",
    "check_confidence",
    "check_count",
    "check_error_counts",
    "check_delta",
    "check_epsilon",
    "check_fraction",
    "check_labels",
    "check_seed",
    "check_tie_probability",
]


def check_labels(labels: ArrayLike, size: int, name: str = "labels") -> NDArray[np.bool_]:
    """``labels`` as a boolean array of length ``size`` (True: the target was in, hypothesis D)."""
    array = np.asarray(labels)
    if array.ndim != 1 or array.size != size:
        raise ValueError(f"{name} must be a 1-D array of length {size} (one per score), got shape {array.shape}")
    if array.dtype.kind == "b":
        return array.astype(np.bool_)  # a copy
    if array.dtype.kind not in "iuf" or not np.all(np.isin(array, (0, 1))):
        raise ValueError(f"{name} must hold booleans or 0/1 (1: the target record was in), got {array[:5]!r}...")
    return array.astype(bool)


def check_confidence(confidence: float, name: str = "confidence") -> float:
    """``confidence`` as a float if it lies strictly between 0 and 1, else raise."""
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise TypeError(f"{name} must be a real number in (0, 1), got {confidence!r}")
    value = float(confidence)
    if not 0.0 < value < 1.0:  # also rejects NaN
        raise ValueError(f"{name} must be in (0, 1) (e.g. 0.95), got {confidence!r}")
    return value


def check_fraction(fraction: float, name: str = "fraction") -> float:
    """``fraction`` as a float in the open interval (0, 1), else raise."""
    return check_confidence(fraction, name)


def check_tie_probability(probability: float, name: str = "tie_probability") -> float:
    """A probability in [0, 1] as a float (the chance of guessing "in" on a score tied with the threshold)."""
    if isinstance(probability, bool) or not isinstance(probability, numbers.Real):
        raise TypeError(f"{name} must be a real number in [0, 1], got {probability!r}")
    value = float(probability)
    if not 0.0 <= value <= 1.0:  # also rejects NaN
        raise ValueError(f"{name} must be in [0, 1] (the chance of guessing 'in' on a tie), got {probability!r}")
    return value


def check_seed(seed: int, name: str = "seed") -> int:
    """A non-negative integer seed (audits are reproducible: no seed drawn from the OS here)."""
    return check_count(seed, name)


def check_error_counts(fp: int, n_out: int, fn: int, n_in: int) -> tuple[int, int, int, int]:
    """(fp, n_out, fn, n_in) of one test: counts with n_out, n_in ≥ 1, fp ≤ n_out and fn ≤ n_in."""
    n_out, n_in = check_count(n_out, "n_out"), check_count(n_in, "n_in")
    fp, fn = check_count(fp, "fp"), check_count(fn, "fn")
    if n_out == 0 or n_in == 0:
        raise ValueError(f"n_out and n_in must be >= 1, got n_out={n_out}, n_in={n_in}")
    if fp > n_out or fn > n_in:
        raise ValueError(f"need fp <= n_out and fn <= n_in, got fp={fp}, n_out={n_out}, fn={fn}, n_in={n_in}")
    return fp, n_out, fn, n_in


def check_int_sequence(values: int | Sequence[int], name: str) -> tuple[int, ...]:
    """An int or a non-empty sequence of non-negative ints, as a tuple of unique sorted ints."""
    # int is spelled out (it is a numbers.Integral anyway) so that the else branch is the sequence
    items = (values,) if isinstance(values, (int, numbers.Integral)) else tuple(values)
    if not items:
        raise ValueError(f"{name} must not be empty")
    return tuple(sorted({check_count(v, name) for v in items}))


def by_label(scores: ArrayLike, labels: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(scores_in, scores_out) from one score per trial and its ground truth.

    Args:
      scores: per-trial attack scores, higher means "the target record was in".
      labels: per-trial truth, True (or 1) when the trial ran on D (target in), False/0 on D′.

    Raises:
      ValueError: a side is empty, lengths differ, or a score is not finite.
    """
    scores = check_scores(scores, "scores")
    labels = check_labels(labels, scores.size)
    if labels.all() or not labels.any():
        raise ValueError("labels must contain both hypotheses (some trials in, some out)")
    return scores[labels], scores[~labels]
