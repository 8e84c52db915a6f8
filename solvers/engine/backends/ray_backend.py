"""The Ray backend: one actor per agent, the coordinator in the calling process.

``RayBackend`` connects to a Ray cluster (by address) or starts a local one and creates one
``AgentActor`` per agent holding only that agent's program (its share of the data) and seeds; the
agent backends' loop (``solvers.engine.backends.agents``) drives the family's protocol round by
round, so only released messages travel. A dead actor, an error inside an actor, or a reply that
does not arrive within ``timeout`` stops the run with :class:`AgentFailure` naming the agent and the
iteration.
"""

from __future__ import annotations

import socket
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from accountants.constraints import Constraint, Instance, Integer, NonNegative, Optional, Positive, check_parameters
from solvers.engine.backends.actors import ActorPool
from solvers.engine.backends.agents import AgentBackend, AgentPool
from solvers.engine.backends.base import RunJob
from solvers.engine.plan import RunPlan
from solvers.engine.protocol import AgentProgram
from solvers.engine.streams import AgentSeed

__all__ = ["AgentFailure", "RayBackend", "import_ray"]

_POOL = ActorPool()

INSTALL_HINT = 'pip install "dp-admm-audit[ray]" (from a checkout: pip install ".[ray]")'


class AgentFailure(RuntimeError):
    """An agent's actor died, raised, or did not reply in time: the run stopped at ``iteration``.

    Attributes:
      agent: the agent's id. iteration: the round (iteration) that failed; None while starting.
      failed: every agent of that round that died, raised or did not reply.
      ledger_path: the ledger file holding every release made before the failure (or None).
    """

    def __init__(self, agent: int, iteration: int | None, cause: str, ledger_path: object = None) -> None:
        self.agent, self.iteration, self.ledger_path = agent, iteration, ledger_path
        self.failed: set[int] = {agent}
        where = "while starting its trials" if iteration is None else f"at iteration {iteration}"
        kept = (
            f"; the ledger {ledger_path} holds every release made up to that point"
            if ledger_path is not None
            else "; pass ledger_path= to keep every release on disk"
        )
        super().__init__(f"agent {agent} failed {where}: {cause}{kept}")


