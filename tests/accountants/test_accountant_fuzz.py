"""Fuzz of every public constructor and function of ``accountants``, and of the command line.

Arguments are drawn from everything a caller might pass — floats including NaN, ±∞, subnormals,
huge values and numpy scalars; counts that are negative, huge, bool or float; deltas and epsilons
outside their ranges; constructor options of the wrong type — and every outcome must be either a
correct answer (a float that is never NaN, finite or a documented ∞, in range) or a ValueError /
TypeError whose message names the argument (or the event parameter) at fault. A library error
leaking from deep inside (ZeroDivisionError, OverflowError, IndexError, AttributeError, a
"math domain error", ...) fails the property.

The command line is fuzzed in-process through ``main(argv)``: it must exit 0, or 2 with exactly one
line on standard error, and raise nothing else.

Examples per property are set below (``@settings``) so that the whole file runs in about 20 s on
the 2-core CI machine; derandomisation and the rest come from the profile in tests/conftest.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attr
import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation
from hypothesis import assume, given, settings
from hypothesis import event as record_outcome
from hypothesis import strategies as st

from accountants import (
    ACCOUNTANTS,
    AdvancedCompositionAccountant,
    ApproxDpEvent,
    BudgetFilter,
    ExactGaussianAccountant,
    Ledger,
    LedgerEntry,
    MomentsAccountant,
    PLDAccountant,
    PrivacyBudgetExceeded,
    PureDpEvent,
    PureEpsilonAccountant,
    best_epsilon,
    calibrate_noise_multiplier,
    epsilon_by_accountant,
    epsilon_delta_of,
    gaussian_delta,
    gaussian_epsilon,
    gaussian_mu,
)
from accountants.__main__ import main
from accountants.serialization import EVENT_CLASSES, event_from_json

NAN, INF = float("nan"), float("inf")

# ------------------------------------------------------------------------------------------------
# What a caller might pass: half of each draw is valid (so that answers are computed, including at
# the edges: 0, subnormals, 1e300, ∞, numpy scalars), half anything at all.
EDGE_FLOATS = [0.0, -0.0, 5e-324, 1e-300, 1e-5, 0.5, 1.0, 1.5, 2.0, 1e5, 1e300, INF, -INF, NAN, -1.0]
BAD_VALUES = [True, False, None, "1", [1.0], 1 + 1j]

anything = st.one_of(
    st.floats(),  # every float: NaN, ±∞, subnormals, ±1e308
    st.sampled_from(EDGE_FLOATS),
    st.floats(width=32).map(np.float32),
    st.integers(-3, 10).map(np.int64),
    st.sampled_from(BAD_VALUES),
)
valid_scales = st.one_of(  # noise multipliers, ε, ρ: >= 0, ∞ allowed
    st.floats(min_value=0.0),
    st.sampled_from([0.0, 5e-324, 1e-300, 0.5, 1.0, 2.0, 10.0, 1e300, INF]),
    st.floats(0.0, 1e6, width=32).map(np.float32),
    st.integers(0, 10),
)
valid_probabilities = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 5e-324, 1e-300, 0.5, 1.0]))


def mostly(valid: st.SearchStrategy[Any], invalid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Four draws in five from ``valid`` (so answers get computed), the fifth from ``invalid``."""
    return st.sampled_from([True, True, True, True, False]).flatmap(lambda good: valid if good else invalid)


numbers = mostly(valid_scales, anything)
probabilities = mostly(valid_probabilities, anything)
valid_counts = st.one_of(st.integers(0, 8), st.sampled_from([2**53, 10**300]), st.integers(0, 8).map(np.int64))
invalid_counts = st.one_of(
    st.integers(-3, -1),
    st.sampled_from([10**300 + 1, 10**400, -(10**400), True, False, 1.0, 2.5, NAN, INF, None, "3"]),
)
counts = mostly(valid_counts, invalid_counts)


