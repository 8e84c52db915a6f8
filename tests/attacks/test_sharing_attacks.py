"""Tests for attacks.sharing: Gram recovery, the column-space test and the output-mode NP test (Hu et al. 2019)."""

import math

import numpy as np
import pytest

from attacks.sharing import ColumnSpaceTest, SharingNP, recover_gram
from solvers.sharing import ADMMSharing, VerticalProblem, partition_vertical
from solvers.sharing.partition import VerticalPartition

NO_ACCOUNTANTS = {"accountants": (), "record_history": False}


def correlated_problem(n=300, widths=(6, 4), seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, sum(widths))) + rng.normal(size=(n, 1))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-3 * X[:, 0])), 1.0, -1.0)
    return VerticalProblem(partition_vertical(X, y, list(widths)))


def unit_rows(rng, n, d):
    rows = rng.normal(size=(n, d))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def rotated_neighbours(n=30, d=3, seed=1):
    """D, D′: party 0's last unit row rotated by 60° (‖a − a′‖ = 1), everything else equal."""
    rng = np.random.default_rng(seed)
    block, other = unit_rows(rng, n, d), unit_rows(rng, n, 2)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    a = block[-1]
    v = rng.normal(size=d)
    v -= (v @ a) * a
    v /= np.linalg.norm(v)
    block_out = block.copy()
    block_out[-1] = 0.5 * a + math.sqrt(3) / 2 * v
    make = lambda b: VerticalProblem(VerticalPartition.from_blocks([b, other], y))  # noqa: E731
    return make(block), make(block_out)


# ------------------------------------------------------------------------------------------------
# Must show: Gram recovery on noiseless sharing, relative error below 1e-6. The KKT condition of (6) (Hu et al.
# 2019) gives u_m^{t+1} = −(1/λ) D_m D_mᵀ w^t with w^t known to the server (the project's derivation)


@pytest.fixture(scope="module")
def noiseless():
    problem = correlated_problem()
    return problem, ADMMSharing(n_iterations=30).run(problem, seed=0, **NO_ACCOUNTANTS)


@pytest.mark.parametrize("party", [0, 1])
def test_server_recovers_each_partys_gram_matrix_from_noiseless_shares(noiseless, party):
    problem, result = noiseless
    recovery = recover_gram(result, party, lam=problem.lam, rho=result.details.rho)
    width = int(problem.partition.widths[party])
    block = problem.partition.D[party, :, :width]
    assert recovery.rank == width
    assert recovery.residual < 1e-10
    assert recovery.relative_error(block) < 1e-6
    np.testing.assert_allclose(recovery.gram, recovery.gram.T)
    # the recovered Gram matrix determines D_m up to a rotation: its top-d_m eigen-factor reproduces D_m Qᵀ
    values, vectors = np.linalg.eigh(recovery.gram)
    factor = vectors[:, -width:] * np.sqrt(values[-width:])
    rotation = np.linalg.lstsq(factor, block, rcond=None)[0]
    np.testing.assert_allclose(rotation.T @ rotation, np.eye(width), atol=1e-6)


def test_gram_identity_fails_under_output_noise():
    """Negative control: with noise on the shares the KKT identity no longer holds."""
    problem = correlated_problem(n=120)
    result = ADMMSharing(noise="output", sigma=1e-3, b1=50.0, n_iterations=30).run(problem, seed=0, **NO_ACCOUNTANTS)
    recovery = recover_gram(result, 0, lam=problem.lam, rho=result.details.rho)
    assert recovery.rank == 30  # the noisy shares span T directions, not col(D_0)
    assert recovery.relative_error(problem.partition.D[0, :, :6]) > 0.1


def test_gram_recovery_rejects_bad_input(noiseless):
    problem, result = noiseless
    with pytest.raises(ValueError, match="lam must be finite and > 0"):
        recover_gram(result, 0, lam=0.0, rho=1.0)
    with pytest.raises(ValueError, match="party must be one of the recorded parties"):
        recover_gram(result, 5, lam=problem.lam, rho=1.0)
    with pytest.raises(ValueError, match="max_iterations must be None or an int >= 1"):
        recover_gram(result, 0, lam=problem.lam, rho=1.0, max_iterations=0)
    batched = ADMMSharing(n_iterations=3).run(problem, seed=0, trials=2, **NO_ACCOUNTANTS)
    with pytest.raises(ValueError, match="single-run transcript"):
        recover_gram(batched, 0, lam=problem.lam, rho=1.0)
    bare = ADMMSharing(n_iterations=3).run(problem, seed=0, record_transcript=False, **NO_ACCOUNTANTS)
    with pytest.raises(ValueError, match="no transcript"):
        recover_gram(bare, 0, lam=problem.lam, rho=1.0)
    with pytest.raises(TypeError, match="transcript must be"):
        recover_gram(np.zeros(3), 0, lam=problem.lam, rho=1.0)
    first = ADMMSharing(n_iterations=1).run(problem, seed=0, **NO_ACCOUNTANTS)  # u^1 = 0 from zero init
    with pytest.raises(ValueError, match="every release is zero"):
        recover_gram(first, 0, lam=problem.lam, rho=1.0)


# ------------------------------------------------------------------------------------------------
# The column-space (range) test against the parameter mode of Hu et al. 2019: (10) adds ξ ~ N(0, σ²(D_mᵀD_m)⁻¹)
# to x_m, so every release D_m x̃_m lies in col(D_m)


@pytest.fixture(scope="module")
def parameter_runs():
    p_in, p_out = rotated_neighbours()
    solver = ADMMSharing(noise="parameter", epsilon=0.5, b1=1.0, n_iterations=5)
    return (
        p_in,
        p_out,
        solver.run(p_in, seed=1, trials=40, **NO_ACCOUNTANTS),
        solver.run(p_out, seed=2, trials=40, **NO_ACCOUNTANTS),
    )


