"""Tests for solvers.topology: the star of Huang et al. 2020 (DP-ADMM), a trainer and N agents."""

import numpy as np
import pytest

from solvers.topology import StarTopology, Topology


def test_star_has_a_trainer_and_no_agent_links():
    star = StarTopology(4)
    assert isinstance(star, Topology)
    assert star.n_agents == 4 and star.server == "trainer"
    assert star.adjacency.shape == (4, 4) and not star.adjacency.any()
    assert not star.adjacency.flags.writeable
    np.testing.assert_array_equal(star.degrees, np.zeros(4))
    assert star.recipients(3) == ("trainer",)


def test_star_equality_and_repr():
    assert StarTopology(3) == StarTopology(3) != StarTopology(4)
    assert hash(StarTopology(3)) == hash(StarTopology(3))
    assert repr(StarTopology(3)) == "StarTopology(n_agents=3)"


@pytest.mark.parametrize(
    ("n_agents", "error"), [(0, ValueError), (-1, ValueError), (2.0, TypeError), (True, TypeError), ("3", TypeError)]
)
def test_star_rejects_bad_sizes(n_agents, error):
    with pytest.raises(error, match=f"^n_agents must be an int >= 1, got {n_agents!r}$"):
        StarTopology(n_agents)


@pytest.mark.parametrize("agent", [-1, 4, 1.0, True])
def test_recipients_rejects_unknown_agents(agent):
    with pytest.raises(ValueError, match="agent"):
        StarTopology(4).recipients(agent)
