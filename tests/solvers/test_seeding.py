"""solvers.engine.seeding: lazily built trial seeds and vectorised stream states are numpy's own,
seed for seed and bit for bit, and a chunk drawn through them equals its trials drawn one by one."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.engine.seeding import TrialSeeds, pcg64_states, seed_words
from solvers.engine.streams import AgentStreams, ChunkStreams, agent_seeds
from solvers.engine.trials import kept_seeds, trial_seeds


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
    assert [tuple(k) for k in lazy[lo:hi].spawn_keys().tolist()] == [s.spawn_key for s in spawned[lo:hi]]


@settings(max_examples=200)
@given(
    entropy=st.one_of(st.integers(0, 2**32), st.integers(0, 2**200)),
    keys=st.integers(0, 4).flatmap(
        lambda k: st.lists(st.lists(st.integers(0, 2**32 - 1), min_size=k, max_size=k), min_size=1, max_size=6)
    ),
    pool_size=st.sampled_from([4, 5, 8]),
)
def test_pcg64_states_equal_numpys(entropy, keys, pool_size):
    mine = pcg64_states(entropy, np.array(keys, dtype=np.uint64).reshape(len(keys), -1), pool_size)
    for key, state in zip(keys, mine, strict=True):
        seed_sequence = np.random.SeedSequence(entropy, spawn_key=tuple(key), pool_size=pool_size)
        assert state == np.random.PCG64(seed_sequence).state


def test_pcg64_state_golden():
    # numpy 1.x and 2.x: PCG64(SeedSequence(0, spawn_key=(1, 2))).state
    state = pcg64_states(0, np.array([[1, 2]]))[0]["state"]
    reference = np.random.PCG64(np.random.SeedSequence(0, spawn_key=(1, 2))).state["state"]
    assert state == reference
    assert seed_words(0) == [0] and seed_words(2**32 + 5) == [5, 1] and seed_words([1, 2**32]) == [1, 0, 1]


@pytest.mark.parametrize("keys", [np.array([1, 2]), np.array([[-1]]), np.array([[2**32]]), np.array([[0.5]])])
def test_pcg64_states_refuse_bad_keys(keys):
    with pytest.raises(ValueError, match="spawn_keys"):
        pcg64_states(0, keys)


@pytest.mark.parametrize(
    "seeds",
    [
        TrialSeeds(np.random.SeedSequence(7, spawn_key=(3,)), 9, start=4),
        np.random.SeedSequence(8).spawn(5),
        [np.random.SeedSequence(9), np.random.SeedSequence(10, spawn_key=(1,))],  # mixed: object path
        [3, 4],
    ],
)
def test_chunk_draws_equal_trial_by_trial(seeds):
    n_agents = 3
    chunk = ChunkStreams.of_trials(seeds, n_agents)
    first, second = chunk.standard_normal((len(seeds), 4, n_agents, 2)), chunk.random((len(seeds), 1, n_agents))
    for r, seed in enumerate(seeds):
        single = AgentStreams(agent_seeds(seed, n_agents))
        assert np.array_equal(first[r], single.standard_normal((4, n_agents, 2)))  # bit for bit
        assert np.array_equal(second[r], single.random((1, n_agents)))  # the stream moved on


def test_batched_runs_keep_lazy_seeds():
    seeds, batched = trial_seeds(5, 1000, None)
    assert batched and isinstance(seeds, TrialSeeds) and kept_seeds(seeds) is seeds
    assert [s.spawn_key for s in seeds[:3]] == [s.spawn_key for s in np.random.SeedSequence(5).spawn(3)]
    explicit, _ = trial_seeds(None, None, seeds[10:20])
    assert explicit[0].spawn_key == (10,)
