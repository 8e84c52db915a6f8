"""The exact one-sided binomial upper confidence bound that every threshold statistic is built on.

The (1 − α) quantile of Beta(k + 1, n − k) is the p with P[Binomial(n, p) ≤ k] = α (Clopper &
Pearson 1934). For a non-integer k (the expected counts of a randomised test) the same quantile is
used only to rank candidate tests, never as a bound (:mod:`audits.stats.decision`).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["clopper_pearson_upper_limits"]


def clopper_pearson_upper_limits(k: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """Vectorised exact upper bound at level ``alpha`` for counts ``k`` of ``n`` trials (1 where
    k ≥ n), evaluated once per distinct count."""
    unique, inverse = np.unique(k, return_inverse=True)
    inner = unique < n
    values = np.ones(unique.shape)
    # isf, not ppf(1 − α): keeps full relative precision in α when α is tiny (Bonferroni)
    values[inner] = stats.beta.isf(alpha, unique[inner] + 1, n - unique[inner])
    return np.asarray(values[inverse].reshape(k.shape), dtype=np.float64)
