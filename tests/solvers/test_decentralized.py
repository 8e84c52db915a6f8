"""Decentralized ADMM solvers (Zhang, Khalili & Liu 2020, R-ADMM and MR-ADMM; Zhang, Khalili & Liu 2018, M-ADMM
and penalty perturbation): convergence, recycling, transcripts, privacy events."""

import numpy as np
import pytest
from dp_accounting import dp_event

from accountants import ACCOUNTANTS, PureDpEvent
from solvers.centralized import centralized_optimum
from solvers.datasets import partition_horizontal
from solvers.decentralized import (
    DVP,
    MADMM,
    MRADMM,
    RADMM,
    DecentralizedADMM,
    DecentralizedProblem,
    ObjectivePerturbationADMM,
    PenaltyPerturbation,
    radmm_epsilons,
)
from solvers.graph import GraphTopology


def even_step_from_transcript(
    f: np.ndarray, adjacency: np.ndarray, eta_odd: np.ndarray, gamma: float, theta: np.ndarray | None = None
) -> np.ndarray:
    """Recompute every even iterate of (M)R-ADMM from the broadcasts alone.

    The closed form is derived here: substitute the KKT condition (47) of the odd step and the dual step (15)
    into the even step (19) of Zhang, Khalili & Liu 2020; that the result is data-independent is their Lemma V.1.

    Args:
      f: the transcript channel ``f``, (T+1, ..., N, d) with f[0] = f(0).
      adjacency: (N, N) A of the graph.
      eta_odd: (K, N) penalties η_i(2k−1).
      gamma: γ.
      theta: None for the paper's dual step (θ = η_i(2k−1)); else the common dual step (K, N)
        (the same substitution with a common dual step: f_i(2k) = f_i(2k−1) − [Σ_j η_i(f_i(2k−2) +
        f_j(2k−2)) + (θ − η_i) f_i(2k−1) − (θ + η_i) f_j(2k−1)]/(2η_iV_i + γ)).

    Returns:
      (K, ..., N, d): the recomputed f(2k), k = 1..K.
    """
    A = np.asarray(adjacency, dtype=np.float64)
    V = A.sum(axis=1)
    K = eta_odd.shape[0]
    out = []
    for k in range(1, K + 1):
        before, odd = f[2 * k - 2], f[2 * k - 1]
        e = eta_odd[k - 1][:, None]
        th = e if theta is None else theta[k - 1][:, None]
        Ab = np.einsum("ij,...jd->...id", A, before)
        Ao = np.einsum("ij,...jd->...id", A, odd)
        bracket = e * (V[:, None] * before + Ab) + (th - e) * V[:, None] * odd - (th + e) * Ao
        out.append(odd - bracket / (2.0 * e * V[:, None] + gamma))
    return np.stack(out)


CHORD = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 2)]  # degrees 3, 2, 3, 2, 2


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1).max()
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _problem(graph=None, N=5, m=40, d=4, C=20.0, rho=1.0, seed=0):
    graph = graph or GraphTopology.from_edges(5, CHORD)
    X, y = _data(N * m, d, seed)
    problem = DecentralizedProblem.create(partition_horizontal(X, y, N, seed=0), graph, C=C, rho=rho)
    return problem.with_optimum(centralized_optimum(problem))


@pytest.fixture(scope="module")
def problem():
    return _problem()


def test_local_objective_is_the_papers_O(problem):
    """O(f, D_i) = (C/B_i) Σ_n L(y_n fᵀx_n) + (ρ/N)·½‖f‖², the local objective of Zhang, Khalili & Liu 2018
    and 2020, and its gradient."""
    f = np.random.default_rng(1).normal(size=(5, 4))
    X, y, C, rho = problem.partition.X, problem.partition.y, problem.C, problem.rho
    z = np.einsum("nmd,nd->nm", X, f) * y
    expected = C * np.log1p(np.exp(-z)).mean(axis=1) + (rho / 5) * 0.5 * (f * f).sum(axis=1)
    assert np.allclose(problem.local_objective_seed(f), expected, rtol=1e-12)
    assert rho == pytest.approx(1.0) and problem.lam == pytest.approx(rho / C)
    g = problem.local_gradient_seed(f)
    h = 1e-6
    numeric = (
        problem.local_objective_seed(f + h * np.eye(4)[0]) - problem.local_objective_seed(f - h * np.eye(4)[0])
    ) / (2 * h)
    assert np.allclose(g[:, 0], numeric, atol=1e-6)


