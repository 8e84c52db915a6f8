"""Where a solver's agents run: in process (default, vectorised) or as Ray actors.

``Solver.run(problem, backend="ray")`` (or ``backend=RayBackend(address=...)``) runs every agent as
a Ray actor holding only its own records and its own random streams; the default
``backend="inprocess"`` runs the vectorised engine. Both give the same transcript, model and ledger
for the same seed (per-agent streams, ``solvers.backends.streams``). Ray is optional:
``pip install ".[ray]"``.
"""

from __future__ import annotations

from solvers.backends.ray_backend import AgentFailure, RayBackend, import_ray

__all__ = ["AgentFailure", "BACKENDS", "BackendLike", "RayBackend", "resolve_backend"]

#: Backend names ``Solver.run`` accepts.
BACKENDS = ("inprocess", "ray")

BackendLike = str | RayBackend


def resolve_backend(backend: BackendLike) -> RayBackend | None:
    """None for the in-process backend, else the ``RayBackend`` to use (Ray must be importable)."""
    if isinstance(backend, RayBackend):
        import_ray()
        return backend
    if backend == "inprocess":
        return None
    if backend == "ray":
        import_ray()
        return RayBackend()
    raise ValueError(f"backend must be one of {BACKENDS} or a solvers.backends.RayBackend, got {backend!r}")
