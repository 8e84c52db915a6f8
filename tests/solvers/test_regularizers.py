"""Tests for solvers.regularizers: values, (sub)gradients, proximal operators and constants."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.optimize import minimize

from solvers.regularizers import L1Regularizer, L2Regularizer

vectors = hnp.arrays(np.float64, st.integers(1, 4), elements=st.floats(-5, 5, allow_nan=False))
steps = st.floats(0, 3, allow_nan=False)


@given(v=vectors, step=steps)
def test_l2_prox_is_the_argmin(v, step):
    reg = L2Regularizer()
    objective = lambda u: step * reg.value(u) + 0.5 * np.sum((u - v) ** 2)  # noqa: E731
    result = minimize(objective, np.zeros_like(v), jac=lambda u: step * u + (u - v), method="BFGS", tol=1e-12)
    prox = reg.prox(v, step)
    np.testing.assert_allclose(prox, result.x, atol=1e-6)
    assert objective(prox) <= objective(result.x) + 1e-12


@given(v=vectors, step=steps)
def test_l1_prox_is_the_argmin(v, step):
    reg = L1Regularizer()
    objective = lambda u: step * reg.value(u) + 0.5 * np.sum((u - v) ** 2)  # noqa: E731
    result = minimize(objective, v.copy(), method="Powell", options={"xtol": 1e-10, "ftol": 1e-14})
    prox = reg.prox(v, step)
    assert objective(prox) <= objective(result.x) + 1e-12
    np.testing.assert_allclose(prox, result.x, atol=1e-4)
    # optimality: v − prox ∈ step·∂‖·‖₁(prox): = step·sgn(prox) off zero, in [−step, step] at zero
    residual = v - prox
    nonzero = prox != 0
    np.testing.assert_allclose(residual[nonzero], step * np.sign(prox[nonzero]), rtol=1e-12, atol=1e-12)
    assert np.all(np.abs(residual[~nonzero]) <= step)


def test_l1_subgradient_at_zero_is_zero_like_matlab_sign():
    reg = L1Regularizer()
    np.testing.assert_array_equal(reg.gradient(np.array([0.0, -0.0, 2.5, -1e-300])), [0.0, 0.0, 1.0, -1.0])
    assert reg.value(np.array([1.0, -2.0, 0.0])) == 3.0


def test_values_and_gradients_over_leading_axes():
    rng = np.random.default_rng(0)
    w = rng.normal(size=(3, 4, 5))
    l2, l1 = L2Regularizer(), L1Regularizer()
    np.testing.assert_allclose(l2.value(w), 0.5 * np.sum(w**2, axis=-1))
    np.testing.assert_allclose(l1.value(w), np.sum(np.abs(w), axis=-1))
    assert l2.value(w).shape == (3, 4) and l1.gradient(w).shape == (3, 4, 5)
    np.testing.assert_array_equal(l2.gradient(w), w)
    step = rng.uniform(0, 2, size=(3, 4, 1))  # one step per (trial, agent)
    np.testing.assert_allclose(l2.prox(w, step), w / (1 + step))
    np.testing.assert_allclose(l1.prox(w, step), np.sign(w) * np.maximum(np.abs(w) - step, 0))
    np.testing.assert_array_equal(l1.prox(w, 0.0), w)


def test_l2_gradient_does_not_alias_its_input():
    w = np.ones(3)
    L2Regularizer().gradient(w)[0] = 5.0
    assert w[0] == 1.0


def test_constants():
    l2, l1 = L2Regularizer(), L1Regularizer()
    assert (l2.strong_convexity, l2.hessian_bound, l2.gradient_bound(14)) == (1.0, 1.0, math.inf)
    assert (l1.strong_convexity, l1.hessian_bound) == (0.0, 0.0)
    assert l1.gradient_bound(14) == pytest.approx(3.7416573867739413)  # Huang et al. 2020, §VI-A: S2 = sqrt(d), d = 14
    w = np.array([0.3, -2.0, 1e-9, -4.0])
    assert np.linalg.norm(l1.gradient(w)) <= l1.gradient_bound(4) + 1e-15
    u = np.array([1.0, 0.5, -0.2, 3.0])  # ½‖·‖² is exactly 1-strongly convex
    gap = l2.value(u) - l2.value(w) - l2.gradient(w) @ (u - w)
    assert gap == pytest.approx(0.5 * l2.strong_convexity * np.sum((u - w) ** 2))


@pytest.mark.parametrize("reg", [L1Regularizer(), L2Regularizer()], ids=repr)
def test_invalid_step_and_dim(reg):
    with pytest.raises(ValueError, match=r"step must be finite and >= 0, got -0.1"):
        reg.prox(np.ones(2), -0.1)
    with pytest.raises(ValueError, match=r"step must be finite and >= 0, got nan"):
        reg.prox(np.ones(2), float("nan"))
    with pytest.raises(ValueError, match=r"^dim must be an int >= 1, got 0$"):
        reg.gradient_bound(0)
