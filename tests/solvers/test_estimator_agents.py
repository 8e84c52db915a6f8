"""The default number of simulated agents: the fewest each protocol allows, from no row of the data."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from solvers.decentralized.estimator import DecentralizedClassifier
from solvers.estimator_defaults import agent_count
from solvers.pdml.estimator import PDMLClassifier
from solvers.private_estimator import OneClassWarning
from solvers.star.estimator import DPADMMClassifier


@pytest.mark.parametrize(
    ("value", "fewest", "expected"), [("auto", 1, 1), ("auto", 2, 2), (3, 1, 3), (np.int64(2), 2, 2)]
)
def test_agent_count_golden(value, fewest, expected):
    assert agent_count(value, 10, fewest) == expected


@pytest.mark.parametrize(
    ("value", "fewest", "message"),
    [
        ("many", 1, "n_agents must be 'auto' or an integer >= 1, got 'many'"),
        (0, 1, "n_agents must be 'auto' or an integer >= 1, got 0"),
        (True, 1, "n_agents must be 'auto' or an integer >= 1, got True"),
        (2.0, 1, "n_agents must be 'auto' or an integer >= 1, got 2.0"),
        (1, 2, "n_agents must be 'auto' or an integer >= 2, got 1"),
        (11, 1, r"n_agents=11 exceeds the number of rows \(10\)"),
        ("auto", 11, r"n_agents=11 exceeds the number of rows \(10\)"),
    ],
)
def test_agent_count_refuses_what_is_not_a_count(value, fewest, message):
    with pytest.raises(ValueError, match=message):
        agent_count(value, 10, fewest)


@pytest.mark.parametrize(
    ("make", "agents", "participants"),
    [
        (lambda: DPADMMClassifier(n_iterations=4, tol=None, random_state=0), 1, {0}),
        (lambda: DecentralizedClassifier(tol=None, random_state=0), 2, {0, 1}),
        (
            lambda: PDMLClassifier(n_iterations=4, tol=None, random_state=0),
            2,
            {"users-0", "users-1", "server-0", "server-1"},
        ),
    ],
)
def test_a_default_fit_simulates_the_fewest_agents_and_every_release_is_theirs(make, agents, participants):
    """The ledger's releases come from the N = ``info_["n_agents"]`` agents only, and the fit spends ε = 1."""
    X = np.random.default_rng(0).uniform(-1.0, 1.0, size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneClassWarning)
        model = make().fit(X, y)
    assert model.info_["n_agents"] == agents
    assert {entry.participant for entry in model.ledger_} == participants
    assert max(model.privacy_.values()) <= 1.0 + 1e-9
    assert max(model.privacy_.values()) == pytest.approx(1.0, rel=1e-6)


def test_a_noisy_decentralized_default_spends_its_budget_on_one_noisy_iteration():
    """Pure sequential composition: K noisy iterations leave ε/K each, so ε ≤ 10 takes T = 2 (K = 1),
    whose α is the whole budget's (Zhang, Khalili & Liu 2020, eq. (32))."""
    X = np.random.default_rng(1).uniform(-1.0, 1.0, size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneClassWarning)
        model = DecentralizedClassifier(random_state=0).fit(X, y)
    assert model.n_iter_ == 2
    assert model.info_["alpha"].shape == (1, 2)
    assert model.info_["epsilon_per_iteration"] == pytest.approx(1.0, rel=1e-9)
    assert math.isclose(model.privacy_["pure"], 1.0, rel_tol=1e-9) and model.privacy_["pure"] <= 1.0
