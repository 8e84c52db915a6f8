"""Many ``SeedSequence`` children at once: lazy trial seeds, and their PCG64 states in one pass.

A chunk of R trials with N agents needs R·N PCG64 streams, each ``PCG64(SeedSequence(entropy,
spawn_key=(..., r, i)))``. Building those objects one by one costs ~12 µs a stream (the seed
object, its hash, the bit generator), more than drawing a trial's noise. :func:`pcg64_states`
computes the same states for a whole block of spawn keys with numpy's own algorithms, vectorised
over the keys: ``SeedSequence``'s entropy pool and ``generate_state`` (O'Neill's seed_seq
hashing, as numpy implements it) and ``PCG64``'s seeding (O'Neill 2014, ``pcg_setseq_128_srandom_r``).
The result is bit for bit the state numpy builds (tested on random entropies and keys), so a stream
set to it draws exactly what ``numpy.random.Generator(PCG64(SeedSequence(...)))`` draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np

__all__ = ["TrialSeeds", "pcg64_states", "seed_words"]

_MASK32 = 0xFFFFFFFF
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715
_XSHIFT = 16
_PCG_MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645
_MASK128 = (1 << 128) - 1


class TrialSeeds(Sequence[np.random.SeedSequence]):
    """Children ``start``, ``start`` + 1, … of ``parent`` (``length`` of them), each built when it is
    read: equal, seed for seed, to ``parent.spawn(...)`` of a parent that has spawned nothing yet,
    without building a million seed objects up front (and :func:`pcg64_states` reads their keys
    without building them at all)."""

    def __init__(self, parent: np.random.SeedSequence, length: int, start: int = 0) -> None:
        self.parent, self.length, self.start = parent, length, start

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, index: int) -> np.random.SeedSequence: ...

    @overload
    def __getitem__(self, index: slice) -> TrialSeeds: ...

    def __getitem__(self, index: int | slice) -> np.random.SeedSequence | TrialSeeds:
        if isinstance(index, slice):
            lo, hi, step = index.indices(self.length)
            if step != 1:
                raise ValueError("TrialSeeds slices must be contiguous")
            return TrialSeeds(self.parent, max(0, hi - lo), self.start + lo)
        if not -self.length <= index < self.length:
            raise IndexError(f"trial {index} out of range for {self.length} trials")
        child = self.start + (index % self.length)
        parent = self.parent
        return np.random.SeedSequence(parent.entropy, spawn_key=(*parent.spawn_key, child), pool_size=parent.pool_size)

    def spawn_keys(self) -> np.ndarray:
        """The children's spawn keys, one row each (``parent.spawn_key`` then the child's index)."""
        key = np.asarray(self.parent.spawn_key, dtype=np.uint64)
        prefix = np.broadcast_to(key, (self.length, len(key)))
        index = np.arange(self.start, self.start + self.length, dtype=np.uint64)[:, None]
        return np.hstack([prefix, index])


def seed_words(value: Any) -> list[int]:
    """``value`` (a non-negative int or a sequence of them) as the 32-bit words ``SeedSequence``
    hashes: an int least significant word first (0 is one word), a sequence word lists joined."""
    if isinstance(value, (int, np.integer)):
        number = int(value)
        if number < 0:
            raise ValueError(f"seed words need non-negative integers, got {number}")
        words = []
        while True:
            words.append(number & _MASK32)
            number >>= 32
            if not number:
                return words
    return [word for item in value for word in seed_words(item)]


def pcg64_states(entropy: Any, spawn_keys: np.ndarray, pool_size: int = 4) -> list[dict[str, Any]]:
    """``PCG64(SeedSequence(entropy, spawn_key=tuple(k), pool_size=pool_size)).state`` for every
    row k of ``spawn_keys`` (an (S, K) array of integers below 2^32), computed for all rows at once.

    Raises:
      ValueError: ``spawn_keys`` is not a 2-D array of integers in [0, 2^32).
    """
    keys = np.asarray(spawn_keys)
    if keys.ndim != 2 or keys.dtype.kind not in "iu" or (keys.size and (keys.min() < 0 or keys.max() > _MASK32)):
        raise ValueError(f"spawn_keys must be a 2-D array of integers in [0, 2^32), got {spawn_keys!r:.80}")
    run_words = seed_words(entropy)
    if keys.shape[1] and len(run_words) < pool_size:
        run_words += [0] * (pool_size - len(run_words))
    run = np.broadcast_to(np.asarray(run_words, dtype=np.uint32), (len(keys), len(run_words)))
    words = np.hstack([run, keys.astype(np.uint32)])
    pool = _mixed_pool(words, pool_size)
    seed = _generate_state(pool, 8).astype("<u4").view("<u8")  # generate_state(4, np.uint64)
    return [_pcg64_state(int(a), int(b), int(c), int(d)) for a, b, c, d in seed.tolist()]


class _Hash:
    """``SeedSequence``'s hashmix with its running constant (the same for every row)."""

    def __init__(self) -> None:
        self.constant = _INIT_A

    def __call__(self, value: np.ndarray) -> np.ndarray:
        value = value ^ np.uint32(self.constant)
        self.constant = (self.constant * _MULT_A) & _MASK32
        value = value * np.uint32(self.constant)
        return value ^ (value >> np.uint32(_XSHIFT))


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result = np.uint32(_MIX_MULT_L) * x - np.uint32(_MIX_MULT_R) * y
    return result ^ (result >> np.uint32(_XSHIFT))


def _mixed_pool(words: np.ndarray, pool_size: int) -> list[np.ndarray]:
    """``SeedSequence.mix_entropy`` of each row of ``words`` into a pool of ``pool_size`` words."""
    hashmix, n_words = _Hash(), words.shape[1]
    zeros = np.zeros(len(words), dtype=np.uint32)
    pool = [hashmix(words[:, i] if i < n_words else zeros) for i in range(pool_size)]
    for source in range(pool_size):
        for target in range(pool_size):
            if source != target:
                pool[target] = _mix(pool[target], hashmix(pool[source]))
    for source in range(pool_size, n_words):
        for target in range(pool_size):
            pool[target] = _mix(pool[target], hashmix(words[:, source]))
    return pool


def _generate_state(pool: list[np.ndarray], n_words: int) -> np.ndarray:
    """``SeedSequence.generate_state(n_words, np.uint32)`` of each row: (rows, n_words)."""
    constant, state = _INIT_B, []
    for i in range(n_words):
        value = pool[i % len(pool)] ^ np.uint32(constant)
        constant = (constant * _MULT_B) & _MASK32
        value = value * np.uint32(constant)
        state.append(value ^ (value >> np.uint32(_XSHIFT)))
    return np.stack(state, axis=1)


def _pcg64_state(seed_high: int, seed_low: int, sequence_high: int, sequence_low: int) -> dict[str, Any]:
    """``PCG64``'s state after seeding with these words (``pcg_setseq_128_srandom_r``)."""
    increment = ((((sequence_high << 64) | sequence_low) << 1) | 1) & _MASK128
    state = (increment + ((seed_high << 64) | seed_low)) & _MASK128  # a step from 0, then + initstate
    state = (state * _PCG_MULTIPLIER + increment) & _MASK128
    return {"bit_generator": "PCG64", "state": {"state": state, "inc": increment}, "has_uint32": 0, "uinteger": 0}
