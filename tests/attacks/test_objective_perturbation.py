"""Transcript reconstruction and realised privacy loss for objective / penalty perturbation (Zhang, Khalili &
Liu 2020 and 2018)."""

import numpy as np
import pytest

from attacks.objective_perturbation import (
    TranscriptNP,
    costly_iterations,
    public_gradients,
    realised_privacy_loss,
    reconstruct_duals,
    reconstruct_noise,
)
from solvers.datasets import HorizontalPartition
from solvers.decentralized import (
    DVP,
    MRADMM,
    RADMM,
    DecentralizedProblem,
    ObjectivePerturbationADMM,
    PenaltyPerturbation,
)
from solvers.graph import GraphTopology

CHORD = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]  # degrees 3, 2, 3, 2


def _problems(x_out=None, y_out=-1.0, N=4, m=15, d=3, C=15.0, seed=0):
    """D and D′ differing in node 1's last record: (e_1, +1) in D, (x_out, y_out) in D′."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(N, m, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=-1, keepdims=True))
    y = np.where(rng.random((N, m)) < 0.5, 1.0, -1.0)
    graph = GraphTopology.from_edges(N, CHORD)

    def problem(x, label):
        Xc, yc = X.copy(), y.copy()
        Xc[1, -1], yc[1, -1] = x, label
        part = HorizontalPartition(
            X=Xc,
            y=yc,
            mask=np.ones((N, m), bool),
            sizes=np.full(N, m, np.int64),
            indices=np.arange(N * m, dtype=np.int64).reshape(N, m),
        )
        return DecentralizedProblem.create(part, graph, C=C, rho=0.5)

    e1 = np.eye(d)[0]
    return problem(e1, 1.0), problem(e1 if x_out is None else x_out, y_out)


PROBLEM_IN, PROBLEM_OUT = _problems()

SOLVERS = [
    RADMM(eta=1.0, gamma=0.5, alpha=2.0, n_iterations=8),
    MRADMM(eta=np.outer(1.05 ** np.arange(4), [1.0, 1.2, 0.9, 1.1]), gamma=0.0, alpha=[3, 2, 2, 1], n_iterations=8),
    MRADMM(eta=1.0, eta_growth=1.04, gamma=0.5, alpha=2.0, dual_step="common", theta=0.7, n_iterations=8),
    ObjectivePerturbationADMM(eta=1.0, alpha=2.0, n_iterations=5),
    PenaltyPerturbation(theta=0.5, q1=1.05, alpha=2.0, q2=1.03, n_iterations=5),
    DVP(theta=0.5, alpha=2.0, q2=1.02, n_iterations=5),
]


@pytest.fixture(scope="module", params=SOLVERS, ids=lambda s: f"{s.name}-{getattr(s, 'dual_step', '')}")
def run(request):
    solver = request.param
    return solver, solver.run(PROBLEM_IN, seed=3, trials=6, accountants=(), record_history=False, record_white_box=True)


def test_duals_are_rebuilt_exactly_from_the_broadcasts(run):
    _, result = run
    f = result.transcript.public()["f"]
    lam = reconstruct_duals(f, PROBLEM_IN.graph.adjacency, result.details.theta)
    assert np.abs(lam - result.transcript["lam"]).max() <= 1e-12 * max(1.0, np.abs(lam).max())


def test_noise_is_recovered_from_the_public_channel_alone(run):
    solver, result = run
    t = costly_iterations(result.details)
    expected = np.flatnonzero(np.asarray(result.details.noise_slot) >= 0) + 1
    assert np.array_equal(t, expected)
    eps = reconstruct_noise(result.transcript.public()["f"], PROBLEM_IN, result.details)
    truth = result.transcript["noise"][t]
    assert np.abs(truth).max() > 0.1  # the noise is real
    assert np.abs(eps - truth).max() <= 1e-8


def test_public_gradient_is_the_noisy_local_gradient(run):
    """Issue 8: ∇O(f_i(t), D_i) + s ε_i(t), from the broadcasts, equals its white-box value."""
    _, result = run
    f = result.transcript["f"]
    t = costly_iterations(result.details)
    p = public_gradients(result.transcript.public()["f"], PROBLEM_IN.graph.adjacency, result.details)
    scale = np.asarray(result.details.noise_scale)[t - 1][:, None, :, None]
    direct = PROBLEM_IN.local_gradient_seed(f[t]) + scale * result.transcript["noise"][t]
    assert np.abs(p - direct).max() <= 1e-8 * max(1.0, np.abs(direct).max())


def test_realised_loss_is_bounded_by_the_theorem_per_iteration_for_any_neighbour(run):
    """The per-iteration bound of the privacy proofs (Zhang, Khalili & Liu 2020, App. C, (51)–(57); Zhang,
    Khalili & Liu 2018, App. D, (57)–(66)) holds for every transcript: |ℓ_t| ≤ ε_t for every valid D′ (label flip,
    x̂ = −x, a random unit-norm record)."""
    _, result = run
    f = result.transcript.public()["f"]
    t = costly_iterations(result.details)
    eps_t = np.asarray(result.details.epsilons)[t - 1, 1][:, None]
    rng = np.random.default_rng(5)
    random_unit = rng.normal(size=3)
    random_unit /= np.linalg.norm(random_unit)
    worst_jacobian = 0.0
    for x_out, y_out in ((None, -1.0), (-np.eye(3)[0], 1.0), (random_unit, -1.0), (random_unit, 1.0)):
        _, problem_out = _problems(x_out, y_out)
        parts = realised_privacy_loss(f, PROBLEM_IN, problem_out, result.details, 1)
        assert parts["loss"].shape == (t.size, 6)
        assert np.all(np.abs(parts["loss"]) <= eps_t)
        worst_jacobian = max(worst_jacobian, np.abs(parts["jacobian_term"]).max())
    assert worst_jacobian > 1e-4  # the random record changes the Hessian


def test_label_flip_shifts_the_noise_by_exactly_C_over_sB_with_equal_jacobians(run):
    _, result = run
    parts = realised_privacy_loss(result.transcript.public()["f"], PROBLEM_IN, PROBLEM_OUT, result.details, 1)
    t = costly_iterations(result.details)
    scale = np.asarray(result.details.noise_scale)[t - 1, 1][:, None]
    shift = np.linalg.norm(parts["eps_out"] - parts["eps_in"], axis=-1)
    assert np.allclose(shift, PROBLEM_IN.C / (scale * 15), rtol=1e-9)
    assert np.abs(parts["jacobian_term"]).max() <= 1e-12


def test_jacobian_term_matches_a_finite_difference_change_of_variables():
    """Independent check of ln det H: the log-Jacobian of f ↦ ε (by central differences of the
    reconstruction) equals ln det(∇²O + 2ηV I) − d ln s, for objective and penalty perturbation."""
    from attacks.objective_perturbation import _log_det_jacobian

    for solver in (SOLVERS[0], SOLVERS[4]):
        result = solver.run(PROBLEM_IN, seed=1, trials=1, accountants=(), record_history=False)
        f = np.array(result.transcript.public()["f"])
        details, t0, node, h = result.details, int(costly_iterations(result.details)[1]), 1, 1e-6
        slot = int(np.flatnonzero(costly_iterations(details) == t0)[0])
        J = np.empty((3, 3))
        for k in range(3):
            plus, minus = f.copy(), f.copy()
            plus[t0, 0, node, k] += h
            minus[t0, 0, node, k] -= h
            diff = reconstruct_noise(plus, PROBLEM_IN, details) - reconstruct_noise(minus, PROBLEM_IN, details)
            J[:, k] = diff[slot, 0, node] / (2 * h)
        s = details.noise_scale[t0 - 1, node]
        eta = np.asarray(details.eta)[[t0 - 1]]
        V = np.asarray(PROBLEM_IN.graph.adjacency).sum(axis=1)
        analytic = _log_det_jacobian(f[[t0]], PROBLEM_IN, eta, V, node)[0, 0] - 3 * np.log(s)
        assert np.linalg.slogdet(J)[1] == pytest.approx(analytic, abs=1e-5)


def test_np_scores_separate_the_hypotheses():
    solver = RADMM(eta=1.0, gamma=0.5, alpha=4.0, n_iterations=8)
    attack = TranscriptNP(PROBLEM_IN, PROBLEM_OUT, 1)
    common = dict(trials=300, accountants=(), record_history=False)
    scores = attack.attack(solver.run(PROBLEM_IN, seed=1, **common), solver.run(PROBLEM_OUT, seed=2, **common))
    # d = 3, shift C/B = 1, α = 4: a clear but imperfect test, scores bounded by Σ α C/B = 16.
    assert scores.scores_in.mean() > 0.5 > -0.5 > scores.scores_out.mean()
    assert 0.6 < scores.metrics()["auroc"] < 1.0
    assert np.abs(np.concatenate([scores.scores_in, scores.scores_out])).max() <= 16.0
    assert scores.white_box is False and "broadcast" in scores.metadata["reads"]


def test_bad_inputs_are_refused_with_the_argument_named():
    solver = RADMM(eta=1.0, gamma=0.5, alpha=2.0, n_iterations=4)
    result = solver.run(PROBLEM_IN, seed=0, trials=2, accountants=(), record_history=False)
    f = result.transcript.public()["f"]
    with pytest.raises(ValueError, match="agent must be a node index"):
        realised_privacy_loss(f, PROBLEM_IN, PROBLEM_OUT, result.details, 7)
    with pytest.raises(ValueError, match="f must be the transcript channel"):
        reconstruct_noise(f[:-1], PROBLEM_IN, result.details)
    with pytest.raises(ValueError, match="details must hold"):
        costly_iterations({"eta": 1})
    non_private = RADMM(eta=1.0, gamma=0.5, n_iterations=4).run(PROBLEM_IN, seed=0, trials=2, accountants=())
    with pytest.raises(ValueError, match="not private"):
        costly_iterations(non_private.details)
    single = solver.run(PROBLEM_IN, seed=0, accountants=())
    with pytest.raises(ValueError, match="batched"):
        TranscriptNP(PROBLEM_IN, PROBLEM_OUT, 1).score(single)
