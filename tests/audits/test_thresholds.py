import numpy as np
import pytest

from audits.stats import (
    Bonferroni,
    Fixed,
    Split,
    as_strategy,
    clopper_pearson_audit,
    clopper_pearson_from_counts,
    error_counts,
    gdp_audit,
    gdp_from_counts,
)


def naive_counts(scores_in, scores_out, thresholds):
    fp = [sum(1 for s in scores_out if s >= t) for t in thresholds]
    fn = [sum(1 for s in scores_in if s < t) for t in thresholds]
    return np.array(fp), np.array(fn)


def test_vectorised_counts_match_a_naive_loop_with_ties():
    rng = np.random.default_rng(3)
    scores_in = rng.integers(0, 20, 300).astype(float)
    scores_out = rng.integers(-5, 15, 250).astype(float)
    thresholds = np.arange(-7, 23, 0.5)
    fp, fn = error_counts(scores_in, scores_out, thresholds)
    ref_fp, ref_fn = naive_counts(scores_in, scores_out, thresholds)
    assert np.array_equal(fp, ref_fp) and np.array_equal(fn, ref_fn)


def test_split_partition_is_disjoint_complete_and_seeded():
    (sel_in, ev_in), (sel_out, ev_out) = Split().partition(1000, 801)
    for sel, ev, n in ((sel_in, ev_in, 1000), (sel_out, ev_out, 801)):
        assert np.intersect1d(sel, ev).size == 0
        assert np.array_equal(np.sort(np.concatenate([sel, ev])), np.arange(n))
    assert sel_in.size == 200 and sel_out.size == 160
    again = Split().partition(1000, 801)
    assert np.array_equal(again[0][0], sel_in) and np.array_equal(again[1][1], ev_out)
    other = Split(seed=1).partition(1000, 801)
    assert not np.array_equal(other[0][0], sel_in)
    assert Split(0.5).describe() == "split (50% select / 50% evaluate, seed 0)"


@pytest.mark.parametrize("n_in, n_out, seed, fraction", [(2, 2, 0, 0.2), (1000, 801, 0, 0.2), (77, 1003, 5, 0.5)])
def test_the_parts_scores_are_the_scores_indexed_by_the_partition(n_in, n_out, seed, fraction):
    rng = np.random.default_rng(seed)
    scores_in, scores_out = rng.normal(size=n_in), rng.normal(size=n_out)
    split = Split(fraction, seed=seed)
    (sel_in, ev_in), (sel_out, ev_out) = split.partition(n_in, n_out)
    for part, index_in, index_out in (("select", sel_in, sel_out), ("evaluate", ev_in, ev_out)):
        part_in, part_out = split.part_scores(scores_in, scores_out, part)
        assert part_in.tolist() == scores_in[index_in].tolist() and part_out.tolist() == scores_out[index_out].tolist()
    with pytest.raises(ValueError, match="part must be 'select' or 'evaluate', got 'all'"):
        split.part_scores(scores_in, scores_out, "all")
    with pytest.raises(ValueError, match="scores_out needs at least 2 trials to split, got 1"):
        split.part_scores(scores_in, scores_out[:1], "select")


@pytest.mark.parametrize("audit", [clopper_pearson_audit, gdp_audit])
def test_selected_threshold_ignores_the_evaluation_part(audit):
    rng = np.random.default_rng(11)
    scores_in, scores_out = rng.normal(1.0, 1.0, 4000), rng.normal(0.0, 1.0, 4000)
    strategy = Split(fraction=0.5, seed=5)
    before = audit(scores_in, scores_out, delta=1e-5, threshold=strategy)
    (_, ev_in), (_, ev_out) = strategy.partition(scores_in.size, scores_out.size)
    # Wreck the evaluation part: the choice must not move, only the evaluated bound
    tampered_in, tampered_out = scores_in.copy(), scores_out.copy()
    tampered_in[ev_in] = rng.normal(0.0, 1.0, ev_in.size)
    tampered_out[ev_out] = rng.normal(3.0, 1.0, ev_out.size)
    after = audit(tampered_in, tampered_out, delta=1e-5, threshold=strategy)
    assert after.threshold == before.threshold
    assert after.details["selection_value"] == before.details["selection_value"]
    assert before.epsilon > 0 and after.epsilon == 0.0
    assert before.details["n_in"] == ev_in.size and before.details["n_select_in"] == 2000


