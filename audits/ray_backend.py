"""The audited chunks as Ray tasks: on every core of a Ray cluster, one machine or many.

Each chunk is one task, a pure function of the spec (with its calibrated attacks, shipped once to the
cluster's object store, as Ray ships functions: a user's mechanism goes with it) and the chunk's job
(its trials' seeds, children of the root seed fixed by the chunk's index). A task whose worker or
node dies is run again (``max_retries``), and the same seeds give the same outcome; the outcomes are
read in chunk order. So the report is the same, bit for bit, for any number of workers, nodes or
retries, and equal to the in-process one (:mod:`audits.chunks`).

At most :data:`audits.chunks.IN_FLIGHT` tasks per cluster CPU are submitted ahead of the chunk being read, so the
driver and the object store hold a bounded number of outcomes whatever the trial count.

A Ray this module starts (or joins, by address) gets the driver's module path, so that a target
defined in the current directory (``module:attribute``) imports on this machine's workers; on other
machines its module must be importable too (installed, or shipped with Ray's ``runtime_env``).

Ray is an optional dependency (``pip install "dp-admm-audit[ray]"``); without it,
:func:`ray_chunks` raises :class:`RayUnavailable`, which says how to install it.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Callable, Generator, Sequence
from typing import Any

from audits.chunks import IN_FLIGHT, ChunkJob, ChunkOutcome, Record, run_chunk
from audits.spec import AuditSpec
from solvers.engine.backends.ray_backend import INSTALL_HINT

__all__ = ["BACKENDS", "MAX_RETRIES", "RayUnavailable", "check_backend", "ray_chunks"]

#: The backends of the audited chunks: forked processes of this machine, or Ray tasks.
BACKENDS = ("processes", "ray")
#: Times a chunk's task is run again after its worker died (Ray's ``max_retries``).
MAX_RETRIES = 5


class RayUnavailable(ValueError):
    """``backend="ray"`` without Ray installed (the message says how to install it)."""


def check_backend(backend: object) -> str:
    """``backend`` if it is one of :data:`BACKENDS` (and, for "ray", Ray can be imported).

    Raises:
      ValueError: an unknown backend. RayUnavailable: "ray" without Ray installed.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r:.60}")
    if backend == "ray":
        _ray()
    return str(backend)


def _ray() -> Any:
    try:
        import ray
    except ImportError as error:
        raise RayUnavailable(f"backend 'ray' needs the optional dependency Ray: {INSTALL_HINT}") from error
    return ray


def ray_chunks(
    spec: AuditSpec,
    jobs: Sequence[ChunkJob],
    *,
    address: str | None,
    done: Callable[[int], object],
    record: Record = None,
) -> Generator[ChunkOutcome, None, None]:
    """The outcomes of ``jobs``, in order, each from a Ray task (module docstring).

    Args:
      address: the cluster ("auto", "host:6379", "ray://host:10001"); None: the Ray already
        initialised in this process, else a local one on this machine's cores.
      done: called with each chunk's trial count as it is read (the progress bar).
      record: called with (index, outcome) in the driver as each chunk is read (a checkpoint's ``save``).

    Raises:
      RayUnavailable: Ray is not installed.
    """
    ray = _ray()
    if not ray.is_initialized():
        ray.init(
            address=address,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
            runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(path for path in sys.path if path)}},
        )
    task = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(run_chunk)
    spec_ref = ray.put(spec)
    ahead = max(1, IN_FLIGHT * int(ray.cluster_resources().get("CPU", 1)))
    pending: deque[Any] = deque()
    submitted = 0
    try:
        for job in jobs:
            while submitted < len(jobs) and len(pending) < ahead:
                pending.append(task.remote(spec_ref, jobs[submitted]))
                submitted += 1
            outcome: ChunkOutcome = ray.get(pending.popleft())
            if record is not None:
                record(job.index, outcome)
            done(outcome.trials)
            yield outcome
    finally:
        for reference in pending:
            ray.cancel(reference, force=True)
