"""The Ray backend (solvers.engine.backends): single and chunked runs, estimators, secure generators, faults.

That every registered solver's Ray run equals its in-process run (transcript, ledger and its file,
privacy, the black-box channels) is ``solvers.testing.check_ray_equals_inprocess``, run on every example
of tests/solvers/test_conformance.py. One local Ray on loopback with 2 CPUs for the module; tiny problems.
Skipped, with the reason, when Ray is not importable or cannot start here.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pytest

from accountants import Ledger
from solvers import DPADMM, HorizontalProblem
from solvers.datasets import partition_horizontal
from solvers.engine.backends import AgentFailure, RayBackend, resolve_backend
from solvers.engine.streams import AgentStreams, agent_seeds

TOLERANCE = 1e-12


def _data(n=90, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1).max()
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.fixture(scope="module")
def star_problem():
    X, y = _data()
    return HorizontalProblem(
        partition_horizontal(X[:62], y[:62], 3, seed=0, sizes=[20, 21, 21]),
        lam=0.5,
        X_test=X[62:],
        y_test=y[62:],
        X_public=X[62:],
        y_public=y[62:],
    )


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray", reason='Ray is not installed (pip install ".[ray]")')
    if ray.is_initialized():  # another module's Ray: this module's tests need their own cluster
        ray.shutdown()
    try:
        ray.init(
            address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1"
        )
    except Exception as error:  # pragma: no cover - depends on the sandbox
        pytest.skip(f"a local Ray cannot start here: {type(error).__name__}: {error}")
    # The test solvers below are defined in this module, which the workers cannot import by name.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield ray
    ray.shutdown()


def _max_difference(a, b) -> float:
    arrays = [(a.model, b.model), (a.model_average, b.model_average)]
    arrays += [(a.transcript[c.name], b.transcript[c.name]) for c in a.transcript.channels]
    arrays += [(a.history[k], b.history[k]) for k in a.history]
    assert [c.name for c in a.transcript.channels] == [c.name for c in b.transcript.channels]
    assert a.history.keys() == b.history.keys()
    return max(float(np.max(np.abs(x - y))) for x, y in arrays)


@pytest.mark.slow
def test_single_run_and_estimator_on_ray(ray_cluster, star_problem):
    from solvers import DPADMMClassifier

    solver = DPADMM(epsilon=0.5, n_iterations=5)
    local = solver.run(star_problem, seed=7, accountants=())
    remote = solver.run(star_problem, seed=7, accountants=(), backend="ray")
    assert _max_difference(local, remote) <= TOLERANCE
    chunked = dict(seed=8, trials=3, accountants=(), max_chunk_bytes=1)  # one trial per chunk
    assert (
        _max_difference(solver.run(star_problem, **chunked), solver.run(star_problem, backend="ray", **chunked))
        <= TOLERANCE
    )
    X, y = _data(n=60, seed=2)
    fitted = [
        DPADMMClassifier(n_agents=3, n_iterations=5, epsilon=0.5, random_state=0, backend=backend).fit(X, y)
        for backend in ("inprocess", "ray")
    ]
    assert np.max(np.abs(fitted[0].coef_ - fitted[1].coef_)) <= TOLERANCE


@pytest.mark.slow
def test_a_secure_generator_is_honoured_on_ray_and_keeps_no_seed(ray_cluster, star_problem, tmp_path):
    from mechanisms import SecureReseedingGenerator
    from solvers.engine.ledger_runs import read_run_records
    from solvers.engine.result import UnreplayableSeed

    solver = DPADMM(epsilon=0.5, n_iterations=4)
    path = tmp_path / "ledger.jsonl"
    result = solver.run(
        star_problem, seed=SecureReseedingGenerator(), trials=2, accountants=(), backend="ray", ledger_path=path
    )
    assert result.seeds == (UnreplayableSeed(), UnreplayableSeed())
    assert not np.allclose(result.transcript["w_tilde"][:, 0], result.transcript["w_tilde"][:, 1])
    assert "each of 2 simulated trials" in result.privacy_scope
    assert read_run_records(path)[0]["n_trials"] == 2 and len(Ledger.load(path)) == 3 * 4


class _DiesAt(DPADMM):
    """DP-ADMM whose agent 1 process exits in iteration 3 (only when it runs alone, as an actor)."""

    def local_step(self, agents, plan, k, w, gamma, sent):
        if agents.rows.start == 1 and k == 3:
            os._exit(1)
        return super().local_step(agents, plan, k, w, gamma, sent)


class _HangsAt(DPADMM):
    """DP-ADMM whose agent 0 never answers in time in iteration 2 (only as an actor)."""

    def local_step(self, agents, plan, k, w, gamma, sent):
        if agents.rows.start == 0 and k == 2:
            time.sleep(30)
        return super().local_step(agents, plan, k, w, gamma, sent)


@pytest.mark.slow
def test_a_killed_actor_stops_the_run_and_the_ledger_keeps_every_release(ray_cluster, star_problem, tmp_path):
    solver = _DiesAt(epsilon=0.5, n_iterations=8)
    full = solver.run(star_problem, seed=0, accountants=()).ledger  # in process: nobody dies
    path = tmp_path / "ledger.jsonl"
    with pytest.raises(AgentFailure, match=r"agent 1 failed at iteration 3: .*Actor.*ledger") as caught:
        solver.run(star_problem, seed=0, accountants=(), backend=RayBackend(timeout=60), ledger_path=path)
    assert (caught.value.agent, caught.value.iteration, caught.value.ledger_path) == (1, 3, path)
    on_disk = list(Ledger.load(path))
    assert on_disk == [entry for entry in full if entry.iteration <= 3]  # nothing missing, nothing invented
    assert {entry.participant for entry in on_disk if entry.iteration == 3} == {0, 1, 2}


@pytest.mark.slow
def test_a_message_that_never_arrives_stops_the_run(ray_cluster, star_problem):
    solver = _HangsAt(epsilon=0.5, n_iterations=4)
    with pytest.raises(AgentFailure, match=r"agent 0 failed at iteration 2: no reply within timeout=1 s"):
        solver.run(star_problem, seed=0, accountants=(), backend=RayBackend(timeout=1.0))


@pytest.mark.slow
def test_an_address_is_not_silently_ignored_when_ray_is_already_running(ray_cluster):
    with pytest.warns(UserWarning, match=r"RayBackend\(address='127.0.0.1:1'\): Ray is already initialised"):
        assert RayBackend(address="127.0.0.1:1").connect() is ray_cluster


def test_without_ray_the_error_says_how_to_install(star_problem, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    with pytest.raises(ImportError, match=r'pip install "\.\[ray\]"'):
        DPADMM(n_iterations=2).run(star_problem, seed=0, backend="ray")
    with pytest.raises(ValueError, match="backend must be one of"):
        resolve_backend("dask")
    with pytest.raises(ValueError, match=r"^timeout must be finite and > 0 \(a real number\), got 0$"):
        RayBackend(timeout=0)


def test_agent_streams_give_each_agent_its_own_stream():
    seeds = agent_seeds(5, 3)
    assert [s.spawn_key for s in seeds] == [(0,), (1,), (2,)]
    draw = AgentStreams(seeds).standard_normal((4, 3, 2))
    for i in range(3):
        np.testing.assert_array_equal(draw[:, i], np.random.default_rng(seeds[i]).standard_normal((4, 2)))
        alone = AgentStreams.single(3, i, seeds[i]).standard_normal((4, 3, 2))
        np.testing.assert_array_equal(alone[:, i], draw[:, i])
        assert not np.any(np.delete(alone, i, axis=1))
    assert agent_seeds(np.random.SeedSequence(5), 3)[2].spawn_key == (2,)  # the parent is not advanced
    with pytest.raises(ValueError, match="agents on axis 1"):
        AgentStreams(seeds).standard_normal((3, 4))
    with pytest.raises(TypeError, match="does not support integers"):
        AgentStreams(seeds).integers(0, 5, size=(2, 3))


# --- ADMM sharing (Hu et al. 2019) on Ray -------------------------------------------------------


@pytest.fixture(scope="module")
def vertical_problem():
    from solvers.sharing import VerticalProblem, partition_vertical

    X, y = _data(n=80, d=6, seed=5)
    return VerticalProblem(partition_vertical(X[:60], y[:60], [2, 3, 1]), X_test=X[60:], y_test=y[60:])


@pytest.mark.slow
def test_sharing_l1_estimator_and_parties_own_streams(ray_cluster, vertical_problem):
    from solvers.regularizers import L1Regularizer
    from solvers.sharing import ADMMSharing, VerticalLogisticRegression, VerticalProblem, VerticalSGD

    l1 = VerticalProblem(vertical_problem.partition, regularizer=L1Regularizer(), lam=0.02)
    solver = ADMMSharing(n_iterations=4, noise="output", noise_multiplier=0.1, b1=5.0)
    local, remote = (solver.run(l1, seed=1, accountants=(), backend=b) for b in ("inprocess", "ray"))
    assert _max_difference(local, remote) <= TOLERANCE
    # party m's noise is child m of the trial's seed: (u − D_m x_m)/σ_m is that stream's normals
    noisy = solver.run(vertical_problem, seed=2, accountants=(), record_white_box=True)
    sigma = noisy.details.sigma
    for m, child in enumerate(agent_seeds(2, 3)):
        drawn = (noisy.transcript["u"][:, m] - noisy.transcript["u_clean"][:, m]) / sigma[m]
        np.testing.assert_allclose(drawn, np.random.default_rng(child).standard_normal((4, 60)), atol=1e-9)
    X, y = _data(n=60, d=4, seed=6)
    fitted = [
        VerticalLogisticRegression(
            blocks=2,
            protocol="admm_sharing",
            n_iterations=5,
            noise="output",
            noise_multiplier=0.5,
            b1=5.0,
            random_state=0,
            backend=backend,
        ).fit(X, y)
        for backend in ("inprocess", "ray")
    ]
    assert np.max(np.abs(fitted[0].coef_ - fitted[1].coef_)) <= TOLERANCE
    with pytest.raises(ValueError, match="VerticalSGD has no agent protocol"):
        VerticalSGD(n_epochs=1).run(vertical_problem, seed=0, backend="ray")
