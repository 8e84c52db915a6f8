"""A conformance suite for solver families, like scikit-learn's ``check_estimator``.

``check_solver(solver, problem)`` runs every check of :data:`SOLVER_CHECKS` and raises
``AssertionError`` naming the first promise the solver breaks:

  - ``check_params_round_trip``: the solver is a frozen dataclass rebuilt equal from ``get_params()``;
  - ``check_batched_equals_single``: trial r of a batched run equals the single run with its seed;
  - ``check_ledger``: the run's ledger is what the solver accounts before the run (by default the
    plan's events, agent i's release in iteration k as (i, event, k)), and every release is in the
    ledger file before it happens (in process: before the first chunk; on the agent backends:
    iteration k's releases before round k);
  - ``check_transcript_channels``: the transcript holds exactly the declared channels (white-box ones
    only when asked), each shaped (T, R, N, …) for an agents' channel and (T, R, …) for a server's;
  - ``check_sequential_equals_inprocess``: the family's agent programs run one after another
    (``backend="sequential"``, each agent with only its own share and noise) give the in-process
    run's transcript, model, history and info to ``1e-12``, its ledger (in the result and in the
    ledger file) and privacy; without white-box recording, only the released channels, the same;
  - ``check_ray_equals_inprocess``: the same on Ray actors, when Ray runs in this process;
  - ``check_replay``: for a family written as its noise-free step (``solvers.engine.StepSolver``),
    every agent's release replayed from the public transcript with the agent's own noise is what it
    released, and the replay's noise-free releases are the step's;
  - ``check_budget_refusal``: a run a ``BudgetFilter`` cannot cover is refused whole, before any noise
    is drawn, with nothing registered, recorded or written; one it covers records through it;
  - ``check_privacy_scope``: a batched run's ledger and ε are per simulated trial, and say so (the
    result and the run record next to the ledger file); a single run is one deployment;
  - ``check_secure_generator``: a ``SecureReseedingGenerator`` seed reseeds every agent's own generator,
    gives trials that differ and keeps no seed that could replay them.

Each check is a plain function ``check(solver, problem)``, so a test suite can parametrize over
them (``pytest.mark.parametrize("check", SOLVER_CHECKS)``). A check that does not apply to a solver
(no agent protocol, not a step family, Ray not running, no default accountant that bounds its
releases) raises :class:`SolverCheckSkipped` saying why; ``check_solver`` returns those reasons.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from accountants import ACCOUNTANTS, BudgetFilter, Ledger, LedgerEntry, PrivacyBudgetExceeded
from mechanisms import SecureReseedingGenerator
from solvers.engine.backends import AgentPool, InProcessBackend, RayBackend, RunJob, SequentialBackend
from solvers.engine.backends.agents import own_noise
from solvers.engine.backends.base import ChunkRunner
from solvers.engine.ledger_runs import read_run_records, run_record_path
from solvers.engine.plan import RunPlan
from solvers.engine.protocol import AgentProgram
from solvers.engine.recording import RecordOptions
from solvers.engine.result import ONE_DEPLOYMENT, Result, UnreplayableSeed, privacy_scope
from solvers.engine.solver import Solver
from solvers.engine.step import Agents, Release, StepSolver
from solvers.engine.streams import AgentSeed, agent_seeds

__all__ = [
    "SOLVER_CHECKS",
    "SolverCheckSkipped",
    "check_batched_equals_single",
    "check_budget_refusal",
    "check_ledger",
    "check_params_round_trip",
    "check_privacy_scope",
    "check_ray_equals_inprocess",
    "check_replay",
    "check_secure_generator",
    "check_sequential_equals_inprocess",
    "check_solver",
    "check_transcript_channels",
]

#: Agreement of two runs that must be the same computation (sequential vs in-process).
SAME_RUN_TOLERANCE = 1e-12
#: Agreement of a batched trial with its single run (the same noise; BLAS may reassociate sums:
#: the largest gap over the 13 registered solvers' examples is 7e-15).
BATCHED_TOLERANCE = 1e-12
#: Trials and seed of the runs a check makes.
CHECK_TRIALS = 3
CHECK_SEED = 20260101

AnySolver = Solver[Any, Any]


class SolverCheckSkipped(Exception):
    """A check that does not apply to the solver (or cannot run here), with the reason."""


def check_params_round_trip(solver: AnySolver, problem: object) -> None:
    """The solver is a frozen dataclass of its parameters: rebuilt from ``get_params()`` it is equal."""
    if not dataclasses.is_dataclass(solver):
        raise AssertionError(f"{type(solver).__name__} must be a dataclass of its parameters")
    params = solver.get_params()
    names = [field.name for field in dataclasses.fields(solver)]
    if list(params) != names:
        raise AssertionError(f"get_params() lists {list(params)}, the dataclass fields are {names}")
    rebuilt = type(solver)(**params)
    if rebuilt != solver:
        raise AssertionError(f"{type(solver).__name__}(**get_params()) differs from the solver: {rebuilt!r}")
    if not names:
        return
    try:
        setattr(solver, names[0], params[names[0]])
    except dataclasses.FrozenInstanceError:
        return
    raise AssertionError(f"{type(solver).__name__} must be a frozen dataclass (parameters cannot change)")


def check_batched_equals_single(solver: AnySolver, problem: object) -> None:
    """Trial r of a batched run equals a single run with ``seed=result.seeds[r]``."""
    batched = solver.run(problem, seed=CHECK_SEED, trials=CHECK_TRIALS, accountants=())
    for r in range(CHECK_TRIALS):
        single = solver.run(problem, seed=batched.seeds[r], accountants=())
        _assert_same_run(batched.trial(r), single, BATCHED_TOLERANCE, f"trial {r} of a batched run vs its single run")


def check_ledger(solver: AnySolver, problem: object) -> None:
    """The ledger is the accounted releases, on disk before each release happens."""
    plan = solver.plan(problem)
    expected, _ = solver.account(problem, plan, [])
    if type(solver).account is Solver.account:
        planned = Ledger(
            LedgerEntry(participant=i, event=event, iteration=k)
            for k, row in enumerate(plan.events)
            for i, event in enumerate(row)
        )
        if expected != planned:
            raise AssertionError("the default account() must register exactly the plan's events")
    backends: list[tuple[str, Any]] = [("inprocess", _ProbedInProcess())]
    if solver.protocol(problem, plan, solver.make_recorder(problem, plan, 1, _NO_RECORDING)) is not None:
        backends.append(("sequential", _ProbedSequential()))
    for name, backend in backends:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "ledger.jsonl"
            backend.path = path
            result = solver.run(problem, seed=CHECK_SEED, accountants=(), ledger_path=path, backend=backend)
            if result.ledger != expected:
                raise AssertionError(f"{name}: Result.ledger differs from the releases account() registers")
            if Ledger.load(path) != expected:
                raise AssertionError(f"{name}: the ledger file differs from the run's ledger")
            if not backend.probed:
                raise AssertionError(f"{name}: the run never released anything")


def check_transcript_channels(solver: AnySolver, problem: object) -> None:
    """The transcript holds the declared channels, shaped by their sender."""
    plan = solver.plan(problem)
    for white_box in (False, True):
        result = solver.run(
            problem, seed=CHECK_SEED, trials=2, accountants=(), record_history=False, record_white_box=white_box
        )
        if result.transcript is None:
            raise AssertionError("a run with record_transcript=True returned no transcript")
        declared = {name for name, spec in solver.channels.items() if white_box or not spec.white_box}
        present = {channel.name for channel in result.transcript.channels}
        if present != declared:
            raise AssertionError(
                f"record_white_box={white_box}: channels {sorted(present)}, declared {sorted(declared)}"
            )
        n_agents = problem.n_agents  # type: ignore[attr-defined]  # every problem type has agents
        for channel in result.transcript.channels:
            spec = solver.channels[channel.name]
            leading = (plan.n_iterations, 2) + ((n_agents,) if spec.sender == "agents" else ())
            if channel.values.shape[: len(leading)] != leading:
                raise AssertionError(
                    f"channel {channel.name!r} ({spec.sender}) has shape {channel.values.shape}, "
                    f"expected it to start with {leading}"
                )


def check_sequential_equals_inprocess(solver: AnySolver, problem: object) -> None:
    """The agent programs, one after another, give the vectorised run (:func:`_assert_backend_equals_inprocess`)."""
    _require_protocol(solver, problem)
    _assert_backend_equals_inprocess(solver, problem, "sequential", "sequential")


def check_ray_equals_inprocess(solver: AnySolver, problem: object) -> None:
    """One Ray actor per agent gives the vectorised run (:func:`_assert_backend_equals_inprocess`), on the
    Ray already initialised in this process (the check starts none)."""
    _require_protocol(solver, problem)
    try:
        import ray
    except ImportError as error:
        raise SolverCheckSkipped('Ray is not installed (pip install ".[ray]")') from error
    if not ray.is_initialized():
        raise SolverCheckSkipped("Ray is not running in this process: call ray.init() first to check the Ray backend")
    _assert_backend_equals_inprocess(solver, problem, RayBackend(), "Ray")


def check_replay(solver: AnySolver, problem: object) -> None:
    """Every agent's release, replayed from the public transcript with its own noise, is what it released;
    the replay's noise-free releases (``StepSolver.replay``) are the step's without noise."""
    if not isinstance(solver, StepSolver) or solver.replay_refusal is not None:
        why = solver.replay_refusal if isinstance(solver, StepSolver) else "it is not a solvers.engine.StepSolver"
        raise SolverCheckSkipped(f"{type(solver).__name__} has no replay: {why}")
    result = solver.run(problem, seed=CHECK_SEED, trials=2, accountants=(), record_history=False)
    if result.transcript is None:
        raise AssertionError("a run with record_transcript=True returned no transcript")
    plan, public = solver.plan(problem), result.transcript.public()
    n_agents = problem.n_agents  # type: ignore[attr-defined]  # every problem type has agents
    released = public[solver.sent_channel]
    for agent in range(n_agents):
        noise = own_noise(plan, n_agents, agent, [agent_seeds(seed, n_agents)[agent] for seed in result.seeds])
        own = Agents(solver.share(problem, agent), slice(agent, agent + 1))
        replay = solver.replay(problem, problem, agent, result.transcript)
        state = solver.agent_state(own, plan, 2, noise)
        for k in range(plan.n_iterations):
            inbound = solver.replayed_inbound(problem, plan, k, public)
            sent = solver.agent_values(solver.release(own, plan, k, state, inbound, noise).sent)
            mean = solver.agent_values(solver.release(own, plan, k, state, inbound, None).sent)
            what = f"agent {agent}, iteration {k}"
            _close(sent, released[k][:, agent], SAME_RUN_TOLERANCE, f"{what}: the replayed release")
            _close(replay.mean_in[k], mean, SAME_RUN_TOLERANCE, f"{what}: the replay's noise-free release")
            _close(replay.mean_out[k], mean, SAME_RUN_TOLERANCE, f"{what}: the replay's noise-free release")
            state = solver.advance(own, plan, k, state, inbound, Release(solver.one_agent(released[k][:, agent])))


def check_budget_refusal(solver: AnySolver, problem: object) -> None:
    """A run over a ``BudgetFilter``'s budget is refused whole: before any noise is drawn, with nothing
    registered (by the filter or an accountant beside it), recorded or written. A run within the budget
    records through the filter like any accountant: its releases, and the ε of the accountant it wraps
    (for a private solver: no finite budget covers releases of infinite ε)."""
    plan = solver.plan(problem)
    events = {event for row in plan.events for event in row}
    names = [n for n in solver.default_accountants if all(ACCOUNTANTS[n]().supports(e) for e in events)]
    if not names:
        raise SolverCheckSkipped(f"none of the default accountants {solver.default_accountants} bounds every release")
    budget = BudgetFilter(ACCOUNTANTS[names[0]](), epsilon=1e-6, delta=1e-5, unproven="ignore")
    bystander = ACCOUNTANTS[names[0]]()
    drawn: list[int] = []
    probe = _drawing_probe(solver, drawn)
    for trials in (None, 2):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "ledger.jsonl"
            try:
                probe.run(problem, seed=CHECK_SEED, trials=trials, accountants=[bystander, budget], ledger_path=path)
            except PrivacyBudgetExceeded:
                pass
            else:
                raise AssertionError(f"a run over the budget of {budget.name} (ε = 1e-6) was not refused")
            if len(budget.ledger) or len(bystander.ledger):
                raise AssertionError("a refused run registered releases")
            if (path.exists() and path.stat().st_size) or run_record_path(path).exists():
                raise AssertionError("a refused run wrote to its ledger file")
    if drawn:
        raise AssertionError("a refused run drew noise")
    alone = ACCOUNTANTS[names[0]]()
    epsilon = solver.run(problem, seed=CHECK_SEED, accountants=[alone]).privacy[alone.name]
    if not math.isfinite(epsilon):
        return  # releases no finite budget covers (not private): only the refusal applies
    budget = BudgetFilter(ACCOUNTANTS[names[0]](), epsilon=1e6, delta=1e-5, unproven="ignore")
    result = probe.run(problem, seed=CHECK_SEED, accountants=[budget, bystander])
    if not len(budget.ledger) or budget.ledger != alone.ledger or bystander.ledger != alone.ledger:
        raise AssertionError(
            f"a run within the budget of {budget.name} did not record through it what its accountant does"
        )
    if result.privacy[budget.name] != epsilon or result.privacy[bystander.name] != epsilon:
        raise AssertionError(
            f"{budget.name} reported ε {result.privacy[budget.name]!r}, the accountant beside it "
            f"{result.privacy[bystander.name]!r}, alone {epsilon!r}"
        )
    if epsilon > 0 and not drawn:
        raise AssertionError("a run within the budget drew no noise")


def check_privacy_scope(solver: AnySolver, problem: object) -> None:
    """A batched run's ledger and ε are per simulated trial, said in ``Result.privacy_scope`` and in
    the run record next to the ledger file; a single run is one deployment."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ledger.jsonl"
        batched = solver.run(problem, seed=CHECK_SEED, trials=2, accountants=(), ledger_path=path)
        single = solver.run(problem, seed=CHECK_SEED, accountants=(), ledger_path=path)
        records = read_run_records(path)
    if batched.privacy_scope != privacy_scope(2, True) or single.privacy_scope != ONE_DEPLOYMENT:
        raise AssertionError(f"privacy scopes {batched.privacy_scope!r} and {single.privacy_scope!r}")
    expected = [(2, True, "trial", len(batched.ledger)), (1, False, "deployment", len(single.ledger))]
    found = [(r["n_trials"], r["simulated_trials"], r["epsilon_per"], r["releases"]) for r in records]
    if found != expected:
        raise AssertionError(f"run records {found}, expected {expected} (n_trials, simulated, ε per, releases)")