def test_problem_needs_graph():
    X, y = _data(20, 3, 0)
    part = partition_horizontal(X, y, 2, seed=0)
    with pytest.raises(ValueError, match="GraphTopology"):
        DecentralizedProblem(partition=part, C=1.0)


@pytest.mark.parametrize(
    "solver",
    [
        DecentralizedADMM(eta=0.2, n_iterations=70),
        RADMM(eta=0.2, gamma=0.5, n_iterations=120),
        RADMM(eta=0.2, gamma=0.0, n_iterations=160),
        MRADMM(eta=0.2, eta_growth=1.002, gamma=0.5, n_iterations=140),
        MADMM(theta=0.2, q1=1.002, n_iterations=90),
    ],
    ids=lambda s: f"{s.name}",
)
def test_non_private_variants_reach_centralized_optimum(problem, solver):
    result = solver.run(problem, seed=1)
    f_final = result.transcript["f"][-1]
    assert np.abs(f_final - problem.optimum.w).max() <= 1e-6
    gap = problem.objective_seed(f_final) - problem.C * problem.optimum.objective
    assert np.all(np.abs(gap) <= 1e-6)
    assert result.privacy["pure"] == np.inf


def test_radmm_converges_on_bipartite_ring():
    problem = _problem(GraphTopology.ring(4), N=4)
    result = RADMM(eta=0.2, gamma=0.5, n_iterations=160).run(problem, seed=3)
    assert np.abs(result.transcript["f"][-1] - problem.optimum.w).max() <= 1e-6


@pytest.mark.parametrize(
    "solver, theta",
    [
        (RADMM(eta=1.0, gamma=0.5, alpha=5.0, n_iterations=12), None),
        (MRADMM(eta=1.0, eta_growth=1.04, gamma=0.3, alpha=[5, 4, 3, 3, 2, 2], n_iterations=12), None),
        (
            MRADMM(eta=np.outer(1.05 ** np.arange(6), [1, 1.2, 0.9, 1.1, 1.0]), gamma=0.0, alpha=5.0, n_iterations=12),
            None,
        ),
        (MRADMM(eta=1.0, eta_growth=1.04, gamma=0.5, alpha=5.0, dual_step="common", theta=0.7, n_iterations=12), 0.7),
        (RADMM(eta=0.5, gamma=0.5, n_iterations=12), None),
    ],
)
def test_even_iterations_are_functions_of_released_values(problem, solver, theta):
    result = solver.run(problem, seeds=[4, 5])
    f = result.transcript["f"]  # (T+1, R, N, d)
    K = solver.n_iterations // 2
    eta_odd = solver.eta_odd(5)
    theta_odd = None if theta is None else np.full((K, 5), theta)
    recomputed = even_step_from_transcript(f, problem.graph.adjacency, eta_odd, solver.gamma, theta_odd)
    scale = np.abs(f).max()
    assert np.abs(recomputed - f[2::2]).max() <= 1e-9 * max(1.0, scale)
    # And they are not simply copies of the odd iterates.
    assert np.abs(f[2::2] - f[1::2]).max() > 1e-3


def test_mradmm_with_constant_eta_is_radmm(problem):
    a = RADMM(eta=0.7, gamma=0.5, alpha=3.0, n_iterations=8).run(problem, seed=9)
    b = MRADMM(eta=0.7, gamma=0.5, alpha=3.0, n_iterations=8).run(problem, seed=9)
    assert np.array_equal(a.transcript["f"], b.transcript["f"])
    assert a.privacy["pure"] == b.privacy["pure"]


def test_dvp_is_pp_with_eta_theta(problem):
    a = DVP(theta=0.5, alpha=3.0, q2=1.02, n_iterations=6).run(problem, seed=2)
    b = PenaltyPerturbation(theta=0.5, alpha=3.0, q2=1.02, n_iterations=6).run(problem, seed=2)
    assert np.array_equal(a.transcript["f"], b.transcript["f"])


