"""PDML's perturbed decentralized ADMM (Wang et al. 2020, §IV-B, (14)–(17)): exactness, noise, ledger."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting import GaussianDpEvent, dp_event
from scipy.special import expit

from accountants import Ledger, PureDpEvent
from solvers.centralized import centralized_optimum
from solvers.datasets import partition_horizontal, twonorm
from solvers.graph import GraphTopology
from solvers.inner import damped_newton
from solvers.losses import HuberHingeLoss
from solvers.pdml import PDML, debias_coefficient
from solvers.problem import HorizontalProblem
from solvers.topology import StarTopology

N, D = 4, 3
GRAPH = GraphTopology.from_edges(N, [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])


@pytest.fixture(scope="module")
def problem():
    data = twonorm(240, seed=1, dim=D)
    part = partition_horizontal(data.X[:200], data.y[:200], N, seed=0)
    p = HorizontalProblem(partition=part, lam=1.0, topology=GRAPH, X_test=data.X[200:], y_test=data.y[200:])
    return p.with_optimum(centralized_optimum(p))


def _debiased_gradient(problem, w, y_noisy, eps):
    """∇Ĵ_i(w_i) from the closed form ℓ̂ = log(1+e^{−y'z}) − c y'z, (..., N, d), independently."""
    X = problem.partition.X
    z = np.einsum("nmd,...nd->...nm", X, w)
    slope = (-y_noisy * expit(-y_noisy * z) - y_noisy * debias_coefficient(eps)[:, None]) / problem.sizes[:, None]
    return np.einsum("...nm,nmd->...nd", slope * problem.partition.mask, X) + problem.lam / N * w


def _perturbed_optimum(problem, y_noisy, eps, eta):
    """argmin_w Σ_i [Ĵ_i(w) + η_iᵀw/n] by centralized Newton (w̃_opt of (23), Wang et al. 2020)."""
    X, mask, sizes = problem.partition.X, problem.partition.mask, problem.sizes
    c = debias_coefficient(eps)[:, None]
    weights = mask / sizes[:, None]

    def value(w):
        z = y_noisy * np.einsum("nmd,d->nm", X, w)
        return float(np.sum(weights * (np.logaddexp(0, -z) - c * z)) + 0.5 * problem.lam * w @ w + eta.sum(0) @ w / N)

    def derivatives(w):
        gradient = _debiased_gradient(problem, np.broadcast_to(w, (N, D)), y_noisy, eps).sum(0)
        gradient += eta.sum(0) / N
        z = np.einsum("nmd,d->nm", X, w)
        curvature = weights * expit(z) * expit(-z)
        return gradient, np.einsum("nm,nmd,nme->de", curvature, X, X) + problem.lam * np.eye(D)

    return damped_newton(value, derivatives, np.zeros(D), tol=1e-12).x


def test_noise_off_reaches_the_centralized_optimum(problem):
    result = PDML(eps_label=np.inf, eta_bound=0.0, V=0.0, n_iterations=250).run(problem, seed=0, record_white_box=True)
    w = result.transcript["w"]
    assert np.abs(w[-1] - problem.optimum.w).max() <= 1e-6
    np.testing.assert_array_equal(result.transcript["w_tilde"], w)  # no θ: the broadcasts are w
    assert result.history["gap"][-1] <= 1e-10
    assert result.privacy == {"exact_gaussian": math.inf, "rdp": math.inf}


def test_modified_and_perturbed_objectives_are_reached(problem):
    """Finite ε, R > 0, V = 0: every w_i(T) → argmin Σ_i Ĵ_i + η_iᵀw/n on the reported labels."""
    eps = np.array([0.4, 1.0, 2.0, np.inf])
    result = PDML(eps_label=eps, eta_bound=[0.0, 1.0, 3.0, 9.0], V=0.0, n_iterations=250).run(
        problem, seed=4, record_white_box=True
    )
    y_noisy, eta = result.transcript["y_reported"][0], result.transcript["eta"][0]
    target = _perturbed_optimum(problem, y_noisy, eps, eta)
    assert np.abs(result.transcript["w"][-1] - target).max() <= 1e-6
    assert np.all(y_noisy[3] == problem.partition.y[3])  # ε = ∞ keeps the labels
    assert 0 < np.mean(y_noisy[0] != problem.partition.y[0]) < 0.6  # ε = 0.4 flips ~40 %


def test_every_iteration_solves_15_and_dual_sums_to_zero(problem):
    solver = PDML(
        eps_label=[0.5, 1.0, 1.0, 3.0], eta_bound=2.0, V=[0.1, 0.2, 0.05, 0.3], rho_decay=0.9, beta=0.7, n_iterations=12
    )
    result = solver.run(problem, seed=2, record_white_box=True)
    tr = result.transcript
    w, wt, gamma, eta, y_noisy = tr["w"], tr["w_tilde"], tr["gamma"], tr["eta"][0], tr["y_reported"][0]
    A = GRAPH.adjacency_matrix()
    deg = GRAPH.degrees[:, None]
    eps = result.details.eps_label
    for t in range(12):
        foc = (
            _debiased_gradient(problem, w[t + 1], y_noisy, eps)
            + eta / N
            + gamma[t]
            + 2 * 0.7 * deg * w[t + 1]
            - 0.7 * (deg * wt[t] + A @ wt[t])
        )
        assert np.abs(foc).max() <= 1e-9
        np.testing.assert_allclose(gamma[t + 1], gamma[t] + 0.7 * (GRAPH.laplacian() @ wt[t + 1]), atol=1e-12)
        np.testing.assert_allclose(wt[t + 1], w[t + 1] + tr["theta"][t + 1], atol=1e-15)
    assert np.abs(gamma.sum(axis=1)).max() <= 1e-9 * max(1.0, np.abs(gamma).max())
    np.testing.assert_allclose(result.model, wt[-1].mean(axis=0))
    assert not np.any(wt[0]) and not np.any(tr["theta"][0])


def test_noise_schedules(problem):
    """θ_i(t) ~ N(0, ρ^{t−1}V_i² I) (χ² over 150 trials), none where V_i = 0; η fixed with ‖η_i‖ ≤ R_i."""
    V, R = np.array([0.1, 0.0, 0.5, 2.0]), np.array([1.0, 0.0, 9.0, 3.0])
    result = PDML(eps_label=1.0, eta_bound=R, V=V, rho_decay=0.7, n_iterations=6).run(
        problem, seed=5, trials=150, record_white_box=True, record_history=False
    )
    theta, eta = result.transcript["theta"], result.transcript["eta"]
    for t in (1, 3, 6):
        for i in (0, 2, 3):
            statistic = np.sum(theta[t, :, i] ** 2) / (0.7 ** (t - 1) * V[i] ** 2)
            dof = 150 * D
            assert abs(statistic - dof) < 5 * math.sqrt(2 * dof)
        assert not np.any(theta[t, :, 1])
    np.testing.assert_allclose(result.details.sigma[:, 2], 0.5 * 0.7 ** (np.arange(6) / 2))
    assert np.all(eta == eta[:1])
    norms = np.linalg.norm(eta[0], axis=-1)  # (trials, N)
    assert np.all(norms <= R * (1 + 1e-12)) and not np.any(norms[:, 1])
    # uniform in the ball: P(‖η_i‖ ≤ R_i/2) = 2^{−d} (450 draws, 4.5 standard errors)
    assert np.mean(norms[:, [0, 2, 3]] <= R[[0, 2, 3]] / 2) == pytest.approx(2.0**-D, abs=0.07)
    linf = (
        PDML(eps_label=1.0, eta_bound=R, V=V, eta_dist="linf_uniform", n_iterations=1)
        .run(problem, seed=5, trials=50, record_white_box=True, record_history=False)
        .transcript["eta"][0]
    )
    assert np.all(np.abs(linf) <= R[:, None]) and np.abs(linf[:, 2]).max() > 9 / math.sqrt(D)


def test_reproducible_and_batched_equals_single(problem):
    solver = PDML(eps_label=0.8, eta_bound=1.0, V=0.1, n_iterations=5)
    batch = solver.run(problem, seeds=[3, 8])
    single = solver.run(problem, seed=8)
    np.testing.assert_allclose(batch.transcript["w_tilde"][:, 1], single.transcript["w_tilde"], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(single.transcript["w_tilde"], solver.run(problem, seed=8).transcript["w_tilde"])
    assert not np.allclose(batch.transcript["w_tilde"][-1, 0], batch.transcript["w_tilde"][-1, 1])
    assert set(single.transcript) == {"w_tilde"}  # white-box channels only on request


def test_ledger_per_participant_and_guarantees(problem, tmp_path):
    eps = np.array([0.4, 1.0, np.inf, 2.0])
    V = np.array([0.1, 0.2, 0.3, 0.0])
    result = PDML(eps_label=eps, eta_bound=1.0, V=V, rho_decay=0.8, n_iterations=7).run(
        problem, seed=0, ledger_path=tmp_path / "ledger.jsonl"
    )
    ledger, details = result.ledger, result.details
    assert list(Ledger.load(tmp_path / "ledger.jsonl")) == list(ledger)
    assert ledger.participants == [f"users-{i}" for i in range(N)] + [f"server-{i}" for i in range(N)]
    assert ledger.for_participant("users-0")[0].event == PureDpEvent(0.4)
    assert isinstance(ledger.for_participant("users-2")[0].event, dp_event.NonPrivateDpEvent)
    entries = ledger.for_participant("server-1")
    assert [e.iteration for e in entries] == list(range(1, 8))
    for t, entry in enumerate(entries, start=1):
        assert isinstance(entry.event, GaussianDpEvent)
        assert entry.event.noise_multiplier == pytest.approx(0.2 * 0.8 ** ((t - 1) / 2) / details.sensitivity[1])
    assert all(isinstance(e.event, dp_event.NonPrivateDpEvent) for e in ledger.for_participant("server-3"))
    assert result.privacy == {"exact_gaussian": math.inf, "rdp": math.inf}  # server 3 is unperturbed
    g = details.guarantees
    assert g[0]["collector"] == {"label": (0.4, 0.0), "features": (math.inf, 0.0)}
    assert g[1]["other_servers"]["features"] == (pytest.approx(details.epsilon_phase2[1]), 1e-5)
    assert g[1]["other_servers"]["label"][0] < min(1.0, details.epsilon_phase2[1])
    assert g[3]["other_servers"]["label"] == (2.0, 0.0)  # unperturbed broadcasts: RR alone
    assert "derived" in details.phase2_note
    private = PDML(eps_label=eps, eta_bound=1.0, V=[0.1, 0.2, 0.3, 0.4], n_iterations=7).run(problem, seed=0)
    assert private.privacy["exact_gaussian"] == pytest.approx(private.details.epsilon_phase2.max(), rel=1e-6)
    assert private.privacy["rdp"] >= private.privacy["exact_gaussian"] * (1 - 1e-9)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(eps_label=0.0), "eps_label"),
        (dict(eps_label=[1.0, 2.0]), "eps_label"),
        (dict(V=-0.1), "V"),
        (dict(eta_bound=np.inf), "eta_bound"),
        (dict(rho_decay=1.5), "rho_decay"),
        (dict(eta_dist="gauss"), "eta_dist"),
        (dict(n_iterations=0), "n_iterations"),
        (dict(beta=0.0), "beta"),
        (dict(x_max=0.5), "norm"),
    ],
)
def test_bad_arguments(problem, kwargs, match):
    with pytest.raises(ValueError, match=match):
        PDML(**kwargs).run(problem, seed=0)


def test_bad_problems(problem):
    star = HorizontalProblem(partition=problem.partition, lam=1.0, topology=StarTopology(N))
    with pytest.raises(ValueError, match="GraphTopology"):
        PDML().run(star, seed=0)
    hinge = HorizontalProblem(partition=problem.partition, lam=1.0, topology=GRAPH, loss=HuberHingeLoss())
    with pytest.raises(ValueError, match="label-symmetric"):
        PDML().run(hinge, seed=0)
