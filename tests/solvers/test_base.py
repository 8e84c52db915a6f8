"""Tests for solvers.base: trial seeds and chunking of the trials axis."""

import numpy as np
import pytest

from solvers.base import MAX_CHUNK_TRIALS, _chunks, _trial_seeds


def test_single_run_keeps_its_seed_and_none_draws_a_replayable_one():
    assert _trial_seeds(7, None, None) == ([7], False)
    (drawn,), batched = _trial_seeds(None, None, None)
    assert isinstance(drawn, np.random.SeedSequence) and not batched


def test_trials_spawn_from_the_root_seed_reproducibly():
    first, batched = _trial_seeds(3, 4, None)
    second, _ = _trial_seeds(3, 4, None)
    assert batched and len(first) == 4
    assert [s.spawn_key for s in first] == [s.spawn_key for s in second] == [(i,) for i in range(4)]
    assert all(s.entropy == 3 for s in first)
    from_generator, _ = _trial_seeds(np.random.default_rng(3), 2, None)
    assert len(from_generator) == 2


def test_explicit_seeds_are_a_batched_run():
    assert _trial_seeds(None, None, [5, 6]) == ([5, 6], True)
    with pytest.raises(ValueError, match="non-negative"):
        _trial_seeds(None, None, [-1])


def test_chunks_cover_all_trials_within_the_memory_bound():
    chunks = _chunks(10, bytes_per_trial=100, max_bytes=350)
    assert [(c.start, c.stop) for c in chunks] == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert len(_chunks(1000, 1, 10**9)) == -(-1000 // MAX_CHUNK_TRIALS)
    assert [(c.start, c.stop) for c in _chunks(2, 10**9, 1)] == [(0, 1), (1, 2)]
