"""audits.neighbours: D and D′ differ in exactly one record, the canary, which satisfies ‖x‖ ≤ 1."""

import numpy as np
import pytest

from audits.neighbours import canary_neighbours


def test_neighbours_differ_in_one_canary_record():
    nb = canary_neighbours(n_agents=3, records_per_agent=20, agent=1)
    a, b = nb.problem_in.partition, nb.problem_out.partition
    np.testing.assert_array_equal(a.X, b.X)
    differ = np.argwhere(a.y != b.y)
    assert differ.tolist() == [[1, 19]] and (nb.agent, nb.slot) == (1, 19)
    assert a.y[1, 19] == 1 and b.y[1, 19] == -1
    np.testing.assert_array_equal(a.X[1, 19], nb.canary)
    others = np.ones(a.X.shape[:2], bool)
    others[1, 19] = False
    assert np.all(a.X[others][:, -1] == 0)  # the canary's column is 0 for every other record
    assert nb.problem_in.max_feature_norm <= 1 + 1e-12
    assert nb.problem_in.has_test and np.all(nb.problem_in.X_test[:, -1] == 0)


def test_wide_canary_and_bad_arguments():
    nb = canary_neighbours(canary_width=4)
    assert np.linalg.norm(nb.canary) == pytest.approx(2.0) and np.abs(nb.canary).max() == 1.0
    for kwargs in ({"n_agents": 0}, {"records_per_agent": 1}, {"agent": 2}, {"canary_value": -1.0}):
        with pytest.raises(ValueError):
            canary_neighbours(**kwargs)
