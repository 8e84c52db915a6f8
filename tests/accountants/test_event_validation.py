"""A privacy number is a promise: malformed events are refused where they enter, with the event
class and the parameter named, and no accountant reports NaN or a bound computed from NaN.

Every test here failed before events were checked on entry (``accountants.events.check_event``).
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation

from accountants import (
    AdvancedCompositionAccountant,
    ApproxDpEvent,
    BudgetFilter,
    ExactGaussianAccountant,
    Ledger,
    LedgerEntry,
    MomentsAccountant,
    PLDAccountant,
    PureDpEvent,
    PureEpsilonAccountant,
    UnsupportedEventError,
    best_epsilon,
    calibrate_noise_multiplier,
    epsilon_delta_of,
)
from accountants.base import Accountant
from accountants.events import check_event, check_events
from accountants.serialization import event_from_json, event_to_json

NAN = float("nan")
INF = float("inf")

GUARANTEE_ACCOUNTANTS = [AdvancedCompositionAccountant, PureEpsilonAccountant]
ALL_ACCOUNTANTS = [
    ExactGaussianAccountant,
    MomentsAccountant,
    PLDAccountant,
    AdvancedCompositionAccountant,
    PureEpsilonAccountant,
]

#: (event, the message it must raise): one entry for every parameter rule of every event type.
BAD_EVENTS = [
    (dp_event.LaplaceDpEvent(NAN), r"LaplaceDpEvent.noise_multiplier must be >= 0, got nan"),
    (dp_event.LaplaceDpEvent(-1.0), r"LaplaceDpEvent.noise_multiplier must be >= 0, got -1.0"),
    (dp_event.GaussianDpEvent(NAN), r"GaussianDpEvent.noise_multiplier must be >= 0, got nan"),
    (dp_event.GaussianDpEvent(-INF), r"GaussianDpEvent.noise_multiplier must be >= 0"),
    (dp_event.GaussianDpEvent("1"), r"GaussianDpEvent.noise_multiplier must be a real number"),
    (dp_event.GaussianDpEvent(True), r"GaussianDpEvent.noise_multiplier must be a real number"),
    (dp_event.RandomizedResponseDpEvent(NAN, 2), r"RandomizedResponseDpEvent.noise_parameter must be in \[0, 1\]"),
    (
        dp_event.RandomizedResponseDpEvent(1.5, 2),
        r"^RandomizedResponseDpEvent.noise_parameter must be in \[0, 1\], got 1.5$",
    ),
    (dp_event.RandomizedResponseDpEvent(-0.5, 2), r"RandomizedResponseDpEvent.noise_parameter .* got -0.5"),
    (dp_event.RandomizedResponseDpEvent(0.5, 0), r"RandomizedResponseDpEvent.num_buckets must be an integer >= 1"),
    (dp_event.RandomizedResponseDpEvent(0.5, 2.0), r"RandomizedResponseDpEvent.num_buckets must be an integer"),
    (
        dp_event.PoissonSampledDpEvent(1.5, dp_event.GaussianDpEvent(1.0)),
        r"PoissonSampledDpEvent.sampling_probability must be in \[0, 1\], got 1.5",
    ),
    (
        dp_event.PoissonSampledDpEvent(0.5, dp_event.GaussianDpEvent(NAN)),
        r"GaussianDpEvent.noise_multiplier must be >= 0, got nan \(in PoissonSampledDpEvent.event\)",
    ),
    (
        dp_event.SampledWithoutReplacementDpEvent(10, 11, dp_event.GaussianDpEvent(1.0)),
        r"SampledWithoutReplacementDpEvent.sample_size must be <= source_dataset_size",
    ),
    (
        dp_event.SampledWithoutReplacementDpEvent(0, 0, dp_event.GaussianDpEvent(1.0)),
        r"SampledWithoutReplacementDpEvent.source_dataset_size must be an integer >= 1",
    ),
    (dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(1.0), -1), r"SelfComposedDpEvent.count must be an integer"),
    (dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(1.0), 1.5), r"SelfComposedDpEvent.count must be an integer"),
    (
        dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(1.0), True),
        r"SelfComposedDpEvent.count must be an integer",
    ),
    (
        dp_event.SelfComposedDpEvent(dp_event.LaplaceDpEvent(-2.0), 3),
        r"LaplaceDpEvent.noise_multiplier must be >= 0, got -2.0 \(in SelfComposedDpEvent.event\)",
    ),
    (
        dp_event.ComposedDpEvent([dp_event.GaussianDpEvent(1.0), dp_event.RandomizedResponseDpEvent(NAN, 2)]),
        r"RandomizedResponseDpEvent.noise_parameter .* \(in ComposedDpEvent.events\[1\]\)",
    ),
    (dp_event.ComposedDpEvent([dp_event.GaussianDpEvent(1.0), "x"]), r"ComposedDpEvent.events\[1\] must be a"),
    (dp_event.ZCDpEvent(NAN), r"ZCDpEvent.rho must be >= 0"),
    (dp_event.RepeatAndSelectDpEvent(dp_event.GaussianDpEvent(1.0), 0.5, 1.0), r"RepeatAndSelectDpEvent.mean"),
    (dp_event.SingleEpochTreeAggregationDpEvent(1.0, -3), r"SingleEpochTreeAggregationDpEvent.step_counts"),
]


@pytest.mark.parametrize("event, message", BAD_EVENTS, ids=[repr(e)[:60] for e, _ in BAD_EVENTS])
def test_the_shared_check_names_the_event_and_the_parameter(event, message):
    with pytest.raises((ValueError, TypeError), match=message):
        check_event(event)


@pytest.mark.parametrize("make", ALL_ACCOUNTANTS)
@pytest.mark.parametrize(
    "event",
    [
        dp_event.LaplaceDpEvent(NAN),
        dp_event.RandomizedResponseDpEvent(NAN, 2),
        dp_event.RandomizedResponseDpEvent(1.5, 2),
        dp_event.RandomizedResponseDpEvent(-0.5, 2),
        dp_event.GaussianDpEvent(NAN),
        dp_event.PoissonSampledDpEvent(NAN, dp_event.GaussianDpEvent(1.0)),
    ],
    ids=repr,
)
def test_every_entry_point_refuses_malformed_events_and_records_nothing(make, event):
    accountant = make()
    with pytest.raises(ValueError, match=type(event).__name__):
        accountant.register(event)
    with pytest.raises(ValueError, match=type(event).__name__):
        accountant.register_many([dp_event.GaussianDpEvent(1.0), event])
    with pytest.raises(ValueError, match=type(event).__name__):
        accountant.epsilon_if_registered(event, 1e-5)
    assert len(accountant.ledger) == 0 and accountant.get_epsilon(1e-5) == 0.0


@pytest.mark.parametrize("make", GUARANTEE_ACCOUNTANTS)
def test_malformed_events_no_longer_give_zero_or_nan(make):
    # Before: ε = 0.0 (optimal composition) or NaN (basic composition) for these.
    for event in (dp_event.LaplaceDpEvent(NAN), dp_event.RandomizedResponseDpEvent(1.5, 2)):
        with pytest.raises(ValueError):
            make().register(event).get_epsilon(1e-5)


def test_best_epsilon_of_a_ledger_with_a_malformed_entry_is_an_error_naming_it():
    ledger = Ledger([LedgerEntry(None, dp_event.GaussianDpEvent(2.0)), LedgerEntry(None, PureDpEvent(0.1))])
    assert best_epsilon(ledger, 1e-5).epsilon > 0
    bad = Ledger([LedgerEntry(None, dp_event.RandomizedResponseDpEvent(NAN, 2))])  # was ε = 0.0 (best)
    with pytest.raises(ValueError, match=r"noise_parameter must be in \[0, 1\], got nan \(in ledger entry 0\)"):
        best_epsilon(bad, 1e-5)


def test_a_budget_filter_refuses_nan_releases_instead_of_accepting_them():
    budget = BudgetFilter(AdvancedCompositionAccountant(), epsilon=1.0, delta=1e-5)
    started = time.perf_counter()
    for _ in range(50):  # before: all 50 accepted (NaN > budget is False), and the 25th took seconds
        with pytest.raises(ValueError, match="RandomizedResponseDpEvent.noise_parameter"):
            budget.register(dp_event.RandomizedResponseDpEvent(NAN, 2))
    assert time.perf_counter() - started < 5.0
    assert len(budget.ledger) == 0


def test_numpy_scalars_are_valid_parameters_and_are_recorded_as_python_numbers():
    event = dp_event.GaussianDpEvent(np.float32(10))
    exact = ExactGaussianAccountant().register(event)  # was "must be >= 0, got np.float32(10.0)"
    assert exact.get_epsilon(1e-5) == ExactGaussianAccountant().register(dp_event.GaussianDpEvent(10.0)).get_epsilon(
        1e-5
    )
    recorded = exact.ledger[0].event
    assert type(recorded.noise_multiplier) is float and recorded == event
    json.loads(exact.ledger.dumps())  # numpy scalars would not serialize
    nested = dp_event.SelfComposedDpEvent(dp_event.LaplaceDpEvent(np.float64(2.0)), np.int64(3))
    checked = check_event(nested)
    assert checked == nested and type(checked.count) is int and type(checked.event.noise_multiplier) is float
    batch = ExactGaussianAccountant().register_many([event, dp_event.GaussianDpEvent(np.float16(4))])
    assert [type(e.event.noise_multiplier) for e in batch.ledger] == [float, float]


def test_valid_events_pass_unchanged():
    events = [
        dp_event.GaussianDpEvent(INF),
        dp_event.LaplaceDpEvent(0.0),
        dp_event.RandomizedResponseDpEvent(1.0, 3),
        dp_event.PoissonSampledDpEvent(0.0, dp_event.GaussianDpEvent(1.0)),
        dp_event.SampledWithoutReplacementDpEvent(10, 10, dp_event.GaussianDpEvent(1.0)),
        dp_event.SelfComposedDpEvent(dp_event.NoOpDpEvent(), 0),
        dp_event.ComposedDpEvent([dp_event.NonPrivateDpEvent(), dp_event.UnsupportedDpEvent()]),
        PureDpEvent(0.0),
        ApproxDpEvent(1.0, 0.5),
    ]
    for event in events:
        assert check_event(event) is event
    assert check_events(events) is not None and check_events(events) == events
    with pytest.raises(TypeError, match="event must be a dp_accounting DpEvent"):
        check_event("gaussian")


def test_decoding_a_ledger_entry_checks_its_event():
    good = event_to_json(dp_event.GaussianDpEvent(2.0))
    assert event_from_json(good) == dp_event.GaussianDpEvent(2.0)
    with pytest.raises(ValueError, match=r"GaussianDpEvent.noise_multiplier must be >= 0, got nan"):
        event_from_json({"type": "GaussianDpEvent", "noise_multiplier": {"float": "nan"}})
    with pytest.raises(ValueError, match=r"RandomizedResponseDpEvent.noise_parameter must be in \[0, 1\]"):
        event_from_json({"type": "RandomizedResponseDpEvent", "noise_parameter": 1.5, "num_buckets": 2})
    with pytest.raises(ValueError, match=r"missing \['noise_multiplier'\]"):
        event_from_json({"type": "GaussianDpEvent"})
    with pytest.raises(ValueError, match=r"unknown \['sigma'\]"):
        event_from_json({"type": "GaussianDpEvent", "noise_multiplier": 1.0, "sigma": 2})
    with pytest.raises(ValueError, match="PureDpEvent"):
        event_from_json({"type": "PureDpEvent", "epsilon": "abc"})
    with pytest.raises(ValueError, match="encoded float"):
        event_from_json({"type": "GaussianDpEvent", "noise_multiplier": {"float": "1e999x"}})
    for garbage in (None, [], "GaussianDpEvent", {"noise_multiplier": 1.0}):
        with pytest.raises(ValueError, match="an encoded event must be a mapping"):
            event_from_json(garbage)
    entry = {"participant": 1, "count": 2, "event": {"type": "LaplaceDpEvent", "noise_multiplier": -1.0}}
    with pytest.raises(ValueError, match="LaplaceDpEvent.noise_multiplier"):
        LedgerEntry.from_json(entry)


def test_epsilon_delta_of_checks_its_event():
    assert epsilon_delta_of(dp_event.RandomizedResponseDpEvent(1.0, 2)) == (0.0, 0.0)
    with pytest.raises(ValueError, match="noise_parameter"):
        epsilon_delta_of(dp_event.RandomizedResponseDpEvent(NAN, 2))  # was (nan, 0.0)


class _NanAccountant(Accountant[float]):
    """A broken accountant: its bounds are NaN."""

    def _empty(self) -> float:
        return 0.0

    def _compose(self, summary: float, event: dp_event.DpEvent, count: int) -> float:
        return summary + count

    def epsilon_from_summary(self, summary: float, delta: float) -> float:
        return NAN

    def delta_from_summary(self, summary: float, epsilon: float) -> float:
        return NAN


def test_a_nan_bound_is_refused_never_returned():
    accountant = _NanAccountant().register(dp_event.GaussianDpEvent(1.0))
    with pytest.raises(FloatingPointError, match="NaN"):
        accountant.get_epsilon(1e-5)
    with pytest.raises(FloatingPointError, match="NaN"):
        accountant.get_delta(1.0)
    with pytest.raises(FloatingPointError, match="NaN"):
        accountant.epsilon_if_registered(dp_event.GaussianDpEvent(1.0), 1e-5)


# ------------------------------------------------------------------------------------------------
# Library errors that leaked from deep inside: each is now a clear error naming the argument, or
# the right answer.
def test_best_epsilon_names_its_ledger_argument():
    with pytest.raises(TypeError, match="ledger must be an accountants.Ledger"):
        best_epsilon("x", 1e-5)  # was AttributeError
    with pytest.raises(TypeError, match="accountants must"):
        best_epsilon(Ledger(), 1e-5, accountants={"rdp": 3})


def test_calibration_accepts_registry_names_and_names_a_bad_accountant():
    by_name = calibrate_noise_multiplier(1.0, 1e-5, count=10, accountant="rdp")
    assert by_name == calibrate_noise_multiplier(1.0, 1e-5, count=10, accountant=MomentsAccountant)
    with pytest.raises(ValueError, match=r"accountant must be one of \[.*'exact_gaussian'"):
        calibrate_noise_multiplier(1.0, 1e-5, accountant="exact")  # was "'str' object is not callable"
    for bad in (3, None, ExactGaussianAccountant()):
        with pytest.raises(TypeError, match="accountant must be"):
            calibrate_noise_multiplier(1.0, 1e-5, accountant=bad)
    with pytest.raises(TypeError, match="accountant must make an accountants.Accountant"):
        calibrate_noise_multiplier(1.0, 1e-5, accountant=dict)
    tight = calibrate_noise_multiplier(1.0, 1e-5, rtol=1e-300)  # finer than one ulp: ends, never loops
    assert ExactGaussianAccountant().register(dp_event.GaussianDpEvent(tight)).get_epsilon(1e-5) <= 1.0


def test_degenerate_noise_gives_the_right_answer():
    laplace_without_noise = MomentsAccountant().register(dp_event.LaplaceDpEvent(0.0))  # was ZeroDivisionError
    assert laplace_without_noise.get_epsilon(1e-5) == INF
    assert MomentsAccountant().register(dp_event.LaplaceDpEvent(INF)).get_epsilon(1e-5) == 0.0
    infinite = PLDAccountant().register(dp_event.GaussianDpEvent(INF))  # was "cannot convert float NaN"
    assert infinite.get_epsilon(1e-5) == 0.0 and infinite.get_delta(0.0) == 0.0
    huge = PLDAccountant().register(dp_event.GaussianDpEvent(1e300))  # was OverflowError
    assert 0.0 <= huge.get_epsilon(1e-5) <= 1e-3
    loud = MomentsAccountant().register(dp_event.GaussianDpEvent(1e-300))  # was a RuntimeWarning (error here)
    assert loud.get_epsilon(1e-5) == INF
    sampled = MomentsAccountant(neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE)
    sampled.register(dp_event.PoissonSampledDpEvent(1e-300, dp_event.GaussianDpEvent(INF)))  # was NaN
    assert sampled.get_epsilon(1e-5) == 0.0


def test_extreme_curves_and_guarantees_convert_without_library_errors():
    tiny = MomentsAccountant().register(dp_event.ZCDpEvent(1e-300))  # was "math domain error"
    assert 0.0 <= tiny.get_delta(0.0) <= 1e-6
    drv = AdvancedCompositionAccountant(theorem="drv").register(PureDpEvent(5.0))
    assert drv.get_delta(1e300) == 0.0  # was OverflowError
    certain = PLDAccountant().register(ApproxDpEvent(0.0, 0.999), 7)  # was IndexError inside dp-accounting
    assert certain.get_epsilon(1e-5) == INF and certain.get_delta(1.0) == 1.0
    opaque = AdvancedCompositionAccountant().register(dp_event.LaplaceDpEvent(1e-300))  # was a RuntimeWarning
    assert opaque.get_delta(1.0) == 1.0


def test_pld_refuses_counts_it_cannot_compose_and_best_epsilon_still_answers():
    with pytest.raises(UnsupportedEventError, match="grid step"):
        PLDAccountant().register(dp_event.GaussianDpEvent(1.0), count=10**12)  # was OverflowError
    with pytest.raises(UnsupportedEventError, match="self-composes"):
        PLDAccountant().register(dp_event.LaplaceDpEvent(1.0), count=10**12)  # ran for hours
    ledger = Ledger([LedgerEntry(None, dp_event.GaussianDpEvent(1.0), 10**12)])
    best = best_epsilon(ledger, 1e-5)
    assert best.accountant == "exact_gaussian" and "pld" not in best.bounds and math.isfinite(best.epsilon)


def test_counts_beyond_any_float_are_refused_naming_the_count():
    with pytest.raises(ValueError, match="count must be at most 10\\*\\*300"):
        AdvancedCompositionAccountant().register(PureDpEvent(1.0), count=10**400)  # was OverflowError
    nested = dp_event.SelfComposedDpEvent(dp_event.SelfComposedDpEvent(PureDpEvent(1.0), 10**200), 10**200)
    with pytest.raises(ValueError, match="SelfComposedDpEvent"):
        AdvancedCompositionAccountant().register(nested)


@pytest.mark.parametrize(
    "build, error, message",
    [
        (lambda: MomentsAccountant(neighboring_relation="x"), TypeError, "neighboring_relation"),
        (lambda: PLDAccountant(neighboring_relation="x"), TypeError, "neighboring_relation"),
        (lambda: MomentsAccountant.classic(1.5), TypeError, "max_log_moment_order"),
        (lambda: MomentsAccountant.classic(10**9), ValueError, "max_log_moment_order"),
        (lambda: MomentsAccountant(orders="abc"), TypeError, "orders"),
        (lambda: AdvancedCompositionAccountant(max_support=0), ValueError, "max_support"),
        (lambda: AdvancedCompositionAccountant(max_support=2.5), TypeError, "max_support"),
        (lambda: AdvancedCompositionAccountant(theorem=["drv"]), ValueError, "theorem"),
        (lambda: PLDAccountant(value_discretization_interval=1e6), ValueError, "value_discretization_interval"),
    ],
)
def test_constructor_options_are_checked(build, error, message):
    with pytest.raises(error, match=message):
        build()
