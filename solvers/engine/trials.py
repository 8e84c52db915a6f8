"""The trials axis of a run: the trials' seeds and the chunks they run in.

A run is one trial (``seed=``) or R independent trials at once (``trials=R`` spawns R seeds from
``seed``; ``seeds=`` gives them). Trial r of a batched run draws its randomness from ``seeds[r]``
exactly as a single run with ``seed=seeds[r]`` does, so the two agree. Trials run in chunks whose
memory is bounded (``chunks``).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from mechanisms import SecureReseedingGenerator
from mechanisms.rng import check_seed
from solvers.engine.result import UnreplayableSeed
from solvers.engine.seeding import TrialSeeds

__all__ = [
    "MAX_CHUNK_BYTES",
    "MAX_CHUNK_TRIALS",
    "MAX_SMALL_CHUNK_TRIALS",
    "SMALL_TRIALS_CHUNK_BYTES",
    "SeedLike",
    "chunks",
    "kept_seeds",
    "trial_seeds",
]

SeedLike = int | np.random.SeedSequence | np.random.Generator | None

#: Default bound on the memory of one chunk of trials (pre-drawn noise and work arrays).
MAX_CHUNK_BYTES = 256 * 2**20
#: Trials per chunk at most when a trial is large: larger chunks only add cache misses.
MAX_CHUNK_TRIALS = 64
#: Small trials fill a chunk up to this much pre-drawn memory (cache-sized), so the Python steps
#: of an iteration are shared by more trials (e.g. 341 audit trials of DP-ADMM with 2 agents)...
SMALL_TRIALS_CHUNK_BYTES = 2 * 2**20
#: ... but at most this many.
MAX_SMALL_CHUNK_TRIALS = 1024


def trial_seeds(
    seed: SeedLike, trials: int | None, seeds: Sequence[int | np.random.SeedSequence] | None
) -> tuple[Sequence[SeedLike], bool]:
    """(the trials' seeds, whether the run is batched) from ``Solver.run``'s three arguments."""
    if seeds is not None:
        if seed is not None or trials is not None:
            raise ValueError("pass either seeds= (explicit per-trial seeds) or seed=/trials=, not both")
        if isinstance(seeds, TrialSeeds) and len(seeds):
            return seeds, True  # valid by construction, and built only when read
        explicit: list[SeedLike] = list(seeds)
        if not explicit:
            raise ValueError("seeds must hold at least one seed")
        for s in explicit:
            if isinstance(s, np.random.Generator):
                raise TypeError("seeds must be ints or SeedSequences (a Generator cannot be replayed)")
            check_seed(s)
        return explicit, True
    if trials is None:
        if seed is None:
            return [np.random.SeedSequence()], False  # OS entropy, kept for replay
        check_seed(seed)
        return [seed], False
    if isinstance(trials, bool) or not isinstance(trials, numbers.Integral) or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    if isinstance(seed, SecureReseedingGenerator):
        # Honoured: trial r runs on child r (a SecureReseedingGenerator too), whose agents spawn
        # their own children, each reseeded from OS entropy at every draw (agent_seeds). Spawning
        # plain SeedSequences from its seed_seq instead would replay every trial from Result.seeds.
        return list(seed.spawn(int(trials))), True
    if isinstance(seed, np.random.Generator):
        root = seed.bit_generator.seed_seq
    elif isinstance(seed, np.random.SeedSequence):
        root = seed
    else:
        check_seed(seed)
        return TrialSeeds(np.random.SeedSequence(seed), int(trials)), True  # root.spawn of a fresh root
    return list(root.spawn(int(trials))), True


def kept_seeds(seeds: Sequence[SeedLike]) -> Sequence[SeedLike | UnreplayableSeed]:
    """``Result.seeds``: the trials' seeds, except that a ``SecureReseedingGenerator`` (which
    replays nothing, and whose seed_seq must not be kept) becomes an ``UnreplayableSeed``
    (:class:`~solvers.engine.seeding.TrialSeeds` are kept as they are: seeds built when read)."""
    if isinstance(seeds, TrialSeeds):
        return seeds
    return tuple(UnreplayableSeed() if isinstance(s, SecureReseedingGenerator) else s for s in seeds)


def chunks(n_trials: int, bytes_per_trial: int, max_bytes: int) -> list[slice]:
    """Consecutive slices of the trials, each using at most ``max_bytes`` (and at most
    ``MAX_CHUNK_TRIALS`` trials, or for small trials as many as fill ``SMALL_TRIALS_CHUNK_BYTES``
    up to ``MAX_SMALL_CHUNK_TRIALS``; at least one trial)."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, numbers.Integral) or max_bytes < 1:
        raise ValueError(f"max_chunk_bytes must be a positive integer, got {max_bytes!r}")
    per_trial = max(bytes_per_trial, 1)
    cap = max(MAX_CHUNK_TRIALS, min(MAX_SMALL_CHUNK_TRIALS, SMALL_TRIALS_CHUNK_BYTES // per_trial))
    size = max(1, min(cap, max_bytes // per_trial))
    return [slice(start, min(start + size, n_trials)) for start in range(0, n_trials, size)]