def _leaves(scales: st.SearchStrategy[Any], chances: st.SearchStrategy[Any], sizes: st.SearchStrategy[Any]):
    return st.one_of(
        st.builds(dp_event.GaussianDpEvent, scales),
        st.builds(dp_event.LaplaceDpEvent, scales),
        st.builds(dp_event.RandomizedResponseDpEvent, chances, sizes),
        st.builds(PureDpEvent, st.floats(0.0, 1e300)),
        st.builds(ApproxDpEvent, st.floats(0.0, 1e300), st.floats(0.0, 0.999)),
        st.builds(dp_event.ZCDpEvent, scales, st.sampled_from([0.0, 0.5])),
        st.builds(dp_event.SingleEpochTreeAggregationDpEvent, scales, st.one_of(st.integers(0, 6), st.just([1, 2]))),
        st.sampled_from([dp_event.NoOpDpEvent(), dp_event.NonPrivateDpEvent(), dp_event.UnsupportedDpEvent()]),
    )


def _nested(
    children: st.SearchStrategy[dp_event.DpEvent],
    chances: st.SearchStrategy[Any],
    repeats: st.SearchStrategy[Any],
    sample: st.SearchStrategy[tuple[Any, Any]],
    repetitions: st.SearchStrategy[Any],
    shapes: st.SearchStrategy[Any],
) -> st.SearchStrategy[dp_event.DpEvent]:
    return st.one_of(
        st.builds(dp_event.SelfComposedDpEvent, children, repeats),
        st.lists(children, max_size=3).map(dp_event.ComposedDpEvent),
        st.builds(dp_event.PoissonSampledDpEvent, chances, children),
        st.builds(lambda sizes, inner: dp_event.SampledWithoutReplacementDpEvent(*sizes, inner), sample, children),
        st.builds(dp_event.RepeatAndSelectDpEvent, children, repetitions, shapes),
    )


#: Events with valid parameters, the edges included (0 and ∞ noise, probabilities 0 and 1, ...).
valid_events = st.recursive(
    _leaves(valid_scales, valid_probabilities, st.integers(1, 6)),
    lambda children: _nested(
        children,
        valid_probabilities,
        st.one_of(st.integers(0, 6), st.just(2**53)),
        st.integers(1, 100).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
        st.one_of(st.floats(1.0, 10.0), st.just(1.0)),
        st.sampled_from([0.0, 1.0, INF]),
    ),
    max_leaves=4,
)
#: Events with any parameters at all.
any_events = st.recursive(
    _leaves(numbers, probabilities, mostly(st.integers(1, 6), invalid_counts)),
    lambda children: _nested(
        children,
        probabilities,
        mostly(st.integers(0, 6), invalid_counts),
        st.tuples(mostly(st.integers(1, 6), invalid_counts), mostly(st.integers(0, 6), invalid_counts)),
        numbers,
        st.sampled_from([0.0, 1.0, INF, -1.0, NAN]),
    ),
    max_leaves=4,
)
events = mostly(valid_events, any_events)
deltas = mostly(
    st.one_of(st.floats(0.0, 1.0, exclude_max=True), st.sampled_from([0.0, 1e-300, 1e-5, 1.0 - 1e-12])),
    st.sampled_from([1.0, 1.5, -1e-9, NAN, INF]) | anything,
)
epsilons = mostly(
    st.one_of(st.floats(min_value=0.0, allow_infinity=False), st.sampled_from([0.0, 1e-9, 50.0])), anything
)
participants = mostly(
    st.sampled_from([None, 0, 3, "agent-1", np.int64(2), -1]), st.sampled_from([1.5, True, ("a",), b"x"])
)

#: Moments accountants whose grid keeps dp-accounting's O(α)-per-order curves (sampling without
#: replacement, repeat-and-select) fast.
SMALL_ORDERS = [1.5, 2.0, 3.0, 5.0, 8.0, 16.0, 64.0, 256.0, 1e4]

