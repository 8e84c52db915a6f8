"""Tests for solvers.engine.result: trial views and summaries."""

import numpy as np
import pytest

from accountants import Ledger
from solvers.engine.result import Result
from solvers.engine.transcript import Channel, Transcript
from solvers.topology import StarTopology


def batched_result():
    transcript = Transcript([Channel("w", np.arange(3 * 2 * 4.0).reshape(3, 2, 4), "server")], StarTopology(2), True)
    return Result(
        model=np.arange(8.0).reshape(2, 4),
        model_average=np.ones((2, 4)),
        history={"objective": np.arange(6.0).reshape(3, 2)},
        transcript=transcript,
        ledger=Ledger(),
        privacy={"rdp": 0.5},
        delta=1e-5,
        seeds=(10, 11),
    )


def test_trial_view_is_a_single_run():
    result = batched_result()
    assert result.batched and result.n_trials == 2
    one = result.trial(1)
    assert not one.batched and one.n_trials == 1 and one.seeds == (11,)
    np.testing.assert_array_equal(one.model, [4, 5, 6, 7])
    np.testing.assert_array_equal(one.history["objective"], [1, 3, 5])
    np.testing.assert_array_equal(one.transcript["w"], result.transcript["w"][:, 1])
    assert one.privacy == {"rdp": 0.5} and one.ledger is result.ledger
    with pytest.raises(ValueError, match="batched"):
        one.trial(0)
    with pytest.raises(ValueError, match=r"\[0, 2\)"):
        result.trial(2)


def test_summary_averages_final_values_over_trials():
    assert batched_result().summary() == {"objective": 4.5, "epsilon_rdp": 0.5}
