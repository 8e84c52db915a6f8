"""Where a solver's agents run: in process (default, vectorised), one after another, or as Ray actors.

``Solver.run(problem, backend=...)`` takes a name or a backend instance:

  - "inprocess" (:class:`InProcessBackend`): the family's vectorised iterations over agents and
    trials; the fastest.
  - "sequential" (:class:`SequentialBackend`): the family's agent programs, each holding only its
    own share of the data and its own noise, run one after another in this process.
  - "ray" or ``RayBackend(address=...)``: one Ray actor per agent (optional extra:
    ``pip install ".[ray]"``).

All give the same transcript, model and ledger for the same seed (per-agent streams,
``solvers.engine.streams``). A backend never imports an algorithm: it runs the solver's hooks.
"""

from __future__ import annotations

from solvers.engine.backends.agents import AgentBackend, AgentPool, SequentialBackend
from solvers.engine.backends.base import Backend, ChunkRunner, RunJob
from solvers.engine.backends.inprocess import InProcessBackend
from solvers.engine.backends.ray_backend import AgentFailure, RayBackend, import_ray

__all__ = [
    "BACKENDS",
    "AgentBackend",
    "AgentFailure",
    "AgentPool",
    "Backend",
    "BackendLike",
    "ChunkRunner",
    "InProcessBackend",
    "RayBackend",
    "RunJob",
    "SequentialBackend",
    "resolve_backend",
]

#: Backend names ``Solver.run`` accepts.
BACKENDS = ("inprocess", "sequential", "ray")

BackendLike = str | Backend


def resolve_backend(backend: BackendLike) -> Backend:
    """The backend a name stands for, or ``backend`` itself (Ray must be importable for Ray)."""
    if isinstance(backend, RayBackend):
        import_ray()
        return backend
    if isinstance(backend, Backend):
        return backend
    if backend == "inprocess":
        return InProcessBackend()
    if backend == "sequential":
        return SequentialBackend()
    if backend == "ray":
        import_ray()
        return RayBackend()
    raise ValueError(f"backend must be one of {BACKENDS} or a solvers.engine.backends.Backend, got {backend!r}")
