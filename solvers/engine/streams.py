"""Per-agent random streams: every agent draws its noise from its own generator.

Trial r's generator is split into one child stream per agent (children of the trial's
``SeedSequence``, as ``SeedSequence.spawn`` makes them, but without mutating the parent), so agent i's
noise depends only on (trial seed, i). The in-process backend draws all agents' noise at once
through :class:`AgentStreams`, a ``numpy.random.Generator`` that fills the agents axis (axis 1 of
every draw) block by block from the children; a Ray actor builds the same object holding only its
own child and keeps its own block, so both backends release the same noise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mechanisms.rng import begin_release
from solvers.engine.seeding import TrialSeeds, pcg64_states

__all__ = [
    "AGENT_AXIS",
    "STREAM_LAYOUT",
    "AgentStreams",
    "ChunkStreams",
    "StreamState",
    "agent_generator",
    "agent_seeds",
]

#: The axis of the agents in every draw a solver's noise sampler makes.
AGENT_AXIS = 1
#: Where a run's randomness comes from, in words (reports record it).
STREAM_LAYOUT = (
    "trial r draws from its own SeedSequence (for trials=R: child r of SeedSequence(seed)); agent i of "
    "a trial from child i of the trial's SeedSequence, through numpy's PCG64; every draw fills each "
    "(trial, agent) block from that agent's stream in the order the solver makes its draws, so a "
    "batched trial, a single run with its seed and the sequential and Ray backends draw the same noise"
)

AgentSeed = np.random.SeedSequence | np.random.Generator
#: A stream held as its PCG64 state (from :func:`solvers.engine.seeding.pcg64_states`) rather than
#: as an object: drawn through one shared generator set to it, then updated.
StreamState = dict[str, Any]
#: The bit generator of the stream objects themselves, never drawn from (every draw they support
#: is overridden): one shared instance, as building a bit generator costs more than a draw.
_NEVER_DRAWN = np.random.PCG64(0)


def agent_generator(seed: AgentSeed) -> np.random.Generator:
    """Agent stream ``seed`` as a generator: PCG64 of a ``SeedSequence`` child (as ``make_rng``
    builds it), or the spawned ``Generator`` itself."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.Generator(np.random.PCG64(seed))


def agent_seeds(
    trial_seed: int | np.random.SeedSequence | np.random.Generator | None, n_agents: int
) -> list[AgentSeed]:
    """The N child seeds of one trial: ``SeedSequence`` children (spawn keys ``(..., i)``) of an int
    or ``SeedSequence`` seed, or ``Generator.spawn(N)`` of a generator (which advances it, so a
    generator used twice gives fresh noise, as drawing from it would; a
    ``SecureReseedingGenerator`` spawns children of its own type, reseeded at every draw)."""
    if isinstance(trial_seed, np.random.Generator):
        return list(trial_seed.spawn(n_agents))
    root = trial_seed if isinstance(trial_seed, np.random.SeedSequence) else np.random.SeedSequence(trial_seed)
    return [
        np.random.SeedSequence(root.entropy, spawn_key=tuple(root.spawn_key) + (i,), pool_size=root.pool_size)
        for i in range(n_agents)
    ]