def test_column_space_test_separates_neighbours_without_error(parameter_runs):
    p_in, p_out, r_in, r_out = parameter_runs
    test = ColumnSpaceTest(p_in, p_out, 0)
    scores = test.attack(r_in, r_out)
    assert scores.scores_out.max() < 1e-12  # every release under D′ lies in col(D′_0)
    assert scores.scores_in.min() > 1e-6  # every trial under D leaves it
    assert scores.metrics() == {"auroc": 1.0, "tpr_at_0.1%_fpr": 1.0, "tpr_at_1%_fpr": 1.0}
    assert test.residuals(r_in).shape == (5, 40)


def test_column_space_test_is_blind_when_column_spaces_agree(parameter_runs):
    """Negative control: D against itself — the residual is rounding for both sides."""
    p_in, _, r_in, _ = parameter_runs
    assert ColumnSpaceTest(p_in, p_in, 0).score(r_in).max() < 1e-12


def test_column_space_test_rejects_bad_input(parameter_runs):
    p_in, p_out, r_in, _ = parameter_runs
    with pytest.raises(ValueError, match=r"party must be an integer in \[0, 2\)"):
        ColumnSpaceTest(p_in, p_out, 2)
    other = VerticalProblem(partition_vertical(np.eye(4) * 0.5, np.array([1.0, -1, 1, -1]), [2, 2]))
    with pytest.raises(ValueError, match="same shape"):
        ColumnSpaceTest(p_in, other, 0)
    full = VerticalProblem(partition_vertical(np.eye(4), np.array([1.0, -1, 1, -1]), [4]))
    with pytest.raises(ValueError, match="needs N > rank"):
        ColumnSpaceTest(full, full, 0)
    single = ADMMSharing(n_iterations=2).run(p_in, seed=0, **NO_ACCOUNTANTS)
    with pytest.raises(ValueError, match="batched"):
        ColumnSpaceTest(p_in, p_out, 0).score(single)


# ------------------------------------------------------------------------------------------------
# The Neyman–Pearson replay test on output mode


def flip_neighbours(n=9):
    """Party 0 holds one feature: 1 for every record, the canary's −1 (D) or +1 (D′); balanced labels."""
    rng = np.random.default_rng(3)
    other = unit_rows(rng, n, 2)
    y = np.array([1.0, -1.0] * ((n - 1) // 2) + [1.0])
    block = np.ones((n, 1))
    block[-1] = -1.0
    make = lambda b: VerticalProblem(VerticalPartition.from_blocks([b, other], y))  # noqa: E731
    return make(block), make(np.ones((n, 1)))


@pytest.fixture(scope="module")
def output_runs():
    p_in, p_out = flip_neighbours()
    solver = ADMMSharing(noise="output", epsilon=1.0, b1=1e-4, n_iterations=20)
    r_in = solver.run(p_in, seed=4, trials=400, record_white_box=True, **NO_ACCOUNTANTS)
    r_out = solver.run(p_out, seed=5, trials=400, **NO_ACCOUNTANTS)
    return solver, p_in, p_out, r_in, r_out


def test_np_replay_reproduces_the_noise_free_shares_from_the_public_transcript(output_runs):
    solver, p_in, p_out, r_in, _ = output_runs
    u, c_in, c_out = SharingNP(solver, p_in, p_out, 0).replay(r_in)
    np.testing.assert_allclose(c_in, r_in.transcript["u_clean"][:, :, 0], rtol=0, atol=1e-15)
    assert np.abs(c_in - c_out).max() > 1e-5  # the canary moves the share


def test_np_llr_is_the_gaussian_privacy_loss(output_runs):
    """Under D the LLR has mean μ²/2 and variance μ² given the replayed means (μ² per trial)."""
    solver, p_in, p_out, r_in, r_out = output_runs
    test = SharingNP(solver, p_in, p_out, 0)
    llr_in, mu2_in = test.statistics(r_in)
    llr_out, mu2_out = test.statistics(r_out)
    standardized_in = (llr_in - mu2_in / 2) / np.sqrt(mu2_in)
    standardized_out = (llr_out + mu2_out / 2) / np.sqrt(mu2_out)
    for z in (standardized_in, standardized_out):
        assert abs(z.mean()) < 4 / math.sqrt(z.size) and abs(z.std() - 1) < 0.1
    # the canary nearly attains Δ_safe: realised μ close to the accountants' √T/z
    accountant_mu = math.sqrt(solver.n_iterations) / float(r_in.details.noise_multiplier[0])
    assert 0.85 * accountant_mu < math.sqrt(mu2_in.mean()) <= accountant_mu
    metrics = test.attack(r_in, r_out).metrics()
    assert 0.6 < metrics["auroc"] < 0.8


def test_np_test_rejects_bad_input(output_runs):
    solver, p_in, p_out, _, _ = output_runs
    with pytest.raises(ValueError, match="needs an output-mode solver"):
        SharingNP(ADMMSharing(noise="parameter", epsilon=0.5, b1=1.0), p_in, p_out, 0)
    relabelled = VerticalProblem(
        VerticalPartition.from_blocks([p_out.partition.D[0, :, :1], p_out.partition.D[1, :, :2]], -p_out.partition.y)
    )
    with pytest.raises(ValueError, match="share λ and the labels"):
        SharingNP(solver, p_in, relabelled, 0)
    with pytest.raises(ValueError, match="party must be an integer"):
        SharingNP(solver, p_in, p_out, -1)
