"""The audited trials, chunk by chunk, in this process or in worker processes on the other cores.

A chunk is one batched ``solver.run`` on D or on D′ with its trials' seeds; what leaves it is only
what the attacks keep (:meth:`Attack.observe`) and the utility values, never the run's result.
Every chunk's trials are fixed by their seeds, so the outcomes are the same, bit for bit, whichever
process runs them, and they are returned in chunk order: the number of workers changes the wall
time, never the report.

Workers are forked (POSIX), so that they inherit the spec, its calibrated attacks and the imported
modules instead of receiving them pickled; where ``fork`` is unavailable the chunks run here. They
never outlive the audit: each dies with its parent, however the parent ends
(:func:`audits.workers.die_with_parent`), and any exception in the parent while the chunks run
(``KeyboardInterrupt``, :class:`audits.workers.Terminated`, an error, the caller closing the
iterator) terminates them before it propagates.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audits.spec import AuditSpec
from audits.workers import die_with_parent, terminate

__all__ = [
    "IN_FLIGHT",
    "MIN_PARALLEL_JOBS",
    "ChunkJob",
    "ChunkOutcome",
    "ChunkScores",
    "Record",
    "default_workers",
    "run_chunk",
    "run_chunks",
    "run_trials",
]

#: Fewer chunks than this run here: starting workers would cost more than it saves.
MIN_PARALLEL_JOBS = 4
#: Chunks submitted ahead of the one the driver reads, per worker process (or per CPU of a Ray cluster):
#: enough to keep every worker busy while the driver reads, few enough that the driver holds a few
#: chunks' outcomes whatever the trial count.
IN_FLIGHT = 4


@dataclass(frozen=True)
class ChunkJob:
    """One chunk: on D (``on_d``) or D′, with these trials' seeds; ``utility``: whether it
    evaluates the spec's utility (a chunk on D among the first ``UTILITY_TRIALS``); ``index``: its
    place among the audit's chunks (the name of its checkpoint file, :mod:`audits.checkpoint`)."""

    on_d: bool
    seeds: Sequence[np.random.SeedSequence]
    utility: bool = False
    index: int = 0


@dataclass(frozen=True)
class ChunkOutcome:
    """What a chunk leaves: each attack's observation (in ``spec.attacks`` order), the utility
    values of a chunk that evaluates them, the run's ``info`` and ``details``, and its number of trials."""

    on_d: bool
    observations: tuple[Any, ...]
    trials: int
    utility: Mapping[str, np.ndarray] = field(default_factory=dict)
    info: Any = None
    details: Any = None


class ChunkScores:
    """Where the driver keeps the chunks' score arrays: each chunk's 1-D float64 scores are copied into
    one array per attack and hypothesis, allocated once for the audit's ``trials``, and kept as a view of
    it. The same values, held once: the chunk arrays are freed as they arrive (and their memory reused by
    the next), instead of piling up as many small allocations as chunks; other observations are kept as
    they are."""

    def __init__(self, trials: int) -> None:
        self.trials = trials
        self.buffers: dict[tuple[str, bool], np.ndarray] = {}
        self.filled: dict[tuple[str, bool], int] = {}

    def keep(self, attack: str, on_d: bool, seen: Any) -> Any:
        """``seen``, or, for 1-D float64 scores, a view of ``attack``'s array on D (``on_d``) or D′ holding them."""
        if not (isinstance(seen, np.ndarray) and seen.ndim == 1 and seen.dtype == np.float64):
            return seen
        key = (attack, on_d)
        if key not in self.buffers:
            self.buffers[key], self.filled[key] = np.empty(self.trials), 0
        start = self.filled[key]
        if start + seen.size > self.trials:  # more scores than trials: an attack with several per trial
            return seen
        view = self.buffers[key][start : start + seen.size]
        np.add(seen, 0.0, out=view)  # −0 kept as 0 (they compare equal), as a histogram counts it
        self.filled[key] = start + seen.size
        return view


