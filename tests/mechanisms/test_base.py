"""What every mechanism shares: reproducible, global-state-free, vectorized sampling; events."""

import doctest

import numpy as np
import pytest

import mechanisms
from mechanisms import (
    AccountedMechanism,
    GammaNormMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponse,
    make_rng,
)

AGENT_MECHANISMS = {
    "gaussian": lambda: GaussianMechanism(np.array([1.0, 2.0, 3.0]), 1.5),
    "laplace": lambda: LaplaceMechanism(1.0, np.array([0.5, 1.0, 2.0])),
    "gamma_norm": lambda: GammaNormMechanism(np.array([1.0, 2.0, 3.0]), 4),
    "randomized_response": lambda: RandomizedResponse(np.array([0.5, 1.0, 2.0])),
}


@pytest.fixture(params=sorted(AGENT_MECHANISMS))
def mechanism(request) -> Mechanism:
    return AGENT_MECHANISMS[request.param]()


def test_same_seed_gives_identical_draws(mechanism):
    first = mechanism.sample(make_rng(11), (50, 3))
    np.testing.assert_array_equal(first, mechanism.sample(make_rng(11), (50, 3)))
    assert not np.array_equal(first, mechanism.sample(make_rng(12), (50, 3)))


def test_sampling_leaves_global_state_untouched(mechanism):
    np.random.seed(4)
    expected = np.random.random(3)
    np.random.seed(4)
    mechanism.sample(make_rng(0), (10, 3))
    mechanism.sample(make_rng(), (10, 3))
    np.testing.assert_array_equal(np.random.random(3), expected)


def test_one_call_draws_for_all_trials_and_agents(mechanism):
    noise = mechanism.sample(make_rng(0), (7, 3))
    extra = (mechanism.dim,) if isinstance(mechanism, GammaNormMechanism) else ()
    assert noise.shape == (7, 3, *extra)
    assert noise.dtype == np.float64
    assert mechanism.parameter_shape == (3,)
    assert mechanism.sample(make_rng(0)).shape == (3, *extra)


def test_parameters_that_do_not_broadcast_are_refused(mechanism):
    with pytest.raises(
        ValueError,
        match=r"parameters of shape \(3,\) do not broadcast to the sample shape \(3, 4\)",
    ):
        mechanism.sample(make_rng(0), (3, 4))


@pytest.mark.parametrize(("shape", "error"), [((2.0, 3), TypeError), ("3", TypeError), ((-1, 3), ValueError)])
def test_bad_shape_is_refused(mechanism, shape, error):
    with pytest.raises(error, match="shape"):
        mechanism.sample(make_rng(0), shape)


def test_rng_must_be_a_generator(mechanism):
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        mechanism.sample(np.random.RandomState(0), (2, 3))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        mechanism.sample(0, (2, 3))


def test_events_follow_the_parameter_array_in_c_order():
    epsilons = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    events = LaplaceMechanism(1.0, epsilons).events()
    assert [event.noise_multiplier for event in events] == pytest.approx(list(1 / epsilons.ravel()), rel=1e-15)


def test_a_single_event_needs_a_single_privacy_parameter():
    assert isinstance(RandomizedResponse(1.0), AccountedMechanism)
    assert not isinstance(GammaNormMechanism(1.0, 2), AccountedMechanism)
    with pytest.raises(ValueError, match="3 distinct privacy parameters.*events()"):
        RandomizedResponse([1.0, 2.0, 3.0]).event()
    same = RandomizedResponse([1.0, 1.0, 1.0])
    assert same.event() == RandomizedResponse(1.0).event()
    assert same.events() == [same.event()] * 3


def test_bases_are_abstract():
    with pytest.raises(TypeError):
        Mechanism()
    with pytest.raises(TypeError):
        AccountedMechanism()


def test_parameters_are_read_only():
    mechanism = GaussianMechanism(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    with pytest.raises(ValueError, match="read-only"):
        mechanism.sigma[0] = 0.0
    source = np.array([1.0, 2.0])
    mechanism = GammaNormMechanism(source, 2)
    source[0] = -1.0
    assert mechanism.alpha[0] == 1.0


def test_package_docstring_example_runs():
    result = doctest.testmod(mechanisms, raise_on_error=False)
    assert result.attempted > 0 and result.failed == 0