@pytest.mark.parametrize(
    "solver",
    [
        RADMM(eta=1.0, gamma=0.5, alpha=4.0, n_iterations=6),
        PenaltyPerturbation(theta=0.5, q1=1.05, alpha=4.0, q2=1.03, n_iterations=5),
        ObjectivePerturbationADMM(eta=1.0, alpha=4.0, n_iterations=4),
    ],
    ids=lambda s: s.name,
)
def test_batched_trial_equals_single_run(problem, solver):
    batched = solver.run(problem, seed=11, trials=3)
    for r in (0, 2):
        single = solver.run(problem, seed=batched.seeds[r])
        assert np.allclose(batched.transcript["f"][:, r], single.transcript["f"], rtol=0, atol=1e-12)
    assert batched.transcript["f"].shape == (solver.n_iterations + 1, 3, 5, 4)
    assert np.abs(batched.transcript["f"][:, 0] - batched.transcript["f"][:, 1]).max() > 1e-3


@pytest.mark.parametrize(
    "solver",
    [
        RADMM(eta=1.0, gamma=0.5, alpha=4.0, n_iterations=6),
        PenaltyPerturbation(theta=0.5, q1=1.05, alpha=4.0, q2=1.03, n_iterations=5),
        ObjectivePerturbationADMM(eta=1.0, alpha=4.0, n_iterations=4),
    ],
    ids=lambda s: s.name,
)
def test_noise_recovered_from_kkt_of_exact_steps(problem, solver):
    """The exact minimiser is a bijection of the noise: the KKT condition gives the noise back from the
    broadcasts (Zhang, Khalili & Liu 2018, (58); Zhang, Khalili & Liu 2020, (49))."""
    result = solver.run(problem, seed=7, record_white_box=True)
    f, lam, noise = result.transcript["f"], result.transcript["lam"], result.transcript["noise"]
    A = problem.graph.adjacency_matrix()
    V = problem.graph.degrees[:, None].astype(float)
    details = result.details
    for t in np.flatnonzero(details.exact) + 1:
        eta = details.eta[t - 1][:, None]
        penalty = 2 * V * f[t] - V * f[t - 1] - A @ f[t - 1]
        kkt = problem.local_gradient_seed(f[t]) + 2 * lam[t - 1] + eta * penalty
        recovered = -kkt / details.noise_scale[t - 1][:, None]
        assert np.abs(recovered - noise[t]).max() <= 1e-8
        assert np.linalg.norm(noise[t], axis=-1).min() > 0


def test_dual_sum_is_conserved_with_common_step(problem):
    for solver in (
        RADMM(eta=1.0, gamma=0.5, alpha=4.0, n_iterations=6),
        PenaltyPerturbation(theta=0.5, q1=1.1, alpha=4.0, n_iterations=6),
    ):
        lam = solver.run(problem, seed=1, record_white_box=True).transcript["lam"]
        assert np.abs(lam.sum(axis=1)).max() <= 1e-10


def test_init_is_data_independent():
    a = RADMM(eta=1.0, alpha=3.0, n_iterations=2).run(_problem(seed=0), seed=5)
    b = RADMM(eta=1.0, alpha=3.0, n_iterations=2).run(_problem(seed=1), seed=5)
    assert np.array_equal(a.transcript["f"][0], b.transcript["f"][0])
    assert not np.allclose(a.transcript["f"][1], b.transcript["f"][1])


