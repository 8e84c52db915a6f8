"""Tests for solvers.sharing.privacy: the formulas of Hu et al. 2019 as printed, Δ_safe, Lemma 1's
counterexample."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import gaussian_delta
from accountants.composition import drv_epsilon
from solvers.sharing import (
    corollary1_epsilon,
    lemma1_bound,
    lemma1_counterexample,
    realised_sensitivity,
    row_model_sensitivity,
    row_stability_sensitivity,
    safe_sensitivity,
    stability_input_bounds,
    stability_sensitivity,
    theorem1_epsilon,
    theorem1_sigma,
    x_update_reference,
)


@pytest.mark.parametrize(
    "width, rho, lam, c1, b1, M, C, sigma",
    [  # Lemma 1's C and Theorem 1's σ(ε = 1, δ = 1e-5) (Hu et al. 2019), values computed by the project
        (66, 1, 0.01, 1, 1, 2, 0.136818, 0.662857),
        (2000, 1, 0.01, 1, 1, 3, 0.006015, 0.029142),
        (100, 1, 1, 1, 1, 2, 0.12, 0.581377),
        (10, 0.5, 0.1, 2, 3, 4, 5.52, 26.743325),
    ],
)
def test_lemma1_and_theorem1_golden_values(width, rho, lam, c1, b1, M, C, sigma):
    claimed = lemma1_bound(width, rho, lam, c1, b1, M)
    assert claimed == pytest.approx(C, abs=1e-6)
    assert theorem1_sigma(claimed, 1.0, 1e-5) == pytest.approx(sigma, abs=1e-6)
    assert theorem1_epsilon(claimed, theorem1_sigma(claimed, 1.0, 1e-5), 1e-5) == pytest.approx(1.0)


def test_theorem1_noise_formula():
    assert math.sqrt(2 * math.log(1.25e5)) == pytest.approx(4.844805262605389, rel=1e-15)
    assert theorem1_sigma(1.0, 0.5, 1e-5) == pytest.approx(9.6896, abs=1e-4)
    assert theorem1_sigma(1.0, 0.1, 1e-5) == pytest.approx(48.4481, abs=1e-4)
    with pytest.raises(ValueError, match="epsilon <= 1"):
        theorem1_sigma(1.0, 1.5, 1e-5)


def test_lemma1_bound_scales_as_claimed():
    assert lemma1_bound(20, 1.0, 0.1, 1, 1, 2) == pytest.approx(2 * lemma1_bound(40, 1.0, 0.1, 1, 1, 2))
    values = [lemma1_bound(10, rho, 0.1, 1, 1, 3) for rho in (0.1, 1, 10, 1e6)]
    assert values == sorted(values, reverse=True) and values[-1] == pytest.approx(3 * 3 * 1 / 10, rel=1e-5)
    np.testing.assert_allclose(lemma1_bound(np.array([10, 20]), 1.0, 0.0, 1, 1, 1), [0.6, 0.3])


@pytest.mark.parametrize(
    "eps, T, delta_prime, expected",
    [(0.1, 20, 1e-5, 2.35631), (0.5, 10, 1e-5, 10.8307), (1.0, 20, 1e-5, 55.8253), (0.5, 10, 1e-6, 11.5549)],
)
def test_corollary1_golden_values(eps, T, delta_prime, expected):
    value = corollary1_epsilon(eps, T, delta_prime)
    assert value == pytest.approx(expected, abs=1e-4)
    # the same as Dwork–Rothblum–Vadhan advanced composition at δ_total = Tδ + δ'
    assert drv_epsilon([(eps, 1e-7, T)], T * 1e-7 + delta_prime) == pytest.approx(value, rel=1e-6)


def test_corollary1_is_worse_than_basic_composition_for_small_t():
    assert corollary1_epsilon(0.1, 1, 1e-5) == pytest.approx(0.490, abs=1e-3)
    assert corollary1_epsilon(0.1, 1, 1e-5) > 0.1
    assert corollary1_epsilon(0.1, 20, 1e-5) > 20 * 0.1
    assert math.isinf(corollary1_epsilon(800.0, 2, 1e-5))


# ------------------------------------------------------------------------------------------------
# Must show: the counterexample to Lemma 1


def test_lemma1_counterexample_true_change_0_2904_against_claimed_0_12():
    example = lemma1_counterexample()
    assert example["sensitivity"] == pytest.approx(0.2904, abs=5e-5)
    assert example["sensitivity"] == pytest.approx(0.29037824751, rel=1e-9)
    assert example["claimed"] == pytest.approx(0.12, rel=1e-12)
    assert example["sensitivity"] > 2.4 * example["claimed"]
    np.testing.assert_allclose(example["released"][:2], [-0.5, 0.0], atol=1e-15)
    np.testing.assert_allclose(example["released_prime"][:2], [-0.3846, -0.2665], atol=1e-4)
    D, Dp = example["D"], example["D_prime"]  # every assumption of the lemma holds
    np.testing.assert_allclose(np.linalg.norm(Dp, axis=1), 1.0)
    assert np.linalg.norm(D - Dp, 2) == pytest.approx(1.0)
    assert max(example["iterate_norms"].values()) <= 1.0
    # σ from Theorem 1 at the claimed (1, 1e-5): the exact δ(ε = 1) is 6.8e-3, 680x the claim
    assert example["sigma"] == pytest.approx(0.5814, abs=1e-4)
    assert example["true_delta"] == pytest.approx(6.79e-3, abs=1e-5)
    assert example["true_delta"] == pytest.approx(gaussian_delta(example["sensitivity"] / example["sigma"], 1.0))


@pytest.mark.parametrize("n", [3, 20, 500])
def test_the_realised_change_does_not_depend_on_the_dimension_while_the_claim_shrinks(n):
    example = lemma1_counterexample(n)
    assert example["sensitivity"] == pytest.approx(0.29037824751, rel=1e-9)
    assert example["claimed"] == pytest.approx(12 / n)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(70, 100), extra=st.integers(0, 40))
def test_a_high_leverage_row_breaks_lemma1(seed, d, extra):
    """Random unit-row D_m whose row 0 alone loads on coordinate 0 (leverage 1), that row rotated by
    60° (‖D_m − D'_m‖₂ = 1), z = −e_0, λ = ρ = 1, M = 2: the realised Δ exceeds Lemma 1's C."""
    rng = np.random.default_rng(seed)
    n = d + extra
    D = rng.normal(size=(n, d))
    D[0], D[1:, 0] = 0.0, 0.0
    D[0, 0] = 1.0
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    direction = rng.normal(size=d)
    direction[0] = 0.0
    D_prime = D.copy()
    D_prime[0] = 0.5 * D[0] + math.sqrt(3) / 2 * direction / np.linalg.norm(direction)
    assert np.linalg.norm(D - D_prime, 2) == pytest.approx(1.0)
    b = np.zeros(n)
    b[0] = 1.0  # z = −e_0, the other party's share 0
    assert realised_sensitivity(D, D_prime, np.zeros(n), b, 1.0, 1.0) > lemma1_bound(d, 1.0, 1.0, 1.0, 1.0, 2)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), b1=st.floats(0.1, 10))
def test_safe_sensitivity_bounds_any_pair_of_releases(seed, b1):
    rng = np.random.default_rng(seed)
    n, d = 15, 4
    D, D_prime = rng.normal(size=(2, n, d))
    D /= np.maximum(1, np.linalg.norm(D, axis=-1, keepdims=True))
    D_prime /= np.linalg.norm(D_prime, axis=-1, keepdims=True)
    x, x_prime = rng.normal(size=(2, d))
    x *= b1 / np.linalg.norm(x)
    x_prime *= b1 * rng.random() / np.linalg.norm(x_prime)
    assert np.linalg.norm(D @ x - D_prime @ x_prime) <= safe_sensitivity(n, b1)


def test_x_update_reference_is_the_minimiser():
    rng = np.random.default_rng(0)
    D, y, b = rng.normal(size=(10, 3)), rng.normal(size=10), rng.normal(size=10)
    x = x_update_reference(D, y, b, 0.3, 0.7)
    gradient = 0.3 * x + D.T @ y + 0.7 * D.T @ (b + D @ x)
    np.testing.assert_allclose(gradient, 0, atol=1e-12)


def test_corollary1_delta_splits_the_total_delta_over_the_iterations_and_delta_prime():
    from solvers.sharing.privacy import corollary1_delta

    for delta, T in ((1e-5, 20), (1e-3, 1)):
        share = corollary1_delta(delta, T)
        assert T * share + share == pytest.approx(delta, rel=1e-15)


def test_stability_bounds_golden_values():
    """The formulas evaluated (``stability_input_bounds``, ``stability_sensitivity``)."""
    assert stability_input_bounds(100, 0.01, 2.0) == pytest.approx((0.01, 4.0), rel=1e-15)
    assert stability_sensitivity(2.0, 0.01, 0.01, 4.0) == pytest.approx(2 * math.sqrt(18.0), rel=1e-15)
    with pytest.raises(ValueError, match="b1 > 0"):
        stability_sensitivity(0.0, 0.01, 0.01, 4.0)


def _ball_minimiser(D, y, b, lam, rho, b1):
    """argmin over ‖x‖ ≤ b1 of (λ/2)‖x‖² + <y, Dx> + (ρ/2)‖b + Dx‖², by bisection on the multiplier μ of the
    ball (‖x(μ)‖ decreases in μ): independent of the solver's secular Newton."""

    def x_of(mu):
        return x_update_reference(D, y, b, lam + mu, rho)

    if np.linalg.norm(x_of(0.0)) <= b1:
        return x_of(0.0)
    low, high = 0.0, 1.0
    while np.linalg.norm(x_of(high)) > b1:
        high *= 2.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if np.linalg.norm(x_of(mid)) > b1 else (low, mid)
    return x_of(high)


#: The x-update cases both brute-force replays draw: a data seed, λ, ρ = r/N and the ball b_1.
X_UPDATE_CASES = {
    "seed": st.integers(0, 2**32 - 1),
    "lam": st.floats(1e-3, 1.0),
    "r": st.floats(0.05, 5.0),
    "b1": st.floats(0.05, 20.0),
}


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 8), d=st.integers(1, 3), **X_UPDATE_CASES)
def test_stability_sensitivity_bounds_the_exact_x_update(seed, n, d, lam, r, b1):
    """Δ_stab bounds ‖D x − D′ x′‖ of the exact ball-constrained (6) for a change of one row (rows in the
    unit ball, inputs anywhere in the box |y_i| ≤ η, |b_i| ≤ β), on random data; the safe bound too."""
    rng = np.random.default_rng(seed)
    rho = r / n
    eta, beta = stability_input_bounds(n, rho, b1)
    D = rng.normal(size=(n, d))
    D /= np.maximum(np.linalg.norm(D, axis=1, keepdims=True), 1.0) * rng.uniform(1.0, 2.0, size=(n, 1))
    other = D.copy()
    row = rng.normal(size=d)
    other[rng.integers(n)] = row / max(np.linalg.norm(row), 1.0)
    y = rng.uniform(-eta, eta, size=n) * rng.choice([0.5, 1.0])
    b = rng.uniform(-beta, beta, size=n) * rng.choice([0.5, 1.0])
    change = np.linalg.norm(
        D @ _ball_minimiser(D, y, b, lam, rho, b1) - other @ _ball_minimiser(other, y, b, lam, rho, b1)
    )
    bound = stability_sensitivity(b1, rho, eta, beta)
    assert change <= bound * (1 + 1e-9)
    assert change <= safe_sensitivity(n, b1) * (1 + 1e-9)


