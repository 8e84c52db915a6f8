"""audits.runner.TrialSeeds: the lazily built trial seeds are numpy's spawned children, seed for seed."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from audits.runner import TrialSeeds


@given(
    entropy=st.integers(0, 2**64),
    key=st.lists(st.integers(0, 50), max_size=3),
    length=st.integers(1, 40),
    lo=st.integers(0, 40),
    hi=st.integers(0, 40),
)
def test_trial_seeds_equal_spawned_children(entropy, key, length, lo, hi):
    spawned = np.random.SeedSequence(entropy, spawn_key=tuple(key)).spawn(length)
    lazy = TrialSeeds(np.random.SeedSequence(entropy, spawn_key=tuple(key)), length)
    assert len(lazy) == length
    for mine, numpys in [(lazy[r], spawned[r]) for r in range(-length, length)]:
        assert mine.spawn_key == numpys.spawn_key
        assert np.array_equal(mine.generate_state(4), numpys.generate_state(4))
    assert [s.spawn_key for s in lazy[lo:hi]] == [s.spawn_key for s in spawned[lo:hi]]
