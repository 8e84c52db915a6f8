"""Tests for solvers.star.admm: Algorithms 1–3 of Huang et al. 2020 (DP-ADMM) and the invariants they imply."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from dp_accounting import dp_event

from accountants import ExactGaussianAccountant, MomentsAccountant, gaussian_epsilon
from mechanisms import make_rng
from solvers import ADMM, DPADMM, HorizontalProblem, NaiveNoisyADMM, centralized_optimum
from solvers.datasets import max_row_norm, partition_horizontal, twonorm
from solvers.losses import HuberHingeLoss, LogisticLoss
from solvers.regularizers import L1Regularizer, L2Regularizer
from solvers.star.admm import linearized_update

INF = math.inf
NO_ACCOUNTANTS = {"accountants": ()}


def small_problem(n_agents=6, m=25, d=4, lam=0.5, regularizer=None, loss=None, seed=0):
    """Twonorm in the unit ball: N·m training rows, 30 public rows, 100 test rows, with w*."""
    data = twonorm(n_agents * m + 130, seed, dim=d)
    X, y, n = data.X / max_row_norm(data.X), data.y, n_agents * m
    problem = HorizontalProblem(
        partition_horizontal(X[:n], y[:n], n_agents, seed=seed),
        loss=LogisticLoss() if loss is None else loss,
        regularizer=L2Regularizer() if regularizer is None else regularizer,
        lam=lam,
        X_test=X[n + 30 :],
        y_test=y[n + 30 :],
        X_public=X[n : n + 30],
        y_public=y[n : n + 30],
    )
    return problem.with_optimum(centralized_optimum(problem))


@pytest.fixture(scope="module")
def problem():
    return small_problem()


@pytest.fixture(scope="module")
def bench():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_dpadmm.py"
    spec = importlib.util.spec_from_file_location("bench_dpadmm", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------------------
# (3a), Lemma 1, gradient perturbation


@pytest.mark.parametrize("regularizer", [L2Regularizer(), L1Regularizer()], ids=repr)
def test_closed_form_3a_minimises_the_approximate_lagrangian_2(problem, regularizer):
    """(3a) is the exact minimiser of the linearised Lagrangian (2): the objective is a strongly convex
    quadratic with Hessian (ρ + 1/η_i)·I, so its gradient at the closed form must vanish, and then
    ‖v − v*‖ ≤ ‖∇L(v)‖ / (ρ + 1/η_i) bounds the distance to the true minimiser (no numerical optimiser
    involved, so the reference is exact up to rounding)."""
    rng = np.random.default_rng(1)
    N, d = problem.n_agents, problem.n_features
    for _ in range(5):
        w, gamma, w_tilde = rng.normal(size=(1, d)), rng.normal(size=(1, N, d)), rng.normal(size=(1, N, d))
        eta, rho = rng.uniform(0.1, 3.0, size=N), rng.uniform(0.1, 3.0)
        g = problem.local_loss_gradient(w_tilde) + (problem.lam / N) * regularizer.gradient(w_tilde)
        closed = linearized_update(w, gamma, w_tilde, g, 1 / eta, rho)
        for i in range(N):
            v = closed[0, i]
            # ∇_v of eq. (2) for agent i: g_i − γ_i + ρ(v − w) + (v − w̃_i)/η_i
            gradient = g[0, i] - gamma[0, i] + rho * (v - w[0]) + (v - w_tilde[0, i]) / eta[i]
            scale = np.abs(g[0, i]) + np.abs(gamma[0, i]) + rho * np.abs(w[0]) + np.abs(w_tilde[0, i]) / eta[i]
            np.testing.assert_array_less(np.abs(gradient), 1e-14 * (scale + (rho + 1 / eta[i]) * np.abs(v)) + 1e-300)
            distance_bound = np.linalg.norm(gradient) / (rho + 1 / eta[i])
            assert distance_bound <= 1e-13 * (1 + np.linalg.norm(v))


@pytest.mark.parametrize("loss", [LogisticLoss(), HuberHingeLoss()], ids=repr)
def test_lemma1_sensitivity_bound_on_random_neighbours(loss):
    """Replacing one record moves (3a) by at most 2 S1/(m (ρ + 1/η)) (Huang et al. 2020, Lemma 1)."""
    rng = np.random.default_rng(2)
    m, d, lam, N = 20, 5, 0.3, 4
    worst = 0.0
    for _ in range(300):
        X = rng.normal(size=(m, d))
        X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True))
        y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
        X2, y2 = X.copy(), y.copy()
        X2[-1] = rng.normal(size=d)
        X2[-1] /= max(1.0, np.linalg.norm(X2[-1])) / rng.uniform(0, 1)
        y2[-1] = rng.choice([-1.0, 1.0])
        w_tilde, w, gamma = (rng.normal(size=(1, 1, d)) * 3, rng.normal(size=(1, d)), rng.normal(size=(1, 1, d)))
        eta, rho = rng.uniform(0.05, 5.0), rng.uniform(0.05, 5.0)
        updates = []
        for features, labels in ((X, y), (X2, y2)):
            g = loss.gradient(w_tilde[0, 0], features, labels) + lam / N * w_tilde[0, 0]
            updates.append(linearized_update(w, gamma, w_tilde, g[None, None], np.array([1 / eta]), rho))
        bound = 2 * loss.gradient_bound / (m * (rho + 1 / eta))
        ratio = np.linalg.norm(updates[0] - updates[1]) / bound
        assert ratio <= 1 + 1e-12
        worst = max(worst, ratio)
    assert worst > 0.3  # the bound is not vacuous


def test_noise_is_the_mechanism_draw_and_gradient_perturbation_holds(problem):
    """w̃ − w = σ_{i,k+1}·N(0, I), agent i's (T, d) block drawn from its own stream (child i of the
    seed's SeedSequence), and (ρ + 1/η)σ = C_i is constant: σ_{i,k+1} is Lemma 1's sensitivity times
    sqrt(2 ln(1.25/δ))/ε (Huang et al. 2020, Lemma 1 and Theorem 1)."""
    solver = DPADMM(epsilon=0.5, delta=1e-5, n_iterations=15, dw=2.0)
    result = solver.run(problem, seed=7, record_white_box=True, **NO_ACCOUNTANTS)
    noise = result.transcript["w_tilde"] - result.transcript["w_local"]
    T, N, d = 15, problem.n_agents, problem.n_features
    children = np.random.SeedSequence(7).spawn(N)
    draws = np.stack([make_rng(child).standard_normal((T, d)) for child in children], axis=1)
    expected = draws * result.details.sigma[:, :, None]
    np.testing.assert_allclose(noise, expected, rtol=1e-9, atol=1e-14)
    eta, sigma = result.details.eta, result.details.sigma
    c = (solver.rho + 1 / eta) * sigma
    expected_c = np.broadcast_to(2 * result.details.noise_multiplier / problem.sizes, c.shape)
    np.testing.assert_allclose(c, expected_c, rtol=1e-12)
    assert np.all(np.diff(sigma, axis=0) < 0)


# ------------------------------------------------------------------------------------------------
# Invariants, reductions, convergence


def reconstructed_duals(result, sent, rho):
    """γ_i^k from the public transcript via (3d), γ^0 = 0: (T + 1, N, d)."""
    w_sent, w = result.transcript[sent], result.transcript["w"]
    gamma = np.zeros((w.shape[0] + 1,) + w_sent.shape[1:])
    for k in range(w.shape[0]):
        gamma[k + 1] = gamma[k] - rho * (w_sent[k] - w[k][None, :])
    return gamma


@pytest.mark.parametrize(
    "solver, sent",
    [
        (ADMM(rho=0.3, n_iterations=10), "w_local"),
        (NaiveNoisyADMM(rho=0.3, n_iterations=10, epsilon=0.5, sensitivity="tight"), "w_tilde"),
        (NaiveNoisyADMM(rho=0.3, n_iterations=10, epsilon=0.5), "w_tilde"),
        (DPADMM(rho=0.3, n_iterations=10, epsilon=0.5), "w_tilde"),
    ],
    ids=["alg1", "alg2-tight", "alg2-paper", "dpadmm"],
)
def test_dual_sum_invariant_and_trainer_average(problem, solver, sent):
    result = solver.run(problem, seed=3, **NO_ACCOUNTANTS)
    gamma = reconstructed_duals(result, sent, solver.rho)
    scale = 1 + np.abs(gamma).sum(axis=(1, 2))
    assert np.all(np.linalg.norm(gamma.sum(axis=1), axis=-1) <= 1e-10 * scale)
    # Hence w^{k+1} = mean_i ŵ_i^{k+1}.
    np.testing.assert_allclose(
        result.transcript["w"], result.transcript[sent].mean(axis=1), rtol=0, atol=1e-10 * scale.max()
    )


def test_algorithm2_without_noise_is_algorithm1_iterate_for_iterate(problem):
    admm = ADMM(rho=0.3, n_iterations=12).run(problem, seed=0, **NO_ACCOUNTANTS)
    naive = NaiveNoisyADMM(rho=0.3, n_iterations=12, epsilon=INF).run(problem, seed=0, **NO_ACCOUNTANTS)
    np.testing.assert_array_equal(naive.transcript["w_tilde"], admm.transcript["w_local"])
    np.testing.assert_array_equal(naive.transcript["w"], admm.transcript["w"])


@pytest.mark.parametrize(
    "solver",
    [
        ADMM(rho=0.1, n_iterations=100),
        DPADMM(rho=0.1, n_iterations=100, epsilon=INF, step_size="theorem4"),
    ],
    ids=["alg1", "dpadmm-noiseless"],
)
def test_l2_runs_reach_the_centralized_optimum(problem, solver):
    result = solver.run(problem, seed=0, **NO_ACCOUNTANTS)
    assert abs(result.history["relative_gap"][-1]) <= 1e-6
    np.testing.assert_allclose(result.model, problem.optimum.w, atol=1e-5)
    assert result.history["consensus"][-1] <= 1e-6
    assert result.history["test_accuracy"][-1] == pytest.approx(problem.accuracy(problem.optimum.w))


def test_algorithm1_l1_reaches_the_centralized_optimum():
    problem = small_problem(regularizer=L1Regularizer())
    result = ADMM(rho=0.1, n_iterations=100).run(problem, seed=0, **NO_ACCOUNTANTS)
    assert abs(result.history["relative_gap"][-1]) <= 1e-6
    assert result.info["inner_residual"] <= 1e-10


def test_noiseless_l1_dpadmm_ergodic_gap_decays_like_one_over_sqrt_t():
    problem = small_problem(regularizer=L1Regularizer())
    gaps = []
    for T in (100, 400, 1600):
        result = DPADMM(rho=0.3, n_iterations=T, epsilon=INF).run(
            problem, seed=0, record_transcript=False, record_history=False, **NO_ACCOUNTANTS
        )
        gaps.append(float(problem.objective(result.model_average)) - problem.optimum.objective)
    assert gaps[0] > gaps[1] > gaps[2] > 0
    # Theorem 3 (Huang et al. 2020): O(1/sqrt(t)), so gap(4t)/gap(t) ≈ 1/2; the 0.62 margin is the project's
    assert gaps[1] / gaps[0] <= 0.62 and gaps[2] / gaps[1] <= 0.5


def test_vectorised_solver_equals_the_per_agent_loop(problem, bench):
    solver = DPADMM(epsilon=0.3, delta=1e-4, n_iterations=20, rho=0.7)
    result = solver.run(problem, seed=11, **NO_ACCOUNTANTS)
    reference = bench.dpadmm_loop(problem, solver, seed=11)
    np.testing.assert_allclose(result.transcript["w_tilde"], reference["w_tilde"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.transcript["w"], reference["w"], rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------------------------
# Privacy: ledger and accountants


def test_ledger_holds_n_times_t_gaussian_releases_with_the_closed_form_totals():
    problem = small_problem(n_agents=3, m=10)
    solver = DPADMM(epsilon=0.05, delta=1e-3, n_iterations=100)
    result = solver.run(
        problem,
        seed=0,
        record_transcript=False,
        record_history=False,
        accountants=[MomentsAccountant.classic(), ExactGaussianAccountant(), "pld", "rdp"],
    )
    z = math.sqrt(2 * math.log(1.25 / 1e-3)) / 0.05
    assert len(result.ledger) == 300 and result.ledger.participants == [0, 1, 2]
    assert [(e.iteration, e.participant) for e in result.ledger] == [(k, i) for k in range(100) for i in range(3)]
    assert all(
        e.event == dp_event.GaussianDpEvent(z) or math.isclose(e.event.noise_multiplier, z, rel_tol=1e-15)
        for e in result.ledger
    )
    assert result.privacy["moments_classic"] == pytest.approx(0.500881, abs=5e-7)
    assert result.privacy["exact_gaussian"] == pytest.approx(gaussian_epsilon(math.sqrt(100) / z, 1e-3), rel=1e-12)
    assert result.privacy["pld"] == pytest.approx(result.privacy["exact_gaussian"], abs=1e-3)
    assert result.privacy["exact_gaussian"] <= result.privacy["rdp"] <= result.privacy["moments_classic"]
    assert result.delta == 1e-3


def test_naive_and_dpadmm_have_the_same_budget_and_delta_target_is_used():
    problem = small_problem(n_agents=2, m=10)
    kwargs = {"epsilon": 0.1, "delta": 1e-3, "n_iterations": 100, "delta_target": 1e-5}
    a = DPADMM(**kwargs).run(problem, seed=0, accountants=["moments_classic"], record_transcript=False)
    b = NaiveNoisyADMM(**kwargs).run(problem, seed=0, accountants=["moments_classic"], record_transcript=False)
    assert a.privacy == b.privacy and a.delta == 1e-5
    assert a.privacy["moments_classic"] > 1.0193  # δ_target < δ_calib costs more than the paper's 1.0193


def test_noiseless_and_non_private_runs_report_infinite_epsilon(problem):
    for solver in (
        ADMM(n_iterations=2),
        DPADMM(n_iterations=2, epsilon=INF),
        NaiveNoisyADMM(n_iterations=2, epsilon=INF),
    ):
        result = solver.run(problem, seed=0, accountants=["exact_gaussian", "moments_classic"])
        assert all(isinstance(e.event, dp_event.NonPrivateDpEvent) for e in result.ledger)
        assert result.privacy == {"exact_gaussian": INF, "moments_classic": INF}


# ------------------------------------------------------------------------------------------------
# Results, trials, recording


def test_batched_trial_equals_the_single_run_with_its_seed(problem):
    solver = DPADMM(epsilon=0.2, n_iterations=12)
    batched = solver.run(problem, seed=5, trials=4, record_white_box=True, **NO_ACCOUNTANTS)
    chunked = solver.run(problem, seed=5, trials=4, max_chunk_bytes=1, **NO_ACCOUNTANTS)
    for r in (0, 3):
        single = solver.run(problem, seed=batched.seeds[r], record_white_box=True, **NO_ACCOUNTANTS)
        view = batched.trial(r)
        np.testing.assert_allclose(view.model, single.model, rtol=0, atol=1e-12)
        np.testing.assert_allclose(view.model_average, single.model_average, rtol=0, atol=1e-12)
        np.testing.assert_allclose(chunked.model[r], single.model, rtol=0, atol=1e-12)
        for name in ("w_tilde", "w", "w_local"):
            np.testing.assert_allclose(view.transcript[name], single.transcript[name], rtol=0, atol=1e-12)
        for key, values in single.history.items():
            np.testing.assert_allclose(view.history[key], values, rtol=1e-12, atol=1e-12)
    assert batched.model.shape == (4, 4) and batched.history["objective"].shape == (12, 4)
    assert batched.transcript["w_tilde"].shape == (12, 4, 6, 4) and batched.transcript["w"].shape == (12, 4, 4)


def test_same_seed_is_bit_identical_and_seeds_differ(problem):
    solver = DPADMM(epsilon=0.5, n_iterations=5)
    a, b = (solver.run(problem, seed=1, **NO_ACCOUNTANTS) for _ in range(2))
    np.testing.assert_array_equal(a.transcript["w_tilde"], b.transcript["w_tilde"])
    c = solver.run(problem, seed=2, **NO_ACCOUNTANTS)
    assert not np.array_equal(a.model, c.model)


def test_transcript_is_public_by_default_with_white_box_on_request(problem):
    solver = DPADMM(n_iterations=3)
    result = solver.run(problem, seed=0, transcript_agents=[4, 1], **NO_ACCOUNTANTS)
    assert list(result.transcript) == ["w_tilde", "w"] and result.transcript.white_box_names == ()
    assert result.transcript["w_tilde"].shape == (3, 2, 4) and result.transcript.channel("w_tilde").agents == (1, 4)
    full = solver.run(problem, seed=0, record_white_box=True, **NO_ACCOUNTANTS)
    np.testing.assert_array_equal(result.transcript["w_tilde"], full.transcript["w_tilde"][:, [1, 4]])
    assert full.transcript.white_box_names == ("w_local",) and list(full.transcript.public()) == ["w_tilde", "w"]
    assert solver.run(problem, seed=0, record_transcript=False, **NO_ACCOUNTANTS).transcript is None


def test_result_carries_schedules_and_parameters(problem):
    result = DPADMM(n_iterations=7, epsilon=0.1).run(problem, seed=0, **NO_ACCOUNTANTS)
    assert result.details.eta.shape == result.details.sigma.shape == (7, 6)
    assert result.info["eta"] is result.details.eta and result.info["dw"] == result.details.dw
    assert result.details.dw > 0 and result.solver["name"] == "dpadmm" and result.solver["epsilon"] == 0.1
    assert result.model.shape == (4,) and result.history["test_accuracy"].shape == (7,)


# ------------------------------------------------------------------------------------------------
# Validation


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: DPADMM(epsilon=0.0), ValueError, "epsilon"),
        (lambda: DPADMM(epsilon=-INF), ValueError, "epsilon"),
        (lambda: DPADMM(epsilon=float("nan")), ValueError, "epsilon"),
        (lambda: DPADMM(delta=1.0), ValueError, "delta"),
        (lambda: DPADMM(delta=0.0), ValueError, "delta"),
        (lambda: DPADMM(delta_target=2.0), ValueError, "delta_target"),
        (lambda: DPADMM(rho=0.0), ValueError, "rho"),
        (lambda: DPADMM(n_iterations=0), ValueError, "n_iterations"),
        (lambda: DPADMM(n_iterations=2.5), TypeError, "n_iterations"),
        (lambda: DPADMM(step_size="fast"), ValueError, "step_size"),
        (lambda: DPADMM(step_size=-1.0), ValueError, "step_size"),
        (lambda: DPADMM(dw=0.0), ValueError, "dw"),
        (lambda: DPADMM(calibration="exact"), ValueError, "calibration"),
        (lambda: NaiveNoisyADMM(sensitivity="loose"), ValueError, "sensitivity"),
        (lambda: ADMM(tol=0.0), ValueError, "tol"),
    ],
)
def test_invalid_parameters_name_the_argument(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_classic_calibration_refuses_epsilon_above_one_and_analytic_accepts_it(problem):
    with pytest.raises(ValueError, match=r"epsilon=2.*analytic"):
        DPADMM(epsilon=2.0, n_iterations=2).run(problem, seed=0, **NO_ACCOUNTANTS)
    DPADMM(epsilon=2.0, n_iterations=2, calibration="analytic").run(problem, seed=0, **NO_ACCOUNTANTS)


def test_naive_paper_sensitivity_refuses_l1_and_tight_runs():
    problem = small_problem(regularizer=L1Regularizer())
    with pytest.raises(ValueError, match="sensitivity='tight'"):
        NaiveNoisyADMM(n_iterations=2).run(problem, seed=0, **NO_ACCOUNTANTS)
    NaiveNoisyADMM(n_iterations=2, sensitivity="tight").run(problem, seed=0, **NO_ACCOUNTANTS)


def test_private_solvers_refuse_rows_outside_the_unit_ball(problem):
    partition = problem.partition
    scaled = partition_horizontal(partition.X[partition.mask] * 1.2, partition.y[partition.mask], 6, seed=0)
    big = HorizontalProblem(scaled, X_public=problem.X_public, y_public=problem.y_public)
    for solver in (DPADMM(n_iterations=2), NaiveNoisyADMM(n_iterations=2)):
        with pytest.raises(ValueError, match="norm"):
            solver.run(big, seed=0, **NO_ACCOUNTANTS)
    ADMM(n_iterations=2).run(big, seed=0, **NO_ACCOUNTANTS)  # non-private: no bound needed


def test_dpadmm_needs_public_rows_or_dw(problem):
    partition = problem.partition
    bare = HorizontalProblem(partition)
    with pytest.raises(ValueError, match="dw="):
        DPADMM(n_iterations=2).run(bare, seed=0, **NO_ACCOUNTANTS)
    DPADMM(n_iterations=2, dw=3.0).run(bare, seed=0, **NO_ACCOUNTANTS)
    DPADMM(n_iterations=2, step_size=0.5).run(bare, seed=0, **NO_ACCOUNTANTS)


def test_run_seed_arguments_are_validated(problem):
    solver = DPADMM(n_iterations=2)
    with pytest.raises(ValueError, match="either seeds="):
        solver.run(problem, seed=1, seeds=[1, 2], **NO_ACCOUNTANTS)
    with pytest.raises(ValueError, match="trials"):
        solver.run(problem, seed=1, trials=0, **NO_ACCOUNTANTS)
    with pytest.raises(ValueError, match="at least one"):
        solver.run(problem, seeds=[], **NO_ACCOUNTANTS)
    with pytest.raises(TypeError, match="seed"):
        solver.run(problem, seed=1.5, **NO_ACCOUNTANTS)
    with pytest.raises(TypeError, match="replayed"):
        solver.run(problem, seeds=[np.random.default_rng(0)], **NO_ACCOUNTANTS)
    with pytest.raises(ValueError, match="max_chunk_bytes"):
        solver.run(problem, seed=1, max_chunk_bytes=0, **NO_ACCOUNTANTS)
    with pytest.raises(TypeError, match="HorizontalProblem"):
        solver.run(object(), seed=1)


# ------------------------------------------------------------------------------------------------
# Adult: the paper's setting, reduced


@pytest.mark.slow  # nine runs on the paper's data set (three seeds of Adult, 100 agents)
def test_adult_dpadmm_close_to_algorithm1_and_naive_far_worse():
    """Huang et al. 2020, §VI-B (Figs. 4–6), reduced to 3 seeds and T = 20: DP-ADMM's accuracy is within
    2 points of Algorithm 1 (the 2-point margin is the project's acceptance threshold; the paper gives no
    accuracy numbers) and its objective close to it; Algorithm 2 (paper σ) diverges."""
    from solvers.builders import adult_problem

    admm, dp, naive = [], [], []
    for seed in range(3):
        problem = adult_problem(seed)
        kwargs = {"seed": seed, "record_transcript": False, **NO_ACCOUNTANTS}
        admm.append(ADMM(n_iterations=20).run(problem, **kwargs).history)
        dp.append(DPADMM(n_iterations=20).run(problem, **kwargs).history)
        naive.append(NaiveNoisyADMM(n_iterations=20).run(problem, **kwargs).history)
    final = {
        name: {key: np.mean([h[key][-1] for h in runs]) for key in ("test_accuracy", "relative_gap")}
        for name, runs in (("admm", admm), ("dp", dp), ("naive", naive))
    }
    assert abs(final["dp"]["test_accuracy"] - final["admm"]["test_accuracy"]) <= 0.02
    assert final["dp"]["relative_gap"] <= final["admm"]["relative_gap"] + 0.1
    assert final["naive"]["relative_gap"] >= 100 * final["dp"]["relative_gap"]