def test_stability_sensitivity_is_within_a_small_factor_of_a_realised_change():
    """The bound is not vacuous: removing the one row that drives the model moves the share by b_1, a fifth of
    Δ_stab = 2 sqrt(6) b_1 here (so the property above is a test that can fail)."""
    n, rho, b1 = 6, 1.0 / 6, 1.0
    eta, beta = stability_input_bounds(n, rho, b1)
    D = np.zeros((n, 1))
    D[0, 0] = 1.0
    y, b = np.full(n, -eta), np.full(n, -beta)
    change = np.linalg.norm(D @ _ball_minimiser(D, y, b, 1e-3, rho, b1) - 0.0)
    assert change == pytest.approx(b1, rel=1e-9)
    assert stability_sensitivity(b1, rho, eta, beta) == pytest.approx(2 * math.sqrt(6.0) * b1, rel=1e-15)


def test_row_sensitivities_golden_values():
    """The formulas evaluated (``row_stability_sensitivity``, ``row_model_sensitivity``); one party is Δ_stab."""
    assert row_stability_sensitivity(2.0, 0.01, 0.01, 4.0, 4) == pytest.approx(2 * math.sqrt(32.0), rel=1e-15)
    assert row_stability_sensitivity(2.0, 0.01, 0.01, 4.0, 1) == pytest.approx(
        stability_sensitivity(2.0, 0.01, 0.01, 4.0), rel=1e-15
    )
    assert row_model_sensitivity(2.0, 0.01, 0.01, 4.0, 0.1, 4) == pytest.approx(2 * math.sqrt(2.8), rel=1e-15)
    assert row_model_sensitivity(2.0, 0.01, 0.01, 4.0, 1e-6, 4) == pytest.approx(8.0, rel=1e-15)  # the balls
    with pytest.raises(ValueError, match="n_parties must be a positive integer"):
        row_stability_sensitivity(2.0, 0.01, 0.01, 4.0, 0)
    with pytest.raises(ValueError, match="lam must be > 0"):
        row_model_sensitivity(2.0, 0.01, 0.01, 4.0, 0.0, 2)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 7), M=st.integers(1, 4), **X_UPDATE_CASES)
