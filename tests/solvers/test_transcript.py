"""Tests for solvers.engine.transcript: channels, white-box marking, trial views."""

import numpy as np
import pytest

from solvers.engine.transcript import Channel, Transcript
from solvers.topology import StarTopology


def make_transcript(batched=True):
    shape = (3, 2, 4, 5) if batched else (3, 4, 5)
    agents = np.arange(np.prod(shape), dtype=float).reshape(shape)
    server = np.ones(shape[:-2] + (5,))
    return Transcript(
        [
            Channel("w_tilde", agents, "agents", "noisy", agents=range(4)),
            Channel("w", server, "server", "broadcast"),
            Channel("w_local", agents * 2, "agents", "noise-free", white_box=True, agents=range(4)),
        ],
        StarTopology(4),
        batched,
    )


def test_mapping_access_and_read_only_values():
    transcript = make_transcript()
    assert list(transcript) == ["w_tilde", "w", "w_local"] and len(transcript) == 3
    assert transcript["w_tilde"].shape == (3, 2, 4, 5)
    with pytest.raises(ValueError):
        transcript["w_tilde"][0, 0, 0, 0] = 1.0
    with pytest.raises(KeyError, match="no channel 'gamma'"):
        transcript["gamma"]
    assert transcript.channel("w").sender == "server"
    assert transcript.channel("w_tilde").agents == (0, 1, 2, 3)


def test_public_drops_white_box_channels():
    transcript = make_transcript()
    assert transcript.white_box_names == ("w_local",)
    public = transcript.public()
    assert list(public) == ["w_tilde", "w"] and public.white_box_names == ()


def test_trial_view_matches_slicing():
    transcript = make_transcript()
    one = transcript.trial(1)
    assert not one.batched
    np.testing.assert_array_equal(one["w_tilde"], transcript["w_tilde"][:, 1])
    with pytest.raises(ValueError, match="batched"):
        one.trial(0)


def test_recipients_follow_the_topology():
    transcript = make_transcript(batched=False)
    assert transcript.recipients("w_tilde", 2) == ("trainer",)
    assert transcript.recipients("w", 0) == (0, 1, 2, 3)


def test_channel_validation():
    with pytest.raises(ValueError, match="sender"):
        Channel("x", np.zeros(3), "trainer")
    with pytest.raises(ValueError, match="distinct"):
        Transcript([Channel("x", np.zeros(3), "server")] * 2, StarTopology(1), False)
