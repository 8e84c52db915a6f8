"""The two sides of a solver's message protocol, as a backend runs them.

An :class:`AgentProgram` is what one agent executes: it holds its own share of the data
(``AgentShare``) and its own noise, and in round k turns the messages it receives into the message it
releases. A :class:`Coordinator` (the trainer of a star, the driver of a graph) hands every agent the
released messages it is entitled to, collects the releases, and records the iteration. The
in-process backend never uses these classes (it runs the vectorised ``Solver.iterate``); both
sides call the same update functions as ``iterate``, so the two backends agree.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

import numpy as np

__all__ = ["AgentProgram", "AgentProtocol", "Coordinator"]

#: What an agent receives in a round (the released messages it is entitled to).
Inbound = TypeVar("Inbound")


class AgentProgram(ABC, Generic[Inbound]):
    """One agent's side: ``begin`` a chunk of trials with its own noise, then one ``step`` a round;
    generic in what it receives each round (the ``Inbound`` of its family's ``Coordinator``)."""

    agent: int

    def __init__(self, solver, share, plan, white_box: bool = False) -> None:
        """The solver (public parameters), this agent's data ``share``, the run plan, and whether
        its unreleased values are recorded (white-box)."""
        self.solver, self.share, self.plan, self.white_box = solver, share, plan, white_box
        self.agent = share.agent

    @abstractmethod
    def begin(self, noise: np.ndarray | None, n_trials: int) -> None:
        """Reset the state for a chunk of ``n_trials`` trials; ``noise`` (R, *noise_shape) has an
        agents axis of length 1 (this agent's block), None for a noiseless solver."""

    @abstractmethod
    def step(self, k: int, inbound: Inbound) -> Mapping[str, object]:
        """Round k: the released messages ``inbound`` in, this agent's reply out (its release,
        white-box values when recorded, and ``"diagnostics"``)."""


class Coordinator(ABC, Generic[Inbound]):
    """The coordinating side of one chunk of trials; it sees only what the agents release."""

    #: Rounds in a chunk; round k < ``plan.n_iterations`` carries iteration k's releases.
    n_rounds: int

    def __init__(self) -> None:
        self.diagnostics: dict[str, float] = {}

    @abstractmethod
    def inbound(self, k: int, agent: int) -> Inbound:
        """What ``agent`` receives in round k."""

    @abstractmethod
    def receive(self, k: int, replies: Sequence[Mapping[str, object]]) -> None:
        """The agents' replies of round k, in agent order: update and record."""

    def merge_diagnostics(self, replies: Sequence[Mapping[str, object]]) -> None:
        """Fold the replies' ``"diagnostics"`` ({name: value}) into ``self.diagnostics`` (maximum)."""
        for reply in replies:
            diagnostics = cast(Mapping[str, float], reply.get("diagnostics", {}))  # {name: value} by the protocol
            for key, value in diagnostics.items():
                self.diagnostics[key] = max(value, self.diagnostics.get(key, value))


@dataclass(frozen=True)
class AgentProtocol:
    """A solver family's message protocol for one run, as the agent backends execute it.

    Attributes:
      agent: ``agent(i)`` builds agent i's program, holding only agent i's share of the data; it is
        sent to wherever agent i runs (a Ray actor), so it must pickle.
      coordinator: ``coordinator(n_trials)`` builds the coordinating side of a chunk of trials
        (it runs in the calling process and records every iteration).
    """

    agent: Callable[[int], AgentProgram[Any]]
    coordinator: Callable[[int], Coordinator[Any]]
