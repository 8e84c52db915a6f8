"""δ(ε) of a ledger mixing plain Gaussian releases with others keeps the Gaussian part continuous:
p_∞ + Σ_x p_x H_μ(ε − x) over the discretised PLD of the other releases, H_μ the exact hockey-stick
divergence of μ-GDP. Checked against mpmath (H_μ), dp-accounting's PLD of the same ledger composed
from scratch (δ), and, through a budget filter, on random interleavings of releases."""

import math

import mpmath
import numpy as np
import pytest
from dp_accounting import dp_event

from accountants import BudgetFilter, PLDAccountant, PrivacyBudgetExceeded
from accountants.pld_arrays import LossPmf, gaussian_hockey_stick_sum, gaussian_hockey_stick_terms

COARSE = 1e-3


def exact_hockey_stick(t: float, mu: float) -> mpmath.mpf:
    with mpmath.workdps(60):
        t_, mu_ = mpmath.mpf(t), mpmath.mpf(mu)
        return mpmath.ncdf(-t_ / mu_ + mu_ / 2) - mpmath.exp(t_) * mpmath.ncdf(-t_ / mu_ - mu_ / 2)


@pytest.mark.parametrize("mu", [0.05, 0.3, 1.0, 3.0, 30.0])
def test_the_gaussian_part_is_an_upper_bound_on_the_exact_hockey_stick(mu):
    for t in (-800.0, -50.0, -5.0, -0.1, 0.0, 1e-3, 0.1, 1.0, 5.0, 30.0, 200.0, 700.0):
        exact = exact_hockey_stick(t, mu)
        bound = gaussian_hockey_stick_sum(np.ones(1), np.array([t]), mu)
        assert bound >= exact, (t, mu)
        if exact > 1e-290:  # below, the bound is the 1e-300 allowed for underflow
            # the bound's margin (the arguments' roundings grow with |t| and z/μ): below 1e-12 where a
            # budget filter meets H_μ (|t| <= 2, μ >= 0.3), below 1e-10 everywhere
            assert bound <= exact * (1 + (1e-12 if abs(t) <= 2 and mu >= 0.3 else 1e-10)), (t, mu)


def test_the_sum_is_the_weighted_sum_of_the_terms():
    t = np.linspace(3.0, -3.0, 61)
    probs = np.random.default_rng(5).dirichlet(np.ones(t.size))
    exact = math.fsum(float(p * exact_hockey_stick(x, 0.4)) for p, x in zip(probs, t, strict=True))
    bound = gaussian_hockey_stick_sum(probs, t, 0.4)
    assert exact <= bound <= exact * (1 + 1e-12)


def test_each_term_bounds_the_exact_hockey_stick():
    t = np.linspace(2.0, -2.0, 41)  # both runs (z > 0 and z <= 0) of the sum, as a filter meets them
    for mu in (0.3, 1.0):
        terms = gaussian_hockey_stick_terms(t, mu)
        for bound, x in zip(terms, t, strict=True):
            exact = exact_hockey_stick(float(x), mu)
            # the margin is largest at t = 2, μ = 0.3 (1.1e-12: erfcx's difference loses 1.4 digits there)
            assert exact <= bound <= exact * (1 + 2e-12), (x, mu)


def test_delta_with_gaussian_from_kept_bounds_is_the_exact_sum():
    """PMFs on one grid at other offsets, within and past the range of bounds kept for (ε, μ, h),
    one with losses below the cut (bounded together): each δ(ε) is p_∞ + Σ p_i H_μ(ε − ℓ_i) to
    1e-12 (+ 1e-17 for the losses below the cut), never below."""
    rng = np.random.default_rng(11)
    epsilon, mu, grid = 0.7, 0.45, 0.02
    for lower, size in ((-40, 60), (-10, 160), (-200, 50), (-40, 60)):  # kept range hit, extended, hit
        probs = rng.dirichlet(np.ones(size)) * (1 - 1e-4)
        pmf = LossPmf(grid, lower, probs, 1e-4)
        losses = (lower + np.arange(size)) * grid
        with mpmath.workdps(30):
            exact = 1e-4 + math.fsum(
                float(p * exact_hockey_stick(epsilon - x, mu)) for p, x in zip(probs, losses, strict=True)
            )
        assert exact <= pmf.delta_with_gaussian(epsilon, mu) <= exact * (1 + 1e-12) + 1e-17, (lower, size)


