"""Bounds that never get worse with more data: the Laplace mechanism audited at 10^5 and at 10^6
trials per side on five seeds, with the default distinguisher search and with the pooled-scale
Laplace likelihood ratio fitted on releases of its own. The threshold is chosen by the bound it is
predicted to give on the evaluation part (:mod:`audits.stats.selection`), so more trials only make
deeper and better-populated tests worth choosing; the bound at 10^6 must be at least the bound at
10^5 on every seed, and below the true ε. Seeds are fixed: the test is deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from audits import Claim, audit
from audits.distinguishers import pooled_laplace_likelihood_ratio

PAIR = (np.zeros(5), np.array([1.0, 0.0, 0.0, 0.0, 0.0]))


def laplace_mechanism(epsilon: float):
    def mechanism(data, rng, n):
        """The Laplace mechanism on a sum of records in [0, 1]: exactly ε-DP."""
        return data.sum() + rng.laplace(0.0, 1.0 / epsilon, size=n)

    return mechanism


def pooled_fit(mechanism):
    """The pooled-scale Laplace likelihood ratio, fitted on 10^4 releases per side of a seed no audit uses."""
    rng = np.random.default_rng(2**31)
    return pooled_laplace_likelihood_ratio(mechanism(PAIR[0], rng, 10_000), mechanism(PAIR[1], rng, 10_000))


@pytest.mark.slow
@pytest.mark.parametrize("epsilon", [0.1, 1.0])
@pytest.mark.parametrize("distinguisher", ["search", "pooled laplace fit"])
def test_the_laplace_bound_never_decreases_from_1e5_to_1e6_trials(epsilon, distinguisher):
    mechanism = laplace_mechanism(epsilon)
    score = None if distinguisher == "search" else pooled_fit(mechanism)
    claim = Claim(epsilon=epsilon, delta=0.0, noise="laplace")
    for seed in range(5):
        bounds = [
            audit(mechanism, *PAIR, claim=claim, score=score, trials=trials, seed=seed, progress=False)
            .epsilon_lower["clopper_pearson"]
            .epsilon
            for trials in (100_000, 1_000_000)
        ]
        assert 0.8 * epsilon < bounds[0] <= bounds[1] <= epsilon, (seed, bounds)
