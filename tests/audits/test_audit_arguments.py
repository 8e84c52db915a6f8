"""audits.audit refuses bad arguments before the mechanism runs once, naming the argument; its
calibration reaches the mechanism in chunks, never as one call of search_trials releases."""

from __future__ import annotations

import pytest

from audits import Claim, audit
from audits.runner import CALIBRATION_CHUNK, MAX_CALIBRATION_TRIALS, MAX_TRIALS

CLAIM = Claim(epsilon=8.0, delta=1e-5, noise="gaussian")


def never_called(dataset, rng, n):
    raise AssertionError("the mechanism ran although an argument was bad")


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"seed": 2**100000}, ValueError, r"^seed must be an int in \[0, 2\*\*128\), got an integer of 100,001 bits$"),
        ({"seed": -1}, ValueError, r"^seed must be an int in \[0, 2\*\*128\), got -1$"),
        ({"seed": 1.5}, TypeError, r"^seed must be an int in \[0, 2\*\*128\), got 1.5$"),
        (
            {"claim": Claim(delta=1e-5, bound="nonexistent")},
            ValueError,
            "claim.bound must name one of the claim's upper bounds \\[\\], got 'nonexistent'",
        ),
        (
            {"claim": Claim(delta=1e-5, bound="b", upper={"a": 1.0})},
            ValueError,
            "claim.bound must name one of .*\\['a'\\]",
        ),
        ({"claim": 8.0}, TypeError, "claim must be an audits.Claim"),
        ({"resolution": "x"}, TypeError, r"^resolution must be finite and > 0 \(a real number\), got 'x'$"),
        ({"resolution": 0.0}, ValueError, r"^resolution must be finite and > 0 \(a real number\), got 0.0$"),
        ({"resolution": float("nan")}, ValueError, "resolution must be finite and > 0"),
        (
            {"trials": 10**15},
            ValueError,
            f"^trials must be None or an int in \\[10, {MAX_TRIALS:,}\\] \\(audited trials",
        ),
        ({"trials": 5}, ValueError, "trials must be None or an int in \\[10, "),
        (
            {"search_trials": 10**9},
            ValueError,
            f"search_trials must be None or an int in \\[20, {MAX_CALIBRATION_TRIALS:,}\\]",
        ),
        ({"confidence": 1.0}, ValueError, "^confidence must be a probability in \\(0, 1\\), got 1.0$"),
        ({"batched": 1}, TypeError, "^batched must be True or False, got 1$"),
        ({"backend": "threads"}, ValueError, "^backend must be 'processes' or 'ray', got 'threads'$"),
    ],
)
def test_a_bad_argument_is_refused_before_the_mechanism_runs(options, error, message):
    arguments = {"claim": CLAIM, "trials": 100, **options}
    with pytest.raises(error, match=message):
        audit(never_called, 0.0, 1.0, **arguments)


@pytest.mark.parametrize("neighbours", [5, 2.5, b"bytes", "neither"])
def test_neighbours_that_are_not_candidates_are_refused_by_name(neighbours):
    with pytest.raises((TypeError, ValueError), match="neighbours"):
        audit(never_called, 0.0, claim=CLAIM, neighbours=neighbours, trials=100)


@pytest.mark.parametrize(
    "upper, bound, message",
    [
        ([1, 2], None, r"^upper must be a mapping of bound names to ε, e.g. .*got \[1, 2\]$"),
        ({}, 3, "^bound must be None or the name of an upper bound"),
    ],
)
def test_a_claim_with_upper_bounds_of_the_wrong_kind_names_the_argument(upper, bound, message):
    with pytest.raises(TypeError, match=message):
        Claim(delta=1e-5, upper=upper, bound=bound)


def test_the_calibration_reaches_the_mechanism_in_chunks():
    calls: list[int] = []

    def gaussian(dataset, rng, n):
        calls.append(n)
        return dataset + rng.normal(size=(n, 1))

    search = 2 * CALIBRATION_CHUNK + 5
    report = audit(gaussian, 0.0, 1.0, claim=CLAIM, trials=100, search_trials=search, progress=False)
    assert max(calls) == CALIBRATION_CHUNK
    assert sorted(calls, reverse=True)[:6] == [CALIBRATION_CHUNK] * 4 + [100, 100]
    assert calls.count(5) == 2 and report.report["diagnostics"]["calibration_trials"] == search
