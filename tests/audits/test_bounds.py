import json
import math

import numpy as np
import pytest

from audits.stats import CONDITIONAL_ON_GDP, WORST_CASE, LowerBound, gdp_from_counts


def make(**overrides):
    fields = dict(
        epsilon=1.25,
        delta=1e-5,
        confidence=0.95,
        method="clopper-pearson",
        correction="none (single pre-registered threshold)",
        threshold=0.5,
        details={"fp": np.int64(3), "n_out": 1000, "fpr_upper": np.float64(0.0077), "grid": np.arange(3)},
    )
    return LowerBound(**(fields | overrides))


def test_json_round_trip_is_exact_and_plain():
    bound = make()
    text = bound.to_json()
    data = json.loads(text)
    assert data["method"] == "clopper-pearson"
    assert data["details"] == {"fp": 3, "n_out": 1000, "fpr_upper": 0.0077, "grid": [0, 1, 2]}
    assert LowerBound.from_json(text) == bound
    assert LowerBound.from_json(text).to_json() == text


def test_every_bound_states_method_confidence_delta_and_correction():
    data = make().to_dict()
    for key in ("epsilon", "delta", "confidence", "method", "correction", "assumption", "threshold"):
        assert key in data
    text = str(make())
    assert "clopper-pearson" in text and "95%" in text and "δ = 1e-05" in text
    assert "pre-registered" in text


def test_frozen_and_details_read_only():
    bound = make()
    with pytest.raises(AttributeError):
        bound.epsilon = 3.0
    with pytest.raises(TypeError):
        bound.details["fp"] = 0
    assert bound.alpha == pytest.approx(0.05)


@pytest.mark.parametrize("eps", [-0.1, math.inf, math.nan])
def test_epsilon_must_be_a_finite_non_negative_bound(eps):
    with pytest.raises(ValueError, match="epsilon"):
        make(epsilon=eps)


def test_assumption_labels():
    assert make().assumption == WORST_CASE
    gdp = gdp_from_counts(10, 1000, 100, 1000, delta=1e-5)
    assert gdp.assumption == CONDITIONAL_ON_GDP
    assert "not a worst-case DP lower bound" in gdp.to_json()
