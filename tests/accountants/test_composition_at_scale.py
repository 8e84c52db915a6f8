"""The optimal composition beyond the enumeration limit: the pessimistic lattice privacy-loss
distribution (accountants.lattice.lattice_*), checked against 40-digit brute force, the exact
enumeration just below its limit, and the closed form for identical pure releases."""

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import AdvancedCompositionAccountant, PureDpEvent
from accountants.composition import kov_heterogeneous_epsilon, loss_support_size, optimal_epsilon
from accountants.lattice import lattice_delta, lattice_epsilon, lattice_losses, lattice_support

mpmath.mp.dps = 40


def mp_loss_distribution(guarantees):
    """{loss: P(loss)} of the composed randomized-response pairs, exact at 40 digits."""
    atoms = {mpmath.mpf(0): mpmath.mpf(1)}
    for eps, _, count in guarantees:
        e = mpmath.mpf(eps)
        p = mpmath.e**e / (1 + mpmath.e**e)
        group = {
            (count - 2 * j) * e: mpmath.binomial(count, j) * p ** (count - j) * (1 - p) ** j for j in range(count + 1)
        }
        merged = {}
        for loss, mass in atoms.items():
            for step, weight in group.items():
                merged[loss + step] = merged.get(loss + step, 0) + mass * weight
        atoms = merged
    return atoms


def mp_optimal_delta(guarantees, epsilon, atoms=None):
    """The optimal δ(ε) (KOV 2015, Thm. 3.3; Murtagh & Vadhan 2016) by brute force."""
    atoms = mp_loss_distribution(guarantees) if atoms is None else atoms
    e = mpmath.mpf(epsilon)
    rr = mpmath.fsum(mass * (1 - mpmath.e ** (e - loss)) for loss, mass in atoms.items() if loss > e)
    keep = mpmath.fprod((1 - mpmath.mpf(delta)) ** count for _, delta, count in guarantees)
    return 1 - keep * (1 - rr)


GUARANTEES = st.lists(
    st.tuples(st.floats(0.01, 2.0), st.sampled_from([0.0, 1e-9, 1e-6]), st.integers(1, 12)), min_size=1, max_size=3
)


@settings(max_examples=30, deadline=None)
@given(GUARANTEES, st.floats(0.0, 6.0), st.floats(1e-9, 0.2))
def test_never_below_the_optimum(guarantees, epsilon, delta):
    atoms = mp_loss_distribution(guarantees)
    assert lattice_delta(guarantees, epsilon) >= mp_optimal_delta(guarantees, epsilon, atoms)
    bound = lattice_epsilon(guarantees, delta)
    if math.isfinite(bound):
        assert mp_optimal_delta(guarantees, bound, atoms) <= delta
    else:  # δ below the releases' own δ mass: no ε can be defended
        assert 1 - math.prod((1 - d) ** k for _, d, k in guarantees) >= delta * (1 - 1e-12)


@pytest.mark.parametrize(
    "guarantees",
    [
        [(0.05, 0.0, 60), (0.08, 0.0, 50), (0.11, 1e-11, 60)],  # 61·51·61 = 189 771 atoms, below the limit
        [(0.3, 0.0, 20), (0.45, 0.0, 20), (0.7, 0.0, 20), (0.9, 0.0, 20)],
        [(0.01, 0.0, 400), (0.02, 0.0, 400)],
    ],
)
@pytest.mark.parametrize("delta", [1e-5, 1e-8])
def test_within_one_percent_of_the_exact_enumeration_below_its_limit(guarantees, delta):
    assert loss_support_size(guarantees) <= 200_000
    exact = optimal_epsilon(guarantees, delta)
    bound = lattice_epsilon(guarantees, delta)
    assert exact * (1 - 1e-9) <= bound <= exact * 1.01
    assert bound < kov_heterogeneous_epsilon(guarantees, delta)


