"""The two sides of a solver's message protocol, as a backend runs them.

An :class:`AgentProgram` is what one agent executes: it holds its own share of the data
(``AgentShare``) and its own noise, and in round k turns the messages it receives into the message it
releases. A :class:`Coordinator` (the trainer of a star, the driver of a graph) hands every agent the
released messages it is entitled to, collects the releases, and records the iteration. The
in-process backend never uses these classes (it runs the vectorised ``Solver._iterate``); both
sides call the same update functions as ``_iterate``, so the two backends agree.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["AgentProgram", "Coordinator"]


class AgentProgram(ABC):
    """One agent's side: ``begin`` a chunk of trials with its own noise, then one ``step`` a round."""

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
    def step(self, k: int, inbound: object) -> Mapping[str, object]:
        """Round k: the released messages ``inbound`` in, this agent's reply out (its release,
        white-box values when recorded, and ``"diagnostics"``)."""


class Coordinator(ABC):
    """The coordinating side of one chunk of trials; it sees only what the agents release."""

    #: Rounds in a chunk; round k < ``plan.n_iterations`` carries iteration k's releases.
    n_rounds: int

    def __init__(self) -> None:
        self.diagnostics: dict[str, float] = {}

    @abstractmethod
    def inbound(self, k: int, agent: int) -> object:
        """What ``agent`` receives in round k."""

    @abstractmethod
    def receive(self, k: int, replies: Sequence[Mapping[str, object]]) -> None:
        """The agents' replies of round k, in agent order: update and record."""

    def _merge(self, replies: Sequence[Mapping[str, object]]) -> None:
        for reply in replies:
            for key, value in reply.get("diagnostics", {}).items():  # type: ignore[union-attr]
                self.diagnostics[key] = max(value, self.diagnostics.get(key, value))
