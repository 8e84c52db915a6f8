"""attacks.kkt: the KKT inference attack of Zhang, Khalili & Liu 2018 (Sec. 6.2, App. E) on M-ADMM, PP and DVP."""

import dataclasses
import json
import math
import time

import numpy as np
import pytest
from scipy.special import gammaln

from attacks.kkt import (
    KKTInference,
    KKTKnowledge,
    audit_section,
    candidate_ranks,
    eta_free_estimate,
    eta_free_subspace,
    kkt_terms,
    noise_reference,
    reconstruct,
    weighted_residual_mean,
)
from solvers.datasets import partition_horizontal
from solvers.decentralized import DVP, MADMM, RADMM, DecentralizedProblem, PenaltyPerturbation
from solvers.graph import GraphTopology

CHORD = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 2)]  # node 0 has degree 3


def _problem(first_label: float = 1.0, m: int = 30, d: int = 6, seed: int = 0) -> DecentralizedProblem:
    """Non-negative unit-norm features (like Adult), C = m; node 0's first record has ``first_label``."""
    rng = np.random.default_rng(seed)
    X = np.abs(rng.normal(size=(5 * m, d)))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ rng.normal(size=d) + 0.2 * rng.normal(size=5 * m) > 0, 1.0, -1.0)
    part = partition_horizontal(X, y, 5, seed=0)
    labels = np.array(part.y)
    labels[0, 0] = first_label
    labels.setflags(write=False)
    part = dataclasses.replace(part, y=labels)
    return DecentralizedProblem.create(part, GraphTopology.from_edges(5, CHORD), C=float(m), rho=0.22)


def _pool(problem, size=40):
    """The target (node 0, slot 0) at index 0 and other nodes' records as decoys."""
    X = np.asarray(problem.partition.X)
    return np.concatenate([X[0, :1], X[1:, :].reshape(-1, X.shape[-1])[: size - 1]])


@pytest.mark.parametrize("label", [1.0, -1.0])
@pytest.mark.parametrize("T", [1, 4])
def test_noiseless_madmm_is_recovered_exactly(label, T):
    """Without noise (α = ∞) App. E's equation gives r_t = s_t x_1 exactly, so one iteration suffices."""
    problem = _problem(label)
    solver = MADMM(theta=0.5, q1=1.1, n_iterations=T)
    result = solver.run(problem, seed=3, trials=2, record_transcript=True)
    attack = KKTInference(KKTKnowledge.from_problem(problem, 0), 0.5, eta=result.details.eta[:, 0])
    x1 = problem.partition.X[0, 0]
    m = attack.evaluate(result.transcript, x1, label, _pool(problem), 0)
    assert np.all(m["cosine"] >= 0.999) and np.all(m["abs_cosine"] >= 0.999)
    assert np.all(m["label_correct"]) and np.all(m["rank"] == 1)


def test_residual_identity_with_noise():
    """Equation (E): with the true η, r_t − ε_i(t) = s_t x_1 (white-box noise read only by the test)."""
    problem = _problem(-1.0)
    solver = PenaltyPerturbation(theta=0.5, q1=1.05, alpha=5.0, q2=1.03, n_iterations=5)
    result = solver.run(problem, seed=1, trials=2, record_transcript=True, record_white_box=True)
    knowledge = KKTKnowledge.from_problem(problem, 0)
    f = result.transcript["f"]
    a, b = kkt_terms(f, knowledge, 0.5)
    eta = result.details.eta[:, 0]
    r = -a / (2 * eta[:, None, None] * 3) - b / (2 * 3)
    x1, y1 = problem.partition.X[0, 0], -1.0
    s = problem.C / (2 * eta[:, None] * 3 * 30) * y1 * problem.loss.dphi(y1 * f[1:, :, 0] @ x1)
    assert np.abs(r - result.transcript["noise"][1:, :, 0] - s[..., None] * x1).max() <= 1e-8
    assert np.all(s > 0)  # sign(s_t) = −y_1
    mean = weighted_residual_mean(a, b, eta, 3.0)
    assert np.allclose(mean, r.mean(axis=0))


def test_attack_reads_only_the_public_transcript():
    problem = _problem()
    result = PenaltyPerturbation(theta=0.5, q1=1.1, alpha=50.0, n_iterations=3).run(
        problem, seed=0, trials=2, record_transcript=True, record_white_box=True
    )
    attack = KKTInference(KKTKnowledge.from_problem(problem, 0), 0.5, eta=result.details.eta[:, 0])
    assert np.array_equal(attack.estimate(result.transcript), attack.estimate(result.transcript.public()))
    assert not attack.attack(result, _pool(problem), 0).white_box
    assert KKTKnowledge.from_problem(problem, 0).X_known.shape == (29, 6)  # the first record is unknown


