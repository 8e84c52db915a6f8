"""On a continuous one-dimensional release a tie of the distinguisher search goes to a score monotone
in the release: a threshold on it is a tail, the most powerful test of a location shift (Karlin & Rubin
1956), where a two-scale likelihood ratio's top scores may form a band."""

import numpy as np
import pytest

from audits import distinguishers
from audits.distinguishers import CANDIDATES, MONOTONE, SearchedScore

OPTIONS = {"delta": 0.0, "confidence": 0.95, "deciding": ("clopper_pearson",), "trials": 10_000}


class Releases:
    def __init__(self, values: np.ndarray) -> None:
        self.values = values


def _calibrated(seed: int, columns: int = 1) -> dict:
    """The search on 1,000 calibration releases per side of Laplace(20) noise shifted by 1 in the first
    column (every predicted bound at 10^4 audited trials within the tie tolerance of 0)."""
    rng = np.random.default_rng(seed)
    on_d = rng.laplace(0.0, 20.0, size=(1_000, columns))
    on_d_prime = rng.laplace(0.0, 20.0, size=(1_000, columns))
    on_d_prime[:, 0] += 1.0
    return SearchedScore(CANDIDATES, **OPTIONS).calibrate(Releases(on_d), Releases(on_d_prime))


@pytest.mark.parametrize("seed", range(4))
def test_a_tie_on_a_scalar_release_goes_to_a_monotone_score(seed):
    diagnostics = _calibrated(seed)
    assert diagnostics["distinguisher"] == MONOTONE[0]
    assert set(diagnostics["distinguisher_tie_break_epsilon"]) == set(MONOTONE)


def test_without_the_rule_the_median_bound_picks_a_band(monkeypatch):
    """Seed 13: the two-variance Gaussian ratio has the largest median bound on the validation half."""
    assert _calibrated(13)["distinguisher"] == MONOTONE[0]
    monkeypatch.setattr(distinguishers, "MONOTONE", ())
    diagnostics = _calibrated(13)
    assert diagnostics["distinguisher"] == "gaussian likelihood ratio"
    tie_break = diagnostics["distinguisher_tie_break_epsilon"]
    assert tie_break["gaussian likelihood ratio"] > tie_break[MONOTONE[0]]


def test_the_rule_is_for_scalar_releases_only():
    diagnostics = _calibrated(13, columns=2)
    assert set(diagnostics["distinguisher_tie_break_epsilon"]) > set(MONOTONE)
