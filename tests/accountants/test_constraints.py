"""Declared parameter constraints (accountants.constraints): one message format, TypeError for a wrong type
and ValueError for a value out of range, declarations that must cover every parameter, and a conformance
check that fails on constructors that break the contract."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from accountants.constraints import (
    AnyOf,
    Anything,
    Boolean,
    Function,
    Instance,
    Integer,
    Interval,
    Items,
    NonNegative,
    OneOf,
    Optional,
    Positive,
    Seed,
    check_parameter_constraints,
    check_parameters,
    parameter_constraints,
    validate_parameters,
)


@validate_parameters(scale=Positive(arrays=True), count=Integer(1), mode=OneOf("a", "b"))
def build(scale: object, count: int = 1, mode: str = "a") -> tuple[object, int, str]:
    return scale, count, mode


def test_valid_arguments_pass_through_unchanged():
    scale = np.array([1.0, 2.0])
    assert build(scale, 3, mode="b")[0] is scale
    assert build(scale) == (scale, 1, "a")  # defaults are the author's, not checked


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"scale": "1"}, TypeError, "scale must be finite and > 0 (a real number or an array of them), got '1'"),
        (
            {"scale": [1.0, -2.0]},
            ValueError,
            "scale must be finite and > 0 (a real number or an array of them), got -2.0 at index (1,)",
        ),
        (
            {"scale": []},
            ValueError,
            "scale must be finite and > 0 (a real number or an array of them), got an empty array of shape (0,)",
        ),
        ({"scale": 1.0, "count": 2.0}, TypeError, "count must be an int >= 1, got 2.0"),
        ({"scale": 1.0, "count": 0}, ValueError, "count must be an int >= 1, got 0"),
        ({"scale": 1.0, "mode": "c"}, ValueError, "mode must be 'a' or 'b', got 'c'"),
        ({"scale": 1.0, "mode": None}, TypeError, "mode must be 'a' or 'b', got None"),
    ],
)
def test_one_message_format_and_one_error_type_per_kind_of_mistake(arguments, error, message):
    with pytest.raises(error) as raised:
        build(**arguments)
    assert type(raised.value) is error and str(raised.value) == message


def test_more_constraints_read_the_same_way():
    cases = [
        (Interval(0, 1, closed="neither", what="a probability"), 1.0, ValueError, "a probability in (0, 1), got 1.0"),
        (Interval(0, 1, closed="left"), "0", TypeError, "a real number in [0, 1), got '0'"),
        (OneOf("x", "y", "z"), "w", ValueError, "one of 'x', 'y', 'z', got 'w'"),
        (Seed(), -1, ValueError, "None, a non-negative int, a numpy.random.SeedSequence or a numpy.random.Generator"),
        (Instance(np.random.BitGenerator, "a numpy.random.BitGenerator"), 3, TypeError, "a numpy.random.BitGenerator"),
        (Optional(Instance(np.random.BitGenerator, "a BitGenerator")), 3, TypeError, "None or a BitGenerator, got 3"),
        (Positive(allow_inf=True), -math.inf, ValueError, "> 0 (inf allowed) (a real number), got -inf"),
        (
            NonNegative(arrays=True),
            [0.0, -1.0],
            ValueError,
            "finite and >= 0 (a real number or an array of them), got -1",
        ),
        (Integer(10, high=1000), 1001, ValueError, "an int >= 10 and <= 1,000, got 1001"),
        (Boolean(), 1, TypeError, "True or False, got 1"),
        (Function("a callable releases -> scores"), 3, TypeError, "a callable releases -> scores, got 3"),
        (Items("an iterable of data sets"), "ab", TypeError, "an iterable of data sets, got 'ab'"),
        (AnyOf(OneOf("auto"), Positive()), "car", ValueError, "'auto' or finite and > 0 (a real number), got 'car'"),
        (AnyOf(OneOf("auto"), Positive()), -1.0, ValueError, "'auto' or finite and > 0 (a real number), got -1.0"),
        (AnyOf(OneOf("auto"), Positive()), None, TypeError, "'auto' or finite and > 0 (a real number), got None"),
        (Positive(), [1.0], TypeError, "finite and > 0 (a real number), got [1.0]"),
        (Positive(), 10**400, ValueError, "finite and > 0 (a real number), got an integer of 1,329 bits"),
    ]
    for constraint, value, error, message in cases:
        with pytest.raises(error) as raised:
            constraint.check(value, "x")
        assert type(raised.value) is error and str(raised.value).startswith(f"x must be {message}")


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_positive_refuses_exactly_the_non_positive_and_non_finite_floats(value):
    problem = Positive(arrays=True).problem(value)
    assert (problem is None) == (math.isfinite(value) and value > 0)
    assert problem is None or problem[0] is ValueError
    assert (Positive(arrays=True).problem(np.array([1.0, value])) is None) == (problem is None)


def test_a_declaration_must_name_every_parameter_and_only_those():
    with pytest.raises(TypeError, match=r"declares constraints for \['a'\], but its parameters are \['a', 'b'\]"):
        validate_parameters(a=Positive())(lambda a, b: None)
    with pytest.raises(TypeError, match=r"declares constraints for \['a', 'c'\]"):
        validate_parameters(a=Positive(), c=Positive())(lambda a: None)
    with pytest.raises(TypeError, match=r"takes \*args or \*\*kwargs: declare named parameters only"):
        validate_parameters(a=Positive())(lambda *a: None)

    class Owner:
        @validate_parameters(a=Positive())
        def __init__(self, a: float) -> None:
            self.a = a

    assert list(parameter_constraints(Owner) or {}) == ["a"]  # self is never declared
    assert parameter_constraints(print) is None


def test_the_conformance_check_counts_its_calls_and_fails_on_a_broken_constructor():
    assert check_parameter_constraints(build) == 13 + 5 + 3

    def unchecked(a: float) -> None:  # declares a constraint it never checks
        pass

    def other_message(a: float) -> None:
        raise TypeError("bad input")

    def wrong_type(a: float) -> None:
        raise ValueError("a must be finite and > 0")

    for function in (unchecked, other_message, wrong_type):
        function.parameter_constraints = {"a": Positive()}  # type: ignore[attr-defined]
    with pytest.raises(AssertionError, match=r"unchecked\(a='1'\) raised nothing"):
        check_parameter_constraints(unchecked)
    with pytest.raises(AssertionError, match=r"TypeError: 'bad input'; expected TypeError starting with 'a must be'"):
        check_parameter_constraints(other_message)
    with pytest.raises(AssertionError, match=r"wrong_type\(a='1'\) raised ValueError: .*; expected TypeError"):
        check_parameter_constraints(wrong_type)
    with pytest.raises(TypeError, match="declares no parameter constraints"):
        check_parameter_constraints(print)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_the_real_kinds_accept_exactly_their_floats(value):
    for constraint, accepted in [
        (Positive(allow_inf=True), value > 0),
        (NonNegative(), math.isfinite(value) and value >= 0),
        (AnyOf(OneOf("auto"), Positive()), math.isfinite(value) and value > 0),
    ]:
        problem = constraint.problem(value)
        assert (problem is None) == accepted
        assert problem is None or problem[0] is ValueError


def test_every_kind_refuses_its_generated_invalid_values_with_their_error():
    kinds = [
        Positive(arrays=True, allow_inf=True),
        NonNegative(arrays=True),
        Integer(1, high=5),
        Boolean(),
        Function(),
        Items("an iterable"),
        AnyOf(OneOf("auto", "fixed"), Positive(arrays=True)),
        Optional(Instance((str, bytes), "a string")),
    ]
    for constraint in kinds:
        assert constraint.problem(constraint.example) is None
        for value, error in constraint.invalid():
            assert (constraint.problem(value) or (None,))[0] is error, (constraint.expected, value)
    assert Anything("any data set").invalid() == () and Anything("any").problem(object()) is None


def test_a_class_level_declaration_is_checked_by_check_parameters_and_found_by_the_conformance_check():
    class Estimator:  # scikit-learn's convention: __init__ stores, fit validates
        parameter_constraints = {"alpha": Positive(), "fit_intercept": Boolean()}

        def __init__(self, alpha: float = 1.0, fit_intercept: bool = True) -> None:
            self.alpha, self.fit_intercept = alpha, fit_intercept

        def fit(self) -> Estimator:
            check_parameters(self)
            return self

    assert parameter_constraints(Estimator) is Estimator.parameter_constraints
    Estimator(alpha=-1.0)  # stored, not checked
    with pytest.raises(ValueError, match=r"^alpha must be finite and > 0 \(a real number\), got -1.0$"):
        Estimator(alpha=-1.0).fit()
    assert check_parameter_constraints(Estimator, Estimator.fit) == 9 + 3
    with pytest.raises(AssertionError, match="raised nothing"):
        check_parameter_constraints(Estimator)  # without fit nothing is checked
