"""Gamma-norm noise (Zhang, Khalili & Liu 2018, Sec. 4; Zhang, Khalili & Liu 2020, Sec. V): norms ~
Gamma(d, 1/α), uniform independent directions, and the normalised density
α^d Γ(d/2) / (2 π^{d/2} Γ(d)) · exp(−α‖x‖)."""

import math

import numpy as np
import pytest
from scipy import special, stats

from mechanisms import GammaNormMechanism, make_rng

KS_THRESHOLD = 1e-3


def unit_vector(dim: int, seed: int = 0) -> np.ndarray:
    direction = make_rng(seed).standard_normal(dim)
    return direction / np.linalg.norm(direction)


@pytest.mark.parametrize("dim", [1, 3, 10, 105])
def test_norms_follow_gamma_of_shape_dim_and_scale_one_over_alpha(dim):
    alpha = 2.5
    noise = GammaNormMechanism(alpha, dim).sample(make_rng(1000 + dim), 10_000)
    assert noise.shape == (10_000, dim)
    norms = np.linalg.norm(noise, axis=-1)
    assert stats.kstest(norms, stats.gamma(dim, scale=1 / alpha).cdf).pvalue > KS_THRESHOLD
    assert stats.kstest(norms, stats.gamma(dim, scale=alpha).cdf).pvalue < KS_THRESHOLD
    assert stats.kstest(norms, stats.gamma(dim + 1, scale=1 / alpha).cdf).pvalue < KS_THRESHOLD
    if dim > 1:  # reading exp(−α‖ε‖) as an exponential law of the norm would be wrong
        assert stats.kstest(norms, stats.expon(scale=1 / alpha).cdf).pvalue < KS_THRESHOLD


@pytest.mark.parametrize("dim", [2, 3, 5, 20])
def test_directions_are_uniform_on_the_sphere_and_independent_of_the_norm(dim):
    noise = GammaNormMechanism(0.7, dim).sample(make_rng(2000 + dim), 10_000)
    norms = np.linalg.norm(noise, axis=-1)
    projection = (noise / norms[:, np.newaxis]) @ unit_vector(dim, seed=dim)
    # for u uniform on the sphere, (u·v)² ~ Beta(1/2, (d−1)/2) and u·v is symmetric
    assert stats.kstest(projection**2, stats.beta(0.5, (dim - 1) / 2).cdf).pvalue > KS_THRESHOLD
    assert stats.binomtest(int((projection > 0).sum()), projection.size).pvalue > KS_THRESHOLD
    assert stats.spearmanr(norms, np.abs(projection)).pvalue > KS_THRESHOLD
    if dim == 3:  # Archimedes: u·v is uniform on [−1, 1]
        assert stats.kstest(projection, stats.uniform(-1, 2).cdf).pvalue > KS_THRESHOLD


def test_second_moment_mean_and_expected_norm():
    """E[εεᵀ] = ((d + 1)/α²)·I, E[ε] = 0 and E‖ε‖ = d/α for the density ∝ exp(−α‖ε‖) (moments derived by the
    project from the Gamma(d, 1/α) norm and the uniform direction)."""
    alpha, dim, n = 2.0, 3, 40_000
    mechanism = GammaNormMechanism(alpha, dim)
    noise = mechanism.sample(make_rng(77), n)
    second_moment = noise.T @ noise / n
    expected = (dim + 1) / alpha**2
    np.testing.assert_allclose(np.diag(second_moment), expected, rtol=0.05)
    assert np.max(np.abs(second_moment - np.diag(np.diag(second_moment)))) < 0.05 * expected
    assert np.all(np.abs(noise.mean(axis=0)) < 5 * math.sqrt(expected / n))
    assert mechanism.expected_norm == 1.5
    norms = np.linalg.norm(noise, axis=-1)
    assert abs(norms.mean() - 1.5) < 5 * math.sqrt(dim / alpha**2 / n)


