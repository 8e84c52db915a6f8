"""A solver family as its noise-free step: the one list of a family's hooks, and what the engine derives.

A family is a frozen dataclass of its parameters subclassing :class:`StepSolver` (and, for its
problem type, ``solvers.HorizontalSolver``, which gives ``make_recorder`` and ``share``). It writes:

  - ``plan(problem) -> RunPlan`` (``solvers.engine.plan``): what is released, with which noise, and
    the family's constants, fixed before the first iteration (a plan depends on no private data);
  - one iteration as small pure pieces, each computed for :class:`Agents` — all agents at once in
    process, or one agent holding only its own share on an agent backend or in a replay:

    - ``agent_state(agents, plan, n_trials, noise)``: the agents' state before iteration 0 (``noise``:
      their block of the plan's noise, (R, *noise_shape) with their rows of the agents axis, or None);
    - ``release(agents, plan, k, state, inbound, noise)``: what the agents release in iteration k
      (:class:`Release`) from their state, the coordinator's message ``inbound`` and their noise
      (``noise=None``: the noise-free release, the mean an adversary replays);
    - ``advance(agents, plan, k, state, inbound, release)``: their state once ``release`` is made (a
      replayable family reads only ``release.sent``, the replay's being what was released);
    - ``coordinator_state(problem, plan, n_trials)``, ``inbound(problem, plan, k, state)`` and
      ``combine(problem, plan, k, state, received)``: the coordinator's start, what it sends every
      agent in iteration k, and how it combines what the agents sent (a :class:`Release` of them all)
      into :class:`Combined` (its next state, the model, its own channels, diagnostics);
    - ``release_sigma(plan)``: the standard deviation of agent i's release in iteration k around its
      noise-free value, (T, N) (a Gaussian release; its privacy is ``plan.events``; not with ``replay_refusal``);
    - ``share(problem, agent)``: agent i's share of the data (and ``everyone(problem)``: what all agents
      hold together in process, default the problem);

  - its transcript: the class attributes ``name``, ``channels`` (``ChannelSpec`` by name),
    ``sent_channel`` (the agents' releases) and ``broadcast_channel`` (what the coordinator sends);
    a value sent to the coordinator but not released (``Release.reported``) is no privacy event (the
    ledger is the plan's events) and its channel must be white-box; ``agent_axis``: the agents axis
    of the pieces' arrays, 1 ((R, n, ...), default) or 0 ((n, R, ...), e.g. parties holding feature
    blocks); the engine joins agents along it and records their channels as (R, n, ...);
  - optionally: ``record`` (what is recorded of iteration k; default ``recorder.record``),
    ``route(problem, message, agent)`` and ``delivered(agents, routed)`` (what of the
    coordinator's message reaches agent i, e.g. its neighbours' broadcasts on a graph, and how the agent
    reads it; default all of it), ``replay_refusal`` (why nothing replays the agents' releases, e.g. an
    agent's state holds randomness of its own; default None), ``replay_means`` (the replayed agent's
    noise-free releases under D and D′ computed together; default ``release`` without noise on each),
    ``replayed_inbound`` (what the agents received, read from the public transcript; default the
    coordinator's first message, then the ``broadcast_channel`` of the iteration before), and the
    ``Solver`` hooks ``account`` (its own ledger shape), ``trial_draws`` (its own randomness per
    trial), ``run_context`` and ``bytes_per_trial``, with ``default_accountants`` and ``target_delta``.

From the pieces the engine derives ``iterate`` (the batched in-process iteration), ``protocol``
(the agent programs of the sequential and Ray backends, :class:`StepAgent`, and their coordinator,
:class:`StepCoordinator`) and ``replay`` (one agent's noise-free releases under two neighbouring data
sets, recomputed from the released history: the white-box replay of ``attacks.whitebox``), so that
the three compute the same arithmetic and ``solvers.testing.check_solver`` can prove they agree. (A
family not yet written this way subclasses ``Solver`` and writes ``iterate`` and, for the agent
backends, ``protocol`` itself, ``solvers.engine.protocol``.)
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, cast

import numpy as np

from solvers.engine.plan import RunPlan
from solvers.engine.protocol import AgentProgram, AgentProtocol, Coordinator
from solvers.engine.solver import Draws, P, RecorderT, Solver
from solvers.engine.transcript import Transcript

__all__ = ["Agents", "Combined", "Release", "Replay", "StepAgent", "StepCoordinator", "StepSolver"]


@dataclass(frozen=True)
class Agents:
    """The agents a piece computes for.

    Attributes:
      data: the problem (every agent, in process) or one agent's share (``StepSolver.share``).
      rows: their rows of the agents axis: ``slice(None)`` for all, ``slice(i, i + 1)`` for agent i.
    """

    data: Any
    rows: slice


@dataclass(frozen=True)
class Release:
    """What the agents release in one iteration.

    Attributes (arrays with the agents on ``StepSolver.agent_axis``):
      sent: the released message, (R, n, ...) for the n agents computed (noise included).
      white_box: unreleased values by channel name, (R, n, ...) each (sent only when recorded).
      diagnostics: {name: value}; a run reports each one's maximum.
      kept: unreleased values the agents keep for ``advance`` (never sent).
      reported: unreleased values sent to the coordinator (for ``combine``), by channel name.
    """

    sent: np.ndarray
    white_box: Mapping[str, np.ndarray] = field(default_factory=dict)
    diagnostics: Mapping[str, float] = field(default_factory=dict)
    kept: Any = None
    reported: Mapping[str, np.ndarray] = field(default_factory=dict)


@dataclass(frozen=True)
class Combined:
    """The coordinator's step in one iteration: its next state, the model (R, d), its own channels
    (R, ...) by name, and diagnostics ({name: value}; a run reports each one's maximum)."""

    state: Any
    model: np.ndarray
    channels: Mapping[str, np.ndarray]
    diagnostics: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Replay:
    """One agent's releases replayed under two neighbouring data sets, each (T, R, ...).

    Attributes:
      sent: the agent's released messages, read from the transcript.
      mean_in, mean_out: its noise-free releases under D and D′, recomputed from the released history.
      sigma: (T,) the standard deviation of each release around its noise-free value.
    """

    sent: np.ndarray
    mean_in: np.ndarray
    mean_out: np.ndarray
    sigma: np.ndarray


class IterationRecorder(Protocol):
    """What a step family's recorder records once per iteration (``solvers.horizontal_recorder.Recorder.record``)."""

    def record(self, k: int, model: np.ndarray, local: np.ndarray, /, **messages: np.ndarray) -> None: ...


class StepSolver(Solver[P, RecorderT]):
    """A solver family written as its noise-free step (module docstring: the hooks, and what is derived)."""

    #: The channel of the agents' releases ``Release.sent``.
    sent_channel: ClassVar[str]
    #: The coordinator's channel that every agent receives in the next iteration (the replay reads it).
    broadcast_channel: ClassVar[str]
    #: The agents axis of the pieces' arrays: 1 (trial-major, (R, n, ...)) or 0 (agent-major, (n, R, ...)).
    agent_axis: ClassVar[int] = 1

    # ---- the pieces ---------------------------------------------------------------------------
    @abstractmethod
    def share(self, problem: P, agent: int) -> Any:
        """Agent ``agent``'s share of ``problem``: its own data only."""

    @abstractmethod
    def agent_state(self, agents: Agents, plan: RunPlan[Any], n_trials: int, noise: np.ndarray | None) -> Any:
        """The agents' state before iteration 0, for ``n_trials`` trials (``noise``: their noise, or None)."""

    @abstractmethod
    def release(
        self, agents: Agents, plan: RunPlan[Any], k: int, state: Any, inbound: Any, noise: np.ndarray | None
    ) -> Release:
        """The agents' release of iteration k (``noise``: their block of the plan's noise, (R, *noise_shape)
        with their rows of the agents axis; None for the noise-free release)."""

    @abstractmethod
    def advance(self, agents: Agents, plan: RunPlan[Any], k: int, state: Any, inbound: Any, release: Release) -> Any:
        """The agents' state after their ``release`` of iteration k."""

    @abstractmethod
    def coordinator_state(self, problem: P, plan: RunPlan[Any], n_trials: int) -> Any:
        """The coordinator's state before iteration 0."""

    @abstractmethod
    def inbound(self, problem: P, plan: RunPlan[Any], k: int, state: Any) -> Any:
        """What the coordinator sends every agent in iteration k."""

    @abstractmethod
    def combine(self, problem: P, plan: RunPlan[Any], k: int, state: Any, received: Release) -> Combined:
        """The coordinator's step on what every agent sent: ``received.sent`` (R, N, ...) and ``.reported``."""

    def release_sigma(self, plan: RunPlan[Any]) -> np.ndarray:
        """(T, N): the standard deviation of agent i's release in iteration k around its noise-free value (a
        family without ``replay_refusal`` writes it)."""
        raise NotImplementedError(f"{type(self).__name__} has no replay: {self.replay_refusal}")

    @property
    def replay_refusal(self) -> str | None:
        """Why nothing replays the agents' releases, or None: an agent's state is a function of released
        values and its data alone, and each release a Gaussian of ``release_sigma`` around its mean."""
        return None

    def everyone(self, problem: P) -> Any:
        """What the agents hold together, for the in-process run (default: the problem)."""
        return problem

    def route(self, problem: P, message: Any, agent: int) -> Any:
        """What of the coordinator's ``message`` reaches ``agent`` (default: all of it)."""
        return message

    def delivered(self, agents: Agents, routed: Any) -> Any:
        """The message ``release`` reads, from what reached the agent (default: as it is)."""
        return routed

    def record(
        self, problem: P, recorder: RecorderT, k: int, model: np.ndarray, sent: np.ndarray, channels: Mapping[str, Any]
    ) -> None:
        """Record iteration k (default: ``recorder.record(k, model, sent, **channels)``)."""
        cast(IterationRecorder, recorder).record(k, model, sent, **channels)

    def replayed_inbound(self, problem: P, plan: RunPlan[Any], k: int, transcript: Transcript) -> Any:
        """What every agent received in iteration k, from the public (batched) transcript alone."""
        if k == 0:
            n_trials = transcript[self.broadcast_channel].shape[1]
            return self.inbound(problem, plan, 0, self.coordinator_state(problem, plan, n_trials))
        return transcript[self.broadcast_channel][k - 1]

    # ---- derived ------------------------------------------------------------------------------
    def iterate(
        self, problem: P, plan: RunPlan[Any], n_trials: int, draws: Draws | None, recorder: RecorderT
    ) -> Mapping[str, float]:
        """Every agent's ``release`` and ``advance`` at once, then ``combine``, for T iterations."""
        noise = None if draws is None else draws["noise"]
        everyone = Agents(self.everyone(problem), slice(None))
        state = self.agent_state(everyone, plan, n_trials, noise)
        coordinator = self.coordinator_state(problem, plan, n_trials)
        worst: dict[str, float] = {}
        for k in range(plan.n_iterations):
            inbound = self.inbound(problem, plan, k, coordinator)
            release = self.release(everyone, plan, k, state, inbound, noise)
            state = self.advance(everyone, plan, k, state, inbound, release)
            received = Release(release.sent, release.white_box, reported=release.reported)
            combined = self.combine(problem, plan, k, coordinator, received)
            coordinator = combined.state
            merge_worst(worst, release.diagnostics)
            merge_worst(worst, combined.diagnostics)
            self.record_iteration(problem, recorder, k, combined, received)
        return worst

    def record_iteration(self, problem: P, recorder: RecorderT, k: int, combined: Combined, received: Release) -> None:
        """``record`` iteration k with every agents' channel as (R, n, ...) (an unreleased one must be white-box)."""
        unreleased = {**received.reported, **received.white_box}
        for name in unreleased:
            if not self.channels[name].white_box:
                raise ValueError(f"{type(self).__name__}: channel {name!r} is not released: declare it white-box")
        sent = self.trial_major(received.sent)
        agents = {name: self.trial_major(values) for name, values in unreleased.items()}
        self.record(
            problem, recorder, k, combined.model, sent, {self.sent_channel: sent, **combined.channels, **agents}
        )

    def trial_major(self, values: np.ndarray) -> np.ndarray:
        """An agents' array (``agent_axis`` layout) as (R, n, ...)."""
        return values if self.agent_axis == 1 else np.swapaxes(values, 0, 1)

    def one_agent(self, values: np.ndarray) -> np.ndarray:
        """One agent's (R, ...) values as the pieces' array of one agent (the agents axis of length 1)."""
        return np.expand_dims(values, self.agent_axis)

    def agent_values(self, values: np.ndarray) -> np.ndarray:
        """The (R, ...) values of the one agent of a pieces' array."""
        return np.take(values, 0, axis=self.agent_axis)

    def protocol(self, problem: P, plan: RunPlan[Any], recorder: RecorderT) -> AgentProtocol:
        """Agent i runs the pieces on its own share (:class:`StepAgent`); the coordinator combines
        (:class:`StepCoordinator`)."""
        white_box = any(spec.white_box for spec in recorder.specs.values())
        return AgentProtocol(
            agent=lambda i: StepAgent(self, Agents(self.share(problem, i), slice(i, i + 1)), plan, white_box),
            coordinator=lambda n_trials: StepCoordinator(self, problem, plan, n_trials, recorder),
        )

    def replay(self, problem_in: P, problem_out: P, agent: int, transcript: Transcript) -> Replay:
        """Agent ``agent``'s noise-free releases under ``problem_in`` (D) and ``problem_out`` (D′),
        recomputed from the released history of a batched ``transcript`` (its public channels only)."""
        if self.replay_refusal is not None:
            raise TypeError(f"{type(self).__name__} has no replay: {self.replay_refusal}")
        public = transcript.public()
        if not public.batched:
            raise ValueError("the replay needs a batched result (run with trials= or seeds=)")
        channel = public.channel(self.sent_channel)
        if agent not in channel.agents:
            raise ValueError(f"agent {agent} is not in the transcript (recorded agents {channel.agents})")
        sent = channel.values[:, :, channel.agents.index(agent)]
        n_trials, rows = sent.shape[1], slice(agent, agent + 1)
        problems = (problem_in, problem_out)
        plans = (self.plan(problem_in), self.plan(problem_out))
        own = (Agents(self.share(problem_in, agent), rows), Agents(self.share(problem_out, agent), rows))
        states = tuple(self.agent_state(a, plan, n_trials, None) for a, plan in zip(own, plans, strict=True))
        mean_in, mean_out = np.empty_like(sent), np.empty_like(sent)
        for k in range(sent.shape[0]):
            inbound = self.replayed_inbound(problem_in, plans[0], k, public)
            mean_in[k], mean_out[k] = self.replay_means(problems, own, plans, k, states, inbound)
            states = tuple(
                self.advance(a, plan, k, state, inbound, Release(self.one_agent(sent[k])))
                for a, plan, state in zip(own, plans, states, strict=True)
            )
        sigma = np.asarray(self.release_sigma(plans[0]), dtype=np.float64)
        return Replay(sent, mean_in, mean_out, np.broadcast_to(sigma, (sigma.shape[0], problem_in.n_agents))[:, agent])

    def replay_means(
        self,
        problems: tuple[P, P],
        agents: tuple[Agents, Agents],
        plans: tuple[RunPlan[Any], RunPlan[Any]],
        k: int,
        states: tuple[Any, ...],
        inbound: Any,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The replayed agent's noise-free releases of iteration k under D and D′, (R, ...) each (default:
        ``release`` without noise on each data set; a family may compute the two together, e.g. only the
        changed records' part of a difference)."""
        means = [
            self.agent_values(self.release(a, plan, k, state, inbound, None).sent)
            for a, plan, state in zip(agents, plans, states, strict=True)
        ]
        return means[0], means[1]


def merge_worst(worst: dict[str, float], diagnostics: Mapping[str, float]) -> None:
    """Fold ``diagnostics`` into ``worst`` (each name's maximum)."""
    for key, value in diagnostics.items():
        worst[key] = max(value, worst.get(key, value))


class StepAgent(AgentProgram[Any]):
    """Agent i of a :class:`StepSolver`: its share, its own noise and its state; one ``release`` a round."""

    def __init__(self, solver: StepSolver[Any, Any], agents: Agents, plan: RunPlan[Any], white_box: bool) -> None:
        self.solver, self.agents, self.plan, self.white_box = solver, agents, plan, white_box
        self.agent = int(agents.rows.start)

    def begin(self, noise: np.ndarray | None, n_trials: int) -> None:
        self.noise = noise
        self.state = self.solver.agent_state(self.agents, self.plan, n_trials, noise)

    def step(self, k: int, inbound: Any) -> Mapping[str, object]:
        solver, agents, plan = self.solver, self.agents, self.plan
        inbound = solver.delivered(agents, inbound)
        release = solver.release(agents, plan, k, self.state, inbound, self.noise)
        self.state = solver.advance(agents, plan, k, self.state, inbound, release)
        reply = {"sent": release.sent, "reported": dict(release.reported), "diagnostics": dict(release.diagnostics)}
        if self.white_box:
            reply["white_box"] = dict(release.white_box)
        return reply


class StepCoordinator(Coordinator[Any]):
    """The coordinator of a :class:`StepSolver`: sends ``inbound``, combines the releases, records."""

    def __init__(
        self, solver: StepSolver[Any, Any], problem: Any, plan: RunPlan[Any], n_trials: int, recorder: Any
    ) -> None:
        super().__init__()
        self.solver, self.problem, self.plan, self.recorder = solver, problem, plan, recorder
        self.n_rounds = plan.n_iterations
        self.state = solver.coordinator_state(problem, plan, n_trials)

    def inbound(self, k: int, agent: int) -> Any:
        return self.solver.route(self.problem, self.solver.inbound(self.problem, self.plan, k, self.state), agent)

    def receive(self, k: int, replies: Sequence[Mapping[str, object]]) -> None:
        axis = self.solver.agent_axis
        self.merge_diagnostics(replies)
        sent = np.concatenate([reply["sent"] for reply in replies], axis=axis)
        white, reported = (
            join_agents([reply.get(key, {}) for reply in replies], axis) for key in ("white_box", "reported")
        )
        received = Release(sent, white, reported=reported)
        combined = self.solver.combine(self.problem, self.plan, k, self.state, received)
        self.state = combined.state
        merge_worst(self.diagnostics, combined.diagnostics)
        self.solver.record_iteration(self.problem, self.recorder, k, combined, received)


def join_agents(values: Sequence[object], axis: int) -> dict[str, np.ndarray]:
    """Every agent's {channel: array} joined along the agents ``axis``."""
    boxes = [cast(Mapping[str, np.ndarray], box) for box in values]
    return {name: np.concatenate([box[name] for box in boxes], axis=axis) for name in boxes[0]}