def import_ray():
    """The ``ray`` module, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError as error:
        raise ImportError(f"backend='ray' needs the optional dependency Ray: {INSTALL_HINT}") from error
    return ray


@dataclass(frozen=True)
class RayBackend(AgentBackend):
    """Run every agent as a Ray actor.

    Args:
      address: a running cluster ("auto" for the one this machine belongs to, "ray://host:10001"
        for Ray Client, or "host:6379"); None uses the Ray already initialised in this process or
        starts a local one with ``num_cpus``.
      num_cpus: CPUs of a local Ray this backend starts (None: all).
      timeout: seconds one round may take before the run stops with ``AgentFailure``.
      start_timeout: seconds the actors may take to start (a new worker process imports the
        toolkit) and to load their share and draw their noise.
      actor_cpus: CPUs reserved per actor (None: min(1, cluster CPUs / N), so N actors always fit).
      actor_options: further ``ray.remote`` options of every actor (e.g. resources, scheduling).
    """

    address: str | None = None
    num_cpus: int | None = None
    timeout: float = 120.0
    start_timeout: float = 600.0
    actor_cpus: float | None = None
    actor_options: Mapping[str, object] = field(default_factory=dict)

    #: What each option must be (``accountants.constraints``), checked when the backend is made.
    parameter_constraints: ClassVar[Mapping[str, Constraint]] = {
        "address": Optional(Instance(str, "a Ray cluster's address, a string")),
        "num_cpus": Optional(Integer(1)),
        "timeout": Positive(),
        "start_timeout": Positive(),
        "actor_cpus": Optional(NonNegative()),
        "actor_options": Instance(Mapping, "a mapping of ray.remote options", {}),
    }

    def __post_init__(self) -> None:
        check_parameters(self)

    def connect(self):
        """Connect to ``address`` or start a local Ray (once per process); returns ``ray``."""
        ray = import_ray()
        if ray.is_initialized() and self.address is not None:
            warnings.warn(
                f"RayBackend(address={self.address!r}): Ray is already initialised in this process "
                f"(cluster at {ray.get_runtime_context().gcs_address}), so the run uses that cluster; "
                "call ray.shutdown() first to connect elsewhere",
                UserWarning,
                stacklevel=3,
            )
        if not ray.is_initialized():
            if self.address is None:
                # the node advertises loopback; Ray 2.60 may still bind its GCS on every interface
                ray.init(
                    num_cpus=self.num_cpus, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1"
                )
            else:
                _check_reachable(self.address)
                try:
                    ray.init(address=self.address, log_to_driver=False)
                except (ConnectionError, TimeoutError) as error:
                    raise ConnectionError(_no_cluster(self.address, error)) from error
        return ray

    def open_pool(self, job: RunJob) -> AgentPool:
        ray = self.connect()
        n_agents = job.problem.n_agents
        cpus = self.actor_cpus
        if cpus is None:
            cpus = min(1.0, float(ray.cluster_resources().get("CPU", 1.0)) / n_agents)
        ledger_path = None if job.ledger_file is None else job.ledger_file.path
        return _RayPool(ray, n_agents, cpus, dict(self.actor_options), self, ledger_path)


class _RayPool(AgentPool):
    """The run's agents as Ray actors (taken from, and given back to, the session's actor pool)."""

    def __init__(
        self, ray, n_agents: int, cpus: float, options: dict[str, object], backend: RayBackend, ledger_path
    ) -> None:
        self.ray, self.n_agents, self.cpus, self.options = ray, n_agents, cpus, options
        self.timeout, self.start_timeout, self.ledger_path = backend.timeout, backend.start_timeout, ledger_path
        self.actors = _POOL.take(ray, n_agents, cpus, options)
        self.failed: set[int] = set()

    def load(self, programs: Sequence[AgentProgram[Any]], plan: RunPlan[Any]) -> None:
        plan_ref = self.ray.put(plan)
        calls = [a.load.remote(p, plan_ref, self.n_agents) for a, p in zip(self.actors, programs, strict=True)]
        self._gather(calls, None, self.start_timeout)

    def begin(self, seeds: Sequence[Sequence[AgentSeed]]) -> None:
        calls = [a.begin.remote(list(own)) for a, own in zip(self.actors, seeds, strict=True)]
        self._gather(calls, None, self.start_timeout)

    def step(self, k: int, inbound: Sequence[object]) -> list[Mapping[str, object]]:
        calls = [a.step.remote(k, message) for a, message in zip(self.actors, inbound, strict=True)]
        return self._gather(calls, k, self.timeout)

    def close(self, error: BaseException | None) -> None:
        if isinstance(error, AgentFailure):
            failed = error.failed
        elif error is not None:
            failed = set(range(self.n_agents))  # interrupted mid-round: no actor's state is known
        else:
            failed = set()
        for agent in failed:  # dead, or still busy with a round nobody waits for
            self.ray.kill(self.actors[agent])
        _POOL.give_back(self.ray, [a for i, a in enumerate(self.actors) if i not in failed], self.cpus, self.options)

    def _gather(self, refs: list, iteration: int | None, timeout: float) -> list:
        """The replies in agent order, or ``AgentFailure`` for the first agent that failed (its
        ``failed`` holds every agent that raised, died or did not reply)."""
        ray = self.ray
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout)
        arrived = set(ready)
        replies: list = []
        failures: list[tuple[int, str, BaseException | None]] = []
        for agent, ref in enumerate(refs):
            if ref not in arrived:
                failures.append((agent, f"no reply within timeout={timeout:g} s", None))
                continue
            try:
                replies.append(ray.get(ref))
            except ray.exceptions.RayError as error:
                text = str(error).strip()
                cause = text.splitlines()[0] if text else type(error).__name__
                failures.append((agent, f"{type(error).__name__}: {cause}", error))
        if failures:
            errors = [f for f in failures if f[2] is not None]
            agent, cause, first_error = (errors or failures)[0]
            failure = AgentFailure(agent, iteration, cause, self.ledger_path)
            failure.failed = {f[0] for f in failures}
            raise failure from first_error
        return replies


def _no_cluster(address: str, cause: object) -> str:
    return (
        f"cannot connect to a Ray cluster at address={address!r} ({cause}); start one with "
        f"`ray start --head --port=6379` and pass its address (host:6379, or ray://host:10001 for "
        f"Ray Client), or pass address=None to start a local Ray"
    )


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """``ConnectionError`` naming ``address`` when nothing listens at its host:port (``ray.init``
    itself retries an unreachable address for minutes); "auto"/"local" are left to Ray."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as error:
        raise ConnectionError(_no_cluster(address, f"{type(error).__name__}: {error}")) from error