def test_events_one_per_node_and_costly_iteration(problem):
    solver = RADMM(eta=1.0, gamma=0.5, alpha=2.0, n_iterations=6)
    result = solver.run(problem, seed=0)
    entries = result.ledger.entries if hasattr(result.ledger, "entries") else list(result.ledger)
    assert len(entries) == 5 * 7
    costly = [e for e in entries if isinstance(e.event, PureDpEvent)]
    assert sorted({e.iteration for e in costly}) == [1, 3, 5]
    assert all(isinstance(e.event, dp_event.NoOpDpEvent) for e in entries if e.iteration in (0, 2, 4, 6))
    expected = radmm_epsilons(
        C=problem.C,
        B=problem.sizes,
        V=problem.graph.degrees,
        eta=np.ones((3, 1)),
        alpha=2.0,
        rho=problem.rho,
        n_agents=5,
    )
    node1 = [e.event.epsilon for e in costly if e.participant == 1]
    assert np.allclose(node1, expected[:, 1])
    assert result.privacy["pure"] == pytest.approx(expected.sum(axis=0).max())
    assert result.privacy["pure"] == pytest.approx(result.details.beta)
    assert result.privacy["optimal_composition"] <= result.privacy["pure"] + 1e-9
    assert result.privacy["advanced_composition"] <= result.privacy["pure"] + 1e-9


def test_history_has_average_loss_and_accuracy(problem):
    result = RADMM(eta=0.2, gamma=0.5, n_iterations=40).run(problem, seed=0)
    loss = result.history["average_loss"]
    assert loss.shape == (41,)
    f = result.transcript["f"]
    assert loss[-1] == pytest.approx(problem.local_loss(f[-1]).mean())
    assert result.history["gap"][-1] < 1e-6


# --- golden privacy totals: Theorem V.1's bound (32) of Zhang, Khalili & Liu 2020 in their Sec. VIII setting
# (N = 5, B_i = 8,000, C = 1750, rho = 0.22, T = 50; N = 5 is inferred from Fig. 5's privacy axes, the paper does
# not state it); the totals were computed by the project --------------------------------------------------------
@pytest.fixture(scope="module")
def golden_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40_000, 2))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(rng.random(40_000) < 0.5, 1.0, -1.0)
    graph = GraphTopology.from_edges(5, CHORD)  # minimum degree 2
    return DecentralizedProblem.create(partition_horizontal(X, y, 5, seed=0), graph, C=1750.0, rho=0.22)


@pytest.mark.parametrize(
    "alpha, radmm, mradmm, op",
    [(2.0, 22.8216, 22.4686, 45.6432), (1.0, 11.8841, 11.5311, 23.7682), (0.5, 6.4154, 6.0624, 12.8307)],
)
def test_golden_privacy_totals(golden_problem, alpha, radmm, mradmm, op):
    def reported(solver):  # Result.privacy: what ``run`` accounts before its first iteration (no run needed)
        return solver.account(golden_problem, solver.plan(golden_problem), [ACCOUNTANTS["pure"]()])[1]

    r = reported(RADMM(eta=1.0, gamma=0.5, alpha=alpha, n_iterations=50))
    m = reported(MRADMM(eta=1.0, eta_growth=1.04, gamma=0.5, alpha=alpha, n_iterations=50))
    assert r["pure"] == pytest.approx(radmm, abs=1e-4)
    assert m["pure"] == pytest.approx(mradmm, abs=1e-4)
    o = ObjectivePerturbationADMM(eta=1.0, alpha=alpha, n_iterations=50).plan(golden_problem)
    assert o.details.beta == pytest.approx(op, abs=1e-4)


def test_pp_golden_anchor_via_solver(golden_problem):
    """Theorem 4.1's bound (26) of Zhang, Khalili & Liu 2018, summed over geometric schedules in closed form
    (a closed form derived by the project) at B_i = 8000, V_min = 2: P(T) for PP(1.1, 1.05), alpha(1) = 3, T = 60."""
    plan = PenaltyPerturbation(theta=0.5, q1=1.1, alpha=3.0, q2=1.05, n_iterations=60).plan(golden_problem)
    expected = (
        1750
        / (2 * 8000 * 0.5)
        * (0.35 * (1 - 1.1**-60) / (1 - 1 / 1.1) + 3 * (1 - (1.05 / 1.1) ** 60) / (1 - 1.05 / 1.1))
    )
    assert plan.details.beta == pytest.approx(expected, rel=1e-12)