FACTORIES: dict[str, Callable[[], Any]] = {
    "exact_gaussian": ExactGaussianAccountant,
    "rdp": lambda: MomentsAccountant(orders=SMALL_ORDERS),
    "rdp_add_or_remove": lambda: MomentsAccountant(
        orders=SMALL_ORDERS, neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE
    ),
    "rdp_replace_special": lambda: MomentsAccountant(
        orders=SMALL_ORDERS, conversion="classic", neighboring_relation=NeighboringRelation.REPLACE_SPECIAL
    ),
    "moments_classic": lambda: MomentsAccountant.classic(64),
    "pld": lambda: PLDAccountant(value_discretization_interval=1e-3),
    "pld_add_or_remove": lambda: PLDAccountant(1e-3, NeighboringRelation.ADD_OR_REMOVE_ONE),
    "optimal_composition": AdvancedCompositionAccountant,
    "optimal_small_support": lambda: AdvancedCompositionAccountant(max_support=50),
    "advanced_composition": lambda: AdvancedCompositionAccountant(theorem="drv"),
    "pure": PureEpsilonAccountant,
    "budget": lambda: BudgetFilter(AdvancedCompositionAccountant(), epsilon=5.0, delta=1e-5),
}

EVENT_NAMES = sorted(EVENT_CLASSES)
ACCOUNTANT_NAMES = ["ExactGaussianAccountant", "MomentsAccountant", "PLDAccountant", "AdvancedCompositionAccountant"]
ACCOUNTANT_NAMES += ["PureEpsilonAccountant"]
#: Messages of library errors leaking from deep inside: never acceptable.
LEAKS = [
    "math domain error",
    "division by zero",
    "could not convert",
    "not subscriptable",
    "is not callable",
    "has no attribute",
    "index out of range",
    "Numerical result out of range",
    "cannot convert float NaN",
    "too large to convert",
]


def assert_clear(error: BaseException, names: list[str]) -> None:
    """A ValueError or TypeError whose message names one of ``names`` and leaks no library error."""
    assert isinstance(error, (ValueError, TypeError)), repr(error)
    message = str(error)
    assert not any(leak in message for leak in LEAKS), message
    assert any(name in message for name in names), f"{type(error).__name__}({message!r}) names none of {names}"


def assert_epsilon(value: object) -> None:
    assert isinstance(value, float) and not math.isnan(value) and value >= 0.0, value


def assert_delta(value: object) -> None:
    assert isinstance(value, float) and 0.0 <= value <= 1.0, value


def attempt(call: Callable[[], Any], names: list[str]) -> tuple[bool, Any]:
    """(True, result), or (False, error) after checking that the error is a clear one."""
    try:
        return True, call()
    except (ValueError, TypeError) as error:
        assert_clear(error, names)
        return False, error


REGISTER_NAMES = [*EVENT_NAMES, *ACCOUNTANT_NAMES, "event", "count", "participant", "iteration", "participants"]


# ------------------------------------------------------------------------------------------------
@settings(max_examples=300)
@given(st.sampled_from(sorted(FACTORIES)), events, counts, participants, deltas, epsilons)
def test_register_and_query(name, event, count, participant, delta, epsilon):
    accountant = FACTORIES[name]()
    try:
        ok, _ = attempt(lambda: accountant.register(event, count, participant), REGISTER_NAMES)
    except PrivacyBudgetExceeded:  # the budget filter's documented refusal
        ok = False
    record_outcome(f"register: {'answered' if ok else 'refused'}")
    if not ok:
        assert len(accountant.ledger) == 0  # nothing recorded
    for query, names, check in (
        (lambda: accountant.get_epsilon(delta), ["delta", *ACCOUNTANT_NAMES], assert_epsilon),
        (lambda: accountant.get_delta(epsilon), ["epsilon", *ACCOUNTANT_NAMES], assert_delta),
    ):
        answered, result = attempt(query, names)
        if answered:
            check(result)
    if name != "budget":
        answered, result = attempt(
            lambda: accountant.epsilon_if_registered(event, delta, count), [*REGISTER_NAMES, "delta"]
        )
        if answered:
            assert_epsilon(result)
        before = len(accountant.ledger)
        many, _ = attempt(lambda: accountant.register_many([event, dp_event.GaussianDpEvent(2.0)]), REGISTER_NAMES)
        assert len(accountant.ledger) == before + (2 if many else 0)  # all or nothing


