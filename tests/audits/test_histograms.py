"""Score histograms give what the scores give, bit for bit: every lower bound under every threshold
strategy, the attack metrics, the ROC the figures draw (digest included), the TPR steps and the moments;
a Split's selection masks are its partition; the exact sum equals the sum in rationals."""

import contextlib
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import audits.figure_roc as figure_roc_module
import audits.histogram_scores as histogram_scores
from attacks.base import AttackScores
from audits.stats import Bonferroni, Fixed, Split, clopper_pearson_audit, gdp_audit
from audits.stats.histogram import HistogramBuilder, ScoreHistogram, exact_sum, score_moments
from audits.stats.sides import ScoreArray, SplitHistograms

STRATEGIES = (
    Split(),
    Split(0.5, seed=3, randomise=False),
    Bonferroni(),
    Bonferroni(5),
    Bonferroni((-1.0, 0.0, 2.5)),
    Fixed(0.0),
    Fixed(1.0, tie_probability=0.3, seed=2),
)


@st.composite
def score_pairs(draw):
    """Scores on a grid (many ties, zeros of both signs: −0 rounds up to 0 where the audit keeps them) or not."""
    step = draw(st.sampled_from([1.0, 0.25, 1e-9]))
    values = st.floats(-4, 4).map(lambda x: float(np.round(x / step) * step) + 0.0)
    scores_in = draw(st.lists(values, min_size=2, max_size=80))
    scores_out = draw(st.lists(values, min_size=2, max_size=80))
    return np.array(scores_in), np.array(scores_out)


@contextlib.contextmanager
def digest_blocks(block):
    """Blocks of the ROC digest this small (the stream hashed depends on them)."""
    saved = figure_roc_module.BLOCK
    figure_roc_module.BLOCK = block
    try:
        yield
    finally:
        figure_roc_module.BLOCK = saved


def _parts(scores, mask):
    chosen = np.unpackbits(mask, count=scores.size).astype(bool)
    return SplitHistograms(ScoreHistogram.of(scores[chosen]), ScoreHistogram.of(scores[~chosen]))


@settings(max_examples=30, deadline=None)
@given(score_pairs(), st.sampled_from(STRATEGIES), st.sampled_from([0.0, 1e-5]))
@example((np.array([0.0, 1.0, 1.0, 2.0] * 25), np.array([0.0, 0.0, 1.0] * 20)), Split(), 1e-5)
def test_the_bounds_from_histograms_are_those_from_the_scores(pair, strategy, delta):
    scores_in, scores_out = pair
    if isinstance(strategy, Split):
        mask_in, mask_out = strategy.selection_masks(scores_in.size, scores_out.size)
        side_in, side_out = _parts(scores_in, mask_in), _parts(scores_out, mask_out)
    else:
        side_in, side_out = ScoreHistogram.of(scores_in), ScoreHistogram.of(scores_out)
    expected = clopper_pearson_audit(scores_in, scores_out, delta=delta, threshold=strategy)
    assert clopper_pearson_audit(side_in, side_out, delta=delta, threshold=strategy).to_json() == expected.to_json()
    if delta > 0:
        expected = gdp_audit(scores_in, scores_out, delta=delta, threshold=strategy)
        assert gdp_audit(side_in, side_out, delta=delta, threshold=strategy).to_json() == expected.to_json()


def test_a_split_needs_each_sides_parts():
    whole = ScoreHistogram.of([0.0, 1.0])
    with pytest.raises(ValueError, match="SplitHistograms"):
        clopper_pearson_audit(whole, whole, delta=0.0)


@pytest.mark.parametrize(("n_in", "n_out", "seed"), [(2, 3, 0), (101, 57, 4), (5_000, 12_345, 1)])
def test_the_selection_masks_are_the_partition(n_in, n_out, seed):
    split = Split(0.2, seed=seed)
    (select_in, _), (select_out, _) = split.partition(n_in, n_out)
    mask_in, mask_out = split.selection_masks(n_in, n_out)
    assert np.flatnonzero(np.unpackbits(mask_in, count=n_in)).tolist() == select_in.tolist()
    assert np.flatnonzero(np.unpackbits(mask_out, count=n_out)).tolist() == select_out.tolist()