# --- refusals ---------------------------------------------------------------------------------
def test_radmm_refuses_violated_precondition():
    problem = _problem(C=40.0, rho=0.1)  # B_i = 40 = C
    with pytest.raises(ValueError, match=r"2c1 < \(B_i/C\)\(rho/N \+ 2 eta_i\(1\) V_i\) fails at node"):
        RADMM(eta=0.05, alpha=1.0, n_iterations=4).run(problem, seed=0)
    RADMM(eta=0.05, n_iterations=4).run(problem, seed=0)  # non-private: no privacy precondition


def test_refusals(problem):
    with pytest.raises(ValueError, match="non-decreasing"):
        MRADMM(eta=[1.0, 0.9], alpha=1.0, n_iterations=4).run(problem, seed=0)
    with pytest.raises(ValueError, match="even"):
        RADMM(n_iterations=5)
    with pytest.raises(ValueError, match=r"^alpha must be None or finite and > 0 \(a real number or an array"):
        RADMM(alpha=0.0, n_iterations=4)
    with pytest.raises(ValueError, match="C <= B_i"):
        PenaltyPerturbation(alpha=1.0, n_iterations=3).run(_problem(C=50.0), seed=0)
    with pytest.raises(ValueError, match="theta"):
        PenaltyPerturbation(theta=0.5, eta=0.4, alpha=1.0, n_iterations=3).run(problem, seed=0)
    with pytest.raises(ValueError, match=r"^q1 must be a real number in \[1, inf\), got 0.9$"):
        PenaltyPerturbation(q1=0.9)
    with pytest.raises(ValueError, match="DVP"):
        DVP(theta=0.5, q1=1.1, alpha=1.0)
    with pytest.raises(ValueError, match="dual_step"):
        MRADMM(dual_step="odd")


def test_private_run_refuses_unnormalised_features():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3)) * 3
    y = np.where(rng.random(100) < 0.5, 1.0, -1.0)
    problem = DecentralizedProblem.create(partition_horizontal(X, y, 5, seed=0), GraphTopology.ring(5), C=10.0, rho=1.0)
    with pytest.raises(ValueError, match="norm"):
        RADMM(alpha=1.0, n_iterations=2).run(problem, seed=0)


def test_vectorised_radmm_matches_naive_loop():
    from benchmarks.bench_decentralized import radmm_loop, synthetic_problem

    problem = synthetic_problem(m=60, d=6, seed=1)
    solver = RADMM(eta=1.0, gamma=0.5, alpha=3.0, n_iterations=6)
    f = solver.run(problem, seed=21).transcript["f"]
    assert np.abs(radmm_loop(problem, solver, 21) - f).max() <= 1e-8


def _reweighted_optimum(problem, weights):
    """argmin_f Σ_i O(f, D_i) · weights_i by Newton."""
    f = np.zeros(problem.n_features)
    for _ in range(50):
        fb = np.broadcast_to(f, (problem.n_agents, problem.n_features))
        g = np.einsum("i,id->d", weights, problem.local_gradient_seed(fb))
        H = np.einsum("i,ide->de", weights, problem.local_hessian_seed(fb))
        f = f - np.linalg.solve(H, g)
    return f


def test_mradmm_node_specific_eta_paper_dual_is_biased_common_dual_is_not(problem):
    """With eta_i = c_i in the dual step (15) of Zhang, Khalili & Liu 2020 the limit is argmin Σ_i O_i / c_i,
    not the consensus optimum their Lemma IV.1 needs; the common dual step θ of Zhang, Khalili & Liu 2018
    (the project's correction) reaches the centralized optimum."""
    c = np.array([0.2, 0.3, 0.25, 0.4, 0.2])
    eta = np.broadcast_to(c, (150, 5))
    paper = MRADMM(eta=eta, gamma=0.5, n_iterations=300).run(problem, seed=0).transcript["f"][-1]
    biased = _reweighted_optimum(problem, 1 / c)
    assert np.abs(paper - biased).max() <= 1e-6
    assert np.abs(paper - problem.optimum.w).max() > 1e-3
    common = MRADMM(eta=eta, gamma=0.5, dual_step="common", theta=0.2, n_iterations=300).run(problem, seed=0)
    assert np.abs(common.transcript["f"][-1] - problem.optimum.w).max() <= 1e-6
