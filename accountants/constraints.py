"""Declared parameter constraints: what each argument of a public constructor must be, written once.

In the spirit of scikit-learn's ``_parameter_constraints`` (Pedregosa et al. 2011, "Scikit-learn: machine
learning in Python", JMLR 12): a constructor declares one :class:`Constraint` per parameter with
:func:`validate_parameters`, and every argument it is given is checked against that declaration before the
body runs. One message format and one error type per kind of mistake, whatever the package:

- ``TypeError`` when the argument has the wrong type (a string, a bool, a complex, ``None`` where a number
  is expected), and ``ValueError`` when it has the right type but is out of range (NaN, infinite, <= 0,
  an empty array, an unknown option);
- the message reads ``"{name} must be {expected}, got {what}"``: the parameter, what it must be (the same
  words for both kinds), and the offending value (for an array: the first bad entry and its index).

Each constraint also gives a valid example and generated invalid values with the error each must raise,
so :func:`check_parameter_constraints` can call any declared constructor with an invalid value for every
parameter and assert the error type and that the message names the parameter.

Validation only: a constraint never converts or clips an argument; the body receives it as passed.
"""

from __future__ import annotations

import abc
import functools
import inspect
import math
import numbers
import reprlib
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, ParamSpec, TypeVar

import numpy as np

__all__ = [
    "AnyOf",
    "Anything",
    "Boolean",
    "Constraint",
    "Function",
    "Instance",
    "Integer",
    "Interval",
    "Items",
    "NonNegative",
    "OneOf",
    "Optional",
    "PRIVACY_EPSILON",
    "PROBABILITY",
    "Positive",
    "Seed",
    "check_parameter_constraints",
    "check_parameters",
    "parameter_constraints",
    "validate_parameters",
]

P = ParamSpec("P")
R = TypeVar("R")
#: The attribute :func:`validate_parameters` sets on the function it returns.
ATTRIBUTE = "parameter_constraints"
#: The first parameter of a method, never declared.
RECEIVERS = ("self", "cls")


def shown(value: object) -> str:
    """``repr(value)``, shortened for long containers and strings; an integer too long to print by its size."""
    if isinstance(value, numbers.Integral) and int(value).bit_length() > 128:
        return f"an integer of {int(value).bit_length():,} bits"
    return reprlib.repr(value)


class Constraint(abc.ABC):
    """What one parameter must be: ``expected`` completes "{name} must be ...".

    Subclasses implement :meth:`problem` (the error, or ``None`` when the value is valid), give a valid
    :attr:`example` and :meth:`invalid` values for the conformance check.
    """

    expected: str
    example: object

    @abc.abstractmethod
    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        """``None`` if ``value`` is valid, else (``TypeError`` or ``ValueError``, what was got)."""

    @abc.abstractmethod
    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        """Values this constraint refuses, each with the error type it raises."""

    def check(self, value: object, name: str) -> None:
        """Raise the error of :meth:`problem`, in the one message format, if ``value`` is invalid."""
        found = self.problem(value)
        if found is not None:
            error, got = found
            raise error(f"{name} must be {self.expected}, got {got}")


def real_number(value: object) -> bool:
    """A real number other than a bool (Python or numpy)."""
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Real)


class Positive(Constraint):
    """A finite real number > 0 (``allow_inf``: or +inf); with ``arrays=True`` also a non-empty array whose
    entries all are."""

    example = 1.0
    #: What every entry must be, completing "must be ...".
    entries = "finite and > 0"

    def __init__(self, arrays: bool = False, *, allow_inf: bool = False) -> None:
        self.arrays, self.allow_inf = arrays, allow_inf
        entries = "> 0 (inf allowed)" if allow_inf else self.entries
        self.expected = entries + (" (a real number or an array of them)" if arrays else " (a real number)")

    def accepts(self, array: np.ndarray) -> np.ndarray:
        """Which entries of a real ``array`` are valid."""
        accepted: np.ndarray = (array > 0) & (np.isfinite(array) | (self.allow_inf & (array == math.inf)))
        return accepted

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        if real_number(value):
            try:
                number = float(value)  # type: ignore[arg-type]  # a numbers.Real
            except OverflowError:  # an int beyond the largest float
                return ValueError, shown(value)
            return None if self.accepts(np.float64(number)) else (ValueError, shown(value))
        if not self.arrays or isinstance(value, (str, bytes)) or value is None:
            return TypeError, shown(value)
        try:
            array = np.asarray(value)
        except (TypeError, ValueError):  # ragged nested sequences
            return TypeError, shown(value)
        if array.dtype.kind not in "iuf":
            return TypeError, f"{shown(value)} (dtype {array.dtype})"
        if array.size == 0:
            return ValueError, f"an empty array of shape {array.shape}"
        with np.errstate(invalid="ignore", over="ignore"):
            bad = ~self.accepts(array)
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            return ValueError, f"{array[index].item()!r} at index {index}"
        return None

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        wrong_type: tuple[object, ...] = ("1", True, 1 + 2j, None)
        out_of_range: tuple[object, ...] = (-1.0, math.nan) + (() if self.allow_inf else (math.inf,))
        out_of_range += () if self.accepts(np.float64(0.0)) else (0.0,)
        if self.arrays:
            wrong_type += (["1"], [True])
            out_of_range += ([], [1.0, -1.0], [1.0, math.nan])
        else:
            wrong_type += ([1.0],)
        return tuple((v, TypeError) for v in wrong_type) + tuple((v, ValueError) for v in out_of_range)


