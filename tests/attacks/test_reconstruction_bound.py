"""attacks.reconstruction_bound: Balle et al. 2022 ReRo bounds against closed forms and references."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from accountants import gaussian_delta
from attacks.reconstruction_bound import best_rero_bound, rero_bound, rero_bound_fdp, rero_bound_gdp


def test_closed_forms():
    assert rero_bound(1.0, 0.0, 0.1) == pytest.approx(math.e * 0.1, rel=1e-14)
    assert rero_bound(2.0, 1e-3, 1e-3) == pytest.approx(math.exp(2) * 1e-3 + 1e-3, rel=1e-14)
    assert rero_bound(0.0, 0.0, 0.25) == pytest.approx(0.25)
    assert rero_bound(1.0, 0.0, 0.5) == 1.0  # e/2 > 1: clipped
    assert rero_bound_fdp(1.0, 0.0, 0.5) == pytest.approx(1 - 0.5 / math.e, rel=1e-14)
    assert rero_bound_fdp(1.0, 0.01, 0.5) == pytest.approx(1 - (1 - 0.01 - 0.5) / math.e, rel=1e-14)
    assert rero_bound_fdp(1.0, 0.0, 0.1) == pytest.approx(math.e * 0.1, rel=1e-14)
    assert rero_bound_gdp(1.0, 0.1) == pytest.approx(norm.cdf(norm.ppf(0.1) + 1.0), rel=1e-12)
    assert rero_bound_gdp(1.0, 0.1) == pytest.approx(0.389143, abs=1e-6)


def test_large_and_infinite_epsilon_are_vacuous_without_overflow():
    with np.errstate(over="raise", invalid="raise"):
        assert rero_bound(1e5, 0.0, 1e-3) == 1.0
        assert rero_bound_fdp(1e5, 0.0, 1e-3) == pytest.approx(1.0)
    assert rero_bound(math.inf, 0.0, 1e-3) == 1.0
    assert rero_bound_fdp(math.inf, 0.0, 0.0) == 1.0
    assert rero_bound_gdp(math.inf, 1e-3) == 1.0


def test_arrays_broadcast():
    out = rero_bound(np.array([0.0, 1.0]), 0.0, 0.1)
    assert np.allclose(out, [0.1, math.e * 0.1])


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 30), st.floats(0, 0.5), st.floats(0, 1))
def test_fdp_form_is_tighter_and_never_below_the_baseline(epsilon, delta, kappa):
    tight, plain = rero_bound_fdp(epsilon, delta, kappa), rero_bound(epsilon, delta, kappa)
    assert tight <= plain + 1e-15
    assert min(1.0, kappa + delta) - 1e-12 <= tight <= 1.0
    assert rero_bound_fdp(epsilon + 0.5, delta, kappa) >= tight - 1e-15


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 8), st.integers(2, 2000))
def test_randomized_response_over_candidates_meets_the_bound(epsilon, M):
    """M-ary randomized response is ε-DP (replace-one) and names the target with probability
    e^ε/(e^ε + M − 1) under a uniform prior: never above the bound at κ = 1/M."""
    success = math.exp(epsilon) / (math.exp(epsilon) + M - 1)
    assert success <= rero_bound_fdp(epsilon, 0.0, 1.0 / M) + 1e-12
    assert success <= rero_bound(epsilon, 0.0, 1.0 / M) + 1e-12


@pytest.mark.parametrize("mu, kappa", [(0.5, 0.001), (1.0, 0.1), (3.0, 0.5)])
def test_gdp_form_is_the_envelope_of_its_epsilon_delta_curve(mu, kappa):
    """μ-GDP is (ε, δ_μ(ε))-DP for every ε and f_μ is the envelope of those trade-off functions:
    the GDP bound lies below each f-DP bound and equals their minimum over ε."""
    grid = np.linspace(0.0, 12.0, 481)
    bounds = np.array([rero_bound_fdp(e, gaussian_delta(mu, e), kappa) for e in grid])
    gdp = rero_bound_gdp(mu, kappa)
    assert gdp <= bounds.min() + 1e-9
    assert bounds.min() == pytest.approx(gdp, abs=2e-3)


def test_best_bound_takes_the_smallest():
    pairs = [(5.0, 0.0), (2.0, 1e-5)]
    assert best_rero_bound(pairs, 1e-3) == pytest.approx(math.exp(2) * 1e-3 + 1e-5)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: rero_bound(-1.0, 0.0, 0.1), "epsilon"),
        (lambda: rero_bound(1.0, 1.5, 0.1), "delta"),
        (lambda: rero_bound_fdp(1.0, 0.0, math.nan), "kappa"),
        (lambda: rero_bound_gdp(-0.1, 0.1), "mu"),
        (lambda: best_rero_bound([], 0.1), "guarantees"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
