"""The default backend: the family's vectorised iterations, all agents and a chunk of trials at once."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence

from solvers.engine.backends.base import Backend, ChunkRunner, RunJob
from solvers.engine.trials import SeedLike

__all__ = ["InProcessBackend"]


class InProcessBackend(Backend):
    """The default: each chunk of trials vectorised over (trials, agents) in this process, with
    the chunk's randomness drawn first (``Solver.chunk_draws``) and the family's ``iterate``."""

    @contextlib.contextmanager
    def session(self, job: RunJob) -> Iterator[ChunkRunner]:
        solver, problem, plan, recorder = job.solver, job.problem, job.plan, job.recorder

        def run_chunk(number: int, seeds: Sequence[SeedLike]) -> Mapping[str, float]:
            draws = solver.chunk_draws(problem, plan, seeds)
            return solver.iterate(problem, plan, len(seeds), draws, recorder)

        yield run_chunk