@settings(max_examples=100)
@given(events)
def test_epsilon_delta_of(event):
    answered, result = attempt(lambda: epsilon_delta_of(event), REGISTER_NAMES)
    if answered and result is not None:
        epsilon, delta = result
        assert_epsilon(epsilon)
        assert_delta(delta)


@settings(max_examples=150)
@given(
    st.sampled_from(["pure", "approx", "optimal", "moments", "classic", "pld", "budget"]),
    numbers,
    numbers,
    st.one_of(counts, st.sampled_from(["optimal", "drv", "x", None, "improved", "classic"])),
    st.one_of(
        st.none(),
        st.sampled_from(list(NeighboringRelation)),
        st.sampled_from(["x", 1, "REPLACE_ONE"]),
    ),
)
def test_constructors(kind, first, second, option, relation):
    builders: dict[str, tuple[Callable[[], Any], list[str]]] = {
        "pure": (lambda: PureDpEvent(first), ["PureDpEvent.epsilon"]),
        "approx": (lambda: ApproxDpEvent(first, second), ["ApproxDpEvent.epsilon", "ApproxDpEvent.delta"]),
        "optimal": (
            lambda: AdvancedCompositionAccountant(
                theorem=option if isinstance(option, str) else "optimal",
                max_support=option if not isinstance(option, str) else 10,
            ),
            ["theorem", "max_support"],
        ),
        "moments": (
            lambda: MomentsAccountant(
                orders=None if first is None else [first, second],
                conversion=option,
                neighboring_relation=relation if relation is not None else NeighboringRelation.REPLACE_ONE,
            ),
            ["orders", "conversion", "neighboring_relation"],
        ),
        "classic": (lambda: MomentsAccountant.classic(option), ["max_log_moment_order"]),
        "pld": (
            lambda: PLDAccountant(first, relation if relation is not None else NeighboringRelation.REPLACE_ONE),
            ["value_discretization_interval", "neighboring_relation"],
        ),
        "budget": (
            lambda: BudgetFilter(option if option is not None else ExactGaussianAccountant(), first, second),
            ["accountant", "epsilon", "delta"],
        ),
    }
    if kind == "classic" and isinstance(option, int) and not isinstance(option, bool):
        assume(option <= 10**5)  # a valid huge grid is slow to build, not wrong
    build, names = builders[kind]
    attempt(build, names)


@settings(max_examples=150)
@given(numbers, numbers)
def test_gaussian_dp_functions(first, second):
    for call, names, check in (
        (lambda: gaussian_delta(first, second), ["mu", "epsilon"], assert_delta),
        (lambda: gaussian_epsilon(first, second), ["mu", "delta"], assert_epsilon),
        (lambda: gaussian_mu(first, second), ["epsilon", "delta"], assert_epsilon),
    ):
        answered, result = attempt(call, names)
        if answered:
            check(result)


CHEAP = {name: ACCOUNTANTS[name] for name in ("exact_gaussian", "optimal_composition", "pure")}
CHEAP["rdp"] = lambda: MomentsAccountant(orders=SMALL_ORDERS)
CHEAP["pld"] = lambda: PLDAccountant(1e-3)


