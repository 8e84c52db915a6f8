"""audits.audit on discrete, coded, mixed and variable-length releases, with default arguments.

The mechanisms are written here as a user would write them. The sparse vector technique follows
Lyu, Su & Li (2017): Algorithm 1 (ε-DP) and Algorithm 4 (((1 + 6c)/4)ε-DP, so 1.75ε for c = 1),
answers coded 1 (above), 0 (below), −1 (stopped after c answers above). Seeds are fixed, so every
statistical assertion is deterministic.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from audits import Claim, ReleaseFormat, audit

EPSILON = 1.0
PURE = Claim(epsilon=EPSILON, delta=0.0, noise="laplace")
#: Query answers of sensitivity 1: every answer moves by 1 between the two inputs.
QUERIES, QUERIES_PRIME = np.array([1.0] * 5 + [0.0] * 5), np.array([0.0] * 5 + [1.0] * 5)


def _codes(above: np.ndarray) -> np.ndarray:
    """1 above, 0 below, −1 once one answer was above (c = 1)."""
    codes = above.astype(np.int64)
    codes[np.cumsum(above, axis=1) - above >= 1] = -1
    return codes


def svt1(queries, rng, n):
    """Lyu et al. (2017) Algorithm 1, c = 1: ρ ~ Lap(2/ε), ν ~ Lap(4/ε); ε-DP."""
    rho = rng.laplace(scale=2.0 / EPSILON, size=(n, 1))
    return _codes(queries + rng.laplace(scale=4.0 / EPSILON, size=(n, len(queries))) >= 1.0 + rho)


def svt4(queries, rng, n):
    """Lyu et al. (2017) Algorithm 4, c = 1: ρ ~ Lap(4/ε), ν ~ Lap(4/(3ε)); 1.75ε-DP, not ε-DP."""
    rho = rng.laplace(scale=4.0 / EPSILON, size=(n, 1))
    return _codes(queries + rng.laplace(scale=4.0 / (3.0 * EPSILON), size=(n, len(queries))) >= 1.0 + rho)


def test_an_incorrect_sparse_vector_is_flagged():
    report = audit(svt4, QUERIES, QUERIES_PRIME, claim=PURE, seed=0, progress=False)
    assert report.verdict == "VIOLATION"
    assert 1.2 < report.epsilon_lower["clopper_pearson"].epsilon <= 1.75  # below the true 1.75ε
    assert report.report["floating_point"]["integer_releases"] is True


@pytest.mark.slow
def test_the_correct_sparse_vector_is_never_flagged_over_5_seeds():
    bounds = []
    for seed in range(5):
        report = audit(svt1, QUERIES, QUERIES_PRIME, claim=PURE, seed=seed, progress=False)
        assert report.verdict == "consistent", seed
        assert report.report["floating_point"]["rounded"]["epsilon"] <= EPSILON, seed  # counted, and clean
        bounds.append(report.epsilon_lower["clopper_pearson"].epsilon)
    assert 0.4 < max(bounds) <= EPSILON  # the search finds a real distinguisher


LABELS = np.array(["red", "green", "blue", "none"])


def randomized_response(true_epsilon):
    """k-ary randomized response on the first record's label (a string): keep it with probability
    e^ε/(e^ε + k − 1), else report one of the k − 1 others; exactly ε-DP."""
    k = len(LABELS)
    keep = math.exp(true_epsilon) / (math.exp(true_epsilon) + k - 1)

    def mechanism(data, rng, n):
        truth = int(data[0])
        other = (truth + rng.integers(1, k, size=n)) % k
        return LABELS[np.where(rng.random(n) < keep, truth, other)]

    return mechanism


def test_randomized_response_is_flagged_under_a_wrong_claim():
    wrong = audit(randomized_response(2.0), np.array([0]), np.array([1]), claim=PURE, seed=0, progress=False)
    assert wrong.verdict == "VIOLATION"
    # the exact ε is 2; this seed's count of D's label on D′ is 2.6 standard errors low, so its 95 %
    # bound lands just above 2 (seeds 1-7 give 1.956-1.973)
    assert 1.8 < wrong.epsilon_lower["clopper_pearson"].epsilon < 2.01


@pytest.mark.slow
def test_randomized_response_is_not_flagged_under_its_own_claim():
    own = Claim(epsilon=2.0, delta=0.0)
    for seed in range(1, 6):  # seed 0 is the one above: its bound exceeds 2 by 0.003, as a 95 % bound may
        report = audit(randomized_response(2.0), np.array([0]), np.array([1]), claim=own, seed=seed, progress=False)
        assert report.verdict == "consistent", seed


def noisy_above_threshold(leaky):
    """Releases the count plus Lap(1/ε) if that noisy count is at least 1, else NaN (abort): ε-DP,
    as the abort is a function of the released noisy value. The leaky twin decides the abort on the
    true count, so D (count 1) never aborts and D′ (count 0) always does."""

    def mechanism(data, rng, n):
        noisy = data.sum() + rng.laplace(scale=1.0 / EPSILON, size=n)
        released = np.full(n, data.sum() >= 1.0) if leaky else noisy >= 1.0
        return np.where(released, noisy, np.nan)

    return mechanism


def test_nan_as_abort_is_refused_unless_declared_and_then_audited():
    D, D_prime = np.array([1.0, 0.0]), np.array([0.0, 0.0])
    with pytest.raises(ValueError, match=r"returned NaN or infinite values in \d+ of \d+ releases.*ReleaseFormat"):
        audit(noisy_above_threshold(False), D, D_prime, claim=PURE, trials=1_000, progress=False)
    declared = ReleaseFormat(missing="category")
    fine = audit(noisy_above_threshold(False), D, D_prime, claim=PURE, release=declared, seed=0, progress=False)
    assert fine.verdict == "consistent" and 0.5 < fine.epsilon_lower["clopper_pearson"].epsilon <= EPSILON
    leaky = audit(noisy_above_threshold(True), D, D_prime, claim=PURE, release=declared, seed=0, progress=False)
    assert leaky.verdict == "VIOLATION" and leaky.epsilon_lower["clopper_pearson"].epsilon > 5.0


def answered_indices(leaky):
    """The indices of the queries a sparse vector answers above (c = 2), a list of 0–2 entries:
    ρ ~ Lap(2/ε) and ν ~ Lap(8/ε) (Algorithm 1 with c = 2, ε-DP); the leaky twin adds no ν."""

    def mechanism(queries, rng, n):
        rho = rng.laplace(scale=2.0 / EPSILON, size=(n, 1))
        nu = 0.0 if leaky else rng.laplace(scale=8.0 / EPSILON, size=(n, len(queries)))
        above = queries + nu >= 1.0 + rho
        return [np.flatnonzero(row)[:2].tolist() for row in above]

    return mechanism


def test_variable_length_releases_are_refused_unless_declared_and_then_audited():
    with pytest.raises(ValueError, match=r"varying length declare release=ReleaseFormat\(length=\.\.\., pad=\.\.\.\)"):
        audit(answered_indices(False), QUERIES, QUERIES_PRIME, claim=PURE, trials=1_000, progress=False)
    declared = ReleaseFormat(length=2, pad=-1)  # one Python list per release: fewer trials keep it quick
    options = {"claim": PURE, "release": declared, "trials": 20_000, "seed": 0, "progress": False}
    assert audit(answered_indices(False), QUERIES, QUERIES_PRIME, **options).verdict == "consistent"
    leaky = audit(answered_indices(True), QUERIES, QUERIES_PRIME, **options)
    assert leaky.verdict == "VIOLATION" and leaky.epsilon_lower["clopper_pearson"].epsilon > 2.0


def masked_leak(data, rng, n):
    """The same noise on D and D′ under a mask that is the data itself: only the mask leaks."""
    noise = rng.normal(size=(n, 2))
    return np.ma.masked_array(noise, mask=np.broadcast_to(bool(data[0]), (n, 2)) & (rng.random((n, 2)) < 0.5))


def test_a_masked_array_is_refused_or_honoured_never_unmasked():
    D, D_prime = np.array([1.0]), np.array([0.0])
    with pytest.raises(ValueError, match="returned a numpy masked array: its mask would be lost"):
        audit(masked_leak, D, D_prime, claim=PURE, trials=1_000, progress=False)
    report = audit(masked_leak, D, D_prime, claim=PURE, release=ReleaseFormat(missing="category"), progress=False)
    assert report.verdict == "VIOLATION"  # the mask is seen: the hidden noise alone is the same on both sides


def test_releases_of_any_magnitude_audit_like_their_unit_twin():
    """1e200 × the Gaussian mechanism (the scale used to overflow the fits' variances)."""
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) / 8.0
    claim = Claim(epsilon=8.0, delta=1e-5, noise="gaussian")
    D, D_prime = np.zeros(10), np.eye(10)[0]

    def unit(data, rng, n):
        return data + rng.normal(0.0, sigma**2, size=(n, 10))  # σ² where σ belongs: a violation

    def huge(data, rng, n):
        return 1e200 * unit(data, rng, n)

    plain = audit(unit, D, D_prime, claim=claim, seed=0, progress=False)
    scaled = audit(huge, D, D_prime, claim=claim, seed=0, progress=False)
    assert plain.verdict == scaled.verdict == "VIOLATION"
    assert scaled.epsilon_lower["gdp"].epsilon == pytest.approx(plain.epsilon_lower["gdp"].epsilon, rel=0.02)