def test_one_call_draws_for_all_trials_and_agents():
    alpha = np.array([0.5, 1.0, 4.0, 20.0])
    mechanism = GammaNormMechanism(alpha, 6)
    noise = mechanism.sample(make_rng(5), (3_000, 4))
    assert noise.shape == (3_000, 4, 6)
    np.testing.assert_array_equal(mechanism.expected_norm, 6 / alpha)
    scaled = np.linalg.norm(noise, axis=-1) * alpha
    for column in scaled.T:
        assert stats.kstest(column, stats.gamma(6).cdf).pvalue > KS_THRESHOLD
    assert stats.kstest(scaled[:, 0] / alpha[0], stats.gamma(6).cdf).pvalue < KS_THRESHOLD


@pytest.mark.parametrize("dim", [1, 2, 5, 20, 105])
def test_density_is_normalised_and_radially_gamma(dim):
    alpha = 1.7
    mechanism = GammaNormMechanism(alpha, dim)
    radii = np.linspace(0.05, 5 * dim / alpha, 25)
    points = radii[:, np.newaxis] * unit_vector(dim, seed=dim)
    log_sphere_area = math.log(2) + (dim / 2) * math.log(math.pi) - special.gammaln(dim / 2)
    radial = mechanism.density_log(points) + log_sphere_area + (dim - 1) * np.log(radii)
    np.testing.assert_allclose(radial, stats.gamma(dim, scale=1 / alpha).logpdf(radii), rtol=1e-12, atol=1e-12)


def test_density_in_low_dimensions_has_the_closed_forms():
    points = np.array([[-1.3], [0.0], [2.0]])
    np.testing.assert_allclose(
        GammaNormMechanism(2.0, 1).density_log(points),
        stats.laplace(scale=0.5).logpdf(points[:, 0]),
        atol=1e-14,
    )
    assert GammaNormMechanism(3.0, 2).density_log([0.6, 0.8]) == pytest.approx(math.log(9 / (2 * math.pi)) - 3.0)
    per_agent = GammaNormMechanism(np.array([1.0, 2.0]), 2).density_log(np.zeros((2, 2)))
    np.testing.assert_allclose(per_agent, np.log([1 / (2 * math.pi), 4 / (2 * math.pi)]))


def test_the_solver_states_the_event():
    mechanism = GammaNormMechanism(1.0, 3)
    assert not hasattr(mechanism, "event")
    assert not hasattr(mechanism, "events")
    assert (mechanism.alpha, mechanism.dim) == (1.0, 3)


@pytest.mark.parametrize(
    ("alpha", "dim", "error", "message"),
    [
        (0.0, 3, ValueError, "alpha must be finite and > 0"),
        (-1.0, 3, ValueError, "alpha must be finite and > 0"),
        (math.nan, 3, ValueError, "alpha must be finite and > 0.*, got nan"),
        (math.inf, 3, ValueError, "alpha must be finite"),
        ([1.0, -2.0], 3, ValueError, "alpha must be finite and > 0 \\(a real number or an array of them\\)"),
        (1.0, 0, ValueError, "dim must be an int >= 1"),
        (1.0, -2, ValueError, "dim must be an int >= 1"),
        (1.0, 2.5, TypeError, "dim must be an int >= 1"),
        (1.0, True, TypeError, "dim must be an int >= 1"),
        (1.0, "3", TypeError, "dim must be an int >= 1"),
    ],
)
def test_bad_input_is_refused(alpha, dim, error, message):
    with pytest.raises(error, match=message):
        GammaNormMechanism(alpha, dim)


def test_density_needs_points_of_the_right_dimension():
    mechanism = GammaNormMechanism(1.0, 3)
    for bad in (np.zeros((4, 2)), 1.0):
        with pytest.raises(ValueError, match=r"x must have shape \(\.\.\., 3\)"):
            mechanism.density_log(bad)