def test_row_sensitivities_bound_every_party_s_exact_x_update_at_once(seed, n, M, lam, r, b1):
    """A whole row changes (every party's part, the row in the unit ball): the M shares D_m x_m move jointly by
    at most Δ_row and the models x_m by at most Δ_w, replayed by brute force on both neighbours (inputs anywhere
    in the clip box, each party's own)."""
    rng = np.random.default_rng(seed)
    rho, widths = r / n, rng.integers(1, 3, size=M)
    eta, beta = stability_input_bounds(n, rho, b1)
    d = int(widths.sum())
    D = rng.normal(size=(n, d)) * rng.uniform(0.05, 1.0, size=d)
    D /= np.maximum(np.linalg.norm(D, axis=1, keepdims=True), 1.0) * rng.uniform(1.0, 1.5, size=(n, 1))
    other = D.copy()
    row = rng.normal(size=d) * rng.uniform(0.05, 1.0, size=d)
    other[rng.integers(n)] = row / max(np.linalg.norm(row), 1.0)
    edges = np.concatenate([[0], np.cumsum(widths)])
    shares, models = 0.0, 0.0
    for m in range(M):
        block = slice(edges[m], edges[m + 1])
        y = rng.uniform(-eta, eta, size=n) * rng.choice([0.5, 1.0])
        b = rng.uniform(-beta, beta, size=n) * rng.choice([0.5, 1.0])
        x, x_other = (_ball_minimiser(A[:, block], y, b, lam, rho, b1) for A in (D, other))
        shares += float(np.sum((D[:, block] @ x - other[:, block] @ x_other) ** 2))
        models += float(np.sum((x - x_other) ** 2))
    assert math.sqrt(shares) <= row_stability_sensitivity(b1, rho, eta, beta, M) * (1 + 1e-9)
    assert math.sqrt(models) <= row_model_sensitivity(b1, rho, eta, beta, lam, M) * (1 + 1e-9)


def test_a_whole_row_moves_the_shares_by_a_sizeable_part_of_the_row_bound():
    """Not vacuous: two parties hold one column each and the one row that drives both models, (1, 1)/sqrt(2), is
    replaced by 0: the two shares move by 1 together, a fifth of Δ_row here (so the property above can fail)."""
    n, rho, b1 = 6, 1.0 / 6, 1.0
    eta, beta = stability_input_bounds(n, rho, b1)
    D = np.zeros((n, 2))
    D[0] = (math.sqrt(0.5), math.sqrt(0.5))
    y, b = np.full(n, -eta), np.full(n, -beta)
    moved = [D[:, [m]] @ _ball_minimiser(D[:, [m]], y, b, 1e-3, rho, b1) for m in (0, 1)]
    change = math.sqrt(sum(float(np.sum(share**2)) for share in moved))
    bound = row_stability_sensitivity(b1, rho, eta, beta, 2)
    assert change == pytest.approx(1.0, rel=1e-9) and bound / change < 6.0
