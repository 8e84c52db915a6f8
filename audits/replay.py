"""White-box replay of an iterative mechanism: the exact Neyman–Pearson score of a transcript.

An iterative private algorithm (an ADMM variant, noisy gradient descent) releases, at each round t,
its noise-free step plus fresh noise: x_t = step(D, x_<t) + noise_t. An adversary who knows the
algorithm and every record but the canary replays the step on both candidate data sets from the
released history and sums, over rounds, the log-likelihood ratio of each release (Neyman & Pearson
1933): the most powerful test of D against D′, and what lets a white-box audit come close to the
exact ε (Nasr et al. 2021; Nasr et al. 2023).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from audits.distinguishers import Score

__all__ = ["whitebox_replay"]


def whitebox_replay(
    step: Callable[[Any, np.ndarray], Any],
    dataset: Any,
    dataset_prime: Any,
    *,
    noise: Literal["gaussian", "laplace"],
    scale: float,
) -> Score:
    """The replay score (module docstring) for transcripts of shape (R, T, ...).

    Args:
      step: ``step(dataset, released_so_far)`` returns the mean of the next release: an array of
        shape (R, ...) or broadcastable to it; ``released_so_far`` is the (R, t, ...) history.
      dataset, dataset_prime: D and D′ as the user's code understands them.
      noise: "gaussian" (``scale`` is the standard deviation σ) or "laplace" (``scale`` is b).
      scale: the noise scale of every round, > 0.

    Returns:
      releases (R, T, ...) → (R,) summed log-likelihood ratios, higher meaning "ran on D".

    Raises:
      ValueError: an unknown noise family or a scale that is not a finite number > 0.
    """
    if noise not in ("gaussian", "laplace"):
        raise ValueError(f"noise must be 'gaussian' or 'laplace', got {noise!r}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)):
        raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a finite number > 0, got {scale!r}")

    def score(releases: np.ndarray) -> np.ndarray:
        x = np.asarray(releases, dtype=np.float64)
        if x.ndim < 2:
            raise ValueError(f"the white-box replay needs transcripts of shape (R, T, ...), got {x.shape}")
        total = np.zeros(x.shape[0])
        for t in range(x.shape[1]):  # rounds, not trials: every trial is replayed at once
            history = x[:, :t]
            r_in = x[:, t] - np.asarray(step(dataset, history), dtype=np.float64)
            r_out = x[:, t] - np.asarray(step(dataset_prime, history), dtype=np.float64)
            if noise == "gaussian":
                llr = (r_out**2 - r_in**2) / (2.0 * scale**2)
            else:
                llr = (np.abs(r_out) - np.abs(r_in)) / scale
            total += np.asarray(llr).reshape(x.shape[0], -1).sum(axis=1)
        return total

    return score
