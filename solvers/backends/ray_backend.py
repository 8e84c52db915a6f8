"""The Ray backend: one actor per agent, the coordinator in the calling process.

``RayBackend`` connects to a Ray cluster (by address) or starts a local one, creates one
``AgentActor`` per agent holding only that agent's records (``AgentShare``) and seeds, and drives
the solver's protocol round by round (``StarTrainer`` / ``GraphDriver`` / ``PDMLDriver`` /
``SharingServer``): only released messages
travel. Before round k starts, iteration k's releases are appended to the ledger file (write-ahead,
synced), so a fault never leaves a release unrecorded. A dead actor, an error inside an actor, or
a reply that does not arrive within ``timeout`` stops the run with :class:`AgentFailure` naming the
agent and the iteration.
"""

from __future__ import annotations

import math
import numbers
import socket
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from accountants import Ledger, LedgerEntry, LedgerFile
from solvers.backends.actors import ActorPool
from solvers.backends.protocol import AgentProgram, Coordinator
from solvers.backends.share import AgentShare
from solvers.backends.streams import agent_seeds

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
class RayBackend:
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

    def __post_init__(self) -> None:
        if self.address is not None and not isinstance(self.address, str):
            raise TypeError(f"address must be a string or None, got {self.address!r}")
        for name in ("timeout", "start_timeout", "actor_cpus"):
            value, positive = getattr(self, name), name != "actor_cpus"
            if value is None and not positive:
                continue
            if (
                isinstance(value, bool)
                or not isinstance(value, numbers.Real)
                or not math.isfinite(value)
                or value < 0
                or (positive and value == 0)
            ):
                raise ValueError(
                    f"{name} must be a {'positive' if positive else 'non-negative'} finite number, got {value!r}"
                )
        if self.num_cpus is not None and (
            isinstance(self.num_cpus, bool) or not isinstance(self.num_cpus, int) or self.num_cpus < 1
        ):
            raise ValueError(f"num_cpus must be a positive integer or None, got {self.num_cpus!r}")

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

    def execute(
        self,
        solver,
        problem,
        plan,
        trial_seeds: Sequence,
        chunks: Sequence[slice],
        recorder,
        ledger: Ledger,
        ledger_file: LedgerFile | None,
    ) -> dict[str, float]:
        """Run every chunk of trials through the agents' actors (``Solver.run`` calls this)."""
        make_program, make_coordinator = _protocol(solver, problem, plan, recorder)
        ray = self.connect()
        N = problem.n_agents
        cpus = self.actor_cpus
        if cpus is None:
            cpus = min(1.0, float(ray.cluster_resources().get("CPU", 1.0)) / N)
        options = dict(self.actor_options)
        actors = _POOL.take(ray, N, cpus, options)
        releases = [] if ledger_file is None else _by_iteration(ledger, plan.n_iterations)
        path = None if ledger_file is None else ledger_file.path
        diagnostics: dict[str, float] = {}
        failed: set[int] = set()
        try:
            plan_ref = ray.put(plan)
            self._gather(
                ray,
                [a.load.remote(make_program(i), plan_ref, N) for i, a in enumerate(actors)],
                None,
                path,
                self.start_timeout,
            )
            for number, trials in enumerate(chunks):
                seeds = [agent_seeds(s, N) for s in trial_seeds[trials]]
                self._gather(
                    ray,
                    [a.begin.remote([trial[i] for trial in seeds]) for i, a in enumerate(actors)],
                    None,
                    path,
                    self.start_timeout,
                )
                recorder.begin(trials)
                coordinator: Coordinator = make_coordinator(len(seeds))
                for k in range(coordinator.n_rounds):
                    if ledger_file is not None and number == 0 and k < plan.n_iterations:
                        ledger_file.extend(releases[k])  # write-ahead: before any agent releases
                    replies = self._gather(
                        ray,
                        [a.step.remote(k, coordinator.inbound(k, i)) for i, a in enumerate(actors)],
                        k,
                        path,
                        self.timeout,
                    )
                    coordinator.receive(k, replies)
                for key, value in coordinator.diagnostics.items():
                    diagnostics[key] = max(value, diagnostics.get(key, value))
        except AgentFailure as failure:
            failed = failure.failed
            raise
        except BaseException:
            failed = set(range(N))  # interrupted mid-round: no actor's state is known
            raise
        finally:
            for agent in failed:  # dead, or still busy with a round nobody waits for
                ray.kill(actors[agent])
            _POOL.give_back(ray, [a for i, a in enumerate(actors) if i not in failed], cpus, options)
        return diagnostics

    @staticmethod
    def _gather(ray, refs: list, iteration: int | None, ledger_path, timeout: float) -> list:
        """The replies in agent order, or ``AgentFailure`` for the first agent that failed (its
        ``failed`` holds every agent that raised, died or did not reply)."""
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
            failure = AgentFailure(agent, iteration, cause, ledger_path)
            failure.failed = {f[0] for f in failures}
            raise failure from first_error
        return replies


