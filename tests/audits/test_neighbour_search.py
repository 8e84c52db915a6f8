"""The neighbour search: Ding et al. (2018)'s input patterns, the pilot statistic, the held-out
choice of a pair, and audit()'s effort presets."""

from __future__ import annotations

import numpy as np
import pytest

from audits import Claim, audit
from audits.distinguishers import CANDIDATES
from audits.effort import EFFORTS, effort_preset
from audits.neighbour_search import (
    CandidatePair,
    best_threshold,
    candidate_pairs,
    input_patterns,
    pilot_statistic,
    search_neighbours,
    tail_statistic,
)
from audits.testbench import DPSNIPER

PURE = Claim(epsilon=0.1, delta=0.0)


def shifted_laplace(data, rng, n):
    """A 1-d release: the sum of the data plus Laplace(1) noise."""
    return np.sum(data) + rng.laplace(size=(n, 1))


def test_the_patterns_are_statdps_in_both_orientations():
    pairs = {p.name: p for p in input_patterns(np.ones(5))}
    assert len(pairs) == 16
    expected = {
        "one below": [0, 1, 1, 1, 1],
        "one above": [2, 1, 1, 1, 1],
        "one above rest below": [2, 0, 0, 0, 0],
        "one below rest above": [0, 2, 2, 2, 2],
        "half half": [2, 2, 0, 0, 0],
        "all above": [2, 2, 2, 2, 2],
        "all below": [0, 0, 0, 0, 0],
    }
    for name, d_prime in expected.items():
        assert np.array_equal(pairs[name].D, np.ones(5)) and np.array_equal(pairs[name].D_prime, d_prime)
        swapped = pairs[f"{name} (swapped)"]
        assert np.array_equal(swapped.D, d_prime) and np.array_equal(swapped.D_prime, np.ones(5))
    x = pairs["X shape"]  # the one pattern whose D is not the base vector
    assert np.array_equal(x.D, [1, 1, 0, 0, 0]) and np.array_equal(x.D_prime, [0, 0, 1, 1, 1])


def test_one_differ_patterns_and_a_single_query_have_no_duplicates():
    assert [p.name for p in input_patterns(np.ones(5), all_differ=False)] == [
        "one below",
        "one above",
        "one below (swapped)",
        "one above (swapped)",
    ]
    assert len(input_patterns(np.zeros(1))) == 4  # the all-differ patterns coincide with one above / below
    odd = input_patterns(np.ones(3), sensitivity=0.5, both_orientations=False)
    assert "half half" not in [p.name for p in odd] and len(odd) == 7  # with 3 queries it is one above rest below
    assert np.array_equal(odd[2].D_prime, [1.5, 0.5, 0.5])


@pytest.mark.parametrize(
    ("D", "neighbours", "message"),
    [
        (None, "patterns", "D must be a 1-d array"),
        (np.ones(3), "pattern", "'patterns' or a sequence"),
        (np.ones(3), [], "at least one candidate"),
        (np.ones(3), [CandidatePair("a", np.ones(3), np.zeros(3))], "pass D=None"),
        (None, [CandidatePair("a", np.ones(3), np.zeros(3)), np.zeros(3)], "not a mix"),
        (None, [np.zeros(3)], "D must be given"),
    ],
)
def test_candidate_pairs_refuse_what_they_cannot_pair(D, neighbours, message):
    with pytest.raises(ValueError, match=message):
        candidate_pairs(D, neighbours)


def test_input_patterns_refuse_bad_queries():
    with pytest.raises(ValueError, match="queries must be a non-empty 1-d array"):
        input_patterns(np.ones((2, 2)))
    with pytest.raises(ValueError, match="sensitivity must be a positive finite number"):
        input_patterns(np.ones(2), sensitivity=0.0)


def test_the_pilot_statistic_is_continuous_and_ranks_by_separation():
    rng = np.random.default_rng(0)
    a, b = rng.laplace(size=100_000), rng.laplace(size=100_000)
    same, half, one = pilot_statistic(a, b), pilot_statistic(a + 0.5, b), pilot_statistic(a + 1.0, b)
    assert same < 0.1 < 0.45 < half < 0.6 < 0.95 < one < 1.1  # the Laplace shift's ε is 0.5 and 1
    # not clipped at 0: with too few releases to show anything it still orders the pairs
    small = [pilot_statistic(a[:30] + shift, b[:30]) for shift in (0.0, 0.2, 0.4, 1.0)]
    assert small == sorted(small) and len(set(small)) == 4
    assert pilot_statistic(a[:30], a[:30]) < pilot_statistic(a[:300], a[:300]) < 0  # equal samples: below 0
    # δ lowers the statistic; the roles of D and D′ do not matter
    assert pilot_statistic(a + 1.0, b, delta=1e-3) < one == pilot_statistic(b, a + 1.0)