def test_a_leak_in_integer_releases_counts_even_when_the_users_score_misses_it():
    """With a score that reads nothing, the main bound is 0; the low-bits test of the (integer)
    releases is a categorical test, and its bound decides the verdict."""
    mechanism = randomized_response(2.0)

    def integers(data, rng, n):
        return np.searchsorted(np.sort(LABELS), mechanism(data, rng, n))

    report = audit(
        integers, np.array([0]), np.array([1]), claim=PURE, score=lambda r: np.zeros(len(r)), seed=0, progress=False
    )
    finding = report.report["floating_point"]
    assert report.epsilon_lower["clopper_pearson"].epsilon == 0.0
    assert finding["integer_releases"] is True and finding["rounded"]["epsilon"] > EPSILON
    assert report.verdict == "VIOLATION" and report.report["violated_by"]["claimed"] == ["low bits after rounding"]
    section = next(s["markdown"] for s in report.report["sections"] if s["title"] == "Floating-point channel")
    assert "The releases are integers" in section and "counts toward the verdict" in section


def mixed_tuple(leaky):
    """One release per call: (above?, its label, the noisy count or None below 1), from a count plus
    Lap(1/ε), ε-DP as a function of one noisy count. The leaky twin labels by the true count."""

    def mechanism(data, rng):
        noisy = float(data.sum() + rng.laplace(scale=1.0 / EPSILON))
        high = data.sum() >= 1.0 if leaky else noisy >= 1.0
        return (bool(noisy >= 1.0), "high" if high else "low", round(noisy, 3) if noisy >= 1.0 else None)

    return mechanism


