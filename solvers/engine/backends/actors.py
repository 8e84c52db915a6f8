"""The Ray actor of one agent: its program (own data share), its own noise, nothing else.

Actors are kept in a pool per Ray session and reused across runs (a worker process pays its
imports once); in a run each holds exactly one agent's program, dropped at the end. The actor
receives only its agent's seeds (children of each trial's seed) and draws its own noise
block with the plan's mechanism (``solvers.engine.backends.agents.own_noise``), the same stream the
in-process backend uses for that agent; then it answers one ``step`` per round.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from solvers.engine.backends.agents import own_noise
from solvers.engine.plan import RunPlan
from solvers.engine.protocol import AgentProgram
from solvers.engine.streams import AgentSeed

__all__ = ["AgentActor", "ActorPool"]


class AgentActor:
    """Wrapped with ``ray.remote`` by the backend: one agent of one run at a time (``load``)."""

    # What a message from the driver carries has no static type: the program checks its inbound.
    program: AgentProgram[Any] | None
    plan: RunPlan[Any] | None

    def __init__(self) -> None:
        self.program = self.plan = None

    def load(self, program: AgentProgram[Any], plan: RunPlan[Any], n_agents: int) -> int:
        """Become ``program``'s agent for a run; returns the process id."""
        self.program, self.plan, self.n_agents = program, plan, n_agents
        return os.getpid()

    def clear(self) -> None:
        """Drop the run's program and data (the actor stays, idle, for the next run)."""
        self.program = self.plan = None

    def begin(self, seeds: Sequence[AgentSeed]) -> None:
        """Start a chunk of trials with this agent's seeds."""
        program, plan = self._loaded()
        program.begin(own_noise(plan, self.n_agents, program.agent, seeds), len(seeds))

    def step(self, k: int, inbound: object) -> Mapping[str, object]:
        program, _ = self._loaded()
        return program.step(k, inbound)

    def _loaded(self) -> tuple[AgentProgram[Any], RunPlan[Any]]:
        if self.program is None or self.plan is None:
            raise RuntimeError("the actor holds no agent program: load() one first")
        return self.program, self.plan


class ActorPool:
    """Idle ``AgentActor`` handles of the current Ray session, reused across runs."""

    def __init__(self) -> None:
        self._session: object = None
        self._idle: list[tuple[float, object]] = []

    def take(self, ray, n: int, cpus: float, options: Mapping[str, object]) -> list:
        """``n`` actors reserving ``cpus`` each: idle ones first, new ones for the rest; idle actors
        that do not fit are ended, so their reserved CPUs never block the new ones."""
        context = ray.get_runtime_context()  # a restarted local Ray may reuse the job id: add its node
        session = (context.get_job_id(), context.get_node_id(), context.gcs_address)
        if session != self._session:
            self._session, self._idle = session, []
        reused = [handle for c, handle in self._idle if c == cpus and not options][:n]
        for _, handle in self._idle:
            if not any(handle is r for r in reused):
                ray.kill(handle)
        self._idle = []
        remote = ray.remote(AgentActor).options(num_cpus=cpus, max_restarts=0, **options)
        return reused + [remote.remote() for _ in range(n - len(reused))]

    def give_back(self, ray, actors: Sequence, cpus: float, options: Mapping[str, object]) -> None:
        """Return healthy actors (emptied) to the pool; actors with custom options are ended."""
        for actor in actors:
            if options:
                ray.kill(actor)
            else:
                actor.clear.remote()
                self._idle.append((cpus, actor))