def test_evaluation_counts_come_from_the_evaluation_part_only():
    rng = np.random.default_rng(2)
    scores_in, scores_out = rng.normal(2.0, 1.0, 1000), rng.normal(0.0, 1.0, 1000)
    bound = clopper_pearson_audit(scores_in, scores_out, delta=1e-5)
    (_, ev_in), (_, ev_out) = Split().partition(1000, 1000)
    t = bound.threshold
    assert bound.details["fp"] == int(np.sum(scores_out[ev_out] >= t))
    assert bound.details["fn"] == int(np.sum(scores_in[ev_in] < t))
    reference = clopper_pearson_from_counts(
        bound.details["fp"], ev_out.size, bound.details["fn"], ev_in.size, delta=1e-5,
        fpr_share=bound.details["fpr_share"],
    )  # fmt: skip
    assert bound.epsilon == reference.epsilon


@pytest.mark.parametrize(
    "audit, from_counts", [(clopper_pearson_audit, clopper_pearson_from_counts), (gdp_audit, gdp_from_counts)]
)
def test_bonferroni_is_the_max_over_the_grid_at_alpha_over_k(audit, from_counts):
    rng = np.random.default_rng(4)
    scores_in, scores_out = rng.normal(1.5, 1.0, 3000), rng.normal(0.0, 1.0, 3000)
    grid = (-1.0, 0.0, 0.5, 1.0, 2.0, 3.0)
    bound = audit(scores_in, scores_out, delta=1e-5, confidence=0.9, threshold=Bonferroni(grid))
    k = len(grid)
    assert bound.correction == f"bonferroni over {k} thresholds (pre-registered grid; each at α/{k})"
    assert bound.details["alpha_per_test"] == pytest.approx(0.1 / k)
    fp, fn = naive_counts(scores_in, scores_out, grid)
    each = [
        from_counts(int(a), 3000, int(b), 3000, delta=1e-5, confidence=1 - 0.1 / k).epsilon
        for a, b in zip(fp, fn, strict=True)
    ]
    assert bound.epsilon == pytest.approx(max(each), rel=1e-12)
    assert bound.threshold == grid[int(np.argmax(each))]


def test_bonferroni_pooled_grid_reaches_the_tails():
    pooled = np.arange(100_000, dtype=float)
    grid = Bonferroni(100).grid(pooled)
    assert 80 <= grid.size <= 100  # duplicated order statistics in the far tails merge; K counts distinct ones
    assert grid.max() >= 99_998 and grid.min() <= 1  # tail probabilities down to 1/N
    assert "label-blind" in Bonferroni(100).describe(100)


def test_fixed_threshold_is_not_corrected():
    rng = np.random.default_rng(5)
    scores_in, scores_out = rng.normal(1.0, 1.0, 500), rng.normal(0.0, 1.0, 500)
    bound = clopper_pearson_audit(scores_in, scores_out, delta=0.0, threshold=1.25)
    assert bound.correction == "none (single pre-registered threshold)" and bound.threshold == 1.25
    fp, fn = int(np.sum(scores_out >= 1.25)), int(np.sum(scores_in < 1.25))
    assert bound.epsilon == clopper_pearson_from_counts(fp, 500, fn, 500, delta=0.0).epsilon


def test_strategy_parsing():
    assert as_strategy("split") == Split()
    assert as_strategy(" Bonferroni ") == Bonferroni()
    assert as_strategy(2) == Fixed(2.0)
    with pytest.raises(ValueError, match="threshold must be"):
        as_strategy("oracle")
    with pytest.raises(TypeError, match="threshold must be"):
        as_strategy(None)
    with pytest.raises(ValueError, match=r"fraction must be in \(0, 1\)"):
        Split(fraction=1.0)
    with pytest.raises(TypeError, match="seed must be a non-negative integer"):
        Split(seed=0.5)
    with pytest.raises(ValueError, match="thresholds must be >= 1"):
        Bonferroni(0)
    with pytest.raises(ValueError, match="thresholds must be finite"):
        Bonferroni((0.0, float("nan")))
