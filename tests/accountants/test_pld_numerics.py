"""The PLD accountant at the numerical extremes: Laplace releases of any scale (discretised here from
their closed form), δ down to 1e-300 (no ∞ where a finite bound exists), and dp-accounting failures
answered by the fallback bounds or refused with a clear error.

References: one Laplace release has δ(ε) = [1 − e^{(ε − ε₀)/2}]₊ for ε >= −ε₀ (ε₀ = 1/b), evaluated in mpmath at
60 digits; the fallbacks are basic composition (Σε, exact) and the RDP accountant.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from dp_accounting import dp_event, privacy_accountant
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from accountants import MomentsAccountant, PLDAccountant, PureDpEvent, PureEpsilonAccountant, UnsupportedEventError
from accountants import pld as pld_module
from accountants.pld import laplace_masses

DELTAS = [10.0**-e for e in (3, 6, 10, 12, 14, 15, 16, 20, 50, 100, 200, 300)]


def laplace_delta(eps0: float, eps: float) -> mpmath.mpf:
    """δ(ε) of one Laplace release (1 − e^ε below −ε₀, where every loss exceeds ε)."""
    with mpmath.workdps(60):
        e = mpmath.mpf(eps)
        # a Fraction exactly (mpmath before 1.3 does not take one)
        e0 = mpmath.mpf(eps0.numerator) / eps0.denominator if isinstance(eps0, Fraction) else mpmath.mpf(eps0)
        if e < -e0:
            return -mpmath.expm1(e)
        return max(mpmath.mpf(0), -mpmath.expm1((e - e0) / 2))


def test_the_reported_small_laplace_scale_answers_exactly():
    b = 0.001349954021097534
    epsilon = PLDAccountant().register(dp_event.LaplaceDpEvent(b)).get_epsilon(1e-6)
    assert laplace_delta(1 / Fraction(b), epsilon) <= 1e-6  # at or above the true ε(δ)
    assert epsilon <= 1 / b  # and no looser than pure DP
    assert epsilon == pytest.approx(1 / b + 2 * math.log1p(-1e-6), rel=1e-15)


@pytest.mark.parametrize("b", [0.001349954021097534, 1e-3, 0.05, 1.0, 30.0])
@pytest.mark.parametrize("count", [2, 10])
def test_composed_laplace_of_any_scale_answers_below_the_pure_total(b, count):
    accountant = PLDAccountant().register(dp_event.LaplaceDpEvent(b), count)
    pure_total = PureEpsilonAccountant().register(dp_event.LaplaceDpEvent(b), count).get_epsilon(0.0)
    assert pure_total >= count / Fraction(b)
    previous = 0.0
    for delta in DELTAS:
        epsilon = accountant.get_epsilon(delta)
        assert math.isfinite(epsilon)
        assert epsilon <= pure_total
        assert epsilon >= previous * (1 - 1e-6)  # grows as δ shrinks (bounds of different methods meet)
        previous = epsilon


@pytest.mark.parametrize(
    ("event", "count"),
    [
        (PureDpEvent(0.0122), 4000),
        (dp_event.LaplaceDpEvent(1.0), 10),
        (dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0)), 100),
        (dp_event.ComposedDpEvent([dp_event.LaplaceDpEvent(5.0), dp_event.GaussianDpEvent(3.0)]), 20),
    ],
    ids=["pure", "laplace", "poisson-gaussian", "mixed"],
)
def test_tiny_delta_after_an_fft_composition_is_finite_and_no_worse_than_rdp(event, count):
    """Down to δ = 1e-300 the answer is finite, grows as δ shrinks, and is never above the RDP
    accountant's on the same releases (the fallback takes the smaller valid bound)."""
    pld = PLDAccountant().register(event, count)
    rdp = MomentsAccountant().register(event, count)
    previous = 0.0
    for delta in DELTAS:
        epsilon = pld.get_epsilon(delta)
        assert math.isfinite(epsilon), f"δ = {delta}"
        assert epsilon >= previous * (1 - 1e-6)  # grows as δ shrinks (bounds of different methods meet)
        if delta < 1e-10:
            assert epsilon <= rdp.get_epsilon(delta) * (1 + 1e-12)  # the same curves, summed in another order
        previous = epsilon
    for epsilon in (0.5, 5.0, 50.0):
        assert pld.get_delta(epsilon) <= max(rdp.get_delta(epsilon) * (1 + 1e-12), 1e-10)


def test_delta_at_the_pure_total_is_zero():
    accountant = PLDAccountant().register(dp_event.LaplaceDpEvent(1.0), 10)
    assert accountant.get_delta(10.0) == 0.0
    assert accountant.get_delta(9.9) > 0