def check_secure_generator(solver: AnySolver, problem: object) -> None:
    """A ``SecureReseedingGenerator`` seed, in a batched and in a single run: every agent of every trial
    reseeds a generator of its own, the trials differ and no seed that could replay them is kept
    (running with one is refused)."""
    plan = solver.plan(problem)
    if plan.mechanism is None and type(solver).trial_draws is Solver.trial_draws:
        raise SolverCheckSkipped(f"{type(solver).__name__} draws no noise on this problem")
    # the agents' privacy noise (without a mechanism, only the trial's own draws, e.g. an initial model)
    n_agents = 0 if plan.mechanism is None else problem.n_agents  # type: ignore[attr-defined]
    reseeded: list[SecureReseedingGenerator] = []  # kept alive, so that distinct generators have distinct ids

    class Counted(SecureReseedingGenerator):  # the trials' and the agents' generators are its children
        def reseed(self) -> None:
            reseeded.append(self)
            super().reseed()

    for trials in (1, 2):
        reseeded.clear()
        result = solver.run(problem, seed=Counted(), trials=None if trials == 1 else trials, accountants=())
        generators = len({id(generator) for generator in reseeded})
        if generators < trials * n_agents:
            raise AssertionError(
                f"{generators} generators reseeded in a secure run of {trials} trial(s) of {n_agents} agents: "
                "every agent of every trial reseeds its own"
            )
        if len(result.seeds) != trials or not all(isinstance(seed, UnreplayableSeed) for seed in result.seeds):
            raise AssertionError(f"a secure run kept replayable seeds: {result.seeds!r}")
    if result.transcript is not None and all(
        np.array_equal(channel.values[:, 0], channel.values[:, 1]) for channel in result.transcript.channels
    ):
        raise AssertionError("the two trials of a secure run released the same transcript")
    try:
        solver.run(problem, seed=result.seeds[0], accountants=())
    except TypeError:
        return
    raise AssertionError("a run with an UnreplayableSeed was not refused")


