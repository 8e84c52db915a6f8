"""The data-independent plan of a run, fixed before the first iteration.

A solver's ``plan(problem)`` states what will be released (one privacy event per participant and
iteration), with which noise, and the constants the iterations use (schedules, noise scales, the
step sizes …) as a family's own frozen dataclass, so that nothing about the privacy of a run depends
on the private data or on what the iterations do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeGuard, TypeVar

import numpy as np
from dp_accounting import dp_event

__all__ = ["NoiseSource", "RunPlan", "details_info", "draws_whole_chunks"]


class NoiseSource(Protocol):
    """The noise of one trial: a ``mechanisms.Mechanism``, or a solver's own sampler of several.

    A source whose ``sample`` also takes leading trial axes (``shape = (R, *noise_shape)``, drawn
    from ``ChunkStreams``) says so with a true class attribute ``leading_trials``; a
    ``mechanisms.Mechanism`` always does (its parameters broadcast against leading axes).
    """

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """One trial's noise of shape ``shape`` from ``rng`` (the trial's per-agent ``AgentStreams``)."""
        ...


def draws_whole_chunks(source: NoiseSource | None) -> TypeGuard[NoiseSource]:
    """Whether ``source`` draws a chunk's noise in one call (module docstring of :class:`NoiseSource`)."""
    from mechanisms.base import Mechanism

    return isinstance(source, Mechanism) or bool(getattr(source, "leading_trials", False))


#: A family's plan details: a frozen dataclass of the constants its iterations use.
D = TypeVar("D", covariant=True)


@dataclass(frozen=True)
class RunPlan(Generic[D]):
    """Everything about a run fixed before the first iteration (it depends on no private data).

    Attributes:
      n_iterations: T.
      events: ``events[k][i]``, the privacy event of agent i's release in iteration k.
      mechanism: the noise of one trial, ``mechanism.sample(streams, noise_shape)`` with
        ``streams`` the trial's per-agent ``AgentStreams``; None if noiseless.
      noise_shape: shape of one trial's noise, agents on axis 1, e.g. (T, N, d).
      details: the family's constants (a frozen dataclass, e.g. step sizes and noise scales),
        reported in ``Result.info`` field by field (``details_info``).
    """

    n_iterations: int
    events: Sequence[Sequence[dp_event.DpEvent]]
    mechanism: NoiseSource | None
    noise_shape: tuple[int, ...]
    details: D


def details_info(details: object) -> dict[str, Any]:
    """The fields of a plan's ``details`` by name, in declaration order (``Result.info``): the
    values themselves, not copies (no recursion into nested dataclasses); nothing for None.

    Raises:
      TypeError: ``details`` is neither None nor a dataclass instance (e.g. a plain dict).
    """
    if details is None:
        return {}
    if not dataclasses.is_dataclass(details) or isinstance(details, type):
        raise TypeError(f"a plan's details must be a dataclass instance or None, got {type(details).__name__}")
    return {f.name: getattr(details, f.name) for f in dataclasses.fields(details)}
