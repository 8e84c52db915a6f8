"""Phase 1 of PDML (Wang et al. 2020): randomized response on the labels (12)–(13) and the debiased loss (19)–(22)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechanisms import make_rng
from solvers.losses import HuberHingeLoss, LogisticLoss, MarginLoss
from solvers.pdml import (
    check_label_symmetric,
    debias_coefficient,
    debias_linear_term,
    debiased_loss,
    label_flips,
    loss_slope_bound,
    randomize_labels,
)

LOGISTIC = LogisticLoss()


@dataclass(frozen=True)
class SquaredLoss(MarginLoss):
    """½(1 − u)²: a second loss whose Hessian is label-symmetric, as Assumption 1 of Wang et al. 2020
    requires (the paper's example is the logistic loss; this one is the project's)."""

    def phi(self, z):
        return 0.5 * (1.0 - np.asarray(z, dtype=np.float64)) ** 2

    def dphi(self, z):
        return np.asarray(z, dtype=np.float64) - 1.0

    def d2phi(self, z):
        return np.ones_like(np.asarray(z, dtype=np.float64))

    @property
    def gradient_bound(self):
        return math.inf

    @property
    def curvature_bound(self):
        return 1.0


# ---------------------------------------------------------------------------------------------
# Randomized response
@pytest.mark.parametrize("eps", [0.4, 1.0, 3.0])
def test_flip_rate_and_likelihood_ratio(eps):
    """Empirical flip rate = 1/(1+e^ε) and Pr[y'=1|y=1]/Pr[y'=1|y=−1] = e^ε (fixed seed, 10^6 users)."""
    n = 1_000_000
    p = 1.0 / (1.0 + math.exp(eps))
    y = np.concatenate([np.ones(n // 2), -np.ones(n // 2)])[None, :]
    reported = randomize_labels(y, eps, make_rng(7))
    flipped = reported != y
    rate = flipped.mean()
    assert abs(rate - p) < 5 * math.sqrt(p * (1 - p) / n)
    keep_pos = np.mean(reported[0, : n // 2] == 1)  # Pr[y'=1 | y=1] = 1 − p
    flip_neg = np.mean(reported[0, n // 2 :] == 1)  # Pr[y'=1 | y=−1] = p
    log_ratio = math.log(keep_pos / flip_neg)
    se = math.sqrt((1 - keep_pos) / (keep_pos * n / 2) + (1 - flip_neg) / (flip_neg * n / 2))
    assert abs(log_ratio - eps) < 5 * se
    # the likelihood table is exactly e^ε/(1+e^ε) : 1/(1+e^ε)
    assert math.log((1 - p) / p) == pytest.approx(eps, rel=1e-12)


def test_per_group_epsilon_and_no_randomization():
    eps = np.array([0.5, np.inf, 2.0])
    flips = label_flips(eps, (3, 200_000), make_rng(3))
    assert set(np.unique(flips)) <= {-1.0, 1.0}
    assert np.all(flips[1] == 1.0)  # ε = ∞: nobody flips
    rates = (flips == -1).mean(axis=1)
    assert rates[0] == pytest.approx(1 / (1 + math.exp(0.5)), abs=0.005)
    assert rates[2] == pytest.approx(1 / (1 + math.exp(2.0)), abs=0.003)


def test_randomize_labels_contract():
    y = np.where(make_rng(0).random((4, 50)) < 0.5, 1.0, -1.0)
    y[3, 40:] = 0.0  # padding stays 0
    first = randomize_labels(y, 0.7, make_rng(11))
    again = randomize_labels(y, 0.7, make_rng(11))
    np.testing.assert_array_equal(first, again)
    assert np.all(np.abs(first[y != 0]) == 1) and np.all(first[y == 0] == 0)
    assert not np.array_equal(first, randomize_labels(y, 0.7, make_rng(12)))
    with pytest.raises(ValueError, match="labels"):
        randomize_labels(np.full((1, 3), 2.0), 1.0, make_rng(0))
    with pytest.raises(ValueError, match="eps_label"):
        randomize_labels(y, 0.0, make_rng(0))
    with pytest.raises(ValueError, match="eps_label"):
        label_flips([1.0, 2.0], (4, 5), make_rng(0))


# ---------------------------------------------------------------------------------------------
# The debiased loss
def test_debias_coefficient_values():
    # c(ε) = 1/(e^ε − 1), the coefficient of the closed form of (19) for the logistic loss (derived by the project)
    np.testing.assert_allclose(debias_coefficient([1.0, 0.4]), [0.5819767, 2.0332448], rtol=5e-8)
    for eps in (1e-3, 0.4, 1.0, 30.0):
        assert float(debias_coefficient(eps)) == pytest.approx(float(1 / mpmath.expm1(mpmath.mpf(eps))), rel=1e-14)
    assert debias_coefficient(np.inf) == 0.0
    assert (math.exp(1) + 1) / (math.exp(1) - 1) == pytest.approx(2.1639534137, rel=1e-9)


@pytest.mark.parametrize(
    "y, z, eps, expected",
    [
        (1.0, 0.5, 1.0, 0.18308863),
        (-1.0, 0.5, 1.0, 1.26506534),
        (1.0, -2.0, 0.4, 6.19341757),
        (1.0, 0.0, 0.4, math.log(2.0)),
    ],
)
def test_debiased_logistic_loss_reference_values(y, z, eps, expected):
    """ℓ̂(y', z, ε) of (19) (Wang et al. 2020) for the logistic loss; reference values computed by the project
    from the closed form log(1 + e^{−y'z}) − y'z/(e^ε − 1)."""
    assert float(debiased_loss(LOGISTIC, y, z, eps)) == pytest.approx(expected, abs=5e-9)


@settings(max_examples=100, deadline=None)
@given(
    z=st.floats(-50, 50),
    y=st.sampled_from([-1.0, 1.0]),
    eps=st.floats(0.01, 20.0),
    loss=st.sampled_from([LOGISTIC, SquaredLoss()]),
)
def test_unbiased(z, y, eps, loss):
    """(20): (1−p) ℓ̂(y, z) + p ℓ̂(−y, z) = ℓ(y, z), p = 1/(1+e^ε)."""
    p = 1.0 / (1.0 + math.exp(eps))
    mean = (1 - p) * debiased_loss(loss, y, z, eps) + p * debiased_loss(loss, -y, z, eps)
    clean = float(loss.phi(y * z))
    scale = (1.0 + float(debias_coefficient(eps))) * (abs(clean) + float(loss.phi(-y * z)))
    assert float(mean) == pytest.approx(clean, rel=1e-10, abs=1e-12 * scale)


@settings(max_examples=100, deadline=None)
@given(z=st.floats(-30, 30), y=st.sampled_from([-1.0, 1.0]), eps=st.floats(0.05, 10.0))
def test_logistic_closed_form_hessian_and_slope(z, y, eps):
    """ℓ̂_LR = log(1+e^{−y'z}) − y'z/(e^ε−1); ∂²ℓ̂/∂z² = ∂²ℓ/∂z² (Lemma 1, convex); |∂ℓ̂/∂z| ≤ e^ε/(e^ε−1)."""
    closed = np.logaddexp(0.0, -y * z) - y * z / math.expm1(eps)
    assert float(debiased_loss(LOGISTIC, y, z, eps)) == pytest.approx(closed, rel=1e-12, abs=1e-12)
    h = 1e-3
    values = [float(debiased_loss(LOGISTIC, y, z + k * h, eps)) for k in (-1, 0, 1)]
    second = (values[0] - 2 * values[1] + values[2]) / h**2
    assert second == pytest.approx(float(LOGISTIC.d2phi(y * z)), abs=2e-5 * (1 + 1 / math.expm1(eps)))
    assert second > -1e-6
    slope = (values[2] - values[0]) / (2 * h)
    bound = float(loss_slope_bound(LOGISTIC, eps))
    assert bound == pytest.approx(math.exp(eps) / math.expm1(eps), rel=1e-12)
    assert abs(slope) <= bound * (1 + 1e-6) <= (math.exp(eps) + 1) / math.expm1(eps) * (1 + 1e-6)


def test_slope_bound_is_attained_and_infinite_epsilon_is_plain_loss():
    step = 1e-4
    slope = (debiased_loss(LOGISTIC, 1.0, -40.0 + step, 1.0) - debiased_loss(LOGISTIC, 1.0, -40.0 - step, 1.0)) / (
        2 * step
    )
    assert abs(float(slope)) == pytest.approx(float(loss_slope_bound(LOGISTIC, 1.0)), rel=1e-6)
    z = np.linspace(-5, 5, 11)
    np.testing.assert_array_equal(debiased_loss(LOGISTIC, -1.0, z, np.inf), LOGISTIC.phi(-z))


def test_linear_term_reproduces_the_debiased_objective():
    """Σ a_j ℓ̂(y'_j, wᵀx_j) = Σ a_j φ(y'_j wᵀx_j) − bᵀw for per-group ε (the form the solver uses)."""
    rng = make_rng(5)
    X = rng.standard_normal((3, 40, 4))
    y = np.where(rng.random((3, 40)) < 0.5, 1.0, -1.0)
    weights = np.full((3, 40), 1 / 40)
    eps = np.array([0.4, 1.5, np.inf])
    w = rng.standard_normal((6, 3, 4))  # 6 trials
    z = np.einsum("nmd,rnd->rnm", X, w)
    direct = (weights * debiased_loss(LOGISTIC, y, z, eps[:, None])).sum(-1)
    b = debias_linear_term(LOGISTIC, X, y, eps[:, None], weights)
    via_linear = (weights * LOGISTIC.phi(y * z)).sum(-1) - np.einsum("nd,rnd->rn", b, w)
    np.testing.assert_allclose(via_linear, direct, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b[2], 0.0)


def test_label_symmetry_assumption():
    assert check_label_symmetric(LOGISTIC) == -0.5
    assert check_label_symmetric(SquaredLoss()) == -1.0
    with pytest.raises(ValueError, match="label-symmetric"):
        check_label_symmetric(HuberHingeLoss())