@pytest.mark.parametrize("eps0", [1e-7, 0.99999e-4, 2.00001e-4, 0.05, 3.0, 740.77, 5e4])
@pytest.mark.parametrize("h", [1e-4, 0.0148])
def test_laplace_connect_the_dots_matches_the_closed_form_at_every_grid_point(eps0, h):
    """Doroshenko et al. 2022, Alg. 1: the discrete PLD's δ equals the exact δ at each grid point
    (here to 1e-12 relative or 1e-15 absolute), and the masses sum to 1."""
    if 2 * eps0 / h > 2e4:
        h = 2 * eps0 / 2e4  # the accountant coarsens its grid too (MAX_GRID_POINTS); keep the test small
    masses = laplace_masses(eps0, h, pessimistic=True)
    with mpmath.workdps(40):
        assert abs(mpmath.fsum(masses.values()) - 1) <= 1e-14
    index = np.array(sorted(masses))
    probabilities = np.array([masses[i] for i in index])
    losses = index * h
    step = max(1, index.size // 200)
    for i in index[::step]:
        eps = i * h
        above = losses > eps
        # float64 terms (each within a few ulps), summed exactly: far below the 1e-12 asked
        computed = math.fsum((probabilities[above] * -np.expm1(eps - losses[above])).tolist())
        exact = laplace_delta(eps0, eps)
        assert abs(computed - exact) <= max(1e-12 * exact, 1e-15), f"ε = {eps}"


def test_optimisticlaplace_masses_are_a_distribution_below_the_pessimistic_one():
    low = PLDAccountant().register(dp_event.LaplaceDpEvent(0.7), 5).get_epsilon_interval(1e-6)
    assert low[0] <= low[1]
    masses = laplace_masses(1 / 0.7, 1e-4, pessimistic=False)
    assert sum(masses.values()) == pytest.approx(1.0, abs=1e-14)


def test_a_dp_accounting_failure_falls_back_or_is_refused_clearly(monkeypatch):
    def failing(*args, **kwargs):
        raise ValueError("deltas are not in non-increasing order")

    monkeypatch.setattr(pld_lib, "from_gaussian_mechanism", failing)
    monkeypatch.setattr(pld_lib, "from_laplace_mechanism", failing)
    monkeypatch.setattr(pld_module, "sampled_gaussian_arrays", failing)  # the array-built sampled Gaussian
    sampled_gaussian = dp_event.PoissonSampledDpEvent(0.0123, dp_event.GaussianDpEvent(1.2345))
    accountant = PLDAccountant().register(sampled_gaussian, 7)
    assert accountant.get_epsilon(1e-6) == MomentsAccountant().register(sampled_gaussian, 7).get_epsilon(1e-6)
    sampled_laplace = dp_event.PoissonSampledDpEvent(0.0123, dp_event.LaplaceDpEvent(1.2345))
    accountant = PLDAccountant().register(sampled_laplace, 7)  # its amplified pure ε answers
    with mpmath.workdps(50):
        amplified = 7 * mpmath.log1p(mpmath.mpf(0.0123) * mpmath.expm1(1 / mpmath.mpf(1.2345)))
    assert float(amplified) <= accountant.get_epsilon(1e-6) <= float(amplified) * (1 + 1e-12)
    special = privacy_accountant.NeighboringRelation.REPLACE_SPECIAL
    accountant = PLDAccountant(neighboring_relation=special).register(sampled_laplace, 7)  # no other bound here
    with pytest.raises(UnsupportedEventError, match="dp-accounting's PLD failed .*no other bound applies"):
        accountant.get_epsilon(1e-6)


def test_empty_ledger_is_exactly_zero():
    accountant = PLDAccountant()
    assert accountant.get_epsilon(1e-300) == 0.0
    assert accountant.get_epsilon(0.0) == 0.0
    assert accountant.get_delta(0.0) == 0.0


@pytest.mark.parametrize("delta", [1e-14, 1e-20, 1e-300])
def test_poisson_sampled_laplace_is_capped_by_its_amplified_pure_epsilon_at_tiny_delta(delta):
    """Three Laplace(b = 0.5) releases on Poisson samples (q = 0.2) are each (log(1 + q(e^2 − 1)), 0)-DP
    under add-or-remove (Balle, Barthe & Gaboardi 2018, Theorem 8): where the FFT's error hides the PLD's
    answer (δ ≤ 1e-14), ε is that pure total, never ∞ and never below it (dp-accounting's own test
    expects 2.46964)."""
    event = dp_event.PoissonSampledDpEvent(0.2, dp_event.LaplaceDpEvent(noise_multiplier=0.5))
    accountant = PLDAccountant().register(event, 3)
    with mpmath.workdps(50):
        exact = 3 * mpmath.log(1 + mpmath.mpf(0.2) * mpmath.expm1(2))
    epsilon = accountant.get_epsilon(delta)
    assert mpmath.mpf(epsilon) >= exact
    assert epsilon <= float(exact) * (1 + 1e-12)
