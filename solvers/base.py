"""The solver interface and the trials axis (ARCHITECTURE.md, "Solvers" and "The trials axis").

A solver is a frozen dataclass of plain parameters. ``run(problem, ...)`` executes R independent
trials at once: the data-independent plan (schedules, privacy events, the noise mechanism) is
fixed first and its releases are registered once; then trials run in chunks, each trial drawing
all of its noise with one call to the mechanism from its agents' own streams, and the iterations run
vectorised over (trials, agents) with no Python loop over either.

Trial r of a batched run draws its noise exactly as a single run with ``seed=seeds[r]`` does, so
the two agree (to floating-point reassociation in BLAS). Within a trial every agent draws from its
own stream, a child of the trial's seed (``solvers.backends.streams``), so an agent running
elsewhere (``backend="ray"``) draws the same noise from its own generator alone. (A
``SecureReseedingGenerator`` seed replays nothing by design: every agent's stream reseeds from OS
entropy at every draw, and ``Result.seeds`` keeps no seed.)

The R trials of a batched run are independent simulations on the same data (for audits), not
releases of one deployment: the run registers its releases once, and its ledger and ε are per
trial (``Result.privacy_scope``, and the run record next to a ledger file, ``solvers.run_record``).

``Solver[P]`` is generic in the problem type ``P`` a solver family runs on, so that no family narrows
the signature of ``run``: :class:`HorizontalSolver` is the engine above for problems whose agents
hold records (``HorizontalProblem`` and its subclass ``DecentralizedProblem``); its subclasses
implement ``plan`` (what is released, with which mechanism) and ``iterate`` (the updates, calling
``recorder.record`` once per iteration). Vertically partitioned problems have their own engine
(``solvers.sharing.base.VerticalSolver``, a ``Solver[VerticalProblem]``).
"""

from __future__ import annotations

import dataclasses
import numbers
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np
from dp_accounting import dp_event

from accountants import Ledger, LedgerFile
from mechanisms import SecureReseedingGenerator, make_rng
from solvers.accounting import AccountantLike, AccountantsLike, record_releases, resolve_accountants
from solvers.backends import BackendLike, resolve_backend
from solvers.backends.streams import AgentStreams, agent_seeds
from solvers.problem import HorizontalProblem
from solvers.recorder import ChannelSpec, Recorder
from solvers.result import Result, UnreplayableSeed, privacy_scope
from solvers.run_record import append_run_record

__all__ = ["HorizontalSolver", "NoiseSource", "RunPlan", "Solver"]

SeedLike = int | np.random.SeedSequence | np.random.Generator | None

#: Default bound on the memory of one chunk of trials (pre-drawn noise and work arrays).
MAX_CHUNK_BYTES = 256 * 2**20
#: Trials per chunk at most: larger chunks only add cache misses.
MAX_CHUNK_TRIALS = 64

#: The problem type a solver family runs on.
P = TypeVar("P")
#: A problem whose agents hold records: ``HorizontalProblem`` or a subclass.
HP = TypeVar("HP", bound=HorizontalProblem)


class NoiseSource(Protocol):
    """The noise of one trial: a ``mechanisms.Mechanism``, or a solver's own sampler of several."""

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """One trial's noise of shape ``shape`` from ``rng`` (the trial's per-agent ``AgentStreams``)."""
        ...


@dataclass(frozen=True)
class RunPlan:
    """Everything about a run fixed before the first iteration (it depends on no private data).

    Attributes:
      n_iterations: T.
      events: events[k][i], the privacy event of agent i's release in iteration k.
      mechanism: the noise of one trial, ``mechanism.sample(streams, noise_shape)`` with
        ``streams`` the trial's per-agent ``AgentStreams``; None if noiseless.
      noise_shape: shape of one trial's noise, agents on axis 1, e.g. (T, N, d).
      info: constants reported in ``Result.info`` (schedules, D_w, ...).
    """

    n_iterations: int
    events: Sequence[Sequence[dp_event.DpEvent]]
    mechanism: NoiseSource | None = None
    noise_shape: tuple[int, ...] = ()
    #: Heterogeneous values (arrays, floats, schedules), read back by the solver that planned them.
    info: Mapping[str, Any] = field(default_factory=dict)