def test_the_threshold_chosen_on_one_half_is_measured_without_the_maximums_optimism():
    rng = np.random.default_rng(1)
    a, b = rng.laplace(size=200_000) + 1.0, rng.laplace(size=200_000)
    value, tail, threshold = best_threshold(a[:100_000], b[:100_000])
    assert tail in (0, 3) and value == pilot_statistic(a[:100_000], b[:100_000])  # upper tail of D or lower of D′
    held_out = tail_statistic(a[100_000:], b[100_000:], tail, threshold)
    assert 0.9 < held_out < 1.0  # Laplace(1) shifted by 1: the tails' log ratio is 1 beyond the two centres
    same = np.random.default_rng(2).laplace(size=(2, 100_000))
    chosen = best_threshold(same[0, :50_000], same[1, :50_000])
    assert chosen[0] > 0 > tail_statistic(same[0, 50_000:], same[1, 50_000:], chosen[1], chosen[2])


def test_the_search_picks_the_pair_with_the_largest_shift_and_says_by_how_much():
    pairs = [
        CandidatePair("shift 0.1", np.zeros(1), np.full(1, 0.1)),
        CandidatePair("shift 1", np.full(1, 1.0), np.zeros(1)),
        CandidatePair("shift 0.5", np.zeros(1), np.full(1, 0.5)),
    ]
    chosen = search_neighbours(shifted_laplace, pairs, fits=CANDIDATES, trials=4_000, seed=0, delta=0.0)
    assert chosen.index == 1 and chosen.pair is pairs[1]
    report = chosen.report
    assert report["chosen_pair"] == "shift 1" and report["pairs"] == ["shift 0.1", "shift 1", "shift 0.5"]
    statistics = report["pilot_epsilon_lower"]
    assert statistics[0] < statistics[2] < statistics[1]
    assert report["margin"] == pytest.approx(statistics[1] - statistics[2])
    assert "'shift 1' won" in report["summary"] and "'shift 0.5'" in report["summary"]


@pytest.mark.slow
def test_the_search_finds_report_noisy_maxs_worst_pattern_and_the_audit_flags_it():
    # The maximum released by ReportNoisyMax3 leaks most when all queries move the same way; the
    # first pattern ("one below") leaks 5 times less. A 0/1 pilot bound took the first pattern.
    rnm3 = next(a for a in DPSNIPER if a.name == "ReportNoisyMax3")
    report = audit(rnm3.mechanism, None, neighbours=rnm3.pairs, claim=PURE, trials=100_000, progress=False)
    search = report.report["neighbour_search"]
    assert search["chosen_pair"].startswith(("all above", "all below", "X shape", "one above rest", "one below rest"))
    assert report.verdict == "VIOLATION" and report.epsilon_lower["clopper_pearson"].epsilon > 0.1


def test_the_audit_after_the_search_runs_on_fresh_trials():
    pairs = [
        CandidatePair("shift 0.2", np.zeros(1), np.full(1, 0.2)),
        CandidatePair("shift 1", np.ones(1), np.zeros(1)),
    ]
    claim = Claim(epsilon=2.0, delta=0.0)
    searched = audit(shifted_laplace, None, neighbours=pairs, claim=claim, effort="quick", progress=False)
    direct = audit(shifted_laplace, np.ones(1), np.zeros(1), claim=claim, effort="quick", progress=False)
    assert searched.report["neighbour_search"]["chosen"] == 1
    assert searched.epsilon_lower["clopper_pearson"].epsilon == direct.epsilon_lower["clopper_pearson"].epsilon


def test_effort_presets_size_the_audit():
    assert effort_preset("quick").trials == 10_000 and effort_preset("thorough").trials == 10_000_000
    assert effort_preset("smoke").trials == 2_000 and EFFORTS["smoke"].pilot_trials(2_000) == 200
    thorough = EFFORTS["thorough"]
    assert thorough.calibration_trials(10_000_000) == 500_000 and thorough.pilot_trials(10_000_000) == 200_000
    assert EFFORTS["default"].calibration_trials(1_000_000) == 100_000
    assert EFFORTS["default"].pilot_trials(1_000_000) == 100_000 and EFFORTS["default"].pilot_trials(10) == 1_000
    report = audit(
        shifted_laplace, np.ones(1), np.zeros(1), claim=Claim(epsilon=2.0, delta=0.0), effort="quick", progress=False
    )
    assert report.report["trials"] == 10_000 and report.report["diagnostics"]["calibration_trials"] == 2_000
    with pytest.raises(ValueError, match="effort must be one of 'smoke', 'quick', 'default', 'thorough', got 'fast'"):
        audit(shifted_laplace, np.ones(1), np.zeros(1), claim=PURE, effort="fast")
