"""The neighbour search's second stage: the first stage's leaders within its noise get a larger pilot
on fresh seed streams, which chooses the pair; a pair that clearly dominates is chosen at once."""

from __future__ import annotations

import numpy as np
import pytest

from audits import Claim, audit
from audits.effort import EFFORTS
from audits.neighbour_search import (
    CONTENDER_SCALE,
    PILOT_STREAM,
    SECOND_STAGE_KEY,
    CandidatePair,
    contenders_of,
    search_neighbours,
)

#: P(release = 1) on (D, D′) of each synthetic pair: ε = log(0.3/0.17) = 0.57 for "better", log(0.3/0.22)
#: = 0.31 for "worse", 0 for "none", log 10 for "strong".
RATES = {"better": (0.30, 0.17), "worse": (0.30, 0.22), "none": (0.30, 0.30), "strong": (0.50, 0.05)}


def bernoulli(data: tuple[str, int], rng: np.random.Generator, n: int) -> np.ndarray:
    name, side = data
    return (rng.random((n, 1)) < RATES[name][side]).astype(np.float64)


def identity(values_in: np.ndarray, values_out: np.ndarray):
    return lambda values: np.asarray(values, dtype=np.float64)[:, 0]


def pairs_of(*names: str) -> tuple[CandidatePair, ...]:
    return tuple(CandidatePair(name, (name, 0), (name, 1)) for name in names)


OPTIONS = {"fits": {"identity": identity}, "delta": 0.0, "audit_trials": 100_000}


def test_contenders_are_the_leaders_within_the_noise_at_most_k_the_leader_first():
    primary, errors, statistics = [0.30, 0.25, 0.10, 0.29, 0.28], [0.02] * 5, [0.0, 0.1, 0.2, 0.3, 0.4]
    # 1.645 · sqrt(2) · 0.02 = 0.047 below the leader's 0.30: pairs 3 and 4 (0.29, 0.28), not 1 (0.25)
    assert contenders_of(primary, errors, statistics, range(5), 0, 3) == [0, 3, 4]
    assert contenders_of(primary, errors, statistics, range(5), 0, 2) == [0, 3]
    assert contenders_of(primary, errors, statistics, [0, 1, 2], 0, 3) == [0]  # the leader alone: it dominates
    assert contenders_of(primary, [0.2] * 5, statistics, range(5), 0, 0) == [0]
    # standard errors of 0.001 (a tail that is nearly the whole population): tied predictions still go on
    assert contenders_of([0.30, 0.295, 0.28], [0.001] * 3, statistics, range(3), 0, 3) == [0, 1]
    wide = contenders_of(primary, [0.2] * 5, statistics, range(5), 0, 5)
    assert wide == [0, 3, 4, 1, 2]  # by value, the leader first


def test_the_second_stage_picks_the_better_pair_where_the_first_is_noisy():
    """Pilots of 400 releases per side: the first stage alone takes the worse pair on 4 of 12 seeds;
    with the second stage (3 × 400 per side for both pairs, on 10 of the 12 seeds: on the other two
    the better pair led by more than the noise) the better one on all 12."""
    pairs = pairs_of("better", "worse")
    first = [search_neighbours(bernoulli, pairs, trials=400, seed=s, contenders=0, **OPTIONS) for s in range(12)]
    second = [search_neighbours(bernoulli, pairs, trials=400, seed=s, contenders=3, **OPTIONS) for s in range(12)]
    assert [s.pair.name for s in first].count("worse") == 4
    assert [s.pair.name for s in second] == ["better"] * 12
    staged = [(a, b) for a, b in zip(first, second, strict=True) if b.report["second_stage"] is not None]
    assert len(staged) == 10
    for a, b in staged:  # the same first stage, then the larger pilots of both
        assert a.report["pilot_epsilon_lower"] == b.report["pilot_epsilon_lower"]
        stage = b.report["second_stage"]
        assert sorted(stage["pairs"]) == ["better", "worse"] and stage["trials"] == [CONTENDER_SCALE * 400] * 2
        predicted = dict(zip(stage["pairs"], stage["pilot_predicted_epsilon"], strict=True))
        assert b.report["margin"] == pytest.approx(predicted["better"] - predicted["worse"])
        assert b.report["summary"].endswith("in the second stage, among the first stage's 2 leaders")


def test_a_pair_that_clearly_dominates_is_chosen_without_a_second_stage():
    pairs = pairs_of("none", "strong", "worse")
    alone = search_neighbours(bernoulli, pairs, trials=2_000, seed=0, contenders=0, **OPTIONS)
    staged = search_neighbours(bernoulli, pairs, trials=2_000, seed=0, contenders=3, **OPTIONS)
    assert alone.pair.name == staged.pair.name == "strong" and staged.report["second_stage"] is None
    assert staged.report == alone.report


def test_only_the_contenders_get_a_second_pilot_on_seed_streams_of_their_own(tmp_path):
    """The "quick" audit (pilots of 1,000 per side, at most 3 contenders): every mechanism call's seed
    is recorded (in a file: the audited trials run in worker processes). The second stage draws only
    on (PILOT_STREAM + i, SECOND_STAGE_KEY, …) of the contenders i; none of its streams is the first
    stage's or the audit's, whose trials draw on children 0 and 1 of the root seed."""
    log = tmp_path / "keys.txt"

    def recorded(data: tuple[str, int], rng: np.random.Generator, n: int) -> np.ndarray:
        seeds = rng.bit_generator.seed_seq
        assert isinstance(seeds, np.random.SeedSequence)
        with log.open("a") as out:
            out.write(" ".join(map(str, seeds.spawn_key)) + "\n")
        return bernoulli(data, rng, n)

    pairs = pairs_of("better", "worse", "worse", "none")
    claim = Claim(epsilon=0.1, delta=0.0)
    report = audit(recorded, None, neighbours=pairs, claim=claim, effort="quick", progress=False)
    keys = [tuple(map(int, line.split())) for line in log.read_text().splitlines()]
    search = report.report["neighbour_search"]
    stage = search["second_stage"]
    assert EFFORTS["quick"].contenders == 3 and len(stage["pairs"]) == 3 and stage["trials"] == [3_000] * 3
    assert "none" not in stage["pairs"] and search["chosen_pair"] == "better"
    second = {k for k in keys if len(k) > 1 and k[0] >= PILOT_STREAM and k[1] == SECOND_STAGE_KEY}
    first = {k for k in keys if len(k) > 1 and k[0] >= PILOT_STREAM and k[1] in (0, 1)}
    audited = set(keys) - second - first
    assert {k[0] for k in audited if k} >= {0, 1} and all(k[0] < PILOT_STREAM for k in audited if k)
    contenders = {PILOT_STREAM + i for i, pair in enumerate(pairs) if pair.name in stage["pairs"]}
    assert {k[0] for k in second} == contenders and {k[0] for k in first} == {PILOT_STREAM + i for i in range(4)}
