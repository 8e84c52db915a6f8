import math

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from accountants.composition import (
    basic_delta,
    basic_epsilon,
    drv_delta,
    drv_epsilon,
    kov_heterogeneous_epsilon,
    optimal_delta,
    optimal_epsilon,
)

mpmath.mp.dps = 60


def mp_optimal_delta(guarantees, epsilon):
    """Brute force over every outcome of the composed dominating pairs, at 60 digits."""
    eps_total = mpmath.mpf(epsilon)
    outcomes = [(mpmath.mpf(1), mpmath.mpf(1), mpmath.mpf(0))]  # (P mass, Q mass, unused)
    keep = mpmath.mpf(1)
    for eps, delta, count in guarantees:
        e = mpmath.e ** mpmath.mpf(eps)
        pair = [(e / (1 + e), 1 / (1 + e)), (1 / (1 + e), e / (1 + e))]
        keep *= (1 - mpmath.mpf(delta)) ** count
        for _ in range(count):
            outcomes = [(p * a, q * b, 0) for p, q, _ in outcomes for a, b in pair]
    rr = mpmath.fsum(max(mpmath.mpf(0), p - mpmath.e**eps_total * q) for p, q, _ in outcomes)
    return 1 - keep * (1 - rr)


@pytest.mark.parametrize(
    "guarantees, eps",
    [([(0.5, 0.0, 6)], 1.0), ([(0.3, 1e-4, 4), (1.1, 0.0, 3)], 0.7), ([(2.0, 0.0, 2), (0.1, 1e-3, 5)], 0.0)],
)
def test_optimal_delta_matches_brute_force_at_high_precision(guarantees, eps):
    assert optimal_delta(guarantees, eps) == pytest.approx(
        float(mp_optimal_delta(guarantees, eps)), rel=1e-10, abs=1e-300
    )


def test_kov_theorem_3_3_closed_form_points():
    k, eps = 10, 0.5
    for i in range(k // 2 + 1):
        expected = (
            sum(math.comb(k, j) * (math.exp((k - j) * eps) - math.exp((k - 2 * i + j) * eps)) for j in range(i))
            / (1 + math.exp(eps)) ** k
        )
        assert optimal_delta([(eps, 0.0, k)], (k - 2 * i) * eps) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_pure_composition_at_delta_zero_is_the_sum():
    # 100 times the float 0.1 (0.1000000000000000055…) is 10.0000000000000006: the least float
    # above it, not 10.0, is the sound bound
    above_ten = math.nextafter(10.0, math.inf)
    assert optimal_epsilon([(0.1, 0.0, 100)], 0.0) == above_ten
    assert basic_epsilon([(0.1, 0.0, 100)], 0.0) == above_ten
    assert basic_epsilon([(0.5, 0.0, 100)], 0.0) == 50.0  # exact sums are not stepped
    assert optimal_epsilon([(0.1, 1e-9, 100)], 0.0) == math.inf


def test_no_overflow_at_a_hundred_thousand_compositions():
    eps = optimal_epsilon([(0.1, 1e-6, 100_000)], 0.5)
    assert math.isfinite(eps) and 0 < eps < drv_epsilon([(0.1, 1e-6, 100_000)], 0.5)
    assert optimal_delta([(0.1, 1e-6, 100_000)], eps) <= 0.5


@given(
    st.lists(
        st.tuples(st.floats(0.01, 1.5), st.sampled_from([0.0, 1e-7, 1e-5]), st.integers(1, 30)), min_size=1, max_size=3
    ),
    st.floats(1e-4, 0.1),
)
def test_optimal_is_never_worse_than_the_closed_form_theorems(guarantees, delta):
    optimal = optimal_epsilon(guarantees, delta)
    if math.isfinite(optimal):
        assert optimal_delta(guarantees, optimal) <= delta
    else:  # δ below the releases' own δ mass: nothing can bound it
        assert 1 - math.prod((1 - d) ** k for _, d, k in guarantees) > delta
    assert optimal <= basic_epsilon(guarantees, delta) + 1e-12
    assert optimal <= drv_epsilon(guarantees, delta) + 1e-12
    assert optimal <= kov_heterogeneous_epsilon(guarantees, delta) + 1e-12


@given(st.floats(0.01, 1.0), st.integers(1, 200), st.floats(1e-9, 0.1))
def test_drv_formula_and_its_inverse(eps, count, delta):
    expected = math.sqrt(2 * count * math.log(1 / delta)) * eps + count * eps * math.expm1(eps)
    assert drv_epsilon([(eps, 0.0, count)], delta) == pytest.approx(expected, rel=1e-12)
    assert drv_delta([(eps, 0.0, count)], expected) == pytest.approx(delta, rel=1e-8)


def test_basic_delta():
    assert basic_delta([(0.5, 1e-6, 4)], 2.0) == pytest.approx(4e-6)
    assert basic_delta([(0.5, 1e-6, 4)], 1.99) == 1.0


def test_huge_per_release_epsilon_does_not_overflow():
    """A single ε above ~709 overflows e^ε; every theorem must still answer (the sum wins)."""
    guarantees = [(800.0, 0.0, 3)]
    assert drv_epsilon(guarantees, 1e-5) == math.inf
    assert drv_delta(guarantees, 10.0) == 1.0
    assert optimal_epsilon(guarantees, 1e-5) == pytest.approx(2400.0)
    assert kov_heterogeneous_epsilon(guarantees, 1e-5) == 2400.0


def test_an_upper_sum_near_the_top_of_the_float_range_is_a_number():
    """Dekker's split of a count near 1e300 would overflow; the sum falls back to a relative margin."""
    from accountants.composition import upper_sum

    total = upper_sum([(2 * 10**300, 0.1)])
    assert 2e299 <= total <= 2e299 * (1 + 1e-12)