@settings(max_examples=30, deadline=None)
@given(score_pairs(), st.sampled_from([1, 3, 7, figure_roc_module.BLOCK]))
def test_metrics_curve_steps_and_moments_from_histograms_are_those_from_the_scores(pair, block):
    scores_in, scores_out = pair
    scores = AttackScores("a", scores_in, scores_out)
    kept = histogram_scores.HistogramScores("a", ScoreHistogram.of(scores_in), ScoreHistogram.of(scores_out))
    assert kept.metrics() == scores.metrics()
    assert histogram_scores.moments(kept) == histogram_scores.moments(scores)
    rates = np.array([0.0, 1e-3, 0.01, 0.1, 0.5, 1.0, 1.5, 1.0 / scores_out.size])
    assert histogram_scores.tpr_steps(kept, rates).tolist() == histogram_scores.tpr_steps(scores, rates).tolist()
    with digest_blocks(block):
        expected, drawn = histogram_scores.curve(scores), histogram_scores.curve(kept)
    assert (drawn.digest, drawn.auroc, drawn.n_in, drawn.n_out) == (
        expected.digest,
        expected.auroc,
        expected.n_in,
        expected.n_out,
    )
    assert drawn.fpr.tolist() == expected.fpr.tolist() and drawn.tpr.tolist() == expected.tpr.tolist()


def test_a_histogram_holds_no_per_trial_scores():
    kept = histogram_scores.HistogramScores("a", ScoreHistogram.of([1.0]), ScoreHistogram.of([0.0]))
    with pytest.raises(ValueError, match="histograms"):
        kept.scores_in  # noqa: B018
    assert "1 trials on D in 1 values" in repr(kept)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e300, 1e300) | st.floats(-1e-300, 1e-300) | st.floats(-10, 10), min_size=1, max_size=30))
def test_the_exact_sum_is_the_rational_sum_rounded(values):
    repeats = np.arange(1, len(values) + 1) * 1_000_003  # counts of 20 to 25 bits: split in parts
    histogram_values, counts = np.unique(np.array(values), return_counts=True)
    counts = counts * repeats[: counts.size]
    exact = sum(
        (Fraction(v) * int(c) for v, c in zip(histogram_values.tolist(), counts.tolist(), strict=True)), Fraction(0)
    )
    try:
        expected = float(exact)
    except OverflowError:
        return
    assert exact_sum(histogram_values, counts) == expected


def test_the_histogram_of_chunks_and_its_order_statistics():
    rng = np.random.default_rng(0)
    scores = np.round(rng.normal(size=10_000), 1)
    builder = HistogramBuilder(batch=1_000)
    for part in np.array_split(scores, 17):
        builder.add(part)
    histogram = builder.result()
    expected = ScoreHistogram.of(scores)
    assert (
        histogram.values.tolist() == expected.values.tolist() and histogram.counts.tolist() == expected.counts.tolist()
    )
    ordered = np.sort(scores)
    assert histogram.sorted_range(123, 4_567).tolist() == ordered[123:4_567].tolist()
    levels = np.linspace(0, 1, 101)
    assert histogram.quantiles(levels).tolist() == np.quantile(scores, levels, method="inverted_cdf").tolist()
    assert score_moments(histogram) == score_moments(scores)
    with pytest.raises(ValueError, match="no score"):
        HistogramBuilder().result()


@settings(max_examples=30, deadline=None)
@given(score_pairs(), st.lists(st.floats(-5, 5), min_size=1, max_size=4))
def test_an_array_and_its_histogram_count_alike_at_one_threshold_and_at_several(pair, thresholds):
    scores = pair[0]
    array, histogram = ScoreArray(scores), ScoreHistogram.of(scores)
    for t in [np.array(thresholds[:1]), np.array(thresholds), np.unique(scores)]:  # counted, then sorted
        assert array.below(t).tolist() == histogram.below(t).tolist() == [int(np.sum(scores < x)) for x in t]
        assert array.at_most(t).tolist() == histogram.at_most(t).tolist() == [int(np.sum(scores <= x)) for x in t]
    ranks = np.arange(scores.size)
    assert array.order_statistics(ranks).tolist() == histogram.order_statistics(ranks).tolist()


def test_a_bound_refuses_an_array_on_one_side_and_a_histogram_on_the_other():
    scores = np.arange(10.0)
    with pytest.raises(TypeError, match="both be score arrays or both histograms"):
        clopper_pearson_audit(scores, ScoreHistogram.of(scores), delta=1e-5, threshold="bonferroni")