def test_identical_pure_releases_match_the_kov_closed_form():
    """k ε-DP releases: δ(ε_total) = Σ_{j: (k−2j)ε > ε_total} C(k,j) p^{k−j} q^j (1 − e^{ε_total − (k−2j)ε})."""
    eps, k = 0.03, 3000
    guarantees = [(eps, 0.0, k)]
    e0 = mpmath.mpf(eps)
    p = mpmath.e**e0 / (1 + mpmath.e**e0)
    log_terms = [
        mpmath.loggamma(k + 1)
        - mpmath.loggamma(j + 1)
        - mpmath.loggamma(k - j + 1)
        + (k - j) * mpmath.log(p)
        + j * mpmath.log(1 - p)
        for j in range(k + 1)
    ]

    def closed_form(total):
        t = mpmath.mpf(total)
        return mpmath.fsum(
            mpmath.e ** log_terms[j] * (1 - mpmath.e ** (t - (k - 2 * j) * e0))
            for j in range(k + 1)
            if (k - 2 * j) * e0 > t
        )

    for delta in (1e-5, 1e-10):
        bound = lattice_epsilon(guarantees, delta)
        assert closed_form(bound) <= delta  # sound
        # tight: the exact optimum is within 0.5 % below (measured: 0.25 %)
        assert closed_form(bound / 1.005) > delta
        assert closed_form(bound) > delta * 0.5  # and the lattice ε is not far beyond it in δ either


def test_the_lattice_distribution_dominates_the_exact_one_including_the_fft_error():
    """Every exact mass x satisfies x <= e^R x̂ + e with Σ e <= abs_err (FFT path: > 48 atoms each)."""
    guarantees = [(0.3, 0.0, 60), (0.5, 0.0, 70)]
    dist = lattice_losses(guarantees, resolution=0.3)
    assert dist.abs_err > 0  # the FFT was used
    step = Fraction(dist.step)
    multiples = [math.ceil(Fraction(eps) / step) for eps, _, _ in guarantees]  # ε rounded up, exactly
    rounded = [(mpmath.mpf(dist.step) * m, 0.0, count) for m, (_, _, count) in zip(multiples, guarantees, strict=True)]
    exact = mp_loss_distribution(rounded)
    by_index = {}
    for loss, mass in exact.items():
        by_index[round(float(loss) / dist.step) - dist.offset] = mass
    scale = mpmath.e ** mpmath.mpf(dist.log_rel_err)
    excess = mpmath.fsum(
        max(mpmath.mpf(0), mass - scale * mpmath.mpf(float(dist.masses[i])) if 0 <= i < dist.masses.size else mass)
        for i, mass in by_index.items()
    )
    assert excess <= dist.abs_err + dist.infinite
    assert dist.abs_err < 1e-12 and dist.log_rel_err < 1e-11  # and the bounds are small


def test_the_accountant_uses_the_lattice_beyond_max_support():
    small = AdvancedCompositionAccountant(max_support=10)
    exact = AdvancedCompositionAccountant()
    for acc in (small, exact):
        acc.register(PureDpEvent(0.1), 50).register(PureDpEvent(0.2), 50)
    bound, optimum = small.get_epsilon(1e-5), exact.get_epsilon(1e-5)
    assert optimum * (1 - 1e-9) <= bound <= optimum * 1.01
    assert small.get_delta(bound) <= 1e-5
    assert small.get_delta(optimum * 0.98) > 1e-5  # no bound can beat the optimum


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match=r"resolution must be a number in \(0, 1\]"):
        lattice_epsilon([(0.1, 0.0, 3)], 1e-5, resolution=0.0)
    with pytest.raises(ValueError, match=r"resolution must be a number in \(0, 1\]"):
        AdvancedCompositionAccountant(resolution=float("nan"))
    assert lattice_support([(math.inf, 0.0, 1)]) is None and lattice_epsilon([(math.inf, 0.0, 1)], 0.1) == math.inf
    assert lattice_support([(0.1, 0.0, 10**12)]) is None  # too many releases: the accountant keeps KOV 3.5
    assert lattice_delta([(0.0, 1e-3, 2)], 0.0) == pytest.approx(1 - (1 - 1e-3) ** 2, rel=1e-12)
