"""Adapter of the solver framework to vertically partitioned problems.

``solvers.base.Solver.run`` builds a ``solvers.recorder.Recorder`` whose metrics are those of a
``HorizontalProblem`` (objective summed over agents, consensus error), and sizes its chunks from
``problem.partition.X``. A vertical problem needs other metrics (test log loss, the primal residual
of the sharing constraint) and its own randomness per trial (SGD's shuffles), so this module:

  - :class:`VerticalRecorder` is a ``BaseRecorder[VerticalProblem]``: same channels, transcript and
    final models as ``Recorder``, vertical history metrics evaluated on a ``VerticalProblem``;
  - :class:`VerticalSolver` is a ``Solver[VerticalProblem]`` whose ``run`` has the same signature,
    seeds, chunking, ledger and accountants as ``HorizontalSolver.run`` (it reuses the framework's
    helpers), with the recorder above and a per-trial ``sample_trial`` hook.

Trial r of a batched run draws everything from its seed ``seeds[r]`` (``trial_randomness``: by
default from ``make_rng(seeds[r])``; ADMM sharing: party m from child m, as its Ray actor does)
exactly as a single run with ``seed=seeds[r]`` does, so the two agree. ``backend="ray"`` hands the
run to ``solvers.backends.RayBackend`` (solvers with an agent program: ``ADMMSharing``).
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import ClassVar, cast

import numpy as np

from mechanisms import make_rng
from solvers.accounting import AccountantsLike, record_releases, resolve_accountants
from solvers.backends import BackendLike, resolve_backend
from solvers.base import (
    MAX_CHUNK_BYTES,
    RunPlan,
    SeedLike,
    Solver,
    _chunks,
    _open_ledger_file,
    _trial_seeds,
    kept_seeds,
)
from solvers.recorder import BaseRecorder, ChannelSpec
from solvers.result import Result, privacy_scope
from solvers.sharing.problem import BLAS_THREADS, VerticalProblem, blas_threads

__all__ = ["VerticalRecorder", "VerticalSolver"]


class VerticalRecorder(BaseRecorder[VerticalProblem]):
    """History, transcript and final models of R trials on a ``VerticalProblem``.

    History keys, each (T, R), at the (noise-free) model x^{t+1} (spec 004 §2 "quantities to log"):
      objective          F(x) = l(Dx) + λR(x)
      loss               l(Dx), the training loss
      gap, relative_gap  F(x) − F*, (F(x) − F*)/|F*|       (when the problem has an optimum)
      test_log_loss      mean test loss                      (when the problem has a test set)
      test_accuracy      test accuracy of sign(D^te x)       (when the problem has a test set)
      + the solver's ``history_extras`` (e.g. ADMM's primal residual), passed to ``record``.
    """

    def __init__(
        self,
        problem: VerticalProblem,
        channels: Mapping[str, ChannelSpec],
        n_iterations: int,
        n_trials: int,
        *,
        history: bool = True,
        extras: Sequence[str] = (),
        transcript: bool = True,
        transcript_agents: Sequence[int] | None = None,
        white_box: bool = False,
    ) -> None:
        super().__init__(
            problem,
            channels,
            n_iterations,
            n_trials,
            transcript=transcript,
            transcript_agents=transcript_agents,
            white_box=white_box,
        )
        self.history_enabled = history
        self.extras = tuple(extras)
        if history:
            names = ["objective", "loss"]
            if problem.optimum is not None:
                names += ["gap", "relative_gap"]
            if problem.has_test:
                names += ["test_log_loss", "test_accuracy"]
            names += list(self.extras)
            self.history = {name: np.empty((n_iterations, n_trials)) for name in names}

    def record(
        self, k: int, model: np.ndarray, extras: Mapping[str, np.ndarray] | None = None, **messages: np.ndarray
    ) -> None:
        """Record iteration k: the full model x^{t+1} (R_c, d), the solver's extra per-trial metrics
        {name: (R_c,)}, and one array per channel ((R_c, M, ...) from parties, (R_c, ...) from the
        server)."""
        self._store(k, model, messages)
        if self.history_enabled:
            self._record_history(k, model, {} if extras is None else extras)

    def _record_history(self, k: int, model: np.ndarray, extras: Mapping[str, np.ndarray]) -> None:
        problem, rows, h = self.problem, self._trials, self.history
        loss = problem.loss_value(model)
        objective = loss + problem.lam * problem.regularizer.value(model)
        h["loss"][k, rows] = loss
        h["objective"][k, rows] = objective
        if problem.optimum is not None:
            gap = objective - problem.optimum.objective
            h["gap"][k, rows] = gap
            h["relative_gap"][k, rows] = gap / abs(problem.optimum.objective)
        if problem.has_test:
            h["test_log_loss"][k, rows] = problem.test_log_loss(model)
            h["test_accuracy"][k, rows] = problem.accuracy(model)
        for name in self.extras:
            h[name][k, rows] = extras[name]


class VerticalSolver(Solver[VerticalProblem]):
    """Base class of the solvers on a ``VerticalProblem`` (``run`` as in ``solvers.base.Solver``)."""

    #: Extra per-iteration history keys the solver passes to ``VerticalRecorder.record``.
    history_extras: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def iterate(
        self,
        problem: VerticalProblem,
        plan: RunPlan,
        n_trials: int,
        randomness: Mapping[str, np.ndarray] | None,
        recorder: VerticalRecorder,
    ) -> Mapping[str, float]:
        """Run all iterations for a chunk of ``n_trials`` trials (``randomness``: the trials' draws
        {name: (n_trials, ...)}, or None), calling ``recorder.record`` each iteration; return
        diagnostics (max over chunks)."""

    def sample_trial(
        self, rng: np.random.Generator, problem: VerticalProblem, plan: RunPlan
    ) -> dict[str, np.ndarray] | None:
        """All of one trial's randomness, drawn from its own generator before the iterations
        (default: ``plan.mechanism.sample(rng, plan.noise_shape)`` as "noise", or None)."""
        if plan.mechanism is None:
            return None
        return {"noise": plan.mechanism.sample(rng, plan.noise_shape)}

    def trial_randomness(self, seed: SeedLike, problem: VerticalProblem, plan: RunPlan) -> dict[str, np.ndarray] | None:
        """One trial's randomness from its seed (default: ``sample_trial`` on ``make_rng(seed)``)."""
        return self.sample_trial(make_rng(seed), problem, plan)

    def bytes_per_trial(self, problem: VerticalProblem, plan: RunPlan) -> int:
        """Pre-drawn randomness plus a few (M, N) work arrays per trial."""
        M, N, width = problem.partition.D.shape
        return 8 * (int(np.prod(plan.noise_shape)) + 8 * M * N + 4 * M * width)

    def run(
        self,
        problem: VerticalProblem,
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
        """Run on ``problem`` (a ``VerticalProblem``); arguments and result as ``Solver.run``
        (``backend="ray"`` runs every party as a Ray actor, for the solvers with an agent program).

        The transcript's "agents" are the parties 0..M−1; ``Result.model`` is the full model x
        (d,) or (R, d) in the partition's original column order.
        """
        if not isinstance(problem, VerticalProblem):
            raise TypeError(f"{type(self).__name__} runs on a VerticalProblem, got {type(problem).__name__}")
        with blas_threads(BLAS_THREADS):
            return self._run(
                problem,
                seed=seed,
                trials=trials,
                seeds=seeds,
                accountants=accountants,
                record_history=record_history,
                record_transcript=record_transcript,
                transcript_agents=transcript_agents,
                record_white_box=record_white_box,
                max_chunk_bytes=max_chunk_bytes,
                backend=backend,
                ledger_path=ledger_path,
            )

    def _run(
        self,
        problem: VerticalProblem,
        *,
        seed: SeedLike,
        trials: int | None,
        seeds: Sequence[int | np.random.SeedSequence] | None,
        accountants: AccountantsLike,
        record_history: bool,
        record_transcript: bool,
        transcript_agents: Sequence[int] | None,
        record_white_box: bool,
        max_chunk_bytes: int,
        backend: BackendLike,
        ledger_path: str | os.PathLike | None,
    ) -> Result:
        resolved = resolve_accountants(accountants)
        plan = self.plan(problem)
        trial_seeds, batched = _trial_seeds(seed, trials, seeds)
        engine = resolve_backend(backend)
        R = len(trial_seeds)
        recorder = VerticalRecorder(
            problem,
            self.channels,
            plan.n_iterations,
            R,
            history=record_history,
            extras=self.history_extras,
            transcript=record_transcript,
            transcript_agents=transcript_agents,
            white_box=record_white_box,
        )
        chunks = _chunks(R, self.bytes_per_trial(problem, plan), max_chunk_bytes)
        # Every argument is checked: register every release (a BudgetFilter refuses the whole run
        # here), before anything is written or drawn.
        ledger, privacy = record_releases(plan.events, resolved, self.target_delta)
        scope = privacy_scope(R, batched)
        ledger_file = _open_ledger_file(ledger_path, self.name, R, batched, scope, ledger)
        diagnostics: dict[str, float]
        if engine is not None:
            diagnostics = engine.execute(self, problem, plan, trial_seeds, chunks, recorder, ledger, ledger_file)
        else:
            diagnostics = {}
            if ledger_file is not None:
                ledger_file.extend(ledger)
            for trials_slice in chunks:
                draws = [self.trial_randomness(s, problem, plan) for s in trial_seeds[trials_slice]]
                randomness: dict[str, np.ndarray] | None = None
                if draws[0] is not None:  # the trials of one plan all draw randomness, or none does
                    drawn = cast("list[dict[str, np.ndarray]]", draws)
                    randomness = {key: np.stack([d[key] for d in drawn]) for key in draws[0]}
                recorder.begin(trials_slice)
                for key, value in self.iterate(problem, plan, len(draws), randomness, recorder).items():
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
            seeds=kept_seeds(trial_seeds),
            solver={"name": self.name, **self.get_params()},
            info={**plan.info, **diagnostics},
            privacy_scope=scope,
        )