#: Every check, in the order ``check_solver`` runs them.
SOLVER_CHECKS: tuple[Callable[[AnySolver, Any], None], ...] = (
    check_params_round_trip,
    check_transcript_channels,
    check_ledger,
    check_batched_equals_single,
    check_sequential_equals_inprocess,
    check_ray_equals_inprocess,
    check_replay,
    check_budget_refusal,
    check_privacy_scope,
    check_secure_generator,
)


def check_solver(solver: AnySolver, problem: object) -> dict[str, str]:
    """Run every check of :data:`SOLVER_CHECKS` on ``solver`` and ``problem`` (a small problem: the
    checks make about two dozen runs of a few trials); ``AssertionError`` names the first failure.

    Returns:
      {check name: why it was skipped} for the checks that do not apply (:class:`SolverCheckSkipped`).
    """
    skipped: dict[str, str] = {}
    for check in SOLVER_CHECKS:
        try:
            check(solver, problem)
        except SolverCheckSkipped as reason:
            skipped[check.__name__] = str(reason)
        except AssertionError as failure:
            raise AssertionError(f"{check.__name__}({type(solver).__name__}): {failure}") from failure
    return skipped


# ---- helpers ---------------------------------------------------------------------------------
def _close(a: np.ndarray, b: np.ndarray, tolerance: float, what: str) -> None:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise AssertionError(f"{what} has shape {a.shape}, expected {b.shape}")
    if not np.allclose(a, b, rtol=tolerance, atol=tolerance, equal_nan=True):
        gap = float(np.nanmax(np.abs(a - b)))
        raise AssertionError(f"{what} differs by up to {gap:.3g} (tolerance {tolerance:g})")


