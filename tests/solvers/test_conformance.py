"""Every solver of the registry passes ``solvers.testing.check_solver`` on a small problem.

One example per built-in name (a test fails when a solver is registered without one) and per further
mode whose agents run other code, each check a separate test: batched trial r equals the single run with
its seed, the sequential backend (and, marked slow, Ray) equals the in-process run to 1e-12 (transcript,
ledger and its file, privacy), a step family's replay reproduces its releases, the ledger is the
accounted releases and on disk before each release, a run over budget is refused whole, the privacy
scope and a secure generator are honoured, the transcript holds the declared channels, the parameters
round-trip. A check that does not apply is skipped with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from solvers import HorizontalProblem
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
)
from solvers.graph import GraphTopology
from solvers.pdml import PDML
from solvers.registry import BUILT_IN, solver_class
from solvers.sharing import ADMMSharing, VerticalProblem, VerticalSGD, partition_vertical
from solvers.star import ADMM, DPADMM, NaiveNoisyADMM
from solvers.testing import (
    SOLVER_CHECKS,
    SolverCheckSkipped,
    check_ray_equals_inprocess,
    check_replay,
    check_sequential_equals_inprocess,
    check_solver,
)


def _records(n: int = 60, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1).max()
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _star() -> HorizontalProblem:
    X, y = _records()
    return HorizontalProblem(
        partition_horizontal(X[:45], y[:45], 3, seed=0),
        lam=0.5,
        X_test=X[45:],
        y_test=y[45:],
        X_public=X[45:],
        y_public=y[45:],
    )


def _graph() -> DecentralizedProblem:
    X, y = _records(seed=1)
    return DecentralizedProblem.create(partition_horizontal(X, y, 3, seed=0), GraphTopology.ring(3), C=20.0, rho=1.0)


def _pdml() -> HorizontalProblem:
    X, y = _records(n=80, seed=2)
    graph = GraphTopology.from_edges(4, [(0, 1), (1, 2), (2, 3), (3, 0)])
    return HorizontalProblem(partition=partition_horizontal(X, y, 4, seed=0), lam=1.0, topology=graph)


def _vertical() -> VerticalProblem:
    X, y = _records(n=50, d=5, seed=3)
    return VerticalProblem(partition_vertical(X[:40], y[:40], [2, 3]), X_test=X[40:], y_test=y[40:])


#: name → (a small solver, a problem builder).
EXAMPLES = {
    "admm": (ADMM(n_iterations=3), _star),
    "naive": (NaiveNoisyADMM(epsilon=0.5, n_iterations=3, sensitivity="tight"), _star),
    "dpadmm": (DPADMM(epsilon=0.5, n_iterations=4), _star),
    "decentralized_admm": (DecentralizedADMM(eta=1.0, n_iterations=3), _graph),
    "admm_op": (ObjectivePerturbationADMM(eta=1.0, alpha=5.0, n_iterations=3), _graph),
    "mradmm": (MRADMM(eta=1.0, eta_growth=1.04, gamma=0.5, alpha=5.0, n_iterations=4), _graph),
    "radmm": (RADMM(eta=1.0, alpha=5.0, n_iterations=4), _graph),
    "pp": (PenaltyPerturbation(theta=0.5, alpha=5.0, n_iterations=3), _graph),
    "madmm": (MADMM(theta=0.5, n_iterations=3), _graph),
    "dvp": (DVP(theta=0.5, alpha=5.0, n_iterations=3), _graph),
    "pdml": (PDML(n_iterations=3), _pdml),
    "admm_sharing": (ADMMSharing(n_iterations=4, noise="output", noise_multiplier=0.5, b1=5.0), _vertical),
    "vertical_sgd": (VerticalSGD(n_epochs=2, batch_size=8), _vertical),
}


def test_every_registered_solver_has_an_example_of_its_own_class():
    assert set(EXAMPLES) == set(BUILT_IN)
    for name, (solver, _) in EXAMPLES.items():
        assert type(solver) is solver_class(name) and solver.name == name


#: Further modes of a registered solver whose agents run other code (its own noise, none), checked like the
#: examples (the parameter mode's replay is refused aloud: its noise lies in col(D_m), with no one σ).
MODES = {
    "admm_sharing[parameter]": (ADMMSharing(n_iterations=4, noise="parameter", sigma=0.05, b1=5.0), _vertical),
    "admm_sharing[noiseless]": (ADMMSharing(n_iterations=4), _vertical),
}
IN_THIS_PROCESS = [check for check in SOLVER_CHECKS if check is not check_ray_equals_inprocess]


def _conforms(name, check):
    solver, problem = {**EXAMPLES, **MODES}[name]
    try:
        check(solver, problem())
    except SolverCheckSkipped as reason:
        pytest.skip(f"{check.__name__}({name}): {reason}")


@pytest.mark.parametrize("check", IN_THIS_PROCESS, ids=lambda check: check.__name__)
@pytest.mark.parametrize("name", sorted(EXAMPLES) + sorted(MODES))
def test_solver_conformance(name, check):
    _conforms(name, check)


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray", reason='Ray is not installed (pip install ".[ray]")')
    if ray.is_initialized():  # another module's Ray: this module starts its own
        ray.shutdown()
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    except Exception as error:  # pragma: no cover - depends on the sandbox
        pytest.skip(f"a local Ray cannot start here: {type(error).__name__}: {error}")
    yield ray
    ray.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXAMPLES) + sorted(MODES))
def test_ray_conformance(ray_cluster, name):
    _conforms(name, check_ray_equals_inprocess)


def test_a_check_that_does_not_apply_says_why():
    solver, problem = EXAMPLES["vertical_sgd"]
    with pytest.raises(SolverCheckSkipped, match="runs in process only"):
        check_sequential_equals_inprocess(solver, problem())
    with pytest.raises(SolverCheckSkipped, match="VerticalSGD has no replay: it is not a solvers.engine.StepSolver"):
        check_replay(solver, problem())
    solver, problem = MODES["admm_sharing[parameter]"]
    with pytest.raises(SolverCheckSkipped, match=r"ADMMSharing has no replay: its noise lies in col\(D_m\)"):
        check_replay(solver, problem())


@dataclass(frozen=True)
class _UnseededDPADMM(DPADMM):
    """Draws its noise from fresh OS entropy instead of the trial's seed: nothing replays it."""

    def trial_draws(self, seed, problem, plan):
        return super().trial_draws(None, problem, plan)


