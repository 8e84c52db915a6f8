"""Deterministic score samples for the audit statistics tests (no flakiness: quantile grids)."""

import numpy as np
import pytest
from scipy import stats


def gaussian_quantiles(n: int, loc: float = 0.0) -> np.ndarray:
    """n scores at the quantiles (i + ½)/n of N(loc, 1): a sample without sampling noise."""
    return loc + stats.norm.ppf((np.arange(n) + 0.5) / n)


@pytest.fixture(scope="session")
def gaussian_1e5():
    """N(1, 1) vs N(0, 1) scores, 10^5 deterministic quantiles per side (μ = 1)."""
    return gaussian_quantiles(100_000, 1.0), gaussian_quantiles(100_000, 0.0)


@pytest.fixture(scope="session")
def quantiles():
    """The :func:`gaussian_quantiles` helper, for tests that need other sizes or shifts."""
    return gaussian_quantiles