def _require_protocol(solver: AnySolver, problem: Any) -> None:
    plan = solver.plan(problem)
    if solver.protocol(problem, plan, solver.make_recorder(problem, plan, 1, _NO_RECORDING)) is None:
        raise SolverCheckSkipped(f"{type(solver).__name__} runs in process only (no agent protocol)")


def _drawing_probe(solver: AnySolver, drawn: list[int]) -> AnySolver:
    """The solver as an instance of a subclass that notes in ``drawn`` every chunk of noise it draws."""

    def chunk_draws(self: AnySolver, problem: Any, plan: RunPlan[Any], seeds: Sequence[Any]) -> Any:
        drawn.append(len(seeds))
        return type(solver).chunk_draws(self, problem, plan, seeds)

    probe = type(f"Probed{type(solver).__name__}", (type(solver),), {"chunk_draws": chunk_draws})
    return probe(**solver.get_params())


def _assert_same_run(actual: Result, expected: Result, tolerance: float, what: str) -> None:
    def close(a: np.ndarray, b: np.ndarray, name: str) -> None:
        _close(a, b, tolerance, f"{what}: {name}")

    close(actual.model, expected.model, "model")
    close(actual.model_average, expected.model_average, "model_average")
    if set(actual.history) != set(expected.history):
        raise AssertionError(f"{what}: history keys {sorted(actual.history)} vs {sorted(expected.history)}")
    for name in expected.history:
        close(actual.history[name], expected.history[name], f"history[{name!r}]")
    if (actual.transcript is None) != (expected.transcript is None):
        raise AssertionError(f"{what}: one run has a transcript, the other none")
    if actual.transcript is not None and expected.transcript is not None:
        for channel in expected.transcript.channels:
            close(actual.transcript[channel.name], channel.values, f"transcript[{channel.name!r}]")
    if actual.ledger != expected.ledger:
        raise AssertionError(f"{what}: the ledgers differ")


