"""What a backend is: it executes the chunks of a run that ``Solver.run`` hands it.

``Solver.run`` plans, accounts and writes the ledger, then opens a backend ``session`` for the run
(:class:`RunJob`) and calls the chunk runner it yields once per chunk of trials; the runner returns
the chunk's diagnostics. A backend never imports an algorithm: it calls the solver's hooks
(``chunk_draws`` and ``iterate`` in process, ``protocol`` on the agent backends).
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from accountants import Ledger, LedgerFile

if TYPE_CHECKING:  # the engine's solver module imports the backends
    from solvers.engine.plan import RunPlan
    from solvers.engine.recording import BaseRecorder
    from solvers.engine.solver import Solver
    from solvers.engine.trials import SeedLike

__all__ = ["Backend", "ChunkRunner", "RunJob"]

#: ``run_chunk(number, seeds)``: run chunk ``number`` (0, 1, …) of trials with these seeds, after the
#: recorder has begun it; returns the chunk's diagnostics.
ChunkRunner = Callable[[int, Sequence["SeedLike"]], Mapping[str, float]]


@dataclass(frozen=True)
class RunJob:
    """One run as a backend receives it.

    Attributes:
      solver, problem, plan, recorder: the run's solver, problem, plan and recorder.
      ledger: every release of the run (already registered with the accountants).
      ledger_file: where the backend writes iteration k's releases before round k (None: the
        ledger is already on disk, or no file was asked for).
    """

    solver: Solver[Any, Any]
    problem: Any
    plan: RunPlan[Any]
    recorder: BaseRecorder[Any]
    ledger: Ledger
    ledger_file: LedgerFile | None


class Backend(ABC):
    """Executes a run's chunks of trials."""

    #: Whether the backend writes the ledger file round by round (write-ahead, iteration k before
    #: round k); otherwise ``Solver.run`` writes the whole ledger before the first chunk.
    writes_ledger_by_round: ClassVar[bool] = False

    @abstractmethod
    def session(self, job: RunJob) -> contextlib.AbstractContextManager[ChunkRunner]:
        """Set up ``job`` (e.g. start the agents) and yield its chunk runner; tear down on exit."""
