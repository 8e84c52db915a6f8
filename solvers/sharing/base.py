"""The engine's hooks for vertically partitioned problems (``VerticalProblem``).

A vertical problem needs other history metrics than one split by records (test log loss, the
primal residual of the sharing constraint), so:

  - :class:`VerticalRecorder` is a ``BaseRecorder[VerticalProblem]``: the engine's transcript and
    final models, with vertical history metrics evaluated on a ``VerticalProblem``;
  - :class:`VerticalSolver` is a ``solvers.engine.Solver`` on a ``VerticalProblem`` recording into
    it, run under a BLAS thread limit. Its families draw their randomness per party (ADMM sharing:
    party m from child m of the trial's seed, as its Ray actor does) or per trial (SGD's shuffles,
    ``trial_draws``), so trial r of a batched run equals a single run with its seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from solvers.engine.plan import RunPlan
from solvers.engine.recording import BaseRecorder, ChannelSpec, RecordOptions
from solvers.engine.solver import Solver
from solvers.sharing.problem import VerticalProblem

__all__ = ["VerticalRecorder", "VerticalSolver"]


class VerticalRecorder(BaseRecorder[VerticalProblem]):
    """History, transcript and final models of R trials on a ``VerticalProblem``.

    History keys, each (T, R), at the (noise-free) model x^{t+1} (the curves of Hu et al. 2019,
    Sec. 5):
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
        options: RecordOptions,
        extras: Sequence[str] = (),
    ) -> None:
        super().__init__(problem, channels, n_iterations, n_trials, options)
        self.history_enabled = options.history
        self.extras = tuple(extras)
        if options.history:
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
        self.store(k, model, messages)
        if self.history_enabled:
            self._record_history(k, model, {} if extras is None else extras)

    def _record_history(self, k: int, model: np.ndarray, extras: Mapping[str, np.ndarray]) -> None:
        problem, rows, h = self.problem, self.chunk_rows, self.history
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


class VerticalSolver(Solver[VerticalProblem, VerticalRecorder]):
    """Base class of the solvers on a ``VerticalProblem``: the engine's ``run`` with the vertical
    recorder, run under a BLAS thread limit.

    The transcript's "agents" are the parties 0..M−1; ``Result.model`` is the full model x (d,) or
    (R, d) in the partition's original column order.
    """

    problem_type: ClassVar[type] = VerticalProblem
    #: Extra per-iteration history keys the solver passes to ``VerticalRecorder.record``.
    history_extras: ClassVar[tuple[str, ...]] = ()

    def make_recorder(
        self, problem: VerticalProblem, plan: RunPlan[Any], n_trials: int, options: RecordOptions
    ) -> VerticalRecorder:
        return VerticalRecorder(problem, self.channels, plan.n_iterations, n_trials, options, self.history_extras)

    def bytes_per_trial(self, problem: VerticalProblem, plan: RunPlan[Any]) -> int:
        """Pre-drawn randomness plus a few (M, N) work arrays per trial."""
        M, N, width = problem.partition.D.shape
        return 8 * (int(np.prod(plan.noise_shape)) + 8 * M * N + 4 * M * width)
