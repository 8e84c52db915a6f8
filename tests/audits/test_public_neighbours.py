"""The ADMM-sharing canaries are public in audits.neighbours (Hu et al. 2019, Sec. 4): shapes, the
neighbouring relation, the row bounds, determinism; the audit target keeps its old name for them."""

import math

import numpy as np
import pytest

from audits.neighbours import SHARING_SETTINGS, sharing_neighbours
from audits.targets import sharing


@pytest.mark.parametrize("mode", ["parameter", "output"])
def test_sharing_neighbours_shapes_bounds_and_determinism(mode):
    setting = SHARING_SETTINGS[mode]
    nb = sharing_neighbours(mode)
    D, D_out = nb.problem_in.partition.D, nb.problem_out.partition.D
    assert D.shape == (2, setting.n_samples, max(setting.widths)) and nb.party == 0
    assert np.argwhere(np.any(D_out != D, axis=-1)).tolist() == [[0, setting.n_samples - 1]]
    np.testing.assert_array_equal(D[0, -1, : setting.widths[0]], nb.canary_in)
    np.testing.assert_array_equal(D_out[0, -1, : setting.widths[0]], nb.canary_out)
    assert np.linalg.norm(D, axis=-1).max() <= 1 + 1e-12 and np.linalg.norm(D_out, axis=-1).max() <= 1 + 1e-12
    distance = {"parameter": 1.0, "output": 2.0}[mode]  # ‖a − a′‖: Definition 2, or replace-one in the ball
    assert np.linalg.norm(nb.canary_in - nb.canary_out) == pytest.approx(distance)
    np.testing.assert_array_equal(sharing_neighbours(mode).problem_in.partition.D, D)
    assert not np.array_equal(sharing_neighbours(mode, seed=1).problem_in.partition.D[1], D[1])


def test_the_target_module_keeps_its_names():
    assert sharing.canary_neighbours is sharing_neighbours and sharing.SETTINGS is SHARING_SETTINGS
    assert math.isclose(SHARING_SETTINGS["output"].b1, 1e-4)
