"""PLDs on arrays (accountants.pld_arrays): self-composition against direct convolution on the whole
support and against dp-accounting's PLD, the ε(δ) search against the hockey-stick definition, and
the accountant's answers against dp-accounting's PLD accountant."""

import math

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.pld import PLDAccountant as DpPLDAccountant
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from hypothesis import example, given, settings
from hypothesis import strategies as st

from accountants import PLDAccountant
from accountants.pld_arrays import TAIL_MASS_TRUNCATION, ArrayPld, LossPmf, connect_dots_pmf
from accountants.sampled_gaussian import sampled_gaussian_arrays, sampled_gaussian_pld


def direct_delta(losses, probs, infinity_mass, epsilon):
    """δ(ε) = p_∞ + Σ_{ℓ > ε} p (1 − e^{ε − ℓ}), term by term in Python floats (math.fsum)."""
    return infinity_mass + math.fsum(
        p * -math.expm1(epsilon - loss)
        for loss, p in zip(losses.tolist(), probs.tolist(), strict=True)
        if loss > epsilon
    )


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_self_composition_is_the_direct_convolution_on_the_whole_support(direction):
    """Three releases (σ = 1.5, q = 0.05, grid 1e-3): the n-fold convolution by np.convolve on
    the whole support (no FFT, no window) is the reference. The mass outside the Chernoff window
    is within τ, and δ(ε) is at or above the reference's (to 1e-18), by at most τ plus 1e-15 (measured:
    1e-15 when the window cuts, else below 1e-18 with an extended-precision FFT; with scipy 1.10's, 6.5e-17
    more)."""
    single = getattr(sampled_gaussian_arrays(1.5, 0.05, 1e-3), direction)
    composed = single.self_compose(3)
    full = np.convolve(np.convolve(single.probs, single.probs), single.probs)
    full_lower = 3 * single.lower
    start = composed.lower - full_lower
    outside = math.fsum(full[:start].tolist()) + math.fsum(full[start + composed.probs.size :].tolist())
    assert outside <= TAIL_MASS_TRUNCATION
    losses = (np.arange(full.size) + full_lower) * 1e-3
    infinity = -math.expm1(3 * math.log1p(-single.infinity_mass))
    for epsilon in (0.0, 0.2, 0.5, 1.0, 1.5):
        reference = direct_delta(losses, full, infinity, epsilon)
        ours = composed.delta_for_epsilon(epsilon)
        assert reference - 1e-18 <= ours <= reference + TAIL_MASS_TRUNCATION + 1e-15


@settings(max_examples=40, deadline=None)
@given(
    probs=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30).filter(lambda p: sum(p) > 0),
    lower=st.integers(-20, 20),
    infinity_mass=st.floats(0.0, 1e-2),
    count=st.integers(2, 6),
    epsilon=st.floats(-1.0, 3.0),
)
@example(probs=[1.0, 5e-324], lower=0, infinity_mass=0.0, count=2, epsilon=0.0)  # a point mass: no finite order
def test_self_composition_bounds_the_direct_convolution(probs, lower, infinity_mass, count, epsilon):
    """Any PMF: δ(ε) of the self-composition is the whole-support convolution's, up to τ above."""
    masses = np.array(probs) / sum(probs) * (1 - infinity_mass)
    pmf = LossPmf(0.1, lower, masses, infinity_mass)
    full = masses
    for _ in range(count - 1):
        full = np.convolve(full, masses)
    losses = (np.arange(full.size) + count * lower) * 0.1
    reference = direct_delta(losses, full, -math.expm1(count * math.log1p(-infinity_mass)), epsilon)
    ours = pmf.self_compose(count).delta_for_epsilon(epsilon)
    assert reference - 1e-15 <= ours <= reference + TAIL_MASS_TRUNCATION + 1e-15


@pytest.mark.skipif(np.finfo(np.longdouble).eps >= 1e-16, reason="long double is double on this platform")
def test_extended_precision_keeps_a_thousand_fold_composition_exact():
    """1,000 sampled Gaussian releases (σ = 1, q = 0.01, grid 1e-4): δ(ε) at ε = 1.8282 against
    the same composition on a window twice as wide, whose FFT rounding differs. In float64 both
    drift by 2e-14 (dp-accounting's FFT too); in extended precision they agree to 1e-17."""
    single = sampled_gaussian_arrays(1.0, 0.01, 1e-4).remove
    composed = single.self_compose(1000)
    loose = single.self_compose(1000, tail_mass_truncation=1e-300)  # a far wider window
    assert loose.probs.size > 1.3 * composed.probs.size
    epsilon = 1.8282436461219649
    difference = composed.delta_for_epsilon(epsilon) - (loose.delta_for_epsilon(epsilon) - 1e-300)
    assert difference + 1e-17 >= 0.0 and difference <= TAIL_MASS_TRUNCATION


