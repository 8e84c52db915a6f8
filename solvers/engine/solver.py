"""The solver interface and the one ``run`` of every solver family.

A solver is a frozen dataclass of plain parameters. ``run(problem, ...)`` executes one run or R
independent trials at once, the same way for every family:

  1. the family's ``plan(problem)`` fixes what is released, with which noise (``RunPlan``), before
     any data is touched by an iteration;
  2. every release is registered with the accountants (``account``; a ``BudgetFilter`` refuses the
     whole run here) and, with ``ledger_path``, written to the ledger file before it happens;
  3. the trials run in chunks of bounded memory on a backend: in process, the family's vectorised
     ``iterate`` over (trials, agents) with the chunk's randomness drawn first (``chunk_draws``);
     on the sequential or Ray backend, the family's ``protocol`` (one program per agent holding only
     its share and its own noise, and a coordinator).

Trial r of a batched run draws its noise exactly as a single run with ``seed=seeds[r]`` does, so
the two agree (to floating-point reassociation in BLAS). Within a trial every agent draws from its
own stream, a child of the trial's seed (``solvers.engine.streams``), so an agent running elsewhere
draws the same noise from its own generator alone. (A ``SecureReseedingGenerator`` seed replays
nothing by design: every agent's stream reseeds from OS entropy at every draw, and ``Result.seeds``
keeps no seed.)

The R trials of a batched run are independent simulations on the same data (for audits), not
releases of one deployment: the run registers its releases once, and its ledger and ε are per
trial (``Result.privacy_scope``, and the run record next to a ledger file,
``solvers.engine.ledger_runs``).

A family's hooks are listed once, in ``solvers.engine.step``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from accountants import Ledger, LedgerFile
from accountants.constraints import Constraint, check_parameters
from solvers.engine.accounting import (
    DEFAULT_ACCOUNTANTS,
    AccountantLike,
    AccountantsLike,
    record_releases,
    resolve_accountants,
)
from solvers.engine.backends import BackendLike, RunJob, resolve_backend
from solvers.engine.blas import BLAS_THREADS, blas_threads
from solvers.engine.ledger_runs import append_run_record
from solvers.engine.plan import RunPlan, details_info, draws_whole_chunks
from solvers.engine.protocol import AgentProtocol
from solvers.engine.recording import BaseRecorder, ChannelSpec, RecordedProblem, RecordOptions
from solvers.engine.result import Result, privacy_scope
from solvers.engine.streams import STREAM_LAYOUT, AgentStreams, ChunkStreams, agent_seeds
from solvers.engine.trials import MAX_CHUNK_BYTES, SeedLike, chunks, kept_seeds, trial_seeds

__all__ = ["Draws", "Solver"]

#: The problem type a solver family runs on.
P = TypeVar("P", bound=RecordedProblem)
#: The recorder type of a solver family (what its ``iterate`` calls ``record`` on).
RecorderT = TypeVar("RecorderT", bound=BaseRecorder[Any])

#: A chunk's randomness: {name: array with the chunk's trials on axis 0} (e.g. {"noise": (R, T, N, d)}).
Draws = Mapping[str, np.ndarray]


class Solver(ABC, Generic[P, RecorderT]):
    """Base class of the distributed solvers, generic in the problem type ``P`` they run on and the
    recorder type ``RecorderT`` their iterations record into."""

    #: Short name used in results and reports.
    name: ClassVar[str] = "solver"
    #: The channels of the transcript: name → sender, description, white-box flag.
    channels: ClassVar[Mapping[str, ChannelSpec]] = {}
    #: The problem type ``run`` accepts (checked first, with an error naming it).
    problem_type: ClassVar[type] = object
    #: The accountants a run attaches when ``accountants=None`` (names in ``accountants.ACCOUNTANTS``).
    default_accountants: ClassVar[tuple[str, ...]] = DEFAULT_ACCOUNTANTS
    #: Whether ``ledger_path`` receives the whole ledger before the run on every backend (a ledger
    #: from ``account`` that is not ``plan.events`` round by round); otherwise the agent backends
    #: write iteration k's releases before round k.
    ledger_written_upfront: ClassVar[bool] = False
    #: Where a run's randomness comes from (``solvers.engine.streams``), for reports.
    stream_layout: ClassVar[str] = STREAM_LAYOUT
    #: Every solver is a (frozen) dataclass of its parameters (``get_params`` lists its fields).
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]
    #: What each parameter must be, by field name (``accountants.constraints``); a family that adds
    #: parameters declares ``{**Base.parameter_constraints, ...}``.
    parameter_constraints: ClassVar[Mapping[str, Constraint]] = {}

    def __post_init__(self) -> None:
        """Check every parameter against ``parameter_constraints``: ``TypeError`` for a wrong type,
        ``ValueError`` out of range, the message naming it (``accountants.constraints.check_parameters``)."""
        check_parameters(self)

    @property
    def target_delta(self) -> float | None:
        """δ at which ``Result.privacy`` reports ε (None for a non-private solver)."""
        return None

    def get_params(self) -> dict[str, object]:
        """The solver's parameters, as given."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    # ---- hooks -------------------------------------------------------------------------------
    @abstractmethod
    def plan(self, problem: P) -> RunPlan[Any]:
        """Validate ``problem`` for this solver and fix the data-independent plan."""

    @abstractmethod
    def iterate(
        self, problem: P, plan: RunPlan[Any], n_trials: int, draws: Draws | None, recorder: RecorderT
    ) -> Mapping[str, float]:
        """Run all iterations for a chunk of ``n_trials`` trials (``draws``: the chunk's randomness
        from ``chunk_draws``, or None), calling ``recorder.record`` each iteration; return
        diagnostics (the run reports each one's maximum over chunks)."""

    @abstractmethod
    def make_recorder(self, problem: P, plan: RunPlan[Any], n_trials: int, options: RecordOptions) -> RecorderT:
        """The recorder of a run of ``n_trials`` trials."""

    def account(
        self, problem: P, plan: RunPlan[Any], accountants: Sequence[AccountantLike]
    ) -> tuple[Ledger, dict[str, float]]:
        """Register the run's releases with ``accountants`` before the first one happens; return
        (the run's ledger, {accountant name: ε}). Default: ``plan.events`` (``record_releases``)."""
        return record_releases(plan.events, accountants, self.target_delta)

    def trial_draws(self, seed: SeedLike, problem: P, plan: RunPlan[Any]) -> dict[str, np.ndarray] | None:
        """All of one trial's randomness from its seed. Default: the plan's noise as ``"noise"``,
        agent i's block from agent i's own stream (``AgentStreams``), or None without noise."""
        if plan.mechanism is None:
            return None
        streams = AgentStreams(agent_seeds(seed, problem.n_agents))
        return {"noise": plan.mechanism.sample(streams, plan.noise_shape)}

    def chunk_draws(self, problem: P, plan: RunPlan[Any], seeds: Sequence[SeedLike]) -> Draws | None:
        """The randomness of a chunk of trials, trial r on axis 0 equal to ``trial_draws(seeds[r])``.

        A family that keeps the default ``trial_draws`` with a noise source that takes leading
        trial axes (``draws_whole_chunks``) gets the plan's noise of the whole chunk in one
        ``sample`` call on :class:`ChunkStreams` (no stream object per trial); otherwise the
        trials' ``trial_draws`` are stacked (they all draw the same names, or none does)."""
        if plan.mechanism is None and type(self).trial_draws is Solver.trial_draws:
            return None
        if draws_whole_chunks(plan.mechanism) and type(self).trial_draws is Solver.trial_draws:
            streams = ChunkStreams.of_trials(seeds, problem.n_agents)
            return {"noise": plan.mechanism.sample(streams, (len(seeds), *plan.noise_shape))}
        draws = [self.trial_draws(seed, problem, plan) for seed in seeds]
        first = draws[0]
        if first is None:
            return None
        return {key: np.stack([d[key] for d in draws if d is not None]) for key in first}

    def bytes_per_trial(self, problem: P, plan: RunPlan[Any]) -> int:
        """Memory one trial adds to a chunk (default: its pre-drawn noise)."""
        return 8 * int(np.prod(plan.noise_shape))

    def run_context(self) -> contextlib.AbstractContextManager[object]:
        """A context the whole run executes in (default: at most ``BLAS_THREADS`` BLAS threads,
        :mod:`solvers.engine.blas`)."""
        return blas_threads(BLAS_THREADS)

    def protocol(self, problem: P, plan: RunPlan[Any], recorder: RecorderT) -> AgentProtocol | None:
        """The family's agent programs and coordinator for the sequential and Ray backends (None:
        the solver runs in process only)."""
        return None

    # ---- the run -----------------------------------------------------------------------------
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
        """Run the solver on ``problem``: one run, or R independent trials in one batched run.

        Args:
          problem: the problem (of the family's problem type).
          seed: a single run's seed (int, SeedSequence, Generator; None draws OS entropy), or with
            ``trials`` the root from which the trials' seeds are spawned (SeedSequence.spawn). A
            ``mechanisms.SecureReseedingGenerator`` is honoured in both: every trial's agents get
            children of it (``Generator.spawn``), each reseeded from OS entropy at every draw, and
            ``Result.seeds`` keeps no seed (``UnreplayableSeed``: nothing replays such a run).
          trials: R, for a batched run with seeds spawned from ``seed``. The trials are independent
            simulations on the same data (for audits), not releases of one deployment: the ledger
            and ``Result.privacy`` are per trial (``Result.privacy_scope``; with ``ledger_path``
            the run record next to the file says so, ``solvers.engine.ledger_runs``).
          seeds: explicit per-trial seeds (a batched run with R = len(seeds)); excludes ``seed``
            and ``trials``.
          accountants: accountants to register every release with (instances or names from
            ``accountants.ACCOUNTANTS``, or one ``accountants.BudgetFilter``); None attaches the
            family's ``default_accountants``, ``()`` none (the ledger is still kept). Every release
            is registered before the first one happens and before any noise is drawn; a run a
            ``BudgetFilter`` refuses raises ``accountants.PrivacyBudgetExceeded`` with nothing
            recorded or written.
          record_history: evaluate the per-iteration metrics.
          record_transcript: keep the released messages (T·R·N·d floats for DP-ADMM).
          transcript_agents: keep only these agents' messages (default all).
          record_white_box: also keep unreleased quantities (e.g. the noise-free w_i^{k+1}).
          max_chunk_bytes: memory bound of one chunk of trials.
          backend: "inprocess" (default: one process, vectorised over agents and trials),
            "sequential" (the family's agent programs one after another in this process), "ray"
            (one Ray actor per agent, ``solvers.engine.backends.RayBackend()``) or a backend
            instance (``RayBackend(address=...)``).
          ledger_path: also append every release to this JSON-lines ledger (``LedgerFile``),
            written and synced before the release happens (all at once in process, iteration by
            iteration on the agent backends, so a run stopped by a fault leaves every release it
            made on disk), and one line saying what the entries cover (one deployment, or each of R
            simulated trials) to ``<ledger_path>.runs.jsonl`` (``solvers.engine.ledger_runs``) before
            them.

        Returns:
          A ``Result``; arrays have a trials axis iff ``trials`` or ``seeds`` was given.
        """
        if not isinstance(problem, self.problem_type):
            raise TypeError(
                f"{type(self).__name__} runs on a {self.problem_type.__name__}, got {type(problem).__name__}"
            )
        with self.run_context():
            resolved = resolve_accountants(accountants, self.default_accountants)
            plan = self.plan(problem)
            seeds_of_trials, batched = trial_seeds(seed, trials, seeds)
            engine = resolve_backend(backend)
            R = len(seeds_of_trials)
            options = RecordOptions(record_history, record_transcript, transcript_agents, record_white_box)
            recorder = self.make_recorder(problem, plan, R, options)
            split = chunks(R, self.bytes_per_trial(problem, plan), max_chunk_bytes)
            # Every argument is checked; from here on the run happens. Register every release first
            # (a BudgetFilter refuses the whole run here), before anything is written or drawn.
            ledger, privacy = self.account(problem, plan, resolved)
            scope = privacy_scope(R, batched)
            ledger_file = self._open_ledger_file(ledger_path, R, batched, scope, ledger)
            if ledger_file is not None and (self.ledger_written_upfront or not engine.writes_ledger_by_round):
                ledger_file.extend(ledger)  # all of it, before the first release
                ledger_file = None
            job = RunJob(self, problem, plan, recorder, ledger, ledger_file)
            diagnostics: dict[str, float] = {}
            with engine.session(job) as run_chunk:
                for number, trials_slice in enumerate(split):  # the one chunk loop
                    recorder.begin(trials_slice)
                    for key, value in run_chunk(number, seeds_of_trials[trials_slice]).items():
                        diagnostics[key] = max(value, diagnostics.get(key, value))
        squeeze = (lambda a: a) if batched else (lambda a: a[0])
        return Result(
            model=squeeze(recorder.model),
            model_average=squeeze(recorder.model_average),
            history={k: v if batched else v[:, 0] for k, v in recorder.history.items()},
            transcript=recorder.transcript(batched) if record_transcript else None,
            ledger=ledger,
            privacy=privacy,
            delta=self.target_delta,
            seeds=kept_seeds(seeds_of_trials),
            solver={"name": self.name, **self.get_params()},
            info={**details_info(plan.details), **diagnostics},
            privacy_scope=scope,
            details=plan.details,
        )

    def _open_ledger_file(
        self, ledger_path: str | os.PathLike | None, n_trials: int, batched: bool, scope: str, ledger: Ledger
    ) -> LedgerFile | None:
        """The run's ``LedgerFile`` (None without a path), after its run-record line is on disk."""
        if ledger_path is None:
            return None
        ledger_file = LedgerFile(ledger_path)
        append_run_record(
            ledger_path,
            solver=self.name,
            n_trials=n_trials,
            batched=batched,
            privacy_scope=scope,
            releases=len(ledger),
            participants=len(ledger.participants),
        )
        return ledger_file
