import math
from fractions import Fraction

import mpmath
import pytest
from dp_accounting import dp_event
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import (
    AdvancedCompositionAccountant,
    ApproxDpEvent,
    ExactGaussianAccountant,
    PrivacyOdometer,
    PureDpEvent,
    UnsupportedEventError,
)

mpmath.mp.dps = 50


def mp_gdp_delta(mu, eps):
    """δ(ε) of μ-GDP (Balle & Wang 2018, Thm. 8), at 50 digits."""
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.e**eps * mpmath.ncdf(-eps / mu - mu / 2)


def mp_gdp_epsilon(mu, delta):
    """The least ε with δ(ε) <= delta, by bisection at 50 digits."""
    low, high = mpmath.mpf(0), mpmath.mpf(mu) * (mu / 2 + mpmath.sqrt(2 * mpmath.log(1 / mpmath.mpf(delta))) + 1)
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (low, middle) if mp_gdp_delta(mu, middle) <= delta else (middle, high)
    return high


def test_golden_gaussian_odometer_value():
    """100 Gaussian releases at z = 10: μ = 1; the grid 0.25 · 1.1^(j−1) first reaches 1 at j = 16
    (0.25 · 1.1^15 = 1.0443…), so ε is that of μ_16-GDP at δ · 6/(π² · 16²)."""
    odometer = PrivacyOdometer().register(dp_event.GaussianDpEvent(10.0), count=100, participant="a")
    assert [j for j in range(1, 30) if Fraction(1, 4) * Fraction(11, 10) ** (j - 1) >= 1][0] == 16
    mu_16 = mpmath.mpf(0.25) * mpmath.mpf(1.1) ** 15
    expected = mp_gdp_epsilon(mu_16, mpmath.mpf(1e-5) * 6 / (mpmath.pi**2 * 256))
    epsilon = odometer.get_epsilon(1e-5, participant="a")
    assert expected <= epsilon <= expected * (1 + 1e-9)
    assert epsilon == pytest.approx(5.898696, abs=1e-6)
    assert odometer.get_epsilon(1e-5) == epsilon  # the worst participant
    assert ExactGaussianAccountant().register(dp_event.GaussianDpEvent(10.0), 100).get_epsilon(1e-5) < epsilon


def test_golden_basic_odometer_value():
    odometer = PrivacyOdometer()
    odometer.register(PureDpEvent(0.1), count=3).register(ApproxDpEvent(0.25, 1e-7), count=2)
    odometer.register(dp_event.LaplaceDpEvent(4.0))
    exact = 3 * Fraction(0.1) + 2 * Fraction(0.25) + Fraction(1, 4)
    least_above = float(exact) if Fraction(float(exact)) >= exact else math.nextafter(float(exact), math.inf)
    assert odometer.get_epsilon(2e-7) == least_above == 1.05  # the least float >= the exact sum
    assert odometer.get_epsilon(1.9e-7) == math.inf  # the releases' own δ is not covered
    assert odometer.get_delta(1.06) == pytest.approx(2e-7) and odometer.get_delta(1.0) == 1.0


def test_the_grid_spends_at_most_delta():
    """Σ_j δ_j <= δ: the first 10^4 terms at 50 digits plus the exact tail δ·6/π² Σ_{j>J} 1/j²
    (Hurwitz ζ(2, J + 1)), each term being at most δ·6/(π² j²)."""
    delta, terms = 1e-5, 10_000
    grid = [PrivacyOdometer.grid_delta(delta, j) for j in range(1, terms + 1)]
    assert all(mpmath.mpf(d) <= mpmath.mpf(delta) * 6 / (mpmath.pi**2 * j**2) for j, d in enumerate(grid, 1))
    tail = mpmath.mpf(delta) * 6 / mpmath.pi**2 * mpmath.zeta(2, terms + 1)
    assert mpmath.fsum(grid) + tail <= delta


def test_grid_index_is_the_least_budget_covering_mu():
    odometer = PrivacyOdometer(first_mu=0.5, ratio=2.0)
    assert [odometer.grid_index(mu) for mu in (1e-9, 0.5, 0.51, 1.0, 1.01, 2.0, 2.5)] == [1, 1, 2, 2, 3, 3, 4]
    assert odometer.grid_mu(4) == 4.0


def test_delta_is_the_inverse_of_epsilon():
    odometer = PrivacyOdometer().register(dp_event.GaussianDpEvent(3.0), count=7)
    for epsilon in (3.0, 4.5, 6.0):
        delta = odometer.get_delta(epsilon)
        assert 0 < delta < 1
        assert odometer.get_epsilon(delta) <= epsilon
        assert odometer.get_epsilon(delta * (1 - 1e-9)) > epsilon * (1 - 1e-12)


