"""Tests for solvers.horizontal_recorder: history metrics, ergodic average, channel storage."""

import numpy as np
import pytest

from solvers.datasets import partition_horizontal
from solvers.engine.recording import ChannelSpec, RecordOptions
from solvers.horizontal_recorder import Recorder
from solvers.problem import HorizontalProblem, Optimum

CHANNELS = {
    "w_tilde": ChannelSpec("agents", "local"),
    "w": ChannelSpec("server", "global"),
    "secret": ChannelSpec("agents", "white box", white_box=True),
}


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    problem = HorizontalProblem(partition_horizontal(X, y, 4, seed=0), lam=0.2, X_test=X, y_test=y)
    return problem.with_optimum(Optimum(np.zeros(3), float(problem.objective(np.zeros(3))), 0.0, 0, "test"))


def feed(recorder, models, locals_):
    for k in range(models.shape[0]):
        recorder.record(k, models[k], locals_[k], w_tilde=locals_[k], w=models[k], secret=-locals_[k])


def test_history_values_and_ergodic_average(problem):
    rng = np.random.default_rng(1)
    T, R = 5, 3
    models, locals_ = rng.normal(size=(T, R, 3)), rng.normal(size=(T, R, 4, 3))
    recorder = Recorder(problem, CHANNELS, T, R, RecordOptions())
    recorder.begin(slice(0, 2))
    feed(recorder, models[:, :2], locals_[:, :2])
    recorder.begin(slice(2, 3))
    feed(recorder, models[:, 2:], locals_[:, 2:])
    h = recorder.history
    np.testing.assert_allclose(h["objective"], problem.objective(models), rtol=1e-14)
    np.testing.assert_allclose(h["objective_mean"], problem.objective(models) / 4, rtol=1e-14)
    np.testing.assert_allclose(h["empirical_loss"], problem.empirical_loss(models), rtol=1e-14)
    np.testing.assert_allclose(h["gap"], problem.objective(models) - problem.optimum.objective, atol=1e-14)
    np.testing.assert_allclose(h["test_accuracy"], problem.accuracy(models))
    running = np.cumsum(models, axis=0) / np.arange(1, T + 1)[:, None, None]
    np.testing.assert_allclose(h["test_accuracy_average"], problem.accuracy(running))
    np.testing.assert_allclose(h["consensus"], np.linalg.norm(locals_ - models[:, :, None], axis=-1).max(-1))
    np.testing.assert_allclose(recorder.model, models[-1])
    np.testing.assert_allclose(recorder.model_average, models.mean(axis=0))
    transcript = recorder.transcript(batched=True)
    assert list(transcript) == ["w_tilde", "w"]
    np.testing.assert_array_equal(transcript["w_tilde"], locals_)


def test_white_box_agent_subset_and_switches(problem):
    rng = np.random.default_rng(2)
    models, locals_ = rng.normal(size=(2, 1, 3)), rng.normal(size=(2, 1, 4, 3))
    recorder = Recorder(
        problem, CHANNELS, 2, 1, RecordOptions(history=False, white_box=True, transcript_agents=[3, 0, 3])
    )
    recorder.begin(slice(0, 1))
    feed(recorder, models, locals_)
    assert recorder.history == {}
    transcript = recorder.transcript(batched=False)
    assert transcript.white_box_names == ("secret",) and transcript.channel("secret").agents == (0, 3)
    np.testing.assert_array_equal(transcript["secret"], -locals_[:, 0][:, [0, 3]])
    assert len(Recorder(problem, CHANNELS, 2, 1, RecordOptions(transcript=False)).specs) == 0
    with pytest.raises(ValueError, match="transcript_agents"):
        Recorder(problem, CHANNELS, 2, 1, RecordOptions(transcript_agents=[4]))
