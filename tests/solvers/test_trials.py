"""Tests for solvers.engine.trials: trial seeds and chunking of the trials axis."""

import numpy as np
import pytest

from solvers.engine.trials import (
    MAX_CHUNK_TRIALS,
    MAX_SMALL_CHUNK_TRIALS,
    SMALL_TRIALS_CHUNK_BYTES,
    chunks,
    trial_seeds,
)


def test_single_run_keeps_its_seed_and_none_draws_a_replayable_one():
    assert trial_seeds(7, None, None) == ([7], False)
    (drawn,), batched = trial_seeds(None, None, None)
    assert isinstance(drawn, np.random.SeedSequence) and not batched


def test_trials_spawn_from_the_root_seed_reproducibly():
    first, batched = trial_seeds(3, 4, None)
    second, _ = trial_seeds(3, 4, None)
    assert batched and len(first) == 4
    assert [s.spawn_key for s in first] == [s.spawn_key for s in second] == [(i,) for i in range(4)]
    assert all(s.entropy == 3 for s in first)
    from_generator, _ = trial_seeds(np.random.default_rng(3), 2, None)
    assert len(from_generator) == 2


def test_explicit_seeds_are_a_batched_run():
    assert trial_seeds(None, None, [5, 6]) == ([5, 6], True)
    with pytest.raises(ValueError, match="non-negative"):
        trial_seeds(None, None, [-1])


def test_chunks_cover_all_trials_within_the_memory_bound():
    split = chunks(10, bytes_per_trial=100, max_bytes=350)
    assert [(c.start, c.stop) for c in split] == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert len(chunks(5000, 1, 10**9)) == -(-5000 // MAX_SMALL_CHUNK_TRIALS)  # tiny trials: large chunks
    assert len(chunks(1000, SMALL_TRIALS_CHUNK_BYTES // 100, 10**9)) == 10  # cache-sized chunks
    assert len(chunks(1000, SMALL_TRIALS_CHUNK_BYTES, 10**12)) == -(-1000 // MAX_CHUNK_TRIALS)  # large trials
    assert [(c.start, c.stop) for c in chunks(2, 10**9, 1)] == [(0, 1), (1, 2)]