def _assert_backend_equals_inprocess(solver: AnySolver, problem: Any, backend: Any, name: str) -> None:
    """A batched run on ``backend`` (the agents' programs, each with only its own share and noise) gives the
    in-process run to ``SAME_RUN_TOLERANCE``: its transcript with the white-box channels, model, history and
    info, its ledger (in the result and in the ledger file) and the privacy its default accountants report;
    without ``record_white_box`` it records only the released channels, with the same values."""
    what = f"{name} vs in-process backend"
    kwargs: dict[str, Any] = {"seed": CHECK_SEED, "trials": 2, "record_white_box": True}
    with tempfile.TemporaryDirectory() as folder:
        inprocess = solver.run(problem, ledger_path=Path(folder) / "inprocess.jsonl", **kwargs)
        actual = solver.run(problem, backend=backend, ledger_path=Path(folder) / "backend.jsonl", **kwargs)
        if Ledger(_entries_on_disk(Path(folder) / "backend.jsonl")) != inprocess.ledger:
            raise AssertionError(f"{what}: the ledger file differs from the in-process run's ledger")
    _assert_same_run(actual, inprocess, SAME_RUN_TOLERANCE, what)
    if dict(actual.privacy) != dict(inprocess.privacy):
        raise AssertionError(f"{what}: privacy {dict(actual.privacy)} vs {dict(inprocess.privacy)}")
    if set(actual.info) != set(inprocess.info):
        raise AssertionError(f"{what}: info keys {sorted(actual.info)} vs {sorted(inprocess.info)}")
    for key, value in inprocess.info.items():
        try:
            got, expected = (np.asarray(v, dtype=np.float64) for v in (actual.info[key], value))
        except (TypeError, ValueError):  # not numbers (e.g. a note or a mapping): equal as they are
            if actual.info[key] != value:
                raise AssertionError(f"{what}: info[{key!r}] {actual.info[key]!r} vs {value!r}") from None
        else:
            _close(got, expected, SAME_RUN_TOLERANCE, f"{what}: info[{key!r}]")
    black_box = solver.run(problem, backend=backend, seed=CHECK_SEED, trials=2, accountants=(), record_history=False)
    released, recorded = {c for c, spec in solver.channels.items() if not spec.white_box}, inprocess.transcript
    if recorded is None or black_box.transcript is None or {c.name for c in black_box.transcript.channels} != released:
        raise AssertionError(f"{name}: a run with record_white_box=False must record the channels {sorted(released)}")
    for channel in black_box.transcript.channels:
        _close(channel.values, recorded[channel.name], SAME_RUN_TOLERANCE, f"{what}: black-box {channel.name!r}")
    _close(black_box.model, inprocess.model, SAME_RUN_TOLERANCE, f"{what}: the black-box run's model")