def test_eta_free_subspace_recovers_noiseless_madmm_without_eta():
    problem = _problem(-1.0)
    result = MADMM(theta=0.5, q1=1.1, n_iterations=3).run(problem, seed=2, trials=2, record_transcript=True)
    attack = KKTInference(KKTKnowledge.from_problem(problem, 0), 0.5, eta=None, eta_free="subspace")
    m = attack.evaluate(result.transcript, problem.partition.X[0, 0], -1.0, _pool(problem), 0)
    assert np.all(m["cosine"] >= 0.999) and np.all(m["label_correct"])
    # A tenfold misspecified η in plain averaging does not recover it (the paper's intuition).
    wrong = KKTInference(KKTKnowledge.from_problem(problem, 0), 0.5, eta=10 * result.details.eta[:, 0])
    assert np.all(
        wrong.evaluate(result.transcript, problem.partition.X[0, 0], -1.0, _pool(problem), 0)["abs_cosine"] < 0.99
    )


def test_eta_free_late_mean_on_a_converged_run():
    """At the fixed point a_t = −(C/B) y_1 L′ x_1: the late mean of −a_t points along −y_1 x_1."""
    problem = _problem(1.0)
    result = MADMM(theta=0.5, n_iterations=80).run(problem, seed=2, trials=1, record_transcript=True)
    attack = KKTInference(KKTKnowledge.from_problem(problem, 0), 0.5, eta=None, late_fraction=0.25)
    m = attack.evaluate(result.transcript, problem.partition.X[0, 0], 1.0, _pool(problem), 0)
    assert m["cosine"][0] >= 0.99 and m["label_correct"][0]


def test_eta_free_estimate_window():
    a = np.arange(10.0)[:, None, None] * np.ones((10, 2, 3))
    assert np.allclose(eta_free_estimate(a, 0.5), -np.mean(np.arange(5, 10)))
    assert np.allclose(eta_free_estimate(a, 0.01), -9.0)
    assert np.allclose(eta_free_estimate(a, 1.0), -4.5)


def test_candidate_ranks():
    e = np.eye(3)
    pool = np.stack([e[0], e[1], (e[0] + e[1]) / math.sqrt(2), 2 * e[0]])  # index 3 duplicates 0's direction
    x_hat = np.array([[1.0, 0.1, 0.0]])
    assert candidate_ranks(x_hat, pool[:3], 0).tolist() == [1]
    assert candidate_ranks(x_hat, pool[:3], 2).tolist() == [2]
    assert candidate_ranks(x_hat, pool[:3], 1).tolist() == [3]
    assert candidate_ranks(x_hat, pool, 0).tolist() == [2]  # ties count against the attacker
    per_trial = np.stack([pool[:3], pool[[1, 0, 2]]])
    assert candidate_ranks(np.repeat(x_hat, 2, axis=0), per_trial, np.array([0, 1])).tolist() == [1, 1]


def test_noise_reference_matches_isotropic_theory():
    d, M = 105, 50
    rng = np.random.default_rng(0)
    pool = np.abs(rng.normal(size=(M, d)))
    m = noise_reference(pool[0], 1.0, pool, 0, d=d, draws=2000, seed=1)
    expected = math.exp(gammaln(d / 2) - gammaln((d + 1) / 2)) / math.sqrt(math.pi)  # E|u_1|, u uniform on S^{d−1}
    se = m["abs_cosine"].std() / math.sqrt(2000)
    assert abs(m["abs_cosine"].mean() - expected) <= 4 * se
    assert expected == pytest.approx(math.sqrt(2 / (math.pi * d)), rel=0.01)
    assert abs(m["label_correct"].mean() - 0.5) <= 4 * 0.5 / math.sqrt(2000)
    assert abs(m["rank"].mean() - (M + 1) / 2) <= 4 * (M / math.sqrt(12)) / math.sqrt(2000)


