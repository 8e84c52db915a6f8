"""Tests for solvers.star.privacy: golden step-size and noise schedules, Lemma 1 and Algorithm 2 constants of
Huang et al. 2020 (DP-ADMM)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from solvers.datasets import partition_horizontal
from solvers.problem import HorizontalProblem
from solvers.regularizers import L1Regularizer
from solvers.star.privacy import (
    dpadmm_sensitivity,
    estimate_dw,
    eta_theorem3,
    eta_theorem4,
    naive_sensitivity,
)

# Huang et al. 2020, §VI: ρ = 1, m = 210, N = 100, λ = 0.17, d = 14, δ = 1e-3, with D_w = 2 (the paper estimates
# D_w from 162 pre-training records and gives no value). The golden η (Theorem 3 for l1, Theorem 4 for l2) and
# σ (Theorem 1 with Lemma 1's sensitivity) were computed by the project from the paper's formulas.
SETTING = {"dw": 2.0, "lam": 0.17, "n_agents": 100}
K = np.array([0, 9, 99])


def z_of(epsilon, delta=1e-3):
    return math.sqrt(2 * math.log(1.25 / delta)) / epsilon


def sigma(eta, epsilon, delta=1e-3):
    return z_of(epsilon, delta) * dpadmm_sensitivity(s1=1.0, m=210, rho=1.0, eta=eta)


def eta_l2(k, epsilon, delta=1e-3, m=210):
    return eta_theorem4(k, s1=1.0, s3=0.25, s4=1.0, m=m, noise_multiplier=z_of(epsilon, delta), **SETTING)


def test_golden_l1_schedule():
    eta = eta_theorem3(K, s1=1.0, s2=math.sqrt(14), **SETTING)
    np.testing.assert_allclose(eta, [1.405275, 0.444387, 0.140527], atol=5e-7)
    np.testing.assert_allclose(sigma(eta, 0.05), [0.420266, 0.221312, 0.088631], atol=5e-7)


@pytest.mark.parametrize(
    "epsilon, etas, sigmas",
    [
        (0.05, [1.315196, 0.537585, 0.187332], [0.408630, 0.251499, 0.113492]),
        (0.1, [1.976201, 0.947028, 0.357793], [0.238818, 0.174940, 0.094775]),
    ],
)
def test_golden_l2_schedule(epsilon, etas, sigmas):
    eta = eta_l2(K, epsilon)
    np.testing.assert_allclose(eta, etas, atol=5e-7)
    np.testing.assert_allclose(sigma(eta, epsilon), sigmas, atol=5e-7)


def test_golden_constant_c_and_first_sensitivity():
    eta = eta_l2(np.arange(100), 0.05)
    c = (1.0 + 1.0 / eta) * sigma(eta, 0.05)
    np.testing.assert_allclose(c, 0.719329, atol=5e-7)
    assert dpadmm_sensitivity(s1=1.0, m=210, rho=1.0, eta=eta[0]) == pytest.approx(5.410202e-3, abs=5e-10)


@given(
    epsilon=st.floats(0.01, 1.0),
    delta=st.floats(1e-8, 0.01),
    m=st.integers(1, 5000),
    rho=st.floats(0.01, 10.0),
    dw=st.floats(0.1, 50.0),
)
def test_noise_multiplier_constant_and_schedules_strictly_decreasing(epsilon, delta, m, rho, dw):
    k = np.arange(50)
    z = z_of(epsilon, delta)
    eta = eta_theorem4(k, dw=dw, s1=1.0, s3=0.25, s4=1.0, lam=0.17, n_agents=100, m=m, noise_multiplier=z)
    delta_k = dpadmm_sensitivity(s1=1.0, m=m, rho=rho, eta=eta)
    sigma_k = z * delta_k
    np.testing.assert_allclose(sigma_k / delta_k, z, rtol=1e-14)
    np.testing.assert_allclose((rho + 1 / eta) * sigma_k, 2 * z / m, rtol=1e-12)  # C_i constant in k
    for series in (eta, delta_k, sigma_k):
        assert np.all(np.diff(series) < 0)
    eta3 = eta_theorem3(k, dw=dw, s1=1.0, s2=math.sqrt(14), lam=0.17, n_agents=100)
    assert np.all(np.diff(eta3) < 0)


def test_sigma_monotone_in_epsilon_m_and_delta_for_fixed_eta():
    eta = 0.5
    assert sigma(eta, 0.05) > sigma(eta, 0.1)
    assert z_of(0.05, 1e-6) > z_of(0.05, 1e-3)
    assert dpadmm_sensitivity(s1=1, m=100, rho=1, eta=eta) > dpadmm_sensitivity(s1=1, m=200, rho=1, eta=eta)


def test_noiseless_theorem4_step_is_constant():
    eta = eta_theorem4(np.arange(10), s1=1.0, s3=0.25, s4=1.0, m=210, noise_multiplier=0.0, **SETTING)
    np.testing.assert_allclose(eta, 1 / (0.25 + 0.17 / 100), rtol=1e-15)


def test_per_agent_sizes_give_a_t_by_n_table():
    eta = eta_theorem4(
        np.arange(5), s1=1.0, s3=0.25, s4=1.0, m=np.array([100, 200, 300]), noise_multiplier=10.0, **SETTING
    )
    assert eta.shape == (5, 3) and np.all(np.diff(eta, axis=1) > 0)


def test_naive_sensitivity_paper_and_tight():
    z = z_of(0.05)
    paper = naive_sensitivity(s1=1, m=210, lam=0.17, n_agents=100, rho=1.0, strong_convexity=1.0)
    tight = naive_sensitivity(s1=1, m=210, lam=0.17, n_agents=100, rho=1.0, strong_convexity=1.0, mode="tight")
    assert z * paper == pytest.approx(423.1, abs=0.05)  # Algorithm 2's σ_i (Huang et al. 2020, §VI) at ε = 0.05
    assert z * tight == pytest.approx(0.718, abs=5e-4)
    assert z * naive_sensitivity(s1=1, m=210, lam=0.17, n_agents=100, rho=1.0, strong_convexity=1.0) == pytest.approx(
        2 * 100 * math.sqrt(2 * math.log(1250)) / (210 * 0.17 * 0.05), rel=1e-12
    )
    assert naive_sensitivity(
        s1=1, m=210, lam=0.17, n_agents=100, rho=2.0, strong_convexity=0.0, mode="tight"
    ) == pytest.approx(2 / 420)


def test_naive_paper_sensitivity_refuses_l1_and_suggests_tight():
    with pytest.raises(ValueError, match="sensitivity='tight'"):
        naive_sensitivity(s1=1, m=210, lam=0.17, n_agents=100, rho=1.0, strong_convexity=0.0)
    with pytest.raises(ValueError, match="'paper' or 'tight'"):
        naive_sensitivity(s1=1, m=210, lam=0.17, n_agents=100, rho=1.0, strong_convexity=1.0, mode="loose")


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: eta_theorem3(np.arange(3), dw=1, s1=1, s2=math.inf, lam=1, n_agents=2), "theorem4"),
        (lambda: eta_theorem3(np.array([-1]), dw=1, s1=1, s2=1, lam=1, n_agents=2), "k must"),
        (lambda: eta_theorem3(np.array([0.5]), dw=1, s1=1, s2=1, lam=1, n_agents=2), "k must"),
        (lambda: eta_theorem3(0, dw=0, s1=1, s2=1, lam=1, n_agents=2), "dw"),
        (
            lambda: eta_theorem4(0, dw=1, s1=1, s3=1, s4=1, lam=1, n_agents=2, m=3, noise_multiplier=-1),
            "noise_multiplier",
        ),
    ],
)
def test_schedule_arguments_are_validated(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_estimate_dw_uses_only_the_public_rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    partition = partition_horizontal(X, y, 4, seed=0)
    with pytest.raises(ValueError, match="public records"):
        estimate_dw(HorizontalProblem(partition))
    problem = HorizontalProblem(partition, X_public=X[:10], y_public=y[:10], lam=0.4)
    shuffled = HorizontalProblem(partition_horizontal(-X, y, 4, seed=1), X_public=X[:10], y_public=y[:10], lam=0.4)
    assert estimate_dw(problem) == estimate_dw(shuffled) > 0
    assert (
        estimate_dw(
            HorizontalProblem(partition, X_public=X[:10], y_public=y[:10], lam=0.4, regularizer=L1Regularizer())
        )
        > 0
    )


def test_unit_mu_epsilon_composes_to_mu_one_and_the_classic_calibration_is_refused_above_one():
    from solvers.star.privacy import check_classic_epsilon, unit_mu_epsilon

    for delta, T in ((1e-5, 25), (1e-3, 7)):
        epsilon = unit_mu_epsilon(delta, T)
        z = math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon  # Theorem 1's noise multiplier
        assert math.sqrt(T) / z == pytest.approx(1.0, rel=1e-15)
    assert unit_mu_epsilon(1e-5, 25) == pytest.approx(0.96896105, rel=1e-8)
    assert check_classic_epsilon(0.5) == 0.5 and check_classic_epsilon(1e-3, 1e-3) == 1e-3
    for epsilon, minimum in ((1.5, 0.0), (0.0, 0.0), (1e-4, 1e-3)):
        with pytest.raises(ValueError, match="per-iteration ε in"):
            check_classic_epsilon(epsilon, minimum)