def default_workers() -> int:
    """Worker processes for the audited trials: the cores this process may use, at most 2 (the
    toolkit's reference machine), overridable with the environment variable ``DP_AUDIT_WORKERS``."""
    configured = os.environ.get("DP_AUDIT_WORKERS")
    if configured is not None:
        if not configured.isdigit() or int(configured) < 1:
            raise ValueError(f"DP_AUDIT_WORKERS must be a positive integer, got {configured!r}")
        return int(configured)
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(2, available))


def run_trials(spec: AuditSpec, problem: Any, seeds: Sequence[np.random.SeedSequence]) -> Any:
    """One batched run of ``spec``'s solver on ``problem`` with these trials' seeds (no accounting,
    no history; numpy's floating-point warnings silenced if the spec asks)."""
    quiet = np.errstate(divide="ignore", invalid="ignore") if spec.quiet_floating_point else contextlib.nullcontext()
    with quiet:
        return spec.solver.run(problem, seeds=seeds, accountants=(), record_history=False, **spec.run_options)


#: What a chunk's outcome is handed to where it was computed (a checkpoint's ``save``), or None.
Record = Callable[[int, ChunkOutcome], object] | None


def run_chunk(spec: AuditSpec, job: ChunkJob, record: Record = None) -> ChunkOutcome:
    """Run one chunk of ``spec`` and keep what its attacks and utility need; then ``record(job.index,
    outcome)`` (if given) in the process that ran it."""
    result = run_trials(spec, spec.problem_in if job.on_d else spec.problem_out, job.seeds)
    utility = dict(spec.utility(result)) if job.utility and spec.utility is not None else {}
    outcome = ChunkOutcome(
        job.on_d,
        tuple(attack.observe(result, job.on_d) for attack in spec.attacks),
        len(job.seeds),
        utility,
        result.info,
        getattr(result, "details", None),
    )
    if record is not None:
        record(job.index, outcome)
    return outcome


#: The spec, jobs and record of the running ``run_chunks`` call, inherited by its forked workers.
_INHERITED: tuple[AuditSpec, Sequence[ChunkJob], Record] | None = None


def _inherited_job(index: int) -> ChunkOutcome:
    if _INHERITED is None:
        raise RuntimeError("a chunk worker started without the audit it belongs to")
    spec, jobs, record = _INHERITED
    return run_chunk(spec, jobs[index], record)


def run_chunks(
    spec: AuditSpec,
    jobs: Sequence[ChunkJob],
    *,
    workers: int,
    done: Callable[[int], object],
    record: Record = None,
) -> Generator[ChunkOutcome, None, None]:
    """The outcomes of ``jobs``, in order, from ``workers`` processes (1: this one); ``done(trials)``
    is called as each chunk finishes (for the progress bar), ``record(job.index, outcome)`` in the
    process that ran the chunk, as soon as it finished (a checkpoint's ``save``)."""
    global _INHERITED
    if workers <= 1 or len(jobs) < MIN_PARALLEL_JOBS or "fork" not in multiprocessing.get_all_start_methods():
        for job in jobs:
            outcome = run_chunk(spec, job, record)
            done(outcome.trials)
            yield outcome
        return
    _INHERITED = (spec, jobs, record)
    others = set(multiprocessing.active_children())  # processes this call did not start
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)),
        mp_context=multiprocessing.get_context("fork"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )
    try:
        # Submitted here rather than by ``pool.map``, whose clean-up cancels the futures: Python 3.11's
        # pool then fails in its manager thread when it marks them broken after the workers are stopped.
        # A read chunk's future is dropped: the driver holds IN_FLIGHT chunks' outcomes per worker at most.
        ahead = IN_FLIGHT * min(workers, len(jobs))
        pending: deque[Future[ChunkOutcome]] = deque()
        submitted = 0
        while pending or submitted < len(jobs):
            while submitted < len(jobs) and len(pending) < ahead:
                pending.append(pool.submit(_inherited_job, submitted))
                submitted += 1
            outcome = pending.popleft().result()
            done(outcome.trials)
            yield outcome
    except BaseException:
        terminate(set(multiprocessing.active_children()) - others)
        # The pool's manager thread reaps the stopped workers too: waiting for it means that none of
        # them is still counted as a live child when this returns.
        pool.shutdown(wait=True)
        raise
    else:
        pool.shutdown()
    finally:
        _INHERITED = None
