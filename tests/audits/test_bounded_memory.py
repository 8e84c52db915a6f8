"""An audit's driver holds each attack's scores once and computes the attack metrics without the ROC
curve's arrays, with the same report bit for bit: roc_metrics equals the curve's AUROC and TPR at FPR
exactly (integer counts), ChunkScores copies each chunk's scores into one array per attack and side,
and chunk_scores turns the chunks it joins into views of the joined scores."""

import multiprocessing
import time
import weakref

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attacks import metrics
from attacks.base import AttackScores, chunk_scores
from attacks.metrics import roc_curve, roc_metrics
from audits.chunks import IN_FLIGHT, ChunkJob, ChunkScores, run_chunk, run_chunks

FPRS = (0.0, 0.001, 0.01, 0.1, 0.5, 1.0)


@st.composite
def score_pairs(draw):
    """Two score arrays, with ties within and across them (a few distinct values) or without."""
    values = st.integers(-3, 3).map(float) if draw(st.booleans()) else st.floats(-1e3, 1e3)
    scores_in = draw(st.lists(values, min_size=1, max_size=60))
    scores_out = draw(st.lists(values, min_size=1, max_size=60))
    return np.array(scores_in), np.array(scores_out)


@settings(max_examples=150, deadline=None)
@given(score_pairs(), st.sampled_from([1, 2, 7, metrics.METRICS_BLOCK]))
@example((np.array([0.0]), np.array([0.0])), 1)
@example((np.arange(1000.0), np.arange(1000.0) - 0.5), 7)  # 0.001 · 1000: exactly one false positive
def test_the_metrics_equal_the_curves_bit_for_bit(pair, block):
    scores_in, scores_out = pair
    roc = roc_curve(scores_in, scores_out)
    saved, metrics.METRICS_BLOCK = metrics.METRICS_BLOCK, block
    try:
        area, tpr = roc_metrics(scores_in, scores_out, FPRS)
    finally:
        metrics.METRICS_BLOCK = saved
    assert area == roc.auroc
    assert tpr.tolist() == np.asarray(roc.tpr_at_fpr(FPRS)).tolist()


def test_a_known_curve():
    area, tpr = roc_metrics([3.0, 2.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0], (0.0, 0.25, 1.0))
    assert area == 15 / 16  # U = 3·4 (out 0) + 2 (out 1 below 3, 2) + ½·2 (the ties at 1) = 15
    assert tpr.tolist() == [0.5, 1.0, 1.0]


def test_attack_scores_metrics_are_the_curves():
    rng = np.random.default_rng(3)
    scores = AttackScores("x", rng.normal(1.0, 1.0, 3_000), rng.normal(0.0, 1.0, 2_000))
    roc = roc_curve(scores.scores_in, scores.scores_out)
    low, high = roc.tpr_at_fpr((0.001, 0.01))
    assert scores.metrics() == {"auroc": roc.auroc, "tpr_at_0.1%_fpr": low, "tpr_at_1%_fpr": high}


def test_the_joined_chunks_become_views_of_the_scores_and_keep_their_values():
    rng = np.random.default_rng(0)
    seen_in = [rng.normal(size=5), rng.normal(size=3)]
    seen_out = [rng.normal(size=4)]
    values_in = [part.copy() for part in seen_in]
    scores = chunk_scores("x", seen_in, seen_out, white_box=False, metadata={})
    assert np.array_equal(scores.scores_in, np.concatenate(values_in))
    assert all(part.base is scores.scores_in for part in seen_in)  # held once
    assert [part.tolist() for part in seen_in] == [part.tolist() for part in values_in]
    assert seen_out[0].base is scores.scores_out
    ints = [np.arange(3)]  # not float64: left as they are
    chunk_scores("y", ints, [np.arange(2)], white_box=False, metadata={})
    assert ints[0].dtype.kind == "i"


def test_the_driver_copies_each_chunks_scores_into_one_array_per_attack_and_side():
    kept = ChunkScores(7)
    first, second = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0, 7.0])
    views = [kept.keep("a", True, first), kept.keep("a", True, second)]
    assert [v.tolist() for v in views] == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]
    assert views[0].base is views[1].base is kept.buffers[("a", True)]
    assert kept.keep("a", False, first).base is kept.buffers[("a", False)]  # D′ apart
    too_many = np.array([8.0])
    assert kept.keep("a", True, too_many) is too_many  # beyond the trials: kept as it is
    other = [np.arange(3), np.ones((2, 2)), ("x", 1)]  # not 1-D float64 scores: kept as they are
    assert all(kept.keep("b", True, seen) is seen for seen in other)
    scores = chunk_scores("a", views, [np.zeros(2)], white_box=False, metadata={})
    assert scores.scores_in.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]


def test_an_audits_chunks_are_views_of_the_attacks_scores():
    import dataclasses

    from audits import ScoreAttack
    from audits.runner import run_spec
    from benchmarks.bench_audit_memory import target

    attacks = (ScoreAttack("a", lambda r: r.model), ScoreAttack("b", lambda r: 2.0 * r.model))
    spec = dataclasses.replace(target(), attacks=attacks)  # the benchmark's Gaussian mean
    result = run_spec(spec, trials=12_000, workers=1, progress=False)
    for scores in result.attacks:
        seen_in, seen_out = result.observations[scores.attack]
        assert [part.size for part in seen_in] == [5_000, 5_000, 2_000]
        assert all(part.base is scores.scores_in for part in seen_in)  # each score held once
        assert all(part.base is scores.scores_out for part in seen_out)
    a, b = result.attacks
    assert np.array_equal(b.scores_in, 2.0 * a.scores_in)


class _ScoredMean:
    """A spec's solver and attack for :func:`run_chunks`: each chunk releases its trials' Gaussian means,
    scored as they are."""

    def __init__(self) -> None:
        from audits import ScoreAttack

        self.solver = self
        self.problem_in, self.problem_out = 1.0, 0.0
        self.run_options: dict = {}
        self.quiet_floating_point = False
        self.utility = None
        self.attacks = (ScoreAttack("identity", lambda result: result.model),)

    def run(self, problem, *, seeds, **options):
        from types import SimpleNamespace

        return SimpleNamespace(model=np.random.default_rng(seeds[0]).normal(problem, 1.0, len(seeds)), info=None)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="workers are forked")
def test_the_worker_processes_run_a_few_chunks_ahead_and_the_driver_drops_each_chunk_it_read(tmp_path):
    """The driver holds IN_FLIGHT chunks per worker at most, however fast the workers are: a chunk read
    (and dropped by the reader) is freed, and the chunks not yet submitted are not run."""
    seeds = np.random.SeedSequence(0).spawn(16)
    jobs = [ChunkJob(k % 2 == 0, seeds[k : k + 1], index=k) for k in range(16)]

    def record(index, outcome):  # in the worker that ran the chunk
        (tmp_path / str(index)).touch()

    read, expected = [], [run_chunk(_ScoredMean(), job).observations[0].tolist() for job in jobs]
    for k, outcome in enumerate(run_chunks(_ScoredMean(), jobs, workers=2, done=lambda trials: None, record=record)):
        if k == 0:
            time.sleep(0.5)  # the workers would run every chunk meanwhile if they could
            assert len(list(tmp_path.iterdir())) <= IN_FLIGHT * 2
        if read:
            assert read[-1]() is None  # the previous chunk's scores were freed once read
        read.append(weakref.ref(outcome.observations[0]))
        assert outcome.observations[0].tolist() == expected[k]
        del outcome
    assert len(read) == 16
