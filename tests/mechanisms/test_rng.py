"""Generators: reproducible from a seed, OS-seeded by default, independent, never global."""

import pickle

import numpy as np
import pytest

import mechanisms.rng as rng_module
from mechanisms import (
    GaussianMechanism,
    SecureReseedingGenerator,
    begin_release,
    make_rng,
    spawn_rngs,
)


@pytest.mark.parametrize("seed", [lambda: 0, lambda: 12345, lambda: np.int64(7), lambda: np.random.SeedSequence(99)])
def test_same_seed_gives_identical_draws(seed):
    np.testing.assert_array_equal(make_rng(seed()).standard_normal(5), make_rng(seed()).standard_normal(5))


def test_different_seeds_give_different_draws():
    assert not np.array_equal(make_rng(1).standard_normal(5), make_rng(2).standard_normal(5))


def test_generator_is_passed_through():
    generator = np.random.default_rng(3)
    assert make_rng(generator) is generator


def test_default_is_seeded_from_os_entropy_and_replayable():
    first, second = make_rng(), make_rng()
    assert not np.array_equal(first.standard_normal(4), second.standard_normal(4))
    entropy = second.bit_generator.seed_seq.entropy
    replay = make_rng(np.random.SeedSequence(entropy))
    fresh = make_rng(np.random.SeedSequence(entropy))
    np.testing.assert_array_equal(replay.standard_normal(4), fresh.standard_normal(4))


@pytest.mark.parametrize(
    ("seed", "error"),
    [
        (-1, ValueError),
        (1.5, TypeError),
        (True, TypeError),
        ("42", TypeError),
        (np.random.RandomState(0), TypeError),
    ],
)
def test_bad_seed_is_refused(seed, error):
    with pytest.raises(error, match="seed"):
        make_rng(seed)
    with pytest.raises(error, match="seed"):
        spawn_rngs(seed, 2)


def test_spawn_is_reproducible_and_children_differ():
    first, second = spawn_rngs(2024, 3), spawn_rngs(2024, 3)
    draws = [child.standard_normal(1000) for child in first]
    for child, expected in zip(second, draws, strict=True):
        np.testing.assert_array_equal(child.standard_normal(1000), expected)
    correlation = np.corrcoef(draws)
    assert np.all(np.abs(correlation[np.triu_indices(3, 1)]) < 0.15)
    assert spawn_rngs(0, 0) == []


def test_spawn_from_generator_gives_new_children_each_call():
    parent = make_rng(5)
    first = spawn_rngs(parent, 2)[0].standard_normal(3)
    second = spawn_rngs(parent, 2)[0].standard_normal(3)
    assert not np.array_equal(first, second)
    again = spawn_rngs(make_rng(5), 2)[0].standard_normal(3)
    np.testing.assert_array_equal(first, again)


@pytest.mark.parametrize(("n", "error"), [(-1, ValueError), (2.0, TypeError), (True, TypeError)])
def test_spawn_count_is_validated(n, error):
    with pytest.raises(error, match="n must be"):
        spawn_rngs(0, n)


def test_begin_release_refuses_non_generators():
    for bad in (42, np.random.RandomState(0), None):
        with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
            begin_release(bad)
    generator = make_rng(0)
    assert begin_release(generator) is generator


def test_secure_generator_is_reseeded_at_every_release():
    secure = SecureReseedingGenerator()
    assert isinstance(secure, np.random.Generator)
    state = secure.bit_generator.state
    begin_release(secure)
    assert secure.bit_generator.state != state
    mechanism = GaussianMechanism(1.0, 1.0)
    replay = np.random.Generator(np.random.PCG64())
    replay.bit_generator.state = secure.bit_generator.state
    assert mechanism.sample(secure, 8).tolist() != mechanism.sample(replay, 8).tolist()


def test_secure_generator_survives_pickling_and_spawning():
    secure = SecureReseedingGenerator(np.random.PCG64(1))
    copy = pickle.loads(pickle.dumps(secure))
    assert type(copy) is SecureReseedingGenerator
    np.testing.assert_array_equal(copy.standard_normal(3), secure.standard_normal(3))
    assert all(type(child) is SecureReseedingGenerator for child in spawn_rngs(secure, 2))


def test_global_numpy_state_is_untouched():
    np.random.seed(1)
    before = np.random.get_state()
    make_rng()
    make_rng(3)
    spawn_rngs(None, 2)
    begin_release(SecureReseedingGenerator())
    after = np.random.get_state()
    assert before[0] == after[0]
    np.testing.assert_array_equal(before[1], after[1])
    assert before[2:] == after[2:]


def test_security_warning_is_documented():
    doc = rng_module.__doc__
    assert "not cryptographically secure" in doc.replace("\n", " ").replace("**", "")
    assert "Mironov 2012" in doc
    assert "CSPRNG" in doc
