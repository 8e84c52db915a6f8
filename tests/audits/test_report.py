"""audits.report: JSON without NaN/infinity."""

import json
import math

import numpy as np

from audits.report import json_ready


def test_json_ready_turns_infinities_into_null_and_numpy_into_plain_values():
    data = {"a": math.inf, "b": np.float64(1.5), "c": np.array([1, 2]), "d": (np.nan, np.int64(3)), "e": np.bool_(True)}
    text = json.dumps(json_ready(data), allow_nan=False)
    assert json.loads(text) == {"a": None, "b": 1.5, "c": [1, 2], "d": [None, 3], "e": True}
