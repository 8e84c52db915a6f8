"""The candidate search reads a Split's selection part as counts: a histogram is never expanded into scores,
and the test it chooses is the one chosen on the scores themselves."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from audits.stats import Split
from audits.stats.clopper_pearson import bound_function
from audits.stats.histogram import ScoreHistogram
from audits.stats.selection import choose_test
from audits.stats.sides import SplitHistograms, parts


def split_histograms(scores: np.ndarray, mask: np.ndarray) -> SplitHistograms:
    chosen = np.unpackbits(mask, count=scores.size).view(bool)
    return SplitHistograms(ScoreHistogram.of(scores[chosen]), ScoreHistogram.of(scores[~chosen]))


def test_a_histograms_selection_part_is_read_as_it_is():
    rng = np.random.default_rng(5)
    scores_in, scores_out = np.round(rng.normal(1, 1, 500), 1), np.round(rng.normal(0, 1, 400), 1)
    split = Split()
    mask_in, mask_out = split.selection_masks(scores_in.size, scores_out.size)
    h_in, h_out = split_histograms(scores_in, mask_in), split_histograms(scores_out, mask_out)
    s_in, s_out = parts(split, h_in, h_out, "select")
    assert s_in is h_in.selection and s_out is h_out.selection


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    levels=st.integers(2, 40),
    shift=st.floats(0.0, 2.0),
    n=st.integers(30, 400),
)
def test_the_test_chosen_on_counts_is_the_test_chosen_on_scores(seed, levels, shift, n):
    rng = np.random.default_rng(seed)
    scores_in = np.floor(rng.normal(shift, 1, n) * levels / 4)  # ties on a grid
    scores_out = np.floor(rng.normal(0.0, 1, n + 7) * levels / 4)
    bound = bound_function(1e-5)
    on_scores = choose_test(scores_in, scores_out, bound, alpha=0.05, selection_alpha=0.05, evaluation_sizes=(900, 800))
    on_counts = choose_test(
        ScoreHistogram.of(scores_in),
        ScoreHistogram.of(scores_out),
        bound,
        alpha=0.05,
        selection_alpha=0.05,
        evaluation_sizes=(900, 800),
    )
    assert on_counts == on_scores
