"""The transcript: every message a protocol releases, per iteration (and trial and agent).

Attacks read the transcript, so it holds what a real adversary sees (the trainer, or an
eavesdropper on every link) and nothing more. Quantities an adversary does not see, recorded only
on request for white-box analyses, live in channels marked ``white_box=True`` and are dropped by
:meth:`Transcript.public`.

Array layout of a channel: (T, R, N, ...) for messages sent by the agents, (T, R, ...) for messages
sent by the server; R is absent for a single (unbatched) run. Entry t holds the message released in
iteration t (the paper's k + 1 for iteration k).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from solvers.topology import Topology

__all__ = ["Channel", "Transcript"]

SENDERS = ("agents", "server")


@dataclass(frozen=True, eq=False)
class Channel:
    """One kind of message.

    Attributes:
      name: e.g. "w_tilde" (DP-ADMM's noisy local models), "w" (the trainer's broadcast).
      values: read-only array, layout as in the module docstring.
      sender: "agents" (one message per agent, axis 2 or 1 of ``values``) or "server".
      description: what the message is, with the paper's notation and equation.
      white_box: True if the protocol does not release it (recorded for analysis only).
      agents: for sender "agents", the agent ids along the agents axis (all agents, or the subset
        the caller asked to record).
    """

    name: str
    values: np.ndarray
    sender: str
    description: str = ""
    white_box: bool = False
    agents: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.sender not in SENDERS:
            raise ValueError(f"sender must be one of {SENDERS}, got {self.sender!r}")
        values = np.asarray(self.values)
        if values.flags.writeable:
            values = values.view()
            values.setflags(write=False)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "agents", tuple(int(a) for a in self.agents))


class Transcript(Mapping[str, np.ndarray]):
    """A read-only mapping from channel name to its array, with the channels' metadata.

    Args:
      channels: the channels, in release order within an iteration.
      topology: who receives each agent's messages (``topology.recipients(i)``).
      batched: whether arrays carry a trials axis after the iterations axis.
    """

    def __init__(self, channels: list[Channel], topology: Topology, batched: bool) -> None:
        names = [channel.name for channel in channels]
        if len(set(names)) != len(names):
            raise ValueError(f"channel names must be distinct, got {names}")
        self._channels = {channel.name: channel for channel in channels}
        self.topology = topology
        self.batched = batched

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._channels[name].values
        except KeyError:
            raise KeyError(f"no channel {name!r} in this transcript (channels: {list(self._channels)})") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._channels)

    def __len__(self) -> int:
        return len(self._channels)

    def channel(self, name: str) -> Channel:
        """The channel ``name`` with its metadata."""
        self[name]
        return self._channels[name]

    @property
    def channels(self) -> tuple[Channel, ...]:
        return tuple(self._channels.values())

    @property
    def white_box_names(self) -> tuple[str, ...]:
        """Channels that the protocol does not release."""
        return tuple(name for name, channel in self._channels.items() if channel.white_box)

    def public(self) -> Transcript:
        """Only what the protocol releases (white-box channels dropped)."""
        return Transcript(
            [channel for channel in self._channels.values() if not channel.white_box],
            self.topology,
            self.batched,
        )

    def recipients(self, name: str, agent: int) -> tuple[Hashable, ...]:
        """Who receives ``agent``'s messages on channel ``name`` (server channels: every agent)."""
        channel = self.channel(name)
        if channel.sender == "server":
            return tuple(range(self.topology.n_agents))
        return self.topology.recipients(agent)

    def trial(self, r: int) -> Transcript:
        """The transcript of trial ``r`` of a batched run, as a single run's transcript."""
        if not self.batched:
            raise ValueError("trial() needs a batched transcript (run with trials= or seeds=)")
        return Transcript(
            [
                Channel(c.name, c.values[:, r], c.sender, c.description, c.white_box, c.agents)
                for c in self._channels.values()
            ],
            self.topology,
            batched=False,
        )

    def __repr__(self) -> str:
        shapes = ", ".join(f"{name}{channel.values.shape}" for name, channel in self._channels.items())
        return f"Transcript({shapes})"