@settings(max_examples=120)
@given(
    st.one_of(
        st.lists(st.tuples(participants, events), max_size=3),
        st.sampled_from(["x", None, 3, [LedgerEntry(None, dp_event.GaussianDpEvent(1.0))]]),
    ),
    deltas,
    st.one_of(st.none(), participants),
    st.sampled_from([CHEAP, {"rdp": 3}, "pld", None]),
)
def test_best_epsilon(entries, delta, participant, accountants):
    if isinstance(entries, list) and all(type(item) is tuple for item in entries):
        usable = []
        for who, event in entries:
            try:  # LedgerEntry (another module) checks its own arguments; bad ones are not our subject
                usable.append(LedgerEntry(who, event))
            except (TypeError, ValueError):
                continue
        ledger: object = Ledger(usable)
    else:
        ledger = entries
    if accountants is None:
        assume(not isinstance(ledger, Ledger) or len(ledger) == 0)  # every default accountant: slow, tested elsewhere
    names = ["ledger", "delta", "participant", "accountants", "no accountant supports", *REGISTER_NAMES]
    answered, best = attempt(lambda: best_epsilon(ledger, delta, participant, accountants), names)
    if answered:
        assert_epsilon(best.epsilon)
        for value in best.bounds.values():
            assert_epsilon(value)
    answered, table = attempt(lambda: epsilon_by_accountant(ledger, delta, participant, accountants), names)
    if answered:
        for per_participant in table.values():
            for value in per_participant.values():
                assert_epsilon(value)


@settings(max_examples=100)
@given(
    mostly(st.one_of(st.floats(1e-3, 100.0), st.sampled_from([5e-324, 1e300])), epsilons),
    mostly(st.one_of(st.floats(1e-12, 0.5), st.just(0.0)), deltas),
    mostly(st.sampled_from([1, 10, 1000, 2**53, 10**300]), counts),
    mostly(
        st.sampled_from(["exact_gaussian", "rdp", "pure", "optimal_composition", ExactGaussianAccountant]),
        st.sampled_from(["exact", None, 3, dict, ExactGaussianAccountant()]),
    ),
    mostly(st.sampled_from(["gaussian", "laplace"]), st.sampled_from(["x", None, 1])),
    mostly(st.sampled_from([1e-9, 1e-3, 10.0, 1e-300]), st.sampled_from([0.0, -1.0, NAN, INF, "1e-9"])),
)
def test_calibrate_noise_multiplier(epsilon, delta, count, accountant, mechanism, rtol):
    names = ["epsilon", "delta", "count", "accountant", "mechanism", "rtol", "unreachable", *ACCOUNTANT_NAMES]
    answered, z = attempt(lambda: calibrate_noise_multiplier(epsilon, delta, count, accountant, mechanism, rtol), names)
    record_outcome(f"calibrated: {answered}")
    if answered:
        assert isinstance(z, float) and 0.0 < z < INF


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(), st.text(max_size=4)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    max_leaves=6,
)


@st.composite
def encoded_events(draw: st.DrawFn) -> object:
    """Mappings that look like encoded events: a known type, its fields (or some), odd values."""
    name = draw(st.sampled_from(EVENT_NAMES))
    fields = [field.name for field in attr.fields(EVENT_CLASSES[name])]
    value = st.one_of(
        json_values,
        st.sampled_from([{"float": "nan"}, {"float": "inf"}, {"float": "x"}, {"type": "GaussianDpEvent"}]),
    )
    data: dict[str, object] = {"type": name}
    for field in draw(st.lists(st.sampled_from([*fields, "extra"]), unique=True)):
        data[field] = draw(value)
    return data


@settings(max_examples=150)
@given(st.one_of(json_values, encoded_events()))
def test_event_from_json(data):
    try:
        event = event_from_json(data)
    except ValueError as error:
        assert not any(leak in str(error) for leak in LEAKS), str(error)
    else:
        assert isinstance(event, dp_event.DpEvent)