def test_attack_scores_auroc_is_the_mean_normalised_rank():
    problem = _problem()
    result = PenaltyPerturbation(theta=0.5, q1=1.1, alpha=30.0, q2=1.05, n_iterations=6).run(
        problem, seed=4, trials=6, record_transcript=True
    )
    attack = KKTInference(KKTKnowledge.from_problem(problem, 0), 0.5, eta=result.details.eta[:, 0])
    pool = _pool(problem)
    scores = attack.attack(result, pool, 0)
    assert scores.scores_in.shape == (6,) and scores.scores_out.shape == (6 * 39,)
    ranks = attack.evaluate(result.transcript, pool[0], 1.0, pool, 0)["rank"]
    assert scores.metadata["eta"] and not scores.metadata["white_box"]
    assert len(set(ranks.tolist())) > 1  # the trials differ, so the identity below is not vacuous
    for r in range(6):  # one trial: AUROC = fraction of decoys scoring below the target
        single = attack.attack(result.trial(r), pool, 0).metrics()["auroc"]
        assert single == pytest.approx(1 - (ranks[r] - 1) / 39, abs=1e-12)


def test_reconstruct_sign_rule():
    v = np.array([[-1.0, -2.0], [3.0, 1.0], [0.0, 0.0]])
    x_hat, y_hat = reconstruct(v)
    assert np.allclose(x_hat[0], [1, 2] / np.sqrt(5)) and y_hat[0] == 1.0
    assert np.allclose(x_hat[1], [3, 1] / np.sqrt(10)) and y_hat[1] == -1.0
    assert np.allclose(x_hat[2], 0.0)
    x_hat, y_hat = reconstruct(v[:1], sign_reference=np.array([-1.0, 0.0]))
    assert np.allclose(x_hat[0], [-1, -2] / np.sqrt(5)) and y_hat[0] == -1.0


def test_audit_section_is_json_ready_and_fast():
    problem = _problem()
    started = time.perf_counter()
    section = audit_section(
        PenaltyPerturbation(theta=0.5, q1=1.1, alpha=20.0, q2=1.05, n_iterations=8), problem, agent=0, trials=3, seed=0
    )
    assert time.perf_counter() - started < 10
    assert set(section) == {"title", "markdown", "data"}
    json.dumps(section["data"])
    attackers = [row["attacker"] for row in section["data"]["rows"]]
    assert attackers[0] == "η known" and attackers[-1] == "pure-noise reference"
    assert "η private, guess θ" in attackers and "η-free, subspace" in attackers
    assert 0 < section["data"]["rero_bounds"]["top1"] <= 1
    assert "| η known |" in section["markdown"]
    dvp = audit_section(DVP(theta=0.5, alpha=20.0, n_iterations=4), problem, trials=2, seed=0)
    assert not any(row["attacker"].startswith("η private") for row in dvp["data"]["rows"])


def test_bad_input():
    problem = _problem()
    knowledge = KKTKnowledge.from_problem(problem, 0)
    result = MADMM(theta=0.5, n_iterations=2).run(problem, seed=0, trials=1, record_transcript=True)
    f = result.transcript["f"]
    a, b = kkt_terms(f, knowledge, 0.5)
    with pytest.raises(TypeError, match="DecentralizedProblem"):
        KKTKnowledge.from_problem(object(), 0)
    with pytest.raises(ValueError, match="agent"):
        KKTKnowledge.from_problem(problem, 7)
    with pytest.raises(ValueError, match="eta"):
        weighted_residual_mean(a, b, [0.5, -1.0], 3.0)
    with pytest.raises(ValueError, match="weights"):
        weighted_residual_mean(a, b, 0.5, 3.0, weights=[1.0])
    with pytest.raises(ValueError, match="n_directions"):
        eta_free_subspace(a, b, f[1:, :, 0], knowledge, n_directions=0)
    with pytest.raises(ValueError, match="late_fraction"):
        eta_free_estimate(a, 0.0)
    with pytest.raises(ValueError, match="eta_free"):
        KKTInference(knowledge, 0.5, eta_free="magic")
    with pytest.raises(ValueError, match="theta"):
        KKTInference(knowledge, [0.5], eta=0.5).estimate(result.transcript)
    with pytest.raises(ValueError, match="sign_reference"):
        reconstruct(np.ones((1, 6)), sign_reference=np.ones(3))
    with pytest.raises(ValueError, match="true_index"):
        candidate_ranks(np.ones((1, 6)), np.ones((4, 6)), 4)
    with pytest.raises(ValueError, match="candidates"):
        candidate_ranks(np.ones((1, 6)), np.ones((4, 5)), 0)
    with pytest.raises(ValueError, match="transcript"):
        KKTInference(knowledge, 0.5, eta=0.5).estimate(None)
    with pytest.raises(TypeError, match="PenaltyPerturbation"):
        audit_section(RADMM(eta=1.0, n_iterations=2), problem, trials=1, seed=0)
    with pytest.raises(ValueError, match="trials"):
        audit_section(MADMM(n_iterations=2), problem, trials=0, seed=0)