def test_check_solver_passes_a_conforming_solver_and_names_a_broken_promise():
    skipped = check_solver(DPADMM(epsilon=0.5, n_iterations=3), _star())
    assert set(skipped) <= {"check_ray_equals_inprocess"}  # only when Ray is not running here
    with pytest.raises(AssertionError, match=r"check_batched_equals_single\(_UnseededDPADMM\): trial 0"):
        check_solver(_UnseededDPADMM(epsilon=0.5, n_iterations=3), _star())


def test_registry_resolves_module_attribute_and_refuses_what_is_not_a_solver():
    assert solver_class("solvers.star.admm:DPADMM") is DPADMM
    with pytest.raises(ValueError, match="unknown solver 'no_such_solver'"):
        solver_class("no_such_solver")
    with pytest.raises(ValueError, match="cannot import module 'no_such_module_xyz'"):
        solver_class("no_such_module_xyz:Solver")
    with pytest.raises(ValueError, match="has no attribute 'Missing'"):
        solver_class("solvers.star.admm:Missing")
    with pytest.raises(ValueError, match="not a solvers.engine.Solver subclass"):
        solver_class("solvers.star.admm:linearized_update")


def test_a_step_family_writes_no_agent_program_iteration_or_replay_of_its_own():
    import solvers.examples.noisy_gradient_admm as example
    import solvers.sharing.admm as sharing
    import solvers.star.admm as star
    from solvers.engine import AgentProgram, Coordinator

    for module, own_replay in ((example, False), (star, True), (sharing, False)):  # DP-ADMM: D and D′ together
        classes = [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module.__name__]
        assert not [c for c in classes if issubclass(c, (AgentProgram, Coordinator))]
        derived = {"iterate", "protocol", "replay"} | ({"replay_means"} if not own_replay else set())
        assert not [(c.__name__, name) for c in classes for name in vars(c) if name in derived]
