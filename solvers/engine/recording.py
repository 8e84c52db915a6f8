"""What the engine records of a run: the transcript of released channels and the final models.

A solver declares its channels (:class:`ChannelSpec`: sender, description, white-box flag); the
engine builds the solver's recorder (``Solver.make_recorder``) for R trials and calls ``begin`` at
every chunk of trials; the solver's iterations call the recorder's ``record`` once per iteration.
:class:`BaseRecorder` keeps what every problem type shares (transcript, final and ergodic-average
models); a problem type's recorder adds its history metrics (``solvers.horizontal_recorder.Recorder`` for
records split across agents, ``solvers.sharing.base.VerticalRecorder`` for features split across
parties).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import numpy as np

from solvers.engine.transcript import Channel, Transcript
from solvers.topology import Topology

__all__ = ["BaseRecorder", "ChannelSpec", "RecordOptions", "RecordedProblem"]


@dataclass(frozen=True)
class ChannelSpec:
    """What a solver declares about one channel: who sends it, what it is, whether it is released."""

    sender: str
    description: str
    white_box: bool = False


@dataclass(frozen=True)
class RecordOptions:
    """What a run records (``Solver.run``'s ``record_*`` and ``transcript_agents`` arguments).

    Attributes:
      history: evaluate the per-iteration metrics (the main cost besides the solver itself).
      transcript: store the released channels.
      transcript_agents: the agents whose messages are stored (None: all).
      white_box: also store channels marked white-box (unreleased values).
    """

    history: bool = True
    transcript: bool = True
    transcript_agents: Sequence[int] | None = None
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
      options: what is recorded (``RecordOptions``).
    """

    def __init__(
        self,
        problem: RP,
        channels: Mapping[str, ChannelSpec],
        n_iterations: int,
        n_trials: int,
        options: RecordOptions,
    ) -> None:
        self.problem = problem
        self.T, self.R = n_iterations, n_trials
        self.history_enabled = False
        self.specs = {
            name: spec
            for name, spec in channels.items()
            if options.transcript and (options.white_box or not spec.white_box)
        }
        agents = range(problem.n_agents) if options.transcript_agents is None else options.transcript_agents
        self.agents = np.array(sorted({_agent(a, problem.n_agents) for a in agents}), dtype=np.int64)
        self.all_agents = self.agents.size == problem.n_agents
        d = problem.n_features
        self.model = np.empty((n_trials, d))
        self.model_average = np.empty((n_trials, d))
        self.history: dict[str, np.ndarray] = {}
        self.channels: dict[str, np.ndarray] = {}
        self.chunk_rows = slice(0, 0)
        self._running_sum: np.ndarray | None = None

    def begin(self, trials: slice) -> None:
        """Start a chunk: the next ``record`` calls write trials ``trials``."""
        self.chunk_rows = trials
        self._running_sum = None

    def store(self, k: int, model: np.ndarray, messages: Mapping[str, np.ndarray]) -> np.ndarray:
        """Store iteration k's model and channels; returns the running sum of the chunk's models."""
        rows = self.chunk_rows
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


def _agent(agent: object, n_agents: int) -> int:
    if isinstance(agent, bool) or not isinstance(agent, (int, np.integer)) or not 0 <= agent < n_agents:
        raise ValueError(f"transcript_agents must hold agent ids in [0, {n_agents}), got {agent!r}")
    return int(agent)