NOISES = st.floats(0.3, 50.0)
STATED = st.one_of(
    st.builds(PureDpEvent, st.floats(0.0, 2.0)),
    st.builds(ApproxDpEvent, st.floats(0.0, 2.0), st.sampled_from([0.0, 1e-9, 1e-7])),
    st.builds(dp_event.LaplaceDpEvent, st.floats(0.5, 20.0)),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NOISES, st.integers(1, 50)), min_size=1, max_size=6), st.floats(1e-9, 0.1))
def test_gaussian_odometer_properties(releases, delta):
    odometer = PrivacyOdometer()
    reference = ExactGaussianAccountant()
    previous = 0.0
    for noise, count in releases:
        odometer.register(dp_event.GaussianDpEvent(noise), count)
        reference.register(dp_event.GaussianDpEvent(noise), count)
        epsilon = odometer.get_epsilon(delta)
        assert epsilon >= previous  # never decreases as releases are added
        assert epsilon >= reference.get_epsilon(delta)  # never below the non-adaptive bound
        previous = epsilon
    backward = PrivacyOdometer()
    for noise, count in reversed(releases):
        for _ in range(count):
            backward.register(dp_event.GaussianDpEvent(noise))
    assert backward.get_epsilon(delta) == previous  # invariant under reordering and splitting


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(STATED, st.integers(1, 4)), min_size=1, max_size=6), st.floats(1e-6, 0.1))
def test_basic_odometer_properties(releases, delta):
    odometer = PrivacyOdometer()
    reference = AdvancedCompositionAccountant()
    previous = 0.0
    for event, count in releases:
        odometer.register(event, count, participant=7)
        reference.register(event, count, participant=7)
        epsilon = odometer.get_epsilon(delta, participant=7)
        assert epsilon >= previous
        assert epsilon >= reference.get_epsilon(delta, participant=7)
        previous = epsilon
    backward = PrivacyOdometer()
    for event, count in reversed(releases):
        backward.register(event, count, participant=7)
    assert backward.get_epsilon(delta, participant=7) == previous


def test_non_private_and_noiseless_releases_make_epsilon_infinite():
    assert PrivacyOdometer().register(dp_event.NonPrivateDpEvent()).get_epsilon(1e-5) == math.inf
    assert PrivacyOdometer().register(dp_event.GaussianDpEvent(0.0)).get_epsilon(1e-5) == math.inf
    assert PrivacyOdometer().register(dp_event.GaussianDpEvent(math.inf)).get_epsilon(1e-5) == 0.0
    assert PrivacyOdometer().get_epsilon(1e-5) == 0.0  # nothing released


def test_the_accountant_interface():
    odometer = PrivacyOdometer()
    odometer.register(dp_event.GaussianDpEvent(5.0), participant="a", iteration=3)
    odometer.register_many([PureDpEvent(0.5), PureDpEvent(0.5)], participants=["b", "b"])
    assert odometer.participants == ["a", "b"]
    assert [entry.iteration for entry in odometer.ledger] == [3, None, None]
    assert odometer.get_epsilon(0.0, participant="b") == 1.0
    assert odometer.supports(dp_event.GaussianDpEvent(1.0)) and odometer.supports(PureDpEvent(1.0))
    assert odometer.supports(dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(1.0)))  # the RDP rule
    assert not odometer.supports(dp_event.UnsupportedDpEvent())


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="first_mu must be > 0"):
        PrivacyOdometer(first_mu=0.0)
    with pytest.raises(ValueError, match="ratio must be > 1"):
        PrivacyOdometer(ratio=1.0)
    with pytest.raises(ValueError, match="ratio must not be NaN"):
        PrivacyOdometer(ratio=float("nan"))
    with pytest.raises(TypeError, match="first_mu must be a real number"):
        PrivacyOdometer(first_mu="1")
    odometer = PrivacyOdometer().register(dp_event.GaussianDpEvent(2.0), participant="a")
    with pytest.raises(UnsupportedEventError, match="first release fixed the gaussian rule"):
        odometer.register(PureDpEvent(0.1), participant="a")
    with pytest.raises(UnsupportedEventError, match="first release fixed the gaussian rule"):
        odometer.register(dp_event.PoissonSampledDpEvent(0.5, dp_event.GaussianDpEvent(1.0)), participant="a")
    with pytest.raises(UnsupportedEventError, match="no fully adaptive rule bounds it"):
        odometer.register(dp_event.UnsupportedDpEvent())
    with pytest.raises(ValueError, match="rule must be 'auto' or 'rdp'"):
        PrivacyOdometer(rule="gdp")
    with pytest.raises(ValueError, match="rdp_orders must be 1 to 1000 finite numbers > 1"):
        PrivacyOdometer(rdp_orders=[1.0, 2.0])
    with pytest.raises(ValueError, match="delta must not be NaN"):
        odometer.get_epsilon(float("nan"))
    with pytest.raises(ValueError, match="noise_multiplier"):
        odometer.register(dp_event.GaussianDpEvent(float("nan")))
    assert odometer.get_epsilon(1e-5, participant="a") == odometer.get_epsilon(1e-5)  # refusals recorded nothing
