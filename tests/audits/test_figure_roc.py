"""The ROC drawn in the figures against the full empirical ROC (attacks.metrics.roc_curve)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attacks.metrics import roc_curve
from audits.figure_roc import DEFAULT_RESOLUTION, figure_roc, step_tpr


def _vertical_gap(x: np.ndarray, y: np.ndarray, at_x: np.ndarray, at_y: np.ndarray) -> float:
    """The largest distance from each point (at_x, at_y) to the polyline (x, y) along the y axis: at an x
    shared by several vertices the polyline holds every y between them (a vertical segment)."""
    left = np.searchsorted(x, at_x, side="left")
    right = np.searchsorted(x, at_x, side="right")
    on_vertex = left < right
    low = np.where(on_vertex, y[np.minimum(left, x.size - 1)], np.nan)
    high = np.where(on_vertex, y[np.maximum(right - 1, 0)], np.nan)
    between = ~on_vertex
    i = left[between]
    x0, x1, y0, y1 = x[i - 1], x[i], y[i - 1], y[i]
    low[between] = high[between] = y0 + (y1 - y0) * (at_x[between] - x0) / (x1 - x0)
    return float(np.max(np.maximum(low - at_y, at_y - high).clip(min=0.0)))


def _check_against_full(scores_in: np.ndarray, scores_out: np.ndarray) -> int:
    full = roc_curve(scores_in, scores_out)
    drawn = figure_roc(scores_in, scores_out)
    assert drawn.auroc == full.auroc  # bit for bit: the label's number is the report's
    assert drawn.fpr.size <= 8 * (DEFAULT_RESOLUTION + 1) + 1
    assert (drawn.fpr[0], drawn.tpr[0], drawn.fpr[-1], drawn.tpr[-1]) == (0.0, 0.0, 1.0, 1.0)
    # every drawn point is a vertex of the full curve, with the same rates
    vertices = set(zip(full.fpr.tolist(), full.tpr.tolist(), strict=True))
    assert set(zip(drawn.fpr.tolist(), drawn.tpr.tolist(), strict=True)) <= vertices
    # linear axes: within a thousandth of a rate at every FPR of the full curve
    assert _vertical_gap(drawn.fpr, drawn.tpr, full.fpr, full.tpr) <= 1 / DEFAULT_RESOLUTION
    # log-log axes, a rate of 0 drawn at 1/(2n): within a thousandth of the log10(2n) decades drawn
    floor_x, floor_y = 0.5 / full.n_out, 0.5 / full.n_in

    def logs(fpr: np.ndarray, tpr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.log10(np.maximum(fpr, floor_x)), np.log10(np.maximum(tpr, floor_y))

    span = math.log10(2 * full.n_in)
    assert _vertical_gap(*logs(drawn.fpr, drawn.tpr), *logs(full.fpr, full.tpr)) <= span / DEFAULT_RESOLUTION
    return int(drawn.fpr.size)


def test_continuous_scores_are_drawn_within_a_thousandth_of_each_axis_through_few_points() -> None:
    rng = np.random.default_rng(20261127)
    n = 100_000
    kept = _check_against_full(rng.normal(0.5, 1.0, n), rng.normal(0.0, 1.0, n))
    assert kept < 2 * n // 20  # 200,001 vertices in the full curve


def test_tied_scores_keep_every_long_segment_of_the_full_curve() -> None:
    rng = np.random.default_rng(7)
    _check_against_full(rng.binomial(40, 0.55, 30_000).astype(float), rng.binomial(40, 0.5, 20_000).astype(float))
    # a heavy tie between the two sides: the diagonal segment is drawn as it is
    tied_in, tied_out = np.r_[np.zeros(5_000), rng.normal(2, 1, 5_000)], np.r_[np.zeros(9_000), rng.normal(0, 1, 1_000)]
    _check_against_full(tied_in, tied_out)


def test_the_digest_is_equal_exactly_when_the_full_curves_are() -> None:
    rng = np.random.default_rng(3)
    scores_in, scores_out = rng.normal(1, 1, 5_000), rng.normal(0, 1, 5_000)
    reference = figure_roc(scores_in, scores_out).digest
    assert figure_roc(np.exp(scores_in), np.exp(scores_out)).digest == reference  # the same order of trials
    assert figure_roc(np.round(scores_in, 1), np.round(scores_out, 1)).digest != reference  # ties added
    swapped = scores_in.copy()
    swapped[[0, 1]] = scores_out[[0, 1]]
    assert figure_roc(swapped, scores_out).digest != reference


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-4, 4), min_size=1, max_size=25),
    st.lists(st.integers(-4, 4), min_size=1, max_size=25),
)
def test_small_curves_are_kept_whole_and_step_tpr_matches_the_full_curve(ins: list[int], outs: list[int]) -> None:
    full = roc_curve(np.array(ins, float), np.array(outs, float))
    drawn = figure_roc(np.array(ins, float), np.array(outs, float))
    assert np.array_equal(drawn.fpr, full.fpr) and np.array_equal(drawn.tpr, full.tpr)
    grid = np.r_[np.arange(len(outs) + 1) / len(outs), np.linspace(0, 1.2, 31)]
    expected = full.tpr[np.searchsorted(full.fpr, grid, side="right") - 1]
    assert np.array_equal(step_tpr(np.array(ins, float), np.array(outs, float), grid), expected)


def test_step_tpr_is_the_full_curve_s_step_at_a_log_grid() -> None:
    rng = np.random.default_rng(11)
    scores_in, scores_out = rng.normal(0.8, 1, 3_000), rng.normal(0, 1, 7_000)
    full = roc_curve(scores_in, scores_out)
    grid = np.r_[np.logspace(math.log10(0.5 / 7_000), 0, 240), np.arange(7_001) / 7_000]
    expected = full.tpr[np.searchsorted(full.fpr, grid, side="right") - 1]
    assert np.array_equal(step_tpr(scores_in, scores_out, grid), expected)


@pytest.mark.parametrize("resolution", [0, -3, 2.5, True])
def test_a_bad_resolution_is_refused(resolution: object) -> None:
    with pytest.raises(ValueError, match="resolution must be a positive integer"):
        figure_roc([1.0], [0.0], resolution)  # type: ignore[arg-type]
