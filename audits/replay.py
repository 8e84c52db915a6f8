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
from numpy.typing import ArrayLike

from audits.distinguishers import Score

__all__ = ["whitebox_replay"]


def whitebox_replay(
    step: Callable[[Any, np.ndarray], Any],
    dataset: Any,
    dataset_prime: Any,
    *,
    noise: Literal["gaussian", "laplace"],
    scale: ArrayLike,
    release: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Score:
    """The replay score (module docstring) for transcripts of shape (R, T, ...).

    Args:
      step: ``step(dataset, released_so_far)`` returns the mean of round t's noisy release: an
        array of shape (R, ...) or broadcastable to it; ``released_so_far`` is the (R, t, ...)
        history (everything released before round t, noisy or not).
      dataset, dataset_prime: D and D′ as the user's code understands them.
      noise: "gaussian" (``scale`` is the standard deviation σ) or "laplace" (``scale`` is b).
      scale: the noise scale, > 0: one number, or one per round (T,), or per round and
        coordinate (broadcastable to (T, ...) of the noisy release).
      release: picks round t's noisy release from its (R, ...) slice of the transcript, when a
        round also releases values that are not this noise's (e.g. a public average); default:
        the whole slice.

    Returns:
      releases (R, T, ...) → (R,) summed log-likelihood ratios, higher meaning "ran on D".

    Raises:
      ValueError: an unknown noise family or a scale that is not finite and > 0.
    """
    if noise not in ("gaussian", "laplace"):
        raise ValueError(f"noise must be 'gaussian' or 'laplace', got {noise!r}")
    try:
        scales = np.asarray(scale, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"scale must be finite numbers > 0, got {scale!r:.80}") from error
    if scales.size == 0 or not (np.isfinite(scales).all() and (scales > 0).all()):
        raise ValueError(f"scale must be finite numbers > 0, got {scale!r:.80}")

    def score(releases: np.ndarray) -> np.ndarray:
        x = np.asarray(releases, dtype=np.float64)
        if x.ndim < 2:
            raise ValueError(f"the white-box replay needs transcripts of shape (R, T, ...), got {x.shape}")
        if scales.ndim and scales.shape[0] != x.shape[1]:
            raise ValueError(f"scale has {scales.shape[0]} rounds, the transcripts {x.shape[1]}")
        total = np.zeros(x.shape[0])
        for t in range(x.shape[1]):  # rounds, not trials: every trial is replayed at once
            history = x[:, :t]
            noisy = x[:, t] if release is None else np.asarray(release(x[:, t]), dtype=np.float64)
            r_in = noisy - np.asarray(step(dataset, history), dtype=np.float64)
            r_out = noisy - np.asarray(step(dataset_prime, history), dtype=np.float64)
            s = scales[t] if scales.ndim else scales
            if noise == "gaussian":
                llr = (r_out**2 - r_in**2) / (2.0 * s**2)
            else:
                llr = (np.abs(r_out) - np.abs(r_in)) / s
            total += np.asarray(llr).reshape(x.shape[0], -1).sum(axis=1)
        return total

    return score
