"""Per-iteration history and transcript of a run, written chunk by chunk of trials.

The solver calls :meth:`Recorder.record` once per iteration with the global model w^{k+1}
(R_c, d), the agents' released local models (R_c, N, d) and its channels; the recorder evaluates
the history metrics vectorised over the chunk's trials and stores everything into arrays
preallocated for all R trials.

History keys, each (T, R) (spec 000 §6 and §8 item 17; all at the global iterate w^{k+1}):
  objective            F(w) = Σ_i f_i(w) (paper's scale)     objective_mean    F/N
  empirical_loss       Σ_i (1/m_i) Σ_j ℓ_ij(w)                empirical_loss_mean  ÷N
  gap, relative_gap    F(w) − F*, (F(w) − F*)/|F*|            (when the problem has an optimum)
  test_accuracy        accuracy of w^{k+1}                    (when the problem has a test set)
  test_accuracy_average  accuracy of the ergodic mean (1/t) Σ_{s=1}^{t} w^s (Theorem 4 window)
  consensus            max_i ‖ŵ_i − w‖, ŵ_i the released local model

:class:`BaseRecorder` keeps what every problem type shares (transcript, final and average models);
:class:`Recorder` adds the metrics above on a ``HorizontalProblem``, and
``solvers.sharing.base.VerticalRecorder`` those of a ``VerticalProblem``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import numpy as np

from solvers.problem import HorizontalProblem
from solvers.topology import Topology
from solvers.transcript import Channel, Transcript

__all__ = ["BaseRecorder", "ChannelSpec", "RecordedProblem", "Recorder"]


@dataclass(frozen=True)
class ChannelSpec:
    """What a solver declares about one channel: who sends it, what it is, whether it is released."""

    sender: str
    description: str
    white_box: bool = False


class RecordedProblem(Protocol):
    """What a recorder reads from every problem type: the senders, the model size, the topology."""

    @property
    def n_agents(self) -> int: ...

    @property
    def n_features(self) -> int: ...

    @property
    def topology(self) -> Topology | None: ...


#: The problem type of a recorder.
RP = TypeVar("RP", bound=RecordedProblem)


class BaseRecorder(Generic[RP]):
    """Transcript and final models of R trials on a problem of type ``RP``; a subclass adds the
    history metrics of its problem type and the ``record`` method its solvers call.

    Args:
      problem: the problem being solved.
      channels: the solver's channels by name.
      n_iterations, n_trials: T and R.
      transcript: store the released channels.
      transcript_agents: the agents whose messages are stored (default: all).
      white_box: also store channels marked white-box.
    """

    def __init__(
        self,
        problem: RP,
        channels: Mapping[str, ChannelSpec],
        n_iterations: int,
        n_trials: int,
        *,
        transcript: bool = True,
        transcript_agents: Sequence[int] | None = None,
        white_box: bool = False,
    ) -> None:
        self.problem = problem
        self.T, self.R = n_iterations, n_trials
        self.history_enabled = False
        self.specs = {name: spec for name, spec in channels.items() if transcript and (white_box or not spec.white_box)}
        agents = range(problem.n_agents) if transcript_agents is None else transcript_agents
        self.agents = np.array(sorted({_agent(a, problem.n_agents) for a in agents}), dtype=np.int64)
        self.all_agents = self.agents.size == problem.n_agents
        d = problem.n_features
        self.model = np.empty((n_trials, d))
        self.model_average = np.empty((n_trials, d))
        self.history: dict[str, np.ndarray] = {}
        self.channels: dict[str, np.ndarray] = {}
        self._trials = slice(0, 0)
        self._running_sum: np.ndarray | None = None

    def begin(self, trials: slice) -> None:
        """Start a chunk: the next ``record`` calls write trials ``trials``."""
        self._trials = trials
        self._running_sum = None

    def _store(self, k: int, model: np.ndarray, messages: Mapping[str, np.ndarray]) -> np.ndarray:
        """Store iteration k's model and channels; returns the running sum of the chunk's models."""
        rows = self._trials
        running_sum = model.copy() if self._running_sum is None else self._running_sum + model
        self._running_sum = running_sum
        if k == self.T - 1:
            self.model[rows] = model
            self.model_average[rows] = running_sum / self.T
        for name, spec in self.specs.items():
            values = messages[name]
            if spec.sender == "agents" and not self.all_agents:
                values = values[:, self.agents]
            if name not in self.channels:
                self.channels[name] = np.empty((self.T, self.R) + values.shape[1:])
            self.channels[name][k, rows] = values
        return running_sum

    def transcript(self, batched: bool) -> Transcript:
        """The recorded channels as a ``Transcript`` (trials axis dropped if not ``batched``)."""
        channels = []
        for name, spec in self.specs.items():
            values = self.channels[name] if batched else self.channels[name][:, 0]
            agents = tuple(self.agents.tolist()) if spec.sender == "agents" else ()
            channels.append(Channel(name, values, spec.sender, spec.description, spec.white_box, agents))
        topology = self.problem.topology
        if topology is None:  # every problem type sets its topology when it is built
            raise ValueError("the problem has no topology")
        return Transcript(channels, topology, batched)


class Recorder(BaseRecorder[HorizontalProblem]):
    """Collects history, transcript and final models of R trials.

    Args:
      problem: the problem being solved (metrics are evaluated on it).
      channels: the solver's channels by name.
      n_iterations, n_trials: T and R.
      history: evaluate the history metrics (the main cost besides the solver itself).
      transcript: store the released channels.
      transcript_agents: the agents whose messages are stored (default: all).
      white_box: also store channels marked white-box.
    """

    def __init__(
        self,
        problem: HorizontalProblem,
        channels: Mapping[str, ChannelSpec],
        n_iterations: int,
        n_trials: int,
        *,
        history: bool = True,
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
        if history:
            names = ["objective", "objective_mean", "empirical_loss", "empirical_loss_mean", "consensus"]
            if problem.optimum is not None:
                names += ["gap", "relative_gap"]
            if problem.has_test:
                names += ["test_accuracy", "test_accuracy_average"]
            self.history = {name: np.empty((n_iterations, n_trials)) for name in names}

    def record(self, k: int, model: np.ndarray, local: np.ndarray, **messages: np.ndarray) -> None:
        """Record iteration k: global model w^{k+1} (R_c, d), released local models (R_c, N, d),
        and one array per channel ((R_c, N, ...) from agents, (R_c, ...) from the server)."""
        running_sum = self._store(k, model, messages)
        if self.history_enabled:
            self._record_history(k, model, local, running_sum)

    def _record_history(self, k: int, model: np.ndarray, local: np.ndarray, running_sum: np.ndarray) -> None:
        problem, rows, h = self.problem, self._trials, self.history
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


def _agent(agent: object, n_agents: int) -> int:
    if isinstance(agent, bool) or not isinstance(agent, (int, np.integer)) or not 0 <= agent < n_agents:
        raise ValueError(f"transcript_agents must hold agent ids in [0, {n_agents}), got {agent!r}")
    return int(agent)