class AgentStreams(np.random.Generator):
    """A generator whose every draw of shape (..., N, ...) (agents on :data:`AGENT_AXIS`) takes
    agent i's block from agent i's own stream; agents without a stream (``None``) get zeros.

    Supports the draws the mechanisms make (``standard_normal``, ``standard_gamma``, ``laplace``,
    ``random``); any other draw is refused rather than taken from a shared stream.

    Args:
      seeds: one entry per agent: an agent seed from :func:`agent_seeds`, or None (not held here).
    """

    def __init__(self, seeds: Sequence[AgentSeed | None]) -> None:
        super().__init__(_NEVER_DRAWN)
        self._streams = [None if s is None else agent_generator(s) for s in seeds]

    @classmethod
    def single(cls, n_agents: int, agent: int, seed: AgentSeed) -> AgentStreams:
        """The streams as agent ``agent`` holds them: its own, and none of the others'."""
        return cls([seed if i == agent else None for i in range(n_agents)])

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        _no_out(out)
        return self._blocks(lambda rng, shape: rng.standard_normal(shape, dtype=dtype), size)

    def standard_gamma(self, shape, size=None, dtype=np.float64, out=None):
        _no_out(out)
        return self._blocks(lambda rng, sub: rng.standard_gamma(shape, size=sub, dtype=dtype), size)

    def laplace(self, loc=0.0, scale=1.0, size=None):
        if np.ndim(loc) or np.ndim(scale):
            raise ValueError("AgentStreams.laplace takes scalar loc and scale (scale the draw instead)")
        return self._blocks(lambda rng, sub: rng.laplace(loc, scale, size=sub), size)

    def random(self, size=None, dtype=np.float64, out=None):
        _no_out(out)
        return self._blocks(lambda rng, sub: rng.random(sub, dtype=dtype), size)

    def spawn(self, n_children: int):
        raise TypeError("AgentStreams cannot spawn: spawn from the trial's seed instead")

    def _blocks(self, draw: Callable[[np.random.Generator, tuple[int, ...]], np.ndarray], size) -> np.ndarray:
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size or ())
        n_agents = len(self._streams)
        if len(shape) <= AGENT_AXIS or shape[AGENT_AXIS] != n_agents:
            raise ValueError(
                f"every draw from AgentStreams must have the {n_agents} agents on axis {AGENT_AXIS}, got size {size!r}"
            )
        out = np.zeros(shape)
        block = shape[:AGENT_AXIS] + shape[AGENT_AXIS + 1 :]
        for i, rng in enumerate(self._streams):
            if rng is not None:
                out[(slice(None),) * AGENT_AXIS + (i,)] = draw(begin_release(rng), block)
        return out

    def __reduce__(self):
        raise TypeError("AgentStreams is not sent anywhere: each agent builds its own from its seed")


