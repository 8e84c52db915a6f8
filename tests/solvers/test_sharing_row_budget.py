"""Tests for solvers.sharing.row_budget: the releases of VerticalLogisticRegression for one training example."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from solvers.sharing.partition import partition_vertical
from solvers.sharing.row_budget import LABEL_SHARE, MODEL_SHARE, RowBudget, RowSensitivities


def _gdp_delta(mu: float, epsilon: float) -> float:
    """δ(ε) of μ-GDP (Dong, Roth & Su 2022, Cor. 2.13), written out here: the independent reference."""
    return float(norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2))


def test_a_total_budget_is_split_and_its_ledger_composes_back_to_it():
    budget = RowBudget.calibrated(1.0, 1e-5, 40)
    ledger, privacy = budget.ledger(3, ("exact_gaussian", "rdp"), 1e-5)
    assert len(ledger) == 1 + 40 * 3 + 1 and {entry.participant for entry in ledger} == {0}
    mu = math.sqrt(sum(entry.event.noise_multiplier**-2 for entry in ledger))
    assert mu == pytest.approx(budget.mu, rel=1e-12)
    assert _gdp_delta(mu, 1.0) == pytest.approx(1e-5, rel=1e-6)  # the μ of (ε, δ) = (1, 1e-5), about 0.268
    assert privacy["exact_gaussian"] == pytest.approx(1.0, rel=1e-8) and privacy["exact_gaussian"] <= 1.0
    assert privacy["rdp"] >= privacy["exact_gaussian"]  # RDP's conversion is looser
    shares = (budget.label_multiplier**-2, 40 * budget.share_multiplier**-2, budget.model_multiplier**-2)
    np.testing.assert_allclose(np.array(shares) / mu**2, [LABEL_SHARE, 1 - LABEL_SHARE - MODEL_SHARE, MODEL_SHARE])


def test_one_multiplier_for_every_release():
    budget = RowBudget.per_release(2.0, 5)
    assert budget.mu == pytest.approx(math.sqrt(7) / 2, rel=1e-15)


def test_the_labels_are_randomized_response_with_the_stated_flip_probability():
    """sign(Y + N(0, (2z)²)) flips with probability Φ(−1/(2z)): 0.3085 at z = 1, counted on 10^5 draws."""
    budget = RowBudget.per_release(1.0, 1)
    assert budget.label_flip_probability == pytest.approx(0.308538, abs=1e-6)
    labels = np.where(np.arange(100_000) % 2 == 0, 1.0, -1.0)
    flipped = budget.randomized_labels(labels, np.random.default_rng(0)) != labels
    assert abs(flipped.mean() - 0.308538) < 4 * math.sqrt(0.3085 * 0.6915 / 1e5)


def test_the_model_noise_is_scaled_into_each_party_s_ball():
    rng = np.random.default_rng(1)
    partition = partition_vertical(rng.normal(size=(5, 3)) / 3, np.ones(5), [1, 2])
    budget = RowBudget.per_release(1.0, 1)
    model = budget.perturbed_model(partition, np.zeros(3), 100.0, 0.5, np.random.default_rng(2))
    blocks = partition.split_model(model)
    np.testing.assert_allclose(np.linalg.norm(blocks, axis=-1), [0.5, 0.5], rtol=1e-12)  # noise ≫ ball: on it


def test_row_sensitivities_of_the_two_modes():
    safe = RowSensitivities.of(100, 0.01, 2.0, 0.1, 4, 1.0, "safe")
    assert safe.shares == pytest.approx(2 * math.sqrt(400) * 2, rel=1e-15) and safe.model == pytest.approx(8.0)
    stable = RowSensitivities.of(100, 0.01, 2.0, 0.1, 4, 1.0, "stability")  # η = 0.01, β = 4 (golden values)
    assert stable.shares == pytest.approx(2 * math.sqrt(32.0), rel=1e-15)
    assert stable.model == pytest.approx(2 * math.sqrt(2.8), rel=1e-15)
