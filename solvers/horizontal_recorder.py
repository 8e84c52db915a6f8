"""Per-iteration history and transcript of a run, written chunk by chunk of trials.

The solver calls :meth:`Recorder.record` once per iteration with the global model w^{k+1}
(R_c, d), the agents' released local models (R_c, N, d) and its channels; the recorder evaluates
the history metrics vectorised over the chunk's trials and stores everything into arrays
preallocated for all R trials.

History keys, each (T, R) (the measures of Huang et al. 2020, Sec. VI, which sum over the N agents, and
their per-agent means; all at the global iterate w^{k+1}):
  objective            F(w) = Σ_i f_i(w) (paper's scale)     objective_mean    F/N
  empirical_loss       Σ_i (1/m_i) Σ_j ℓ_ij(w)                empirical_loss_mean  ÷N
  gap, relative_gap    F(w) − F*, (F(w) − F*)/|F*|            (when the problem has an optimum)
  test_accuracy        accuracy of w^{k+1}                    (when the problem has a test set)
  test_accuracy_average  accuracy of the ergodic mean (1/t) Σ_{s=1}^{t} w^s (Theorem 4 window)
  consensus            max_i ‖ŵ_i − w‖, ŵ_i the released local model

``solvers.engine.BaseRecorder`` keeps what every problem type shares (transcript, final and
average models); :class:`Recorder` adds the metrics above on a ``HorizontalProblem``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from solvers.engine.recording import BaseRecorder, ChannelSpec, RecordOptions
from solvers.problem import HorizontalProblem

__all__ = ["Recorder"]


class Recorder(BaseRecorder[HorizontalProblem]):
    """Collects history, transcript and final models of R trials.

    Args:
      problem: the problem being solved (metrics are evaluated on it).
      channels: the solver's channels by name.
      n_iterations, n_trials: T and R.
      options: what is recorded (``solvers.engine.RecordOptions``).
    """

    def __init__(
        self,
        problem: HorizontalProblem,
        channels: Mapping[str, ChannelSpec],
        n_iterations: int,
        n_trials: int,
        options: RecordOptions,
    ) -> None:
        super().__init__(problem, channels, n_iterations, n_trials, options)
        self.history_enabled = options.history
        if options.history:
            names = ["objective", "objective_mean", "empirical_loss", "empirical_loss_mean", "consensus"]
            if problem.optimum is not None:
                names += ["gap", "relative_gap"]
            if problem.has_test:
                names += ["test_accuracy", "test_accuracy_average"]
            self.history = {name: np.empty((n_iterations, n_trials)) for name in names}

    def record(self, k: int, model: np.ndarray, local: np.ndarray, **messages: np.ndarray) -> None:
        """Record iteration k: global model w^{k+1} (R_c, d), released local models (R_c, N, d),
        and one array per channel ((R_c, N, ...) from agents, (R_c, ...) from the server)."""
        running_sum = self.store(k, model, messages)
        if self.history_enabled:
            self._record_history(k, model, local, running_sum)

    def _record_history(self, k: int, model: np.ndarray, local: np.ndarray, running_sum: np.ndarray) -> None:
        problem, rows, h = self.problem, self.chunk_rows, self.history
        loss = problem.empirical_loss(model)
        objective = loss + problem.lam * problem.regularizer.value(model)
        h["empirical_loss"][k, rows] = loss
        h["empirical_loss_mean"][k, rows] = loss / problem.n_agents
        h["objective"][k, rows] = objective
        h["objective_mean"][k, rows] = objective / problem.n_agents
        h["consensus"][k, rows] = np.linalg.norm(local - model[:, None, :], axis=-1).max(axis=-1)
        if problem.optimum is not None:
            gap = objective - problem.optimum.objective
            h["gap"][k, rows] = gap
            h["relative_gap"][k, rows] = gap / abs(problem.optimum.objective)
        if problem.has_test:
            both = problem.accuracy(np.stack([model, running_sum / (k + 1)]))
            h["test_accuracy"][k, rows] = both[0]
            h["test_accuracy_average"][k, rows] = both[1]