class ChunkStreams(AgentStreams):
    """The streams of a whole chunk of trials as one generator: every draw of shape (R, ..., N, ...)
    (trials on axis 0, agents on axis 1 + :data:`AGENT_AXIS`) fills block (r, i) from trial r's
    agent-i stream with the same call :class:`AgentStreams` of trial r makes, so a chunk drawn at once
    equals its trials drawn one by one, bit for bit, without building a stream object per trial.
    Agents without a stream (``None``) get zeros, as in :class:`AgentStreams`.

    Args:
      rows: per trial, per agent: an agent seed (from :func:`agent_seeds`), a PCG64 state (a
        :data:`StreamState`) or None.
    """

    def __init__(self, rows: Sequence[Sequence[AgentSeed | StreamState | None]]) -> None:
        np.random.Generator.__init__(self, _NEVER_DRAWN)
        self._rows: list[list[np.random.Generator | StreamState | None]] = [
            [s if s is None or isinstance(s, dict) else agent_generator(s) for s in row] for row in rows
        ]
        self._n_agents = len(self._rows[0]) if self._rows else 0
        self._shared: np.random.Generator | None = None

    @classmethod
    def of_trials(
        cls, trial_seeds: Sequence[int | np.random.SeedSequence | np.random.Generator | None], n_agents: int
    ) -> ChunkStreams:
        """Every agent's stream of every trial. Trials that are children of one ``SeedSequence``
        (a :class:`~solvers.engine.seeding.TrialSeeds`, or seeds sharing entropy and key length)
        get their streams' states computed all at once (:func:`~solvers.engine.seeding.pcg64_states`)."""
        shared = _shared_entropy(trial_seeds)
        if shared is None:
            return cls([agent_seeds(seed, n_agents) for seed in trial_seeds])
        entropy, pool_size, trial_keys = shared
        agents = np.tile(np.arange(n_agents, dtype=np.uint64), len(trial_keys))[:, None]
        states = pcg64_states(entropy, np.hstack([np.repeat(trial_keys, n_agents, axis=0), agents]), pool_size)
        return cls([states[r * n_agents : (r + 1) * n_agents] for r in range(len(trial_keys))])

    @classmethod
    def of_agent(cls, seeds: Sequence[AgentSeed], n_agents: int, agent: int) -> ChunkStreams:
        """Agent ``agent``'s streams of the trials (its seed of each), as it holds them."""
        return cls([[seed if i == agent else None for i in range(n_agents)] for seed in seeds])

    def _blocks(self, draw: Callable[[np.random.Generator, tuple[int, ...]], np.ndarray], size) -> np.ndarray:
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size or ())
        axis = 1 + AGENT_AXIS
        if len(shape) <= axis or shape[0] != len(self._rows) or shape[axis] != self._n_agents:
            raise ValueError(
                f"every draw from ChunkStreams must have the {len(self._rows)} trials on axis 0 and the "
                f"{self._n_agents} agents on axis {axis}, got size {size!r}"
            )
        out = np.zeros(shape)
        block = shape[1:axis] + shape[axis + 1 :]
        index = (slice(None),) * AGENT_AXIS
        for r, row in enumerate(self._rows):
            trial = out[r]
            for i, stream in enumerate(row):
                if stream is None:
                    continue
                if isinstance(stream, dict):
                    shared = self._shared_generator()
                    shared.bit_generator.state = stream
                    trial[index + (i,)] = draw(shared, block)
                    row[i] = shared.bit_generator.state
                else:
                    trial[index + (i,)] = draw(begin_release(stream), block)
        return out

    def _shared_generator(self) -> np.random.Generator:
        """The one generator every stream held as a state is drawn through (set to it first)."""
        if self._shared is None:
            self._shared = np.random.Generator(np.random.PCG64())
        return self._shared


def _shared_entropy(trial_seeds: Sequence[object]) -> tuple[int, int, np.ndarray] | None:
    """(entropy, pool size, the trials' spawn keys as rows) when every trial seed is a child of one
    ``SeedSequence`` with an int entropy and keys below 2^32; None otherwise."""
    if isinstance(trial_seeds, TrialSeeds):
        parent = trial_seeds.parent
        keys = trial_seeds.spawn_keys()
        entropy, pool_size = parent.entropy, parent.pool_size
    else:
        sequences = [s for s in trial_seeds if isinstance(s, np.random.SeedSequence)]
        if not sequences or len(sequences) != len(trial_seeds):
            return None
        first = sequences[0]
        entropy, pool_size, length = first.entropy, first.pool_size, len(first.spawn_key)
        if any(s.entropy != entropy or s.pool_size != pool_size or len(s.spawn_key) != length for s in sequences):
            return None
        keys = np.array([s.spawn_key for s in sequences], dtype=object).reshape(len(sequences), length)
    if not isinstance(entropy, int) or (keys.size and max(keys.max(), 0) >= 2**32):
        return None
    return entropy, pool_size, keys.astype(np.uint64)


def _refuse(name: str) -> Callable[..., None]:
    def method(self, *args, **kwargs):
        raise TypeError(
            f"AgentStreams does not support {name}(): draw per agent with a supported method "
            "(standard_normal, standard_gamma, laplace, random)"
        )

    method.__name__ = name
    return method


for _name in (
    "normal",
    "uniform",
    "integers",
    "choice",
    "exponential",
    "gamma",
    "beta",
    "binomial",
    "poisson",
    "permutation",
    "permuted",
    "shuffle",
    "multivariate_normal",
    "standard_exponential",
    "bytes",
):
    setattr(AgentStreams, _name, _refuse(_name))


def _no_out(out: object) -> None:
    if out is not None:
        raise TypeError("AgentStreams draws do not take out=")