class NonNegative(Positive):
    """A finite real number >= 0; with ``arrays=True`` also a non-empty array whose entries all are."""

    entries = "finite and >= 0"

    def __init__(self, arrays: bool = False) -> None:
        super().__init__(arrays)

    def accepts(self, array: np.ndarray) -> np.ndarray:
        accepted: np.ndarray = (array >= 0) & np.isfinite(array)
        return accepted


class Interval(Constraint):
    """A real number in an interval, e.g. ``Interval(0, 1, closed="neither")`` for δ in (0, 1)."""

    def __init__(self, low: float, high: float, closed: str = "both", what: str = "a real number") -> None:
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither', got {closed!r}")
        self.low, self.high, self.closed = low, high, closed
        left = "[" if closed in ("both", "left") else "("
        right = "]" if closed in ("both", "right") else ")"
        self.expected = f"{what} in {left}{low:g}, {high:g}{right}"
        finite = math.isfinite(low) and math.isfinite(high)
        self.example = (low + high) / 2 if finite else (low if closed in ("both", "left") else low + 1)

    def contains(self, number: float) -> bool:
        above = number >= self.low if self.closed in ("both", "left") else number > self.low
        below = number <= self.high if self.closed in ("both", "right") else number < self.high
        return above and below

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        if not real_number(value):
            return TypeError, shown(value)
        return None if self.contains(float(value)) else (ValueError, shown(value))  # type: ignore[arg-type]

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        edges = [x for x in (self.low, self.high) if not self.contains(x)]
        return (("0.5", TypeError), (True, TypeError), (None, TypeError), (math.nan, ValueError)) + tuple(
            (x, ValueError) for x in [*edges, self.low - 1, self.high + 1]
        )


class Integer(Constraint):
    """An int (or numpy integer; never a bool) >= ``low`` and, if given, <= ``high``; ``expected`` replaces the
    words "an int >= low and <= high" (e.g. to say what the number counts)."""

    def __init__(self, low: int, high: int | None = None, expected: str | None = None) -> None:
        self.low, self.high = low, high
        self.expected = expected or f"an int >= {low}" + ("" if high is None else f" and <= {high:,}")
        self.example = low

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            return TypeError, shown(value)
        number = int(value)
        return None if self.low <= number and (self.high is None or number <= self.high) else (ValueError, shown(value))

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        above = () if self.high is None else ((self.high + 1, ValueError),)
        return (
            (2.5, TypeError),
            (True, TypeError),
            ("3", TypeError),
            (None, TypeError),
            (self.low - 1, ValueError),
            *above,
        )


class OneOf(Constraint):
    """One of a few strings, e.g. a calibration's name."""

    def __init__(self, *options: str) -> None:
        self.options = options
        quoted = [repr(option) for option in options]
        self.expected = " or ".join(quoted) if len(quoted) <= 2 else "one of " + ", ".join(quoted)
        self.example = options[0]

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        if not isinstance(value, str):
            return TypeError, shown(value)
        return None if value in self.options else (ValueError, shown(value))

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        return ((1, TypeError), (None, TypeError), ("no such option", ValueError))


