"""audits.categories and the distinguishers built on it: exact frequencies, golden smoothing, the
one-hot features, and the monotone pooled Laplace ratio, each against an independent computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from audits.categories import CategoryTable, ColumnCategories, repeats_values
from audits.distinguishers import (
    CANDIDATES,
    category_likelihood_ratio,
    gradient_boosting,
    joint_category_likelihood_ratio,
    one_hot_logistic_classifier,
    pooled_laplace_likelihood_ratio,
    power_of_two_scales,
)


def test_atoms_are_repeated_values_and_the_rest_is_binned():
    rng = np.random.default_rng(0)
    column = np.where(rng.random(10_000) < 0.3, -1000.0, rng.normal(size=10_000))  # a sentinel and noise
    categories = ColumnCategories(column[:, None])
    (only,) = categories.columns
    assert only.atoms.tolist() == [-1000.0] and only.continuous and len(only.edges) == 7
    codes = categories.codes(np.array([[-1000.0], [-5.0], [5.0], [0.0]]))[:, 0]
    assert codes[0] == 0 and codes[1] == 1 and codes[2] == 8 and 1 < codes[3] < 8
    features = categories.features(np.array([[-1000.0], [0.25]]))
    assert features[:, 1].tolist() == [1.0, 0.0]  # the sentinel's indicator
    assert features[0, 0] == pytest.approx(column[column != -1000.0].mean())  # never −1000 in the linear part
    assert features[1, 0] == 0.25
    assert not repeats_values(rng.normal(size=(4_000, 3))) and repeats_values(column[:, None])


def test_jeffreys_smoothing_golden_values():
    """Counts on D [3, 1], on D′ [1, 3] over two observed joint categories plus the unseen cell."""
    x_in = np.array([[0.0]] * 3 + [[1.0]])
    x_out = np.array([[0.0]] + [[1.0]] * 3)
    categories = ColumnCategories(np.zeros((10, 1)))  # the one atom 0: category 0; anything else: 1
    table = CategoryTable(categories, x_in, x_out, joint=True)
    scores = table.score(np.array([[0.0], [1.0], [7.0]]))
    assert scores[0] == pytest.approx(math.log(3.5 / 1.5), rel=1e-14)
    assert scores[1] == pytest.approx(math.log(1.5 / 3.5), rel=1e-14)  # 1 and 7 share the "other" category
    product = CategoryTable(categories, x_in, x_out, joint=False)
    assert product.score(np.array([[0.0]]))[0] == pytest.approx(math.log(3.5 / 1.5), rel=1e-14)


def test_the_joint_ratio_converges_to_the_exact_log_likelihood_ratio():
    """Two dependent binary coordinates: the joint table recovers log p/q of each of the 4 outcomes
    (the product of the margins cannot: the dependence is invisible to it)."""
    p = np.array([0.4, 0.1, 0.1, 0.4])  # outcomes 00, 01, 10, 11 on D: the coordinates agree
    q = np.array([0.1, 0.4, 0.4, 0.1])  # on D′: they disagree; the margins are uniform on both
    rng = np.random.default_rng(1)
    outcomes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    x_in, x_out = outcomes[rng.choice(4, 200_000, p=p)], outcomes[rng.choice(4, 200_000, p=q)]
    joint = joint_category_likelihood_ratio(x_in, x_out)
    assert joint is not None
    assert np.allclose(joint(outcomes), np.log(p / q), atol=0.02)
    product = category_likelihood_ratio(x_in, x_out)
    assert product is not None and np.all(np.abs(product(outcomes)) < 0.03)


def test_continuous_releases_skip_the_categorical_candidates():
    rng = np.random.default_rng(2)
    x_in, x_out = rng.normal(size=(2_000, 10)), rng.normal(0.3, 1.0, size=(2_000, 10))
    for fit in (joint_category_likelihood_ratio, category_likelihood_ratio, one_hot_logistic_classifier):
        assert fit(x_in, x_out) is None
    assert gradient_boosting(x_in, x_out) is None
    assert joint_category_likelihood_ratio(x_in[:, :1], x_out[:, :1]) is not None  # 8 bins of one coordinate


def test_the_boosted_trees_separate_a_sentinel_that_only_matters_jointly():
    rng = np.random.default_rng(3)
    n = 4_000
    value = rng.normal(size=n)
    x_in = np.stack([value, np.where(value > 0, -1.0, 1.0)], axis=1)  # the code follows the value's sign
    x_out = np.stack([value, np.where(value > 0, 1.0, -1.0)], axis=1)
    score = gradient_boosting(x_in[: n // 2], x_out[: n // 2])
    assert score is not None
    assert np.mean(score(x_in[n // 2 :]) > 0) > 0.99 and np.mean(score(x_out[n // 2 :]) < 0) > 0.99


@settings(max_examples=30, deadline=None)
@given(
    st.floats(-5.0, 5.0),
    st.floats(-5.0, 5.0),
    st.floats(0.1, 10.0),
    st.integers(0, 2**32 - 1),
)
@example(c_in=0.0, c_out=0.0, scale=0.1, seed=4_294_967_293)
def test_the_pooled_laplace_ratio_is_monotone_and_constant_in_the_tails(c_in, c_out, scale, seed):
    rng = np.random.default_rng(seed)
    x_in = rng.laplace(c_in, scale, size=(500, 1))
    x_out = rng.laplace(c_out, scale, size=(500, 1))
    score = pooled_laplace_likelihood_ratio(x_in, x_out)
    assert score is not None
    grid = np.linspace(-60.0, 60.0, 2_001)[:, None]
    values = score(grid)
    direction = np.sign(np.median(x_in) - np.median(x_out))
    steps = np.diff(values) * direction
    assert np.all(steps >= -1e-12 * np.max(np.abs(values), initial=1.0))  # monotone towards D's median
    # Flat beyond the medians. Far out, |x − c| rounds at ulp(|x|): at ±1e6 that is 1.2e-10, which a
    # pooled scale near 0.1 turns into 2e-9 of score (found by hypothesis), so ±1e3 (ulp 1.1e-13).
    assert values[0] == pytest.approx(score(np.array([[-1e3]]))[0], rel=1e-9, abs=1e-9)
    assert values[-1] == pytest.approx(score(np.array([[1e3]]))[0], rel=1e-9, abs=1e-9)


def test_power_of_two_scales_are_exact_and_releases_of_any_magnitude_score_alike():
    x = np.array([[3e200, 0.0, -1e-300], [1.0, 0.0, 2e-300]])
    scales = power_of_two_scales(x)
    assert np.all(np.frexp(scales)[0] == 0.5)  # powers of two: the products are exact
    assert np.all(np.abs(x * scales).max(axis=0) <= 1.0) and scales[1] == 1.0
    rng = np.random.default_rng(4)
    x_in, x_out = rng.normal(size=(3_000, 3)), rng.normal(0.5, 1.0, size=(3_000, 3))
    probe = rng.normal(size=(100, 3))
    for name, fit in CANDIDATES.items():
        plain, huge = fit(x_in, x_out), fit(x_in * 2.0**600, x_out * 2.0**600)
        if plain is None:
            assert huge is None, name
            continue
        assert huge is not None, name
        assert np.allclose(plain(probe), huge(probe * 2.0**600), rtol=1e-6, atol=1e-9), name


def test_a_candidate_whose_held_out_scores_overflow_is_left_out_of_the_search():
    from audits.distinguishers import SearchedScore

    def overflowing(values_in, values_out):
        return lambda values: np.full(len(values), np.inf)

    def projection(values_in, values_out):
        return lambda values: np.asarray(values)[:, 0]

    rng = np.random.default_rng(5)
    calibration_in = type("R", (), {"values": rng.normal(1.0, 1.0, size=(2_000, 1))})()
    calibration_out = type("R", (), {"values": rng.normal(0.0, 1.0, size=(2_000, 1))})()
    options = {"delta": 0.0, "confidence": 0.95, "deciding": ("clopper_pearson",)}
    search = SearchedScore({"overflowing": overflowing, "projection": projection}, **options)
    diagnostics = search.calibrate(calibration_in, calibration_out)
    assert diagnostics["distinguisher"] == "projection"
    assert diagnostics["distinguishers_not_applicable"] == ["overflowing"]
    with pytest.raises(ValueError, match="score 'overflowing' returned NaN or infinite scores for 1000 of 1000"):
        SearchedScore({"overflowing": overflowing}, **options).calibrate(calibration_in, calibration_out)


def test_a_score_that_returns_text_is_refused_with_its_name():
    from audits.distinguishers import SearchedScore

    def text(values_in, values_out):
        return lambda values: np.array(["high"] * len(values))

    releases = type("R", (), {"values": np.zeros((100, 1))})()
    search = SearchedScore({"text": text}, delta=0.0, confidence=0.95, deciding=("clopper_pearson",))
    with pytest.raises(ValueError, match=r"score 'text' must return real numbers .* got dtype <U4"):
        search.calibrate(releases, releases)


def test_a_categorical_release_without_evidence_goes_to_the_joint_category_ratio():
    """Two categorical sides that the validation half cannot tell apart: every candidate ties and
    the joint-category ratio is chosen; a continuous release ties the other way (first candidate
    by the median bounds)."""
    from audits.distinguishers import JOINT, SearchedScore

    rng = np.random.default_rng(6)
    options = {"delta": 0.0, "confidence": 0.95, "deciding": ("clopper_pearson",)}

    def releases(values):
        return type("R", (), {"values": values})()

    codes_in, codes_out = rng.integers(-1, 2, size=(2_000, 3)), rng.integers(-1, 2, size=(2_000, 3))
    search = SearchedScore(CANDIDATES, **options)
    assert search.calibrate(releases(codes_in), releases(codes_out))["distinguisher"] == JOINT
    assert search.tie_break == {}  # decided by the rule, not by the median bounds
    probe = np.array([[-1, 0, 1], [1, 1, 1], [0, 0, 0]])
    refit = joint_category_likelihood_ratio(codes_in, codes_out)  # on both halves, as the search refits it
    assert search.score is not None and refit is not None and np.array_equal(search.score(probe), refit(probe))
    noise_in, noise_out = rng.normal(size=(400, 3)), rng.normal(size=(400, 3))
    search = SearchedScore(CANDIDATES, **options)
    assert search.calibrate(releases(noise_in), releases(noise_out))["distinguisher"] != JOINT
    assert search.tie_break  # every bound 0: the median bounds decide
