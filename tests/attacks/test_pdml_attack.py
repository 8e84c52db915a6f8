"""attacks.pdml: replay of a PDML server's solve from the broadcasts, and the Neyman–Pearson test."""

import dataclasses

import numpy as np
import pytest

from attacks.pdml import BroadcastNP, replay_server
from audits.neighbours import broadcast_neighbours
from audits.targets.pdml import broadcast_solver
from solvers.pdml.randomization import debias_coefficient

TRIALS = 800


@pytest.fixture(scope="module")
def setup():
    nb = broadcast_neighbours()
    solver = broadcast_solver(nb.problem_in, 1e-5, mu=1.0)
    runs = {}
    for key, problem, entropy in (("in", nb.problem_in, 11), ("out", nb.problem_out, 12)):
        runs[key] = solver.run(
            problem,
            seeds=np.random.SeedSequence(entropy).spawn(TRIALS),
            accountants=(),
            record_history=False,
            record_white_box=True,
            transcript_agents=None,
        ).transcript
    return nb, solver, runs


def test_replay_of_the_true_hypothesis_reproduces_the_white_box_iterates(setup):
    nb, solver, runs = setup
    for key, problem, other in (("in", nb.problem_in, nb.problem_out), ("out", nb.problem_out, nb.problem_in)):
        for agent in (0, 2):
            replayed = replay_server(solver, problem, runs[key], agent)
            assert replayed.shape == (4, TRIALS, problem.n_features)
            assert np.abs(replayed - runs[key]["w"][:, :, agent]).max() <= 1e-8
        wrong = replay_server(solver, other, runs[key], 0)
        moved = np.linalg.norm(wrong[1:] - runs[key]["w"][1:, :, 0], axis=-1)
        assert moved.min() > 1e-3  # the canary moves every iterate


def test_mean_shift_is_the_canary_gradient_gap_over_the_curvature_and_within_the_derived_sensitivity(setup):
    # Replacing x_c by −x_c (label fixed, own column, ‖x_c‖ = 1) changes the debiased logistic gradient by
    # (1 + 2c(ε))/m on the canary's column at every w, so the solves differ by that over the column's
    # curvature, between quad = a/n + 2βN_0 and quad + 1/(4m): below the derived Δ_0 = 2(1 + c)/(m quad).
    nb, solver, runs = setup
    details = solver.plan(nb.problem_in).details
    stats = BroadcastNP(solver, nb.problem_in, nb.problem_out).statistics(runs["in"])
    shift = np.linalg.norm(stats.w_in[1:] - stats.w_out[1:], axis=-1)
    m, c = 10, float(debias_coefficient(solver.eps_label))
    quad = nb.problem_in.lam / 3 + 2 * solver.beta * 2
    assert np.all(shift >= (1 + 2 * c) / (m * quad + 0.25) - 1e-9)
    assert np.all(shift <= (1 + 2 * c) / (m * quad) + 1e-9)
    assert np.all(shift <= details.sensitivity[0])
    assert shift.max() / details.sensitivity[0] == pytest.approx((1 + 2 * c) / (2 + 2 * c), rel=0.02)


def test_scores_have_mean_plus_and_minus_half_mu_squared_and_variance_mu_squared(setup):
    nb, solver, runs = setup
    test = BroadcastNP(solver, nb.problem_in, nb.problem_out)
    s_in, s_out = test.statistics(runs["in"]), test.statistics(runs["out"])
    mu_sq = float(np.concatenate([s_in.mu_sq, s_out.mu_sq]).mean())
    assert 0.7 < mu_sq < 1.0  # ≈ (0.885 · derived μ = 1)²
    se = np.sqrt(mu_sq / TRIALS)
    assert abs(s_in.llr.mean() - mu_sq / 2) < 4 * se
    assert abs(s_out.llr.mean() + mu_sq / 2) < 4 * se
    for llr in (s_in.llr, s_out.llr):
        assert llr.var() == pytest.approx(mu_sq, rel=0.15)
    scores = test.attack_scores(s_in.llr, s_out.llr)
    assert scores.white_box and scores.metrics()["auroc"] > 0.7


def test_bad_inputs_are_rejected_with_the_argument_named(setup):
    nb, solver, runs = setup
    with pytest.raises(ValueError, match="y_reported"):
        replay_server(solver, nb.problem_in, {"w_tilde": runs["in"]["w_tilde"], "eta": runs["in"]["eta"]})
    with pytest.raises(ValueError, match="w_tilde"):
        replay_server(dataclasses.replace(solver, n_iterations=5), nb.problem_in, runs["in"])
    with pytest.raises(ValueError, match="agent"):
        replay_server(solver, nb.problem_in, runs["in"], agent=3)
    with pytest.raises(ValueError, match="V = 0"):
        BroadcastNP(dataclasses.replace(solver, V=0.0), nb.problem_in, nb.problem_out).sigmas()