def test_mixed_tuples_with_none_are_audited_when_declared():
    D, D_prime = np.array([1.0]), np.array([0.0])
    options = {"claim": PURE, "batched": False, "trials": 5_000, "seed": 0, "progress": False}
    with pytest.raises(ValueError, match="NaN or infinite values"):
        audit(mixed_tuple(False), D, D_prime, **options)
    declared = {**options, "release": ReleaseFormat(missing="category")}
    assert audit(mixed_tuple(False), D, D_prime, **declared).verdict == "consistent"
    leaky = audit(mixed_tuple(True), D, D_prime, **declared)
    assert leaky.verdict == "VIOLATION" and leaky.epsilon_lower["clopper_pearson"].epsilon > 3.0


def test_sentinel_coded_sparse_vectors_of_the_testbench():
    """Releases of noisy values with the sentinels −1000 (below) and −2000 (stopped): Lyu et al.'s
    Algorithm 3 (not private) is flagged; the numerical sparse vector (ε-DP, Wang et al. 2019) is
    not, and its floating-point leak (numpy's Laplace sampler) does not survive rounding."""
    from functools import partial

    from audits.testbench import svt

    options = {"claim": PURE, "seed": 0, "progress": False}
    leaky = audit(partial(svt.svt3, epsilon=EPSILON), QUERIES, QUERIES_PRIME, **options)
    assert leaky.verdict == "VIOLATION" and leaky.epsilon_lower["clopper_pearson"].epsilon > 1.5
    fine = audit(partial(svt.numerical_svt, epsilon=EPSILON), QUERIES, QUERIES_PRIME, **options)
    finding = fine.report["floating_point"]
    assert fine.verdict == "consistent" and finding["rounded"]["epsilon"] <= EPSILON < finding["epsilon_lower"]


def test_the_neighbour_search_reads_releases_as_declared():
    declared = ReleaseFormat(missing="category")
    report = audit(
        noisy_above_threshold(True),
        np.array([1.0, 0.0]),
        neighbours=[np.array([0.0, 0.0]), np.array([1.0, 1.0])],
        claim=PURE,
        release=declared,
        trials=10_000,
        progress=False,
    )
    assert report.verdict == "VIOLATION"  # the pilots ran on NaN-coded aborts: count 0 is the leaking pair