# ------------------------------------------------------------------------------------------------
# The command line, in-process.
NUMBER_TEXT = mostly(
    st.one_of(st.sampled_from(["0", "1", "10", "0.5", "-0", "1e-300", "1e300", "inf"]), st.floats(0.5, 1e6).map(repr)),
    st.sampled_from(["-1", "nan", "-inf", "1e400", "abc", "", "0x10", "1,5"]),
)
DELTA_TEXT = mostly(
    st.sampled_from(["0", "1e-5", "0.5", "1e-300", "0.999999"]), st.sampled_from(["1", "2", "-0.1", "nan", "x"])
)
COUNT_TEXT = mostly(
    st.sampled_from(["0", "1", "3", "100", "10000000000000", "1" + "0" * 300]),
    st.sampled_from(["-3", "1.5", "abc", "", "9" * 400, "1e3"]),
)
FILES = ["good", "dumped", "torn", "empty", "not_a_ledger", "missing", "directory", "nan_event"]
SOURCES = st.one_of(
    st.tuples(st.sampled_from(["--noise-multiplier", "--pure-epsilon"]), NUMBER_TEXT),
    st.tuples(st.just("--ledger"), st.sampled_from(FILES)),
)
OPTIONS = st.one_of(
    SOURCES,
    st.tuples(st.just("--delta"), DELTA_TEXT),
    st.tuples(st.just("--count"), COUNT_TEXT),
    st.tuples(st.sampled_from(["--json", "--version", "--help", "--bogus", "--noise-multiplier", "-h", "x"])),
)


def _flatten(options: list[tuple[str, ...]]) -> list[str]:
    return [token for option in options for token in option]


ARGVS = mostly(
    st.tuples(SOURCES, st.lists(OPTIONS, max_size=2)).map(lambda drawn: _flatten([drawn[0], *drawn[1]])),
    st.one_of(
        st.lists(OPTIONS, max_size=4).map(_flatten),
        st.tuples(
            st.just("ledger"), st.sampled_from(["repair", "fix", "--help"]), st.sampled_from([*FILES, "--x"])
        ).map(list),
        st.sampled_from([["ledger"], ["ledger", "repair"], ["repair", "good"]]),
    ),
)


def _write_files(folder: Path) -> dict[str, str]:
    good = folder / "run.jsonl"
    ExactGaussianAccountant(ledger_path=good).register(dp_event.GaussianDpEvent(2.0), 3, participant=1)
    bad_entry = {"participant": None, "count": 1, "event": {"type": "LaplaceDpEvent", "noise_multiplier": -1.0}}
    contents = {
        "torn.jsonl": good.read_text() + '{"participant": 1, "co',
        "empty.jsonl": "",
        "notes.txt": "[1, 2]\n",
        "dumped.json": Ledger([LedgerEntry(2, dp_event.LaplaceDpEvent(4.0), 2)]).dumps(),
        "bad.jsonl": '{"schema": "accountants.ledger", "version": 1}\n' + json.dumps(bad_entry) + "\n",
    }
    for file_name, text in contents.items():
        (folder / file_name).write_text(text)
    paths = {
        "good": good,
        "missing": folder / "missing.jsonl",
        "directory": folder,
        "torn": folder / "torn.jsonl",
        "empty": folder / "empty.jsonl",
        "not_a_ledger": folder / "notes.txt",
        "dumped": folder / "dumped.json",
        "nan_event": folder / "bad.jsonl",
    }
    return {key: str(path) for key, path in paths.items()}


@settings(max_examples=150)
@given(ARGVS)
def test_command_line_exits_0_or_2_with_one_line(argv):
    with tempfile.TemporaryDirectory() as folder:
        paths = _write_files(Path(folder))
        argv = [paths.get(token, token) for token in argv]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code: object = main(argv)
            except SystemExit as exit_info:
                code = exit_info.code
    record_outcome(f"exit {code}")
    assert code in (0, 2), (argv, code, err.getvalue())
    if code == 2:
        lines = err.getvalue().splitlines()
        assert len(lines) == 1 and "Traceback" not in lines[0], (argv, err.getvalue())
    else:
        assert out.getvalue(), argv


@pytest.mark.parametrize("value", ["nan", "-1", "inf", "1e-300", "abc"])
def test_command_line_noise_and_epsilon_edges(value):
    for option in ("--noise-multiplier", "--pure-epsilon"):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            try:
                code: object = main([option, value])
            except SystemExit as exit_info:
                code = exit_info.code
        assert code in (0, 2) and (code == 0 or len(err.getvalue().splitlines()) == 1)
