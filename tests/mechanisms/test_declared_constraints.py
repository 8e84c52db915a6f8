"""Every public constructor of the mechanisms package declares a constraint for every parameter, and an
invalid value of any parameter raises TypeError (wrong type) or ValueError (out of range) naming it."""

from __future__ import annotations

import inspect

import pytest

import mechanisms
from accountants.constraints import check_parameter_constraints, parameter_constraints

#: Public names that construct nothing, each with why.
NOT_CONSTRUCTORS = {
    "__version__": "a string",
    "Mechanism": "abstract base, no parameters",
    "AccountedMechanism": "abstract base, no parameters",
    "begin_release": "checks the generator at each release (TypeError naming rng, tested in test_base)",
}


def constructors() -> dict[str, object]:
    found: dict[str, object] = {}
    for name in sorted(set(mechanisms.__all__) - set(NOT_CONSTRUCTORS)):
        value = getattr(mechanisms, name)
        found[name] = value
        if inspect.isclass(value):
            for attribute, member in vars(value).items():
                if isinstance(member, classmethod) and not attribute.startswith("_"):
                    found[f"{name}.{attribute}"] = getattr(value, attribute)
    return found


def test_the_constructors_are_the_ones_expected():
    assert sorted(constructors()) == [
        "GammaNormMechanism",
        "GaussianMechanism",
        "GaussianMechanism.from_epsilon_delta",
        "GaussianMechanism.from_noise_multiplier",
        "LaplaceMechanism",
        "RandomizedResponse",
        "SecureReseedingGenerator",
        "analytic_gaussian_sigma",
        "classic_gaussian_sigma",
        "make_rng",
        "spawn_rngs",
    ]


@pytest.mark.parametrize(("name", "constructor"), sorted(constructors().items()))
def test_every_parameter_is_declared_and_refuses_generated_invalid_values(name, constructor):
    declared = parameter_constraints(constructor)
    assert declared is not None, f"{name} declares no parameter constraints"
    target = constructor.__init__ if inspect.isclass(constructor) else constructor
    parameters = [p for p in inspect.signature(target).parameters if p not in ("self", "cls")]
    assert list(declared) == parameters
    assert check_parameter_constraints(constructor) >= 3 * len(parameters)
