"""The agent backends: a solver family's protocol, one program per agent, driven round by round.

Both agent backends run the same loop (:class:`AgentBackend`): every agent's program (built by the
family's ``AgentProtocol``, holding only that agent's share of the data) is loaded where the agent
lives; at each chunk of trials every agent receives only its own child seeds and draws its own noise
(:func:`own_noise`, the same stream the in-process backend uses for that agent); then the
coordinator runs the rounds, handing each agent the released messages it is entitled to. Before
round k of the first chunk, iteration k's releases are appended to the ledger file (write-ahead,
synced), so a fault never leaves a release unrecorded. Where the agents live is an
:class:`AgentPool`: in this process one after another (``SequentialBackend``) or as Ray actors
(``solvers.engine.backends.ray_backend``).
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from accountants import Ledger, LedgerEntry
from solvers.engine.backends.base import Backend, ChunkRunner, RunJob
from solvers.engine.plan import RunPlan, draws_whole_chunks
from solvers.engine.protocol import AgentProgram
from solvers.engine.streams import AGENT_AXIS, AgentSeed, AgentStreams, ChunkStreams, agent_seeds
from solvers.engine.trials import SeedLike

__all__ = ["AgentBackend", "AgentPool", "SequentialBackend", "own_noise"]


def own_noise(plan: RunPlan[Any], n_agents: int, agent: int, seeds: Sequence[AgentSeed]) -> np.ndarray | None:
    """Agent ``agent``'s noise for the trials whose agent seeds are ``seeds``: (R, *noise_shape) with
    the agents axis cut to this agent (None for a noiseless plan)."""
    if plan.mechanism is None:
        return None
    own = [slice(None)] * len(plan.noise_shape)
    own[AGENT_AXIS] = slice(agent, agent + 1)
    with np.errstate(invalid="ignore", divide="ignore"):  # the other agents' (unheld) blocks may be 0/0
        if draws_whole_chunks(plan.mechanism):
            chunk = plan.mechanism.sample(
                ChunkStreams.of_agent(seeds, n_agents, agent), (len(seeds), *plan.noise_shape)
            )
            return chunk[(slice(None),) + tuple(own)]
        draws = [
            plan.mechanism.sample(AgentStreams.single(n_agents, agent, seed), plan.noise_shape)[tuple(own)]
            for seed in seeds
        ]
    return np.stack(draws)


class AgentPool(ABC):
    """Where the agents of one run live; every list is in agent order."""

    @abstractmethod
    def load(self, programs: Sequence[AgentProgram[Any]], plan: RunPlan[Any]) -> None:
        """Place agent i's program (and the public plan) with agent i."""

    @abstractmethod
    def begin(self, seeds: Sequence[Sequence[AgentSeed]]) -> None:
        """Start a chunk: agent i draws its own noise from ``seeds[i]`` (its seed of every trial)."""

    @abstractmethod
    def step(self, k: int, inbound: Sequence[object]) -> list[Mapping[str, object]]:
        """Round k: agent i receives ``inbound[i]``; the replies."""

    @abstractmethod
    def close(self, error: BaseException | None) -> None:
        """End the run (``error``: what stopped it, None when it completed)."""


class AgentBackend(Backend):
    """Runs a family's ``AgentProtocol`` on the agents of an :class:`AgentPool`."""

    writes_ledger_by_round: ClassVar[bool] = True

    @abstractmethod
    def open_pool(self, job: RunJob) -> AgentPool:
        """The pool the run's agents live in."""

    @contextlib.contextmanager
    def session(self, job: RunJob) -> Iterator[ChunkRunner]:
        solver, problem, plan = job.solver, job.problem, job.plan
        protocol = solver.protocol(problem, plan, job.recorder)
        if protocol is None:
            raise ValueError(
                f"{type(solver).__name__} has no agent protocol (Solver.protocol), so it runs in process "
                "only: use backend='inprocess'"
            )
        n_agents, ledger_file = problem.n_agents, job.ledger_file
        releases = [] if ledger_file is None else by_iteration(job.ledger, plan.n_iterations)
        pool = self.open_pool(job)
        error: BaseException | None = None
        try:
            pool.load([protocol.agent(i) for i in range(n_agents)], plan)

            def run_chunk(number: int, seeds: Sequence[SeedLike]) -> Mapping[str, float]:
                per_trial = [agent_seeds(seed, n_agents) for seed in seeds]
                pool.begin([[trial[i] for trial in per_trial] for i in range(n_agents)])
                coordinator = protocol.coordinator(len(seeds))
                for k in range(coordinator.n_rounds):
                    if ledger_file is not None and number == 0 and k < len(releases):
                        ledger_file.extend(releases[k])  # write-ahead: before any agent releases
                    replies = pool.step(k, [coordinator.inbound(k, i) for i in range(n_agents)])
                    coordinator.receive(k, replies)
                return coordinator.diagnostics

            yield run_chunk
        except BaseException as raised:
            error = raised
            raise
        finally:
            pool.close(error)


class SequentialBackend(AgentBackend):
    """Every agent's program in this process, one after another, each with only its own share and
    its own noise: the protocol exactly as Ray runs it, without Ray (for tests and debugging)."""

    def open_pool(self, job: RunJob) -> AgentPool:
        return _LocalPool(job.problem.n_agents)


class _LocalPool(AgentPool):
    """The agents' programs as objects of this process."""

    def __init__(self, n_agents: int) -> None:
        self.n_agents = n_agents
        self.programs: list[AgentProgram[Any]] = []
        self.plan: RunPlan[Any] | None = None

    def load(self, programs: Sequence[AgentProgram[Any]], plan: RunPlan[Any]) -> None:
        self.programs, self.plan = list(programs), plan

    def begin(self, seeds: Sequence[Sequence[AgentSeed]]) -> None:
        if self.plan is None:
            raise RuntimeError("no programs loaded: load() them first")
        for program, own in zip(self.programs, seeds, strict=True):
            program.begin(own_noise(self.plan, self.n_agents, program.agent, own), len(own))

    def step(self, k: int, inbound: Sequence[object]) -> list[Mapping[str, object]]:
        return [program.step(k, message) for program, message in zip(self.programs, inbound, strict=True)]

    def close(self, error: BaseException | None) -> None:
        self.programs, self.plan = [], None


def by_iteration(ledger: Ledger, n_iterations: int) -> list[list[LedgerEntry]]:
    """The ledger's entries grouped by iteration (every entry of a planned run states one)."""
    releases: list[list[LedgerEntry]] = [[] for _ in range(n_iterations)]
    for entry in ledger:
        if entry.iteration is None:  # a solver's plan states the iteration of every release
            raise ValueError(f"ledger entry without an iteration: {entry!r}")
        releases[entry.iteration].append(entry)
    return releases