def _protocol(solver, problem, plan, recorder) -> tuple[Callable[[int], AgentProgram], Callable[[int], Coordinator]]:
    """The agent program and coordinator of ``solver``'s family."""
    from solvers.backends.graph import GraphDriver, GraphNode
    from solvers.backends.pdml import PDMLDriver, PDMLServer, pdml_white_box
    from solvers.backends.sharing import PartyShare, SharingParty, SharingServer, sharing_white_box
    from solvers.backends.star import StarAgent, StarTrainer, white_box_needed
    from solvers.decentralized.admm import DecentralizedSolver
    from solvers.dpadmm import StarADMM
    from solvers.pdml import PDML
    from solvers.sharing import ADMMSharing

    if isinstance(solver, StarADMM):
        white_box = white_box_needed(recorder, solver)
        return (
            lambda i: StarAgent(solver, AgentShare(problem, i), plan, white_box),
            lambda R: StarTrainer(solver, problem, plan, R, recorder),
        )
    if isinstance(solver, DecentralizedSolver):
        adjacency = problem.graph.adjacency_matrix()
        return (
            lambda i: GraphNode(solver, AgentShare(problem, i), plan, adjacency),
            lambda R: GraphDriver(solver, problem, plan, R, recorder),
        )
    if isinstance(solver, PDML):
        topology, white_box = problem.topology, pdml_white_box(recorder)
        quad = (problem.lam / problem.n_agents + 2.0 * solver.beta * plan.info["degrees"])[:, None]
        adjacency, laplacian = topology.adjacency_matrix(), topology.laplacian()
        return (
            lambda i: PDMLServer(solver, AgentShare(problem, i), plan, adjacency, laplacian, quad, white_box),
            lambda R: PDMLDriver(solver, problem, plan, R, recorder),
        )
    if isinstance(solver, ADMMSharing):
        white_box = sharing_white_box(recorder)
        return (
            lambda m: SharingParty(solver, PartyShare(problem, m), plan, white_box),
            lambda R: SharingServer(solver, problem, plan, R, recorder),
        )
    raise ValueError(
        f"backend='ray' runs the star solvers (ADMM, NaiveNoisyADMM, DPADMM), the decentralized solvers, PDML "
        f"and ADMMSharing; "
        f"{type(solver).__name__} has no agent program: use backend='inprocess'"
    )


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


def _by_iteration(ledger: Ledger, n_iterations: int) -> list[list[LedgerEntry]]:
    releases: list[list[LedgerEntry]] = [[] for _ in range(n_iterations)]
    for entry in ledger:
        if entry.iteration is None:  # a solver's plan states the iteration of every release
            raise ValueError(f"ledger entry without an iteration: {entry!r}")
        releases[entry.iteration].append(entry)
    return releases
