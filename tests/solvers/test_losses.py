"""Tests for solvers.losses: values, derivatives, bounds and batching of the margin losses."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.special import expit
from sklearn.metrics import log_loss

from solvers.losses import HuberHingeLoss, LogisticLoss

LOSSES = [LogisticLoss(), HuberHingeLoss(), HuberHingeLoss(h=0.1)]
finite = st.floats(-3, 3, allow_nan=False)


@st.composite
def problems(draw):
    """(w, X, y) with d ≤ 5, m ≤ 6 and every ‖x‖ ≤ 1."""
    d = draw(st.integers(1, 5))
    m = draw(st.integers(1, 6))
    w = draw(hnp.arrays(np.float64, d, elements=finite))
    X = draw(hnp.arrays(np.float64, (m, d), elements=st.floats(-1, 1, allow_nan=False)))
    X = X / np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(draw(hnp.arrays(np.bool_, m)), 1.0, -1.0)
    return w, X, y


def numeric_gradient(f, w, step=1e-6):
    basis = np.eye(w.size)
    return np.array([(f(w + step * e) - f(w - step * e)) / (2 * step) for e in basis]).T


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
@given(problem=problems())
def test_gradient_matches_finite_differences(loss, problem):
    w, X, y = problem
    expected = numeric_gradient(lambda v: loss.value(v, X, y), w)
    np.testing.assert_allclose(loss.gradient(w, X, y), expected, rtol=0, atol=1e-6)


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
@given(problem=problems())
def test_hessian_matches_finite_differences_of_the_gradient(loss, problem):
    w, X, y = problem
    if isinstance(loss, HuberHingeLoss):  # φ'' jumps at z = 1 ± h: keep margins away from the kinks
        z = loss.margins(w, X, y)
        assume(np.all(np.abs(np.abs(1 - z) - loss.h) > 1e-4))
    expected = numeric_gradient(lambda v: loss.gradient(v, X, y), w)
    hessian = loss.hessian(w, X, y)
    np.testing.assert_allclose(hessian, expected, rtol=0, atol=1e-6)
    np.testing.assert_allclose(hessian, hessian.T, atol=1e-15)
    assert np.linalg.eigvalsh(hessian).max() <= loss.curvature_bound + 1e-12  # S3 = c1 for ‖x‖ ≤ 1


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
def test_batched_trials_and_agents_agree_with_a_loop(loss):
    rng = np.random.default_rng(0)
    R, N, m, d = 3, 4, 5, 6
    X = rng.normal(size=(N, m, d))
    X /= np.maximum(1, np.linalg.norm(X, axis=-1, keepdims=True))
    y = rng.choice([-1.0, 1.0], size=(N, m))
    w = rng.normal(size=(R, N, d))
    values, gradients, hessians = loss.value(w, X, y), loss.gradient(w, X, y), loss.hessian(w, X, y)
    assert values.shape == (R, N) and gradients.shape == (R, N, d) and hessians.shape == (R, N, d, d)
    for r in range(R):
        for i in range(N):
            z = y[i] * (X[i] @ w[r, i])
            assert values[r, i] == pytest.approx(np.mean(loss.phi(z)), rel=1e-13)
            np.testing.assert_allclose(gradients[r, i], (loss.dphi(z) * y[i]) @ X[i] / m, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(hessians[r, i], (X[i].T * loss.d2phi(z)) @ X[i] / m, rtol=1e-12, atol=1e-15)
    shared = loss.gradient(w[0, 0], X, y)  # one model against every agent's data
    np.testing.assert_allclose(shared[2], loss.gradient(w[0, 0], X[2], y[2]), rtol=1e-13)


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
def test_mask_averages_over_real_records_only(loss):
    rng = np.random.default_rng(1)
    sizes = [4, 2, 3]
    X = np.zeros((3, 4, 2))
    y = np.zeros((3, 4))
    mask = np.arange(4)[None, :] < np.array(sizes)[:, None]
    X[mask] = rng.normal(size=(9, 2)) / 2
    y[mask] = rng.choice([-1.0, 1.0], size=9)
    w = rng.normal(size=(5, 3, 2))
    values, gradients = loss.value(w, X, y, mask), loss.gradient(w, X, y, mask)
    hessians = loss.hessian(w, X, y, mask)
    for i, size in enumerate(sizes):
        Xi, yi = X[i, :size], y[i, :size]
        np.testing.assert_allclose(values[:, i], loss.value(w[:, i], Xi, yi), rtol=1e-13)
        np.testing.assert_allclose(gradients[:, i], loss.gradient(w[:, i], Xi, yi), rtol=1e-12, atol=1e-16)
        np.testing.assert_allclose(hessians[:, i], loss.hessian(w[:, i], Xi, yi), rtol=1e-12, atol=1e-16)
    with pytest.raises(ValueError, match="mask must mark at least one record in every row"):
        loss.value(w, X, y, np.zeros_like(mask))


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
def test_derivative_bounds_on_a_dense_grid(loss):
    z = np.linspace(-60, 60, 240_001)
    assert np.all(np.abs(loss.dphi(z)) <= 1.0) and loss.gradient_bound == 1.0
    assert np.all(loss.dphi(z) <= 0)
    assert np.all(loss.d2phi(z) >= 0) and np.all(loss.d2phi(z) <= loss.curvature_bound)
    assert loss.d2phi(z).max() == pytest.approx(loss.curvature_bound, rel=1e-12)  # the bound is attained
    np.testing.assert_allclose(np.gradient(loss.phi(z), z)[1:-1], loss.dphi(z)[1:-1], atol=2e-3)


def test_gradient_of_a_record_never_exceeds_s1():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(500, 7))
    X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True))
    y = rng.choice([-1.0, 1.0], size=500)
    w = 10 * rng.normal(size=7)
    for loss in LOSSES:
        per_record = loss.gradient(w, X[:, None, :], y[:, None])  # one record per "agent"
        assert np.linalg.norm(per_record, axis=1).max() <= loss.gradient_bound + 1e-12


def test_logistic_value_agrees_with_sklearn_log_loss():
    X = np.array([[0.5, -0.2, 0.1], [-0.3, 0.8, 0.0], [0.1, 0.1, 0.9], [-0.6, -0.1, 0.4]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    w = np.array([1.5, -0.7, 2.0])
    probability = expit(X @ w)
    expected = log_loss((y > 0).astype(int), probability, labels=[0, 1])
    assert LogisticLoss().value(w, X, y) == pytest.approx(expected, rel=1e-12)


def test_logistic_is_stable_for_extreme_margins():
    loss = LogisticLoss()
    z = np.array([-1e4, -40.0, 0.0, 40.0, 1e4])
    with np.errstate(over="raise", divide="raise", invalid="raise"):
        np.testing.assert_allclose(
            loss.phi(z), [1e4, 40.0 + np.log1p(np.exp(-40.0)), np.log(2), np.exp(-40.0), 0.0], rtol=1e-12
        )
        np.testing.assert_allclose(loss.dphi(z), [-1.0, -1.0, -0.5, -np.exp(-40.0), 0.0], rtol=1e-12)
        np.testing.assert_allclose(loss.d2phi(z), [0.0, np.exp(-40.0), 0.25, np.exp(-40.0), 0.0], rtol=1e-9)


def test_huber_hinge_pieces_match_chaudhuri():
    loss = HuberHingeLoss(h=0.5)
    z = np.array([2.0, 1.5, 1.0, 0.5, 0.0, -1.0])
    np.testing.assert_allclose(loss.phi(z), [0.0, 0.0, 0.125, 0.5, 1.0, 2.0])
    np.testing.assert_allclose(loss.dphi(z), [0.0, 0.0, -0.5, -1.0, -1.0, -1.0])
    np.testing.assert_allclose(loss.d2phi(z), [0.0, 1.0, 1.0, 1.0, 0.0, 0.0])
    assert loss.curvature_bound == 1.0
    eps = 1e-9
    for kink in (0.5, 1.5):  # φ and φ' are continuous at z = 1 ± h
        assert loss.phi(kink - eps) == pytest.approx(loss.phi(kink + eps), abs=1e-8)
        assert loss.dphi(kink - eps) == pytest.approx(loss.dphi(kink + eps), abs=1e-8)


@pytest.mark.parametrize(
    ("h", "error"),
    [(0, ValueError), (-1.0, ValueError), (float("nan"), ValueError), (float("inf"), ValueError), (True, TypeError)],
)
def test_huber_rejects_bad_h(h, error):
    with pytest.raises(error, match=r"^h must be finite and > 0 \(a real number\), got "):
        HuberHingeLoss(h=h)


def test_shape_mismatch_is_reported():
    loss = LogisticLoss()
    with pytest.raises(ValueError, match=r"matching d and m; got shapes \(3,\), \(4, 2\), \(4,\)"):
        loss.value(np.zeros(3), np.zeros((4, 2)), np.ones(4))
    with pytest.raises(ValueError, match=r"matching d and m; got shapes \(2,\), \(4, 2\), \(3,\)"):
        loss.gradient(np.zeros(2), np.zeros((4, 2)), np.ones(3))
    with pytest.raises(ValueError, match=r"expected w \(\.\.\., d\), X \(\.\.\., m, d\), y \(\.\.\., m\)"):
        loss.hessian(np.zeros(2), np.zeros(2), np.ones(2))
