"""attacks.whitebox: the NP test's scores follow the exact accountant's privacy-loss distribution."""

import numpy as np
import pytest

from accountants import ExactGaussianAccountant
from attacks.whitebox import WhiteBoxNP, replay_statistics
from audits.registry import TARGETS
from audits.targets.star import DPADMM_ITERATIONS
from solvers.star.privacy import unit_mu_epsilon

N_TRIALS = 4000
KW = dict(accountants=(), record_history=False, transcript_agents=[0])


@pytest.fixture(scope="module")
def dpadmm_runs():
    setup = TARGETS["dpadmm"].spec(unit_mu_epsilon(1e-5, DPADMM_ITERATIONS), 1e-5, False)
    nb = setup  # the spec holds both neighbouring problems
    r_in = setup.solver.run(nb.problem_in, seed=11, trials=N_TRIALS, **KW)
    r_out = setup.solver.run(nb.problem_out, seed=12, trials=N_TRIALS, **KW)
    return setup, r_in, r_out


def test_score_distribution_matches_the_gaussian_privacy_loss(dpadmm_runs):
    setup, r_in, r_out = dpadmm_runs
    exact = ExactGaussianAccountant()
    exact.register_ledger(r_in.ledger)
    mu = exact.get_mu(0)
    assert mu == pytest.approx(1.0, rel=1e-9)
    attack = WhiteBoxNP(setup.solver, setup.problem_in, setup.problem_out, 0)
    # the canary reaches the full sensitivity in every iteration of every trial: μ² realised exactly
    np.testing.assert_allclose(attack.mu_squared(r_in), mu**2, rtol=1e-9)
    np.testing.assert_allclose(attack.mu_squared(r_out), mu**2, rtol=1e-9)
    scores = attack.attack(r_in, r_out)
    se_mean, se_var = mu / np.sqrt(N_TRIALS), mu**2 * np.sqrt(2.0 / N_TRIALS)
    assert abs(scores.scores_in.mean() - mu**2 / 2) < 4 * se_mean
    assert abs(scores.scores_out.mean() + mu**2 / 2) < 4 * se_mean
    assert abs(scores.scores_in.var() - mu**2) < 4 * se_var
    assert abs(scores.scores_out.var() - mu**2) < 4 * se_var
    assert scores.white_box and scores.metadata["white_box"] is True


def test_calibrated_noise_matches_the_claimed_noise_for_a_correct_mechanism(dpadmm_runs):
    setup, r_in, r_out = dpadmm_runs
    nb = setup  # the spec holds both neighbouring problems
    attack = WhiteBoxNP(setup.solver, nb.problem_in, nb.problem_out, 0, noise="calibrated")
    with pytest.raises(ValueError, match="calibrate"):
        attack.score(r_in)
    attack.calibrate(r_in, r_out)
    ratio = attack.sigma_estimate / attack.claimed_sigma(r_in)
    assert np.all(np.abs(ratio - 1) < 0.06)


def test_reads_only_the_public_transcript(dpadmm_runs):
    setup, r_in, _ = dpadmm_runs
    nb = setup  # the spec holds both neighbouring problems
    attack = WhiteBoxNP(setup.solver, nb.problem_in, nb.problem_out, 0)
    white = setup.solver.run(nb.problem_in, seed=11, trials=50, record_white_box=True, **KW)
    plain = setup.solver.run(nb.problem_in, seed=11, trials=50, **KW)
    np.testing.assert_array_equal(attack.score(white), attack.score(plain))
    with pytest.raises(ValueError, match="agent 1"):
        WhiteBoxNP(setup.solver, nb.problem_in, nb.problem_out, 1).score(plain)
    with pytest.raises(ValueError, match="noise"):
        WhiteBoxNP(setup.solver, nb.problem_in, nb.problem_out, 0, noise="oracle")


def test_naive_algorithm2_replay_reaches_its_sensitivity():
    setup = TARGETS["dpadmm-naive"].spec(unit_mu_epsilon(1e-5, DPADMM_ITERATIONS), 1e-5, False)
    nb = setup  # the spec holds both neighbouring problems
    r_in = setup.solver.run(nb.problem_in, seed=1, trials=40, **KW)
    attack = WhiteBoxNP(setup.solver, nb.problem_in, nb.problem_out, 0)
    _, norm = attack.statistics(r_in)
    # exact argmin: ‖m_D − m_D′‖ ≤ 2/(m (λ/N + ρ)) (the tight Alg.-2 sensitivity), with equality in
    # the first iteration, where the canary's margin is in the linear part of the loss
    lam, N, m = nb.problem_in.lam, nb.problem_in.n_agents, nb.problem_in.sizes[0]
    tight = 2.0 / (m * (lam / N + setup.solver.rho))
    np.testing.assert_allclose(norm[0], tight, rtol=1e-6)
    assert np.all(norm <= tight * (1 + 1e-6))


def test_fast_replay_equals_the_family_step_replayed(dpadmm_runs):
    """DP-ADMM's replay (only the changed records' part of the gradient under D) equals its step (3a)
    replayed on each data set (``StepSolver.replay_means``)."""
    from solvers.engine import StepSolver
    from solvers.star import DPADMM

    class Replayed(DPADMM):
        replay_means = StepSolver.replay_means

    setup = dpadmm_runs[0]
    nb = setup  # the spec holds both neighbouring problems
    part = setup.solver.run(nb.problem_in, seed=3, trials=64, **KW)
    fast = replay_statistics(part, setup.solver, nb.problem_in, nb.problem_out, 0)
    reference = replay_statistics(part, Replayed(**setup.solver.get_params()), nb.problem_in, nb.problem_out, 0)
    for a, b in zip(fast, reference, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