class Solver(ABC, Generic[P]):
    """Base class of the distributed solvers, generic in the problem type ``P`` they run on."""

    #: Short name used in results and reports.
    name: ClassVar[str] = "solver"
    #: The channels of the transcript: name → sender, description, white-box flag.
    channels: ClassVar[Mapping[str, ChannelSpec]] = {}
    #: Every solver is a (frozen) dataclass of its parameters (``get_params`` lists its fields).
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    @property
    def target_delta(self) -> float | None:
        """δ at which ``Result.privacy`` reports ε (None for a non-private solver)."""
        return None

    def get_params(self) -> dict[str, object]:
        """The solver's parameters, as given."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @abstractmethod
    def plan(self, problem: P) -> RunPlan:
        """Validate ``problem`` for this solver and fix the data-independent plan."""

    @abstractmethod
    def run(
        self,
        problem: P,
        *,
        seed: SeedLike = None,
        trials: int | None = None,
        seeds: Sequence[int | np.random.SeedSequence] | None = None,
        accountants: AccountantsLike = None,
        record_history: bool = True,
        record_transcript: bool = True,
        transcript_agents: Sequence[int] | None = None,
        record_white_box: bool = False,
        max_chunk_bytes: int = MAX_CHUNK_BYTES,
        backend: BackendLike = "inprocess",
        ledger_path: str | os.PathLike | None = None,
    ) -> Result:
        """Run the solver on ``problem``: one run, or R independent trials in one batched run
        (arguments as ``HorizontalSolver.run``)."""


class HorizontalSolver(Solver[HP]):
    """Base class of the solvers on problems whose agents hold records (``HorizontalProblem``)."""

    #: Whether ``ledger_path`` receives the whole ledger before the run on every backend (a ledger
    #: from ``account`` that is not ``plan.events`` round by round, e.g. PDML's); otherwise Ray
    #: writes iteration k's releases before round k.
    ledger_written_upfront: ClassVar[bool] = False

    @abstractmethod
    def iterate(
        self,
        problem: HP,
        plan: RunPlan,
        n_trials: int,
        noise: np.ndarray | None,
        recorder: Recorder,
    ) -> Mapping[str, float]:
        """Run all iterations for a chunk of ``n_trials`` trials (noise (n_trials, *noise_shape) or
        None), calling ``recorder.record`` each iteration; return diagnostics (max over chunks)."""

    def run(
        self,
        problem: HP,
        *,
        seed: SeedLike = None,
        trials: int | None = None,
        seeds: Sequence[int | np.random.SeedSequence] | None = None,
        accountants: AccountantsLike = None,
        record_history: bool = True,
        record_transcript: bool = True,
        transcript_agents: Sequence[int] | None = None,
        record_white_box: bool = False,
        max_chunk_bytes: int = MAX_CHUNK_BYTES,
        backend: BackendLike = "inprocess",
        ledger_path: str | os.PathLike | None = None,
    ) -> Result:
        """Run the solver on ``problem``: one run, or R independent trials in one batched run.

        Args:
          problem: the problem (``HorizontalProblem``).
          seed: a single run's seed (int, SeedSequence, Generator; None draws OS entropy), or with
            ``trials`` the root from which the trials' seeds are spawned (SeedSequence.spawn). A
            ``mechanisms.SecureReseedingGenerator`` is honoured in both: every trial's agents get
            children of it (``Generator.spawn``), each reseeded from OS entropy at every draw, and
            ``Result.seeds`` keeps no seed (``UnreplayableSeed``: nothing replays such a run).
          trials: R, for a batched run with seeds spawned from ``seed``. The trials are independent
            simulations on the same data (for audits), not releases of one deployment: the ledger
            and ``Result.privacy`` are per trial (``Result.privacy_scope``; with ``ledger_path``
            the run record next to the file says so, ``solvers.run_record``).
          seeds: explicit per-trial seeds (a batched run with R = len(seeds)); excludes ``seed``
            and ``trials``.
          accountants: accountants to register every release with (instances or names from
            ``accountants.ACCOUNTANTS``, or one ``accountants.BudgetFilter``); None attaches
            ``DEFAULT_ACCOUNTANTS`` (the paper's moments accountant, RDP, PLD, exact), ``()`` none
            (the ledger is still kept). Every release is registered before the first one happens
            and before any noise is drawn; a run a ``BudgetFilter`` refuses raises
            ``accountants.PrivacyBudgetExceeded`` with nothing recorded or written.
          record_history: evaluate the per-iteration metrics.
          record_transcript: keep the released messages (T·R·N·d floats for DP-ADMM).
          transcript_agents: keep only these agents' messages (default all).
          record_white_box: also keep unreleased quantities (e.g. the noise-free w_i^{k+1}).
          max_chunk_bytes: memory bound of one chunk of trials.
          backend: "inprocess" (default: one process, vectorised over agents and trials), "ray"
            (one Ray actor per agent, ``solvers.backends.RayBackend()``) or a ``RayBackend``.
          ledger_path: also append every release to this JSON-lines ledger (``LedgerFile``),
            written and synced before the release happens (all at once in process, iteration by
            iteration on Ray, so a run stopped by a fault leaves every release it made on disk),
            and one line saying what the entries cover (one deployment, or each of R simulated
            trials) to ``<ledger_path>.runs.jsonl`` (``solvers.run_record``) before them.

        Returns:
          A ``Result``; arrays have a trials axis iff ``trials`` or ``seeds`` was given.
        """
        resolved = resolve_accountants(accountants)
        plan = self.plan(problem)
        trial_seeds, batched = _trial_seeds(seed, trials, seeds)
        engine = resolve_backend(backend)
        R = len(trial_seeds)
        recorder = Recorder(
            problem,
            self.channels,
            plan.n_iterations,
            R,
            history=record_history,
            transcript=record_transcript,
            transcript_agents=transcript_agents,
            white_box=record_white_box,
        )
        chunks = _chunks(R, self.bytes_per_trial(problem, plan), max_chunk_bytes)
        # Every argument is checked; from here on the run happens. Register every release first
        # (a BudgetFilter refuses the whole run here), before anything is written or drawn.
        ledger, privacy = self.account(problem, plan, resolved)
        scope = privacy_scope(R, batched)
        ledger_file = _open_ledger_file(ledger_path, self.name, R, batched, scope, ledger)
        if ledger_file is not None and self.ledger_written_upfront:
            ledger_file.extend(ledger)  # all of it, before the first release, on every backend
            ledger_file = None
        if engine is not None:
            diagnostics = engine.execute(self, problem, plan, trial_seeds, chunks, recorder, ledger, ledger_file)
        else:
            diagnostics = self._run_in_process(problem, plan, trial_seeds, chunks, recorder, ledger, ledger_file)
        squeeze = (lambda a: a) if batched else (lambda a: a[0])
        return Result(
            model=squeeze(recorder.model),
            model_average=squeeze(recorder.model_average),
            history={k: v if batched else v[:, 0] for k, v in recorder.history.items()},
            transcript=recorder.transcript(batched) if record_transcript else None,
            ledger=ledger,
            privacy=privacy,
            delta=self.target_delta,
            seeds=kept_seeds(trial_seeds),
            solver={"name": self.name, **self.get_params()},
            info={**plan.info, **diagnostics},
            privacy_scope=scope,
        )

    def account(
        self, problem: HP, plan: RunPlan, accountants: Sequence[AccountantLike]
    ) -> tuple[Ledger, dict[str, float]]:
        """Register the run's releases with ``accountants`` before the first one happens; return
        (the run's ledger, {accountant name: ε}). Default: ``plan.events`` (``record_releases``)."""
        return record_releases(plan.events, accountants, self.target_delta)

    def _run_in_process(
        self,
        problem: HP,
        plan: RunPlan,
        trial_seeds: Sequence[SeedLike],
        chunks: Sequence[slice],
        recorder: Recorder,
        ledger: Ledger,
        ledger_file: LedgerFile | None,
    ) -> dict[str, float]:
        """The default backend: every chunk of trials vectorised over (trials, agents)."""
        if ledger_file is not None:
            ledger_file.extend(ledger)
        diagnostics: dict[str, float] = {}
        for trials_slice in chunks:
            chunk_seeds = trial_seeds[trials_slice]
            noise = None
            if plan.mechanism is not None:
                noise = np.empty((len(chunk_seeds),) + plan.noise_shape)
                for j, trial_seed in enumerate(chunk_seeds):
                    streams = AgentStreams(agent_seeds(trial_seed, problem.n_agents))
                    noise[j] = plan.mechanism.sample(streams, plan.noise_shape)
            recorder.begin(trials_slice)
            for key, value in self.iterate(problem, plan, len(chunk_seeds), noise, recorder).items():
                diagnostics[key] = max(value, diagnostics.get(key, value))
        return diagnostics

    def bytes_per_trial(self, problem: HP, plan: RunPlan) -> int:
        """Memory one trial adds to a chunk: its noise and the (N, m) margins."""
        n_agents, width = problem.partition.X.shape[:2]
        return 8 * (int(np.prod(plan.noise_shape)) + 3 * n_agents * width)


def _trial_seeds(
    seed: SeedLike, trials: int | None, seeds: Sequence[int | np.random.SeedSequence] | None
) -> tuple[list[SeedLike], bool]:
    if seeds is not None:
        if seed is not None or trials is not None:
            raise ValueError("pass either seeds= (explicit per-trial seeds) or seed=/trials=, not both")
        explicit: list[SeedLike] = list(seeds)
        if not explicit:
            raise ValueError("seeds must hold at least one seed")
        for s in explicit:
            if isinstance(s, np.random.Generator):
                raise TypeError("seeds must be ints or SeedSequences (a Generator cannot be replayed)")
            make_rng(s)  # validates the type and sign
        return explicit, True
    if trials is None:
        if seed is None:
            return [np.random.SeedSequence()], False  # OS entropy, kept for replay
        make_rng(seed)
        return [seed], False
    if isinstance(trials, bool) or not isinstance(trials, numbers.Integral) or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    if isinstance(seed, SecureReseedingGenerator):
        # Honoured: trial r runs on child r (a SecureReseedingGenerator too), whose agents spawn
        # their own children, each reseeded from OS entropy at every draw (agent_seeds). Spawning
        # plain SeedSequences from its seed_seq instead would replay every trial from Result.seeds.
        return list(seed.spawn(int(trials))), True
    if isinstance(seed, np.random.Generator):
        root = seed.bit_generator.seed_seq
    elif isinstance(seed, np.random.SeedSequence):
        root = seed
    else:
        make_rng(seed)
        root = np.random.SeedSequence(seed)
    return list(root.spawn(int(trials))), True


def kept_seeds(trial_seeds: Sequence[SeedLike]) -> tuple:
    """``Result.seeds``: the trials' seeds, except that a ``SecureReseedingGenerator`` (which
    replays nothing, and whose seed_seq must not be kept) becomes an ``UnreplayableSeed``."""
    return tuple(UnreplayableSeed() if isinstance(s, SecureReseedingGenerator) else s for s in trial_seeds)


def _open_ledger_file(
    ledger_path: str | os.PathLike | None, solver: str, n_trials: int, batched: bool, scope: str, ledger: Ledger
) -> LedgerFile | None:
    """The run's ``LedgerFile`` (None without a path), after its run-record line is on disk."""
    if ledger_path is None:
        return None
    ledger_file = LedgerFile(ledger_path)
    append_run_record(
        ledger_path,
        solver=solver,
        n_trials=n_trials,
        batched=batched,
        privacy_scope=scope,
        releases=len(ledger),
        participants=len(ledger.participants),
    )
    return ledger_file


def _chunks(n_trials: int, bytes_per_trial: int, max_bytes: int) -> list[slice]:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, numbers.Integral) or max_bytes < 1:
        raise ValueError(f"max_chunk_bytes must be a positive integer, got {max_bytes!r}")
    size = max(1, min(MAX_CHUNK_TRIALS, max_bytes // max(bytes_per_trial, 1)))
    return [slice(start, min(start + size, n_trials)) for start in range(0, n_trials, size)]