class Optional(Constraint):
    """``None`` (e.g. "keep the current value") or what ``constraint`` accepts."""

    example = None

    def __init__(self, constraint: Constraint) -> None:
        self.constraint = constraint
        self.expected = f"None or {constraint.expected}"

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        return None if value is None else self.constraint.problem(value)

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        return tuple((value, error) for value, error in self.constraint.invalid() if value is not None)


class Seed(Constraint):
    """What seeds a generator: ``None`` (OS entropy), a non-negative int, a ``numpy.random.SeedSequence`` or a
    ``numpy.random.Generator``."""

    expected = "None, a non-negative int, a numpy.random.SeedSequence or a numpy.random.Generator"
    example = 0

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        if value is None or isinstance(value, (np.random.SeedSequence, np.random.Generator)):
            return None
        return Integer(0).problem(value)

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        wrong_type = (1.5, True, "0", np.random.RandomState(0))
        return (*((value, TypeError) for value in wrong_type), (-1, ValueError))


class Instance(Constraint):
    """An instance of a type (or of one of a tuple of types), e.g. a ``numpy.random.BitGenerator``; ``example``
    is a valid one, for the conformance check (``None`` when the constraint is wrapped in :class:`Optional`)."""

    def __init__(self, kind: type | tuple[type, ...], expected: str, example: object = None) -> None:
        self.kind = kind
        self.expected = expected
        self.example = example

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        return None if isinstance(value, self.kind) else (TypeError, shown(value))

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        return tuple((value, TypeError) for value in (None, 1, "x", object()) if not isinstance(value, self.kind))


class Boolean(Constraint):
    """``True`` or ``False`` (a Python or numpy bool, never 0/1 or a string)."""

    expected = "True or False"
    example = False

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        return None if isinstance(value, (bool, np.bool_)) else (TypeError, shown(value))

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        return ((1, TypeError), ("True", TypeError), (None, TypeError))


class Function(Constraint):
    """A callable, e.g. ``Function("a callable releases -> scores")``."""

    def __init__(self, expected: str = "a callable") -> None:
        self.expected = expected
        self.example = print

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        return None if callable(value) else (TypeError, shown(value))

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        return ((1, TypeError), ("f", TypeError), (None, TypeError))


class Items(Constraint):
    """An iterable other than a string, e.g. ``Items("an iterable of candidate data sets")``."""

    example = ()

    def __init__(self, expected: str) -> None:
        self.expected = expected

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        iterable = isinstance(value, Iterable) and not isinstance(value, (str, bytes))
        return None if iterable else (TypeError, shown(value))

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        return ((1, TypeError), ("ab", TypeError), (None, TypeError))


class Anything(Constraint):
    """Any value (e.g. a data set in whatever form the user's code takes): declared, so it is said aloud, and
    never refused."""

    example = None

    def __init__(self, expected: str) -> None:
        self.expected = expected

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        return None

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        return ()


class AnyOf(Constraint):
    """What any of ``constraints`` accepts, e.g. a rule's name or a number. A refused value raises
    ``ValueError`` if it has a type one of them accepts, else ``TypeError``."""

    def __init__(self, *constraints: Constraint) -> None:
        self.constraints = constraints
        self.expected = " or ".join(constraint.expected for constraint in constraints)
        self.example = constraints[0].example

    def problem(self, value: object) -> tuple[type[Exception], str] | None:
        found = [constraint.problem(value) for constraint in self.constraints]
        if any(problem is None for problem in found):
            return None
        errors = {problem[0] for problem in found if problem is not None}
        return (TypeError if errors == {TypeError} else ValueError), shown(value)

    def invalid(self) -> tuple[tuple[object, type[Exception]], ...]:
        generated = [value for constraint in self.constraints for value, _ in constraint.invalid()]
        refused = [(value, self.problem(value)) for value in generated]
        return tuple((value, problem[0]) for value, problem in refused if problem is not None)


#: A probability strictly between 0 and 1: δ of an (ε, δ) guarantee, the confidence of a bound.
PROBABILITY = Interval(0, 1, closed="neither", what="a probability")
#: ε of a privacy guarantee or budget: > 0, or inf for none (the noise switched off).
PRIVACY_EPSILON = Positive(allow_inf=True)


