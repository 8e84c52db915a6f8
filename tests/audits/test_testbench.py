"""The benchmark algorithms of DP-Sniper and StatDP: each output distribution against a closed form
or an exact property (fixed seeds, tolerances of 5 standard errors or exact), and the catalogue."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats

from audits.testbench import DPSNIPER, STATDP_EPSILONS, dpsniper, statdp, statdp_suite, svt

N = 200_000


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def close(frequency: float, probability: float, n: int = N) -> bool:
    """Within 5 binomial standard errors (plus a hair for probabilities at 0 or 1)."""
    return abs(frequency - probability) <= 5 * math.sqrt(probability * (1 - probability) / n) + 1e-12


def laplace_difference_above(gap: float, b_query: float, b_threshold: float) -> float:
    """P(ν − ρ ≥ gap) for ν ~ Lap(b_query), ρ ~ Lap(b_threshold), by quadrature over ρ."""
    value, _ = integrate.quad(
        lambda r: stats.laplace.pdf(r, scale=b_threshold) * stats.laplace.sf(gap + r, scale=b_query), -np.inf, np.inf
    )
    return value


@pytest.mark.parametrize(
    ("mechanism", "b_query", "b_threshold"),
    [
        (svt.svt1, 40.0, 20.0),  # Lap(4c/ε), Lap(2/ε) at ε = 0.1, c = 1
        (svt.svt2, 40.0, 20.0),  # with c = 1 the threshold is refreshed only after the last answer
        (svt.svt4, 40.0 / 3.0, 40.0),
        (svt.svt6, 20.0, 20.0),
    ],
)
def test_a_sparse_vectors_first_answer_has_the_closed_form_probability(mechanism, b_query, b_threshold):
    out = mechanism(np.array([2.0, 1.0, 0.0]), rng(), N, t=1.0)
    assert close(float(np.mean(out[:, 0] == 1.0)), laplace_difference_above(-1.0, b_query, b_threshold))


def test_sparse_vectors_stop_after_c_answers_above_and_the_unstopped_never_do():
    for mechanism in (svt.svt1, svt.svt2, svt.svt4):
        out = mechanism(np.zeros(10), rng(), 20_000, c=2, t=-30.0)
        assert set(np.unique(out)) <= {-1.0, 0.0, 1.0} and (np.sum(out == 1.0, axis=1) <= 2).all()
        stopped = np.cumsum(out == 1.0, axis=1) - (out == 1.0) >= 2
        assert np.array_equal(out == -1.0, stopped)
    for mechanism in (svt.svt5, svt.svt6):
        assert not (mechanism(np.zeros(10), rng(), 1_000) == -1.0).any()


def test_svt5_compares_the_exact_queries_with_one_noisy_threshold():
    out = svt.svt5(np.array([1.0, 1.0, 0.0]), rng(), N)
    assert (out[:, 0] == out[:, 1]).all() and (out[:, 2] <= out[:, 0]).all()
    assert close(float(np.mean(out[:, 0])), 0.5)  # P(1 ≥ 1 + ρ) = P(ρ ≤ 0)


def test_value_releasing_variants_release_the_noisy_answer_and_their_codes():
    out = svt.svt3(np.zeros(5), rng(), N, c=1, t=0.0)
    released = out[(out != svt.BELOW) & (out != svt.ABORTED)]
    assert (np.sum((out != svt.BELOW) & (out != svt.ABORTED), axis=1) <= 1).all()
    # the first answer is released iff ν₁ ≥ ρ (ν₁, ρ ~ Lap(20)), and then it is ν₁: P(released, ν₁ > 10) in closed form
    tail, _ = integrate.quad(lambda r: stats.laplace.pdf(r, scale=20.0) * stats.laplace.sf(r, scale=20.0), 10.0, np.inf)
    joint = stats.laplace.cdf(10.0, scale=20.0) * stats.laplace.sf(10.0, scale=20.0) + tail
    assert close(float(np.mean(out[:, 0] > 10.0)), joint) and released.size > 0.4 * N
    numerical = svt.numerical_svt(np.full(10, 5.0), rng(1), N, t=-1e6)  # every comparison above
    kept = numerical[:, :2]  # c = 2: the first two are released, the rest stopped
    assert (numerical[:, 2:] == svt.ABORTED).all()
    assert abs(kept.mean() - 5.0) < 5 * 60.0 * math.sqrt(2) / math.sqrt(kept.size)  # Lap(3c/ε) = Lap(60)


def test_the_truncated_geometric_has_balcer_and_vadhans_exact_distribution_and_privacy():
    cdfs = {c: dpsniper.geometric_cdf(c) for c in range(6)}
    pmf = {c: [Fraction(b - a, cdf[-1]) for a, b in zip([0, *cdf[:-1]], cdf, strict=True)] for c, cdf in cdfs.items()}
    epsilon = math.log1p(2.0**-3)  # k = ceil(ln(2/0.1)) = 3: GeoSample is ln(1 + 1/8)-DP
    for c in range(5):
        losses = [abs(math.log(p / q)) for p, q in zip(pmf[c], pmf[c + 1], strict=True)]
        assert max(losses) <= epsilon + 1e-12 and max(losses) > 0.99 * epsilon
    out = dpsniper.truncated_geometric(np.array([2.0]), rng(), N)
    for z in range(6):
        assert close(float(np.mean(out == z)), float(pmf[2][z]))


@pytest.mark.parametrize(("noise", "cdf"), [("laplace", stats.laplace.cdf), ("exponential", stats.expon.cdf)])
def test_report_noisy_max_releases_the_max_with_its_closed_form_and_a_fair_index(noise, cdf):
    queries = np.array([1.0, 2.0, 0.0, 1.0, 1.0])
    value = dpsniper.report_noisy_max(queries, rng(), N, noise=noise, release="value")[:, 0]
    for x in (0.0, 10.0, 30.0):
        exact = float(np.prod(cdf((x - queries) / 20.0)))  # scale 2/ε = 20
        assert close(float(np.mean(value <= x)), exact)
    index = dpsniper.report_noisy_max(np.ones(5), rng(1), N, noise=noise, release="index")[:, 0]
    for i in range(5):
        assert close(float(np.mean(index == i)), 0.2)


def test_histograms_prefix_sums_and_parallel_laplace_have_their_noise_scales():
    for scale in (10.0, 0.1):
        out = dpsniper.noisy_hist(np.arange(3.0), rng(), N, scale=scale)
        assert np.allclose(np.median(out, axis=0), np.arange(3.0), atol=5 * scale * 2 / math.sqrt(N))
        assert np.allclose(np.mean(np.abs(out - np.arange(3.0)), axis=0), scale, rtol=0.02)
    sums = dpsniper.prefix_sum(np.ones(4), rng(), N)
    increments = np.diff(sums, axis=1, prepend=0.0) - 1.0
    assert np.allclose(np.mean(np.abs(increments), axis=0), 10.0, rtol=0.02)
    parallel = dpsniper.laplace_parallel(np.array([3.0]), rng(), 10_000)
    assert parallel.shape == (10_000, 20) and abs(np.mean(np.abs(parallel - 3.0)) - 200.0) < 6.0
    assert np.allclose(
        np.mean(np.abs(statdp.histogram_eps(np.zeros(5), rng(), N, epsilon=0.7)), axis=0), 0.7, rtol=0.02
    )


def test_rappor_reports_each_bit_with_its_randomized_response_probability():
    bits = dpsniper.bloom_bits(0)
    assert bits.sum() <= 4 and set(np.unique(bits)) <= {0.0, 1.0}
    once = dpsniper.one_time_rappor(np.array([0.0]), rng(), N)
    assert all(close(float(f), 0.525 if b else 0.475) for f, b in zip(once.mean(axis=0), bits, strict=True))
    full = dpsniper.rappor(np.array([0.0]), rng(1), N)
    q_star, p_star = 0.75 * 0.5 + 0.25 * 0.55, 0.75 * 0.5 + 0.25 * 0.45
    assert all(close(float(f), q_star if b else p_star) for f, b in zip(full.mean(axis=0), bits, strict=True))
    assert dpsniper.rappor_claim(f=0.95) == pytest.approx(8 * math.log(0.525 / 0.475), rel=1e-15)
    assert dpsniper.rappor_claim(f=0.75, p=0.45, q=0.55) == pytest.approx(4 * math.log((0.5125 / 0.4875) ** 2))


def test_statdps_sparse_vectors_follow_their_definitions():
    e = 0.7
    isvt1 = statdp.isvt1(np.ones(10), rng(), 10_000, epsilon=e)
    assert (isvt1 == isvt1[:, :1]).all() and close(float(isvt1[:, 0].mean()), 0.5, 10_000)  # P(1 ≥ 1 + ρ)
    isvt4 = statdp.isvt4(np.zeros(10), rng(), N, epsilon=e, T=0.0)
    above = (isvt4 != svt.BELOW) & (isvt4 != svt.ABORTED)
    assert (above.sum(axis=1) <= 1).all()
    first = laplace_difference_above(0.0, 2 / e, 2 / e)  # strict or not: a difference of continuous draws
    assert close(float(above[:, 0].mean()), first)
    for mechanism in (statdp.svt, statdp.isvt3):
        assert (np.sum(mechanism(np.zeros(10), rng(), 10_000, epsilon=e, T=-50.0) == 1.0, axis=1) <= 1).all()
    assert set(np.unique(statdp.isvt2(np.zeros(10), rng(), 10_000, epsilon=e))) <= {0.0, 1.0}


def test_statdps_noisy_max_variants():
    e = 1.5
    value = statdp.noisy_max_v2b(np.ones(5), rng(), N, epsilon=e)[:, 0]
    assert value.min() >= 1.0 and close(float(np.mean(value <= 2.0)), float(stats.expon.cdf(1.0 / (2 / e)) ** 5))
    index = statdp.noisy_max_v1a(np.array([0.0, 0.0, 50.0, 0.0, 0.0]), rng(), 10_000, epsilon=e)
    assert np.mean(index == 2.0) > 0.99
    assert statdp.noisy_max_v2a(np.ones(5), rng(), 10, epsilon=e).shape == (10, 1)
    assert statdp.noisy_max_v1b(np.ones(5), rng(), 10, epsilon=e).shape == (10, 1)


def test_the_catalogue_holds_both_benchmarks():
    names = [a.name for a in DPSNIPER]
    assert len(names) == len(set(names)) == 20
    incorrect = [a.name for a in DPSNIPER if not a.correct]
    assert incorrect == [
        "NoisyHist2",
        "ReportNoisyMax3",
        "ReportNoisyMax4",
        "SVT3",
        "SVT4",
        "SVT5",
        "SVT6",
        "SVT34Parallel",
        "PrefixSum",
    ]
    assert all(a.published_epsilon is not None and a.suite == "DP-Sniper" for a in DPSNIPER)
    for a in DPSNIPER:  # a correct claim is never below the true ε, an incorrect one always
        if a.true_epsilon is not None:
            assert (a.true_epsilon <= a.claimed_epsilon + 1e-12) == a.correct, a.name
    assert STATDP_EPSILONS == (0.2, 0.7, 1.5)
    for e, incorrect in zip(STATDP_EPSILONS, (7, 7, 6), strict=True):  # scale ε₀ is 1/ε₀-DP: correct at 1.5
        suite = statdp_suite(e)
        assert len(suite) == 11 and sum(not a.correct for a in suite) == incorrect
        for a in suite:
            if a.true_epsilon is not None:
                assert (a.true_epsilon <= a.claimed_epsilon) == a.correct, a.name
    with pytest.raises(ValueError, match="epsilon0 must be a positive finite number"):
        statdp_suite(0.0)


@pytest.mark.parametrize("algorithm", [*DPSNIPER, *statdp_suite(0.7)], ids=lambda a: f"{a.suite}:{a.name}")
def test_every_algorithm_runs_on_every_pair_of_its_domain(algorithm):
    shapes = set()
    for pair in algorithm.pairs:
        for data in (pair.D, pair.D_prime):
            out = algorithm.mechanism(data, rng(), 7)
            assert out.ndim == 2 and out.shape[0] == 7 and np.isfinite(out).all()
            shapes.add(out.shape)
    assert len(shapes) == 1