@settings(max_examples=60, deadline=None)
@given(
    probs=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40).filter(lambda p: sum(p) > 0),
    lower=st.integers(-30, 30),
    infinity_mass=st.floats(0.0, 1e-3),
    delta=st.floats(1e-9, 0.5),
)
def test_epsilon_for_delta_is_the_least_epsilon_of_the_hockey_stick(probs, lower, infinity_mass, delta):
    """For any PMF: δ(ε(δ)) <= δ up to rounding, and a slightly smaller ε exceeds δ (unless ε = 0)."""
    masses = np.array(probs) / sum(probs) * (1 - infinity_mass)
    pmf = LossPmf(0.1, lower, masses, infinity_mass)
    epsilon = pmf.epsilon_for_delta(delta)
    losses = pmf.losses
    if infinity_mass > delta:
        assert epsilon == math.inf
        return
    assert direct_delta(losses, masses, infinity_mass, epsilon) <= delta * (1 + 1e-12) + 1e-15
    if epsilon > 0:
        smaller = epsilon - 1e-9 * max(1.0, epsilon) - 1e-12
        assert direct_delta(losses, masses, infinity_mass, max(0.0, smaller)) >= delta * (1 - 1e-12)


GRID = [
    # (σ, q, count, δ, grid step)
    (1.0, 0.01, 1000, 1e-5, 1e-4),
    (0.7, 0.05, 300, 1e-6, 1e-3),
    (2.0, 0.2, 100, 1e-8, 1e-3),
    (1.5, 0.05, 2, 1e-5, 1e-3),
    (2.0, 0.5, 7, 1e-5, 1e-3),
    (4.0, 1.0, 50, 1e-6, 1e-3),
]


@pytest.mark.parametrize(("sigma", "q", "count", "delta", "interval"), GRID)
def test_the_accountant_agrees_with_dp_accounting(sigma, q, count, delta, interval):
    """Ours >= dp-accounting's PLD accountant less its grid step, and within 1e-6 relative (measured:
    at most 4e-9, the outward rounding of δ)."""
    event = (
        dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)) if q < 1 else dp_event.GaussianDpEvent(sigma)
    )
    ours = PLDAccountant(interval).register(event, count).get_epsilon(delta)
    theirs = DpPLDAccountant(value_discretization_interval=interval).compose(event, count).get_epsilon(delta)
    assert ours >= theirs - interval
    assert ours == pytest.approx(theirs, rel=1e-6)


def test_laplace_and_sampled_compositions_agree_with_dp_accounting():
    """Mixed releases (Laplace, Gaussian, Poisson-sampled Gaussian, several counts) against
    dp-accounting's PLD accountant composing them one by one."""
    releases = [
        (dp_event.LaplaceDpEvent(10.0), 3),
        (dp_event.GaussianDpEvent(8.0), 2),
        (dp_event.PoissonSampledDpEvent(0.05, dp_event.GaussianDpEvent(1.5)), 4),
    ]
    ours, theirs = PLDAccountant(1e-3), DpPLDAccountant(value_discretization_interval=1e-3)
    for event, count in releases:
        ours.register(event, count)
        for _ in range(count):
            theirs.compose(event)
    assert ours.get_epsilon(1e-6) >= theirs.get_epsilon(1e-6) - 1e-3
    assert ours.get_epsilon(1e-6) == pytest.approx(theirs.get_epsilon(1e-6), rel=1e-4)  # one fold: less grid error


def test_arrays_are_dp_accountings_connect_the_dots_pld():
    """The array construction gives dp-accounting's PLD: δ at every grid point, bit for bit."""
    ours, theirs = sampled_gaussian_arrays(1.0, 0.01, 1e-3), sampled_gaussian_pld(1.0, 0.01, 1e-3)
    converted = ours.to_dp_accounting()
    assert isinstance(converted, pld_lib.PrivacyLossDistribution)
    epsilons = np.arange(-300, 600) * 1e-3
    assert np.array_equal(converted.get_delta_for_epsilon(epsilons), theirs.get_delta_for_epsilon(epsilons))


def test_from_masses_and_composition_of_two():
    pld = ArrayPld.from_masses({-1: 0.25, 0: 0.0, 1: 0.75}, 0.5)
    assert pld.remove.lower == -1 and pld.remove.probs.tolist() == [0.25, 0.0, 0.75]
    twice = pld.compose(pld)
    assert twice.remove.lower == -2
    assert twice.remove.probs == pytest.approx([0.0625, 0.0, 0.375, 0.0, 0.5625], abs=1e-16)
    assert twice.get_delta_for_epsilon(0.5) == pytest.approx(0.5625 * -math.expm1(-0.5), rel=1e-15)


def test_bad_arguments_are_named():
    pmf = LossPmf(0.1, 0, np.array([1.0]), 0.0)
    with pytest.raises(ValueError, match="count must be at least 1"):
        pmf.self_compose(0)
    with pytest.raises(ValueError, match="different grids"):
        pmf.compose(LossPmf(0.2, 0, np.array([1.0]), 0.0))
    with pytest.raises(ValueError, match="one value per loss"):
        connect_dots_pmf(0.1, 0, 3, np.array([0.5, 0.1]))
    with pytest.raises(ValueError, match="non-increasing"):
        connect_dots_pmf(0.1, 0, 1, np.array([0.1, 0.5]))