def validate_parameters(**constraints: Constraint) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Declare the constraint of every parameter of a function or method; each call checks its arguments.

    Every parameter but ``self``/``cls`` must be declared, and only those: a declaration that misses one or
    names an unknown one is refused when the module is imported (``TypeError``), as is ``*args``/``**kwargs``.
    Defaults are not checked (they are the author's); positional arguments are checked in order, then keyword
    arguments as given, and all are passed on unchanged.
    The declaration is readable with :func:`parameter_constraints`.
    """

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        parameters = inspect.signature(function).parameters
        declared = [name for name in parameters if name not in RECEIVERS]
        if sorted(declared) != sorted(constraints):
            raise TypeError(
                f"{function.__qualname__} declares constraints for {sorted(constraints)}, "
                f"but its parameters are {declared}"
            )
        variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        if any(parameter.kind in variadic for parameter in parameters.values()):
            raise TypeError(f"{function.__qualname__} takes *args or **kwargs: declare named parameters only")
        ordered = {name: constraints[name] for name in declared}
        by_position = [ordered.get(name) for name in parameters]  # None for self/cls

        @functools.wraps(function)
        def checked(*args: P.args, **kwargs: P.kwargs) -> R:
            # positional arguments by position, then keywords as given (an unknown keyword is left to Python)
            for name, constraint, value in zip(parameters, by_position, args, strict=False):
                if constraint is not None:
                    constraint.check(value, name)
            for name, value in kwargs.items():
                if name in ordered:
                    ordered[name].check(value, name)
            return function(*args, **kwargs)

        setattr(checked, ATTRIBUTE, MappingProxyType(ordered))
        return checked

    return decorate


def parameter_constraints(function: Callable[..., Any]) -> Mapping[str, Constraint] | None:
    """The declaration of ``function``: what :func:`validate_parameters` attached to it or, for a class, to its
    ``__init__``, else the class's own mapping ``parameter_constraints`` (see :func:`check_parameters`);
    ``None`` when it has none."""
    found = getattr(function.__init__ if inspect.isclass(function) else function, ATTRIBUTE, None)
    if found is None and inspect.isclass(function):
        found = getattr(function, ATTRIBUTE, None)
    return found if isinstance(found, Mapping) else None


def check_parameters(owner: object) -> None:
    """Check the parameters ``owner`` holds against its class's declaration, the class attribute
    ``parameter_constraints`` (a mapping from attribute name to :class:`Constraint`), in the one message format.

    For a frozen dataclass (its ``__post_init__``) and for a scikit-learn estimator, whose ``__init__`` only
    stores its arguments and whose ``fit`` validates them (Buitinck et al. 2013, "API design for machine
    learning software: experiences from the scikit-learn project"). A subclass that adds parameters
    declares ``parameter_constraints = {**Base.parameter_constraints, ...}``.

    Raises:
      TypeError / ValueError: a parameter breaks its constraint (the message names it).
    """
    for name, constraint in getattr(type(owner), ATTRIBUTE).items():
        constraint.check(getattr(owner, name), name)


def check_parameter_constraints(
    function: Callable[..., Any], then: Callable[[Any], object] | None = None, /, **valid: object
) -> int:
    """Call ``function`` with a generated invalid value for every declared parameter, the others valid.

    The other arguments are ``valid[name]`` when given, else the constraint's example. ``then``, if given, is
    called on what ``function`` returns (e.g. ``lambda estimator: estimator.fit(X, y)`` for an estimator,
    which validates its parameters in ``fit``). Each call must raise the error type the constraint gives for
    that value, with a message that starts with "{name} must be". Returns how many invalid calls were checked.

    Raises:
      AssertionError: a call raised nothing, another error type, or a message not naming the parameter.
      TypeError: ``function`` declares no constraints.
    """
    constraints = parameter_constraints(function)
    if constraints is None:
        raise TypeError(f"{getattr(function, '__qualname__', function)!r} declares no parameter constraints")
    base = {name: valid.get(name, constraint.example) for name, constraint in constraints.items()}
    checked = 0
    for name, constraint in constraints.items():
        for value, error in constraint.invalid():
            try:
                made = function(**{**base, name: value})
                if then is not None:
                    then(made)
            except (TypeError, ValueError) as raised:
                message = str(raised)
                if type(raised) is not error or not message.startswith(f"{name} must be "):
                    raise AssertionError(
                        f"{function.__qualname__}({name}={shown(value)}) raised {type(raised).__name__}: "
                        f"{message!r}; expected {error.__name__} starting with {name + ' must be'!r}"
                    ) from raised
            else:
                raise AssertionError(f"{function.__qualname__}({name}={shown(value)}) raised nothing")
            checked += 1
    return checked