@pytest.mark.parametrize("counts", [(2, 2, 2), (7, 7, 7), (3, 12, 5), (12, 3, 5)])
def test_delta_lies_between_dp_accountings_optimistic_and_pessimistic_pld(mixed, counts):
    """Ours >= dp-accounting's optimistic estimate (theirs minus their grid error, 2-14 % lower
    here) and within 2e-4 (relative) + 1e-13 (the FFT slack) of their pessimistic PLD: the
    Gaussian part, exact here, is what differs."""
    releases = dict(zip(mixed.events, counts, strict=True))
    ours = PLDAccountant(COARSE)
    for event, count in releases.items():
        ours.register(event, count)
    pessimistic = mixed.dp_accounting_pld(releases, COARSE, pessimistic=True)
    optimistic = mixed.dp_accounting_pld(releases, COARSE, pessimistic=False)
    for epsilon in (0.5, 1.2, 2.0):
        delta = ours.get_delta(epsilon)
        theirs = pessimistic.get_delta_for_epsilon(epsilon)
        assert optimistic.get_delta_for_epsilon(epsilon) <= delta
        assert abs(delta - theirs) <= 2e-4 * theirs + 1e-13, (epsilon, delta, theirs)


def test_a_ledger_of_one_kind_keeps_its_own_path(mixed):
    gaussians = PLDAccountant(COARSE).register(dp_event.GaussianDpEvent(2.0), 3)
    assert gaussians.get_delta(1.0) == pytest.approx(float(exact_hockey_stick(1.0, math.sqrt(3) / 2)), rel=1e-12)
    laplace = PLDAccountant(COARSE).register(mixed.laplace, 5)
    assert laplace.get_delta(0.1) == pytest.approx(
        mixed.dp_accounting_pld({mixed.laplace: 5}, COARSE, pessimistic=True).get_delta_for_epsilon(0.1), rel=1e-6
    )


POOL = [
    dp_event.LaplaceDpEvent(20.0),
    dp_event.LaplaceDpEvent(40.0),
    dp_event.GaussianDpEvent(10.0),
    dp_event.GaussianDpEvent(25.0),
    dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0)),
    dp_event.PoissonSampledDpEvent(0.02, dp_event.GaussianDpEvent(2.0)),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_filter_on_random_interleavings_admits_only_what_a_from_scratch_composition_admits(mixed, seed):
    """The admitted ledger is within the budget by dp-accounting's PLD composed from scratch, up to
    2e-4 relative (the grids' difference, as above), so is every earlier one (δ(ε) only grows with
    releases); the refused release would exceed it."""
    rng = np.random.default_rng(seed)
    epsilon, delta = 1.2, 1e-5
    budget = BudgetFilter(PLDAccountant(COARSE), epsilon=epsilon, delta=delta, unproven="ignore")
    counts: dict = {}
    refused = None
    for _ in range(120):
        event = POOL[int(rng.integers(len(POOL)))]
        try:
            budget.register(event)
        except PrivacyBudgetExceeded:
            refused = event
            break
        counts[event] = counts.get(event, 0) + 1
    assert refused is not None and sum(counts.values()) == len(budget.ledger) > 10
    assert mixed.dp_accounting_pld(counts, COARSE, pessimistic=True).get_delta_for_epsilon(epsilon) <= delta * (
        1 + 2e-4
    )
    counts[refused] = counts.get(refused, 0) + 1
    assert mixed.dp_accounting_pld(counts, COARSE, pessimistic=True).get_delta_for_epsilon(epsilon) > delta * (1 - 2e-4)


@pytest.mark.parametrize("sizes", [(3000, 2500), (3000, 100), (3000, 20), (20, 3000)])
def test_composition_by_kept_spectrum_or_directly_is_dp_accountings(sizes):
    """LossPmf.compose (real FFTs with the second PMF's spectrum kept, or a direct convolution when
    one PMF is short) gives dp-accounting's composition, also when the kept spectrum is reused."""
    rng = np.random.default_rng(3)
    first, second = (rng.dirichlet(np.ones(size)) * (1 - 1e-3) for size in sizes)
    ours_second = LossPmf(COARSE, -50, second, 1e-3)
    for _ in range(2):
        ours = LossPmf(COARSE, -20, first, 2e-3).compose(ours_second)
        theirs = LossPmf(COARSE, -20, first, 2e-3).to_dp_accounting().compose(ours_second.to_dp_accounting())
        for epsilon in (-0.05, 0.0, 0.02, 0.1, 1.0, 3.0):
            assert ours.delta_for_epsilon(epsilon) == pytest.approx(theirs.get_delta_for_epsilon(epsilon), abs=1e-15)