#: What the recorder records that a check builds only to ask for the solver's protocol: nothing.
_NO_RECORDING = RecordOptions(history=False, transcript=False)


def _entries_on_disk(path: Path) -> list[LedgerEntry]:
    return list(Ledger.load(path)) if path.exists() else []


class _ProbedInProcess(InProcessBackend):
    """The in-process backend, asserting that the whole ledger is on disk before the first chunk."""

    def __init__(self) -> None:
        self.path = Path()
        self.probed = False

    @contextlib.contextmanager
    def session(self, job: RunJob) -> Iterator[ChunkRunner]:
        with super().session(job) as run_chunk:

            def probed(number: int, seeds: Sequence[Any]) -> Mapping[str, float]:
                if len(_entries_on_disk(self.path)) < len(job.ledger):
                    raise AssertionError("the ledger file misses releases when the first chunk starts")
                self.probed = True
                return run_chunk(number, seeds)

            yield probed


class _ProbedSequential(SequentialBackend):
    """The sequential backend, asserting before round k that iteration k's releases are on disk."""

    def __init__(self) -> None:
        self.path = Path()
        self.probed = False

    def open_pool(self, job: RunJob) -> AgentPool:
        return _ProbedPool(super().open_pool(job), job, self)


class _ProbedPool(AgentPool):
    def __init__(self, pool: AgentPool, job: RunJob, probe: _ProbedSequential) -> None:
        self.pool, self.job, self.probe = pool, job, probe

    def load(self, programs: Sequence[AgentProgram[Any]], plan: RunPlan[Any]) -> None:
        self.pool.load(programs, plan)

    def begin(self, seeds: Sequence[Sequence[AgentSeed]]) -> None:
        self.pool.begin(seeds)

    def step(self, k: int, inbound: Sequence[object]) -> list[Mapping[str, object]]:
        due = sum(1 for e in self.job.ledger if e.iteration is not None and e.iteration <= k)
        if len(_entries_on_disk(self.probe.path)) < due:
            raise AssertionError(f"iteration {k}'s releases are not in the ledger file before round {k}")
        self.probe.probed = True
        return self.pool.step(k, inbound)

    def close(self, error: BaseException | None) -> None:
        self.pool.close(error)
