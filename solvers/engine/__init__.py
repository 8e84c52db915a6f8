"""The solver-agnostic engine: the one ``run`` of every solver family, its trials and backends.

No algorithm is imported here; a solver family plugs in by subclassing :class:`Solver` (its
``plan``) and writing its iteration as the pieces of :class:`StepSolver`, from which the engine
derives the in-process iteration, the agent programs and the white-box replay. The list of hooks is
written once, in ``solvers.engine.step``.

Where each piece lives: the one ``run`` and the one chunk loop in ``solvers.engine.solver``; the
pieces of an iteration and what is derived from them in ``solvers.engine.step``; the
trials' seeds and chunks in ``solvers.engine.trials``; per-agent random streams in
``solvers.engine.streams``; accounting in ``solvers.engine.accounting``; the backends in
``solvers.engine.backends`` (in process, sequential, Ray; the agent backends share one round loop in
``solvers.engine.backends.agents``). ``solvers.testing.check_solver`` checks that a family keeps
the engine's promises.
"""

from typing import TYPE_CHECKING

from accountants.lazy import typed_lazy_exports

if TYPE_CHECKING:  # the real imports, for type checkers; at run time each name is imported on first use
    from solvers.engine.accounting import DEFAULT_ACCOUNTANTS as DEFAULT_ACCOUNTANTS
    from solvers.engine.backends import AgentFailure as AgentFailure
    from solvers.engine.backends import Backend as Backend
    from solvers.engine.backends import InProcessBackend as InProcessBackend
    from solvers.engine.backends import RayBackend as RayBackend
    from solvers.engine.backends import SequentialBackend as SequentialBackend
    from solvers.engine.plan import NoiseSource as NoiseSource
    from solvers.engine.plan import RunPlan as RunPlan
    from solvers.engine.protocol import AgentProgram as AgentProgram
    from solvers.engine.protocol import AgentProtocol as AgentProtocol
    from solvers.engine.protocol import Coordinator as Coordinator
    from solvers.engine.recording import BaseRecorder as BaseRecorder
    from solvers.engine.recording import ChannelSpec as ChannelSpec
    from solvers.engine.recording import RecordOptions as RecordOptions
    from solvers.engine.result import Result as Result
    from solvers.engine.solver import Draws as Draws
    from solvers.engine.solver import Solver as Solver
    from solvers.engine.step import Agents as Agents
    from solvers.engine.step import Combined as Combined
    from solvers.engine.step import Release as Release
    from solvers.engine.step import StepSolver as StepSolver
    from solvers.engine.streams import AgentStreams as AgentStreams
    from solvers.engine.streams import agent_seeds as agent_seeds
    from solvers.engine.transcript import Channel as Channel
    from solvers.engine.transcript import Transcript as Transcript
    from solvers.engine.trials import SeedLike as SeedLike

# Each name is written once, in the TYPE_CHECKING block (read at import time for the lazy map).
__getattr__, __dir__, _LAZY = typed_lazy_exports(__name__, __file__, globals())
__all__ = [*_LAZY]
