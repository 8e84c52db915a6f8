import math

import numpy as np
import pytest

from audits.stats import (
    by_label,
    clopper_pearson_audit,
    gdp_audit,
    one_run_audit,
    one_run_fdp_audit,
    roc_curve,
)


def test_by_label_splits_scores_by_ground_truth():
    scores_in, scores_out = by_label([0.3, 0.9, 0.1, 0.7], [0, 1, 0, 1])
    np.testing.assert_array_equal(scores_in, [0.9, 0.7])
    np.testing.assert_array_equal(scores_out, [0.3, 0.1])
    scores_in, _ = by_label(np.arange(3.0), np.array([True, False, True]))
    np.testing.assert_array_equal(scores_in, [0.0, 2.0])


@pytest.mark.parametrize(
    "labels, match",
    [([1, 1, 1], "both hypotheses"), ([0, 1], "length 3"), ([0, 2, 1], "booleans or 0/1")],
)
def test_by_label_rejects_bad_labels(labels, match):
    with pytest.raises(ValueError, match=match):
        by_label([0.1, 0.2, 0.3], labels)


AUDITS = [
    (clopper_pearson_audit, {}),
    (gdp_audit, {}),
    (one_run_audit, {"k_pos": 1}),
    (one_run_fdp_audit, {"k_pos": 1}),
]


@pytest.mark.parametrize("audit, extra", AUDITS)
@pytest.mark.parametrize(
    "override, match",
    [
        ({"scores_in": np.array([])}, "scores_in must not be empty"),
        ({"scores_out": np.array([1.0, math.nan, 0.0])}, "scores_out must be finite"),
        ({"scores_in": np.array([1.0, -math.inf, 0.0])}, "scores_in must be finite"),
        ({"confidence": 1.5}, "confidence must be in"),
        ({"confidence": -0.5}, "confidence must be in"),
        ({"delta": 1.0}, "delta must be"),
        ({"delta": -0.1}, "delta must be"),
        ({"delta": math.nan}, "delta must not be NaN"),
    ],
)
def test_every_audit_names_the_bad_argument(audit, extra, override, match):
    args = (
        {
            "scores_in": np.array([1.0, 2.0, 3.0]),
            "scores_out": np.array([0.0, 1.0, 2.0]),
            "delta": 1e-5,
            "confidence": 0.95,
        }
        | extra
        | override
    )
    scores_in, scores_out = args.pop("scores_in"), args.pop("scores_out")
    with pytest.raises(ValueError, match=match):
        audit(scores_in, scores_out, **args)


def test_roc_accepts_only_one_dimensional_real_scores():
    with pytest.raises(ValueError, match="scores_in must be a 1-D array"):
        roc_curve(np.zeros((2, 2)), [0.0])
    with pytest.raises(TypeError, match="scores_out must be a 1-D array of real scores"):
        roc_curve([0.0], np.array([1 + 2j]))
