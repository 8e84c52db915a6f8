"""Every public constructor of mechanisms and solvers, every estimator, and the audit entry points declare a
constraint for every parameter (accountants.constraints); a generated invalid value of any parameter raises
TypeError (wrong type) or ValueError (out of range) with a message naming it, and the same bad input raises
the same error in every family. A public name of these packages that constructs something without a
declaration fails here (it must be declared, or listed below with the reason it is not)."""

from __future__ import annotations

import dataclasses
import inspect
import math

import numpy as np
import pytest

import mechanisms
import solvers
from accountants.constraints import Constraint, check_parameter_constraints, parameter_constraints
from audits import Claim, assert_private, audit
from audits.testing import bound_confidence, configure
from solvers.engine.backends import RayBackend

#: Public names of mechanisms that construct nothing, each with why.
MECHANISMS_NOT_DECLARED = {
    "__version__": "a string",
    "Mechanism": "abstract base, no parameters",
    "AccountedMechanism": "abstract base, no parameters",
    "begin_release": "checks the generator at each release (TypeError naming rng, tested in test_base)",
}

#: Public names of solvers without a declaration, each with why.
SOLVERS_NOT_DECLARED = {
    "__version__": "a string",
    "DEFAULT_ACCOUNTANTS": "a constant",
    "Solver": "abstract base of the families (declares parameter_constraints = {})",
    "HorizontalSolver": "abstract base of the families on records",
    "Regularizer": "abstract base",
    "Topology": "abstract base",
    "MarginLoss": "abstract base",
    "AgentFailure": "an exception the agent backends raise",
    "Result": "built by Solver.run, never by a user",
    "Transcript": "built by Solver.run, never by a user",
    "Channel": "built by Solver.run, never by a user",
    "RunPlan": "built by a family's plan, never by a user",
    "Optimum": "built by centralized_optimum",
    "HorizontalProblem": "data: arrays checked against each other (shapes, labels, row norms) by solvers.datasets",
    "DecentralizedProblem": "data: as HorizontalProblem, with the graph's size checked against the agents",
    "VerticalProblem": "data: the feature blocks checked against each other by solvers.sharing.data",
    "GraphTopology": "a graph: its adjacency matrix checked as a whole (0/1, symmetric, no loops, connected)",
    "centralized_optimum": "a computation on a problem, not a constructor",
    "regularized_erm": "a computation on arrays, not a constructor",
    "debiased_loss": "a computation, not a constructor",
    "dpadmm_sensitivity": "a schedule of Lemma 1 computed from a problem's public constants",
    "estimate_dw": "a computation on a problem's public rows",
    "eta_theorem3": "a step-size schedule computed from a problem's public constants",
    "eta_theorem4": "a step-size schedule computed from a problem's public constants",
    "joint_label_epsilon": "a computation, not a constructor",
    "naive_sensitivity": "a sensitivity computed from a problem's public constants",
    "partition_vertical": "splits arrays (checked by solvers.datasets)",
    "plot_history": "draws a Result",
    "randomize_labels": "a computation on labels, not a constructor",
}


def parameters(constructor: object) -> list[str]:
    """The parameters a user passes: a dataclass's fields, else the signature (without self/cls)."""
    if dataclasses.is_dataclass(constructor):
        return [field.name for field in dataclasses.fields(constructor) if field.init]
    target = constructor.__init__ if inspect.isclass(constructor) else constructor
    return [p for p in inspect.signature(target).parameters if p not in ("self", "cls")]


def mechanism_constructors() -> dict[str, object]:
    found: dict[str, object] = {}
    for name in sorted(set(mechanisms.__all__) - set(MECHANISMS_NOT_DECLARED)):
        value = getattr(mechanisms, name)
        found[f"mechanisms.{name}"] = value
        if inspect.isclass(value):
            for attribute, member in vars(value).items():
                if isinstance(member, classmethod) and not attribute.startswith("_"):
                    found[f"mechanisms.{name}.{attribute}"] = getattr(value, attribute)
    return found


def solver_constructors() -> dict[str, object]:
    """Every public class of solvers that takes parameters (those that take none need no declaration)."""
    found: dict[str, object] = {}
    for name in sorted(set(solvers.__all__) - set(SOLVERS_NOT_DECLARED)):
        value = getattr(solvers, name)
        if inspect.isclass(value) and not parameters(value):
            continue
        found[f"solvers.{name}"] = value
    found["solvers.engine.backends.RayBackend"] = RayBackend
    return found


ESTIMATORS = ("DPADMMClassifier", "DecentralizedClassifier", "PDMLClassifier", "VerticalLogisticRegression")
AUDITS = {
    "audits.Claim": Claim,
    "audits.audit": audit,
    "audits.assert_private": assert_private,
    "audits.testing.configure": configure,
    "audits.testing.bound_confidence": bound_confidence,
}
REGISTRY = {**mechanism_constructors(), **solver_constructors(), **AUDITS}


def fit(estimator: object) -> object:
    """An estimator validates its parameters at the top of fit (scikit-learn's convention)."""
    X = np.array([[0.1, 0.2], [0.3, -0.1], [-0.2, 0.1], [0.0, -0.3]])
    return estimator.fit(X, np.array([0, 1, 0, 1]))  # type: ignore[attr-defined]


def test_the_registry_covers_the_packages_public_constructors():
    assert {"mechanisms.GaussianMechanism.from_epsilon_delta", "mechanisms.make_rng"} <= set(REGISTRY)
    assert {f"solvers.{name}" for name in ESTIMATORS} <= set(REGISTRY)
    assert {"solvers.DPADMM", "solvers.MRADMM", "solvers.PDML", "solvers.ADMMSharing"} <= set(REGISTRY)
    assert not set(SOLVERS_NOT_DECLARED) - set(solvers.__all__), "an exemption names no public name"
    assert not set(MECHANISMS_NOT_DECLARED) - set(mechanisms.__all__), "an exemption names no public name"


@pytest.mark.parametrize(("name", "constructor"), sorted(REGISTRY.items()))
def test_every_parameter_is_declared_and_refuses_generated_invalid_values(name, constructor):
    declared = parameter_constraints(constructor)  # type: ignore[arg-type]
    assert declared is not None, f"{name} declares no parameter constraints"
    assert sorted(declared) == sorted(parameters(constructor)), f"{name}: declared and actual parameters differ"
    assert all(c.problem(c.example) is None for c in declared.values()), f"{name}: an example is refused"
    then = fit if name.removeprefix("solvers.") in ESTIMATORS else None
    expected = sum(len(constraint.invalid()) for constraint in declared.values())
    assert check_parameter_constraints(constructor, then) == expected > 0  # type: ignore[arg-type]


#: The same bad input, the same error, in every family that takes the parameter.
SAME_MISTAKES = [
    ("n_iterations", 2.5, TypeError),
    ("n_iterations", 0, ValueError),
    ("epsilon", "1", TypeError),
    ("epsilon", -1.0, ValueError),
    ("delta", 1.0, ValueError),
    ("delta", None, TypeError),
    ("tol", math.nan, ValueError),
    ("rho", True, TypeError),
    ("seed", -1, ValueError),
    ("seed", 1.5, TypeError),
    ("clip", 1, TypeError),
]


@pytest.mark.parametrize(("parameter", "value", "error"), SAME_MISTAKES)
def test_the_same_mistake_raises_the_same_error_in_every_family(parameter, value, error):
    takers = {name: c for name, c in REGISTRY.items() if parameter in (parameter_constraints(c) or {})}  # type: ignore[arg-type]
    assert takers
    for name, constructor in takers.items():
        declared: dict[str, Constraint] = dict(parameter_constraints(constructor) or {})  # type: ignore[arg-type]
        arguments = {key: constraint.example for key, constraint in declared.items()}
        then = fit if name.removeprefix("solvers.") in ESTIMATORS else (lambda made: made)
        with pytest.raises(error, match=f"^{parameter} must be ") as raised:
            then(constructor(**{**arguments, parameter: value}))  # type: ignore[operator]
        assert type(raised.value) is error, name


def test_the_audit_entry_points_refuse_before_the_mechanism_runs():
    def never_called(dataset, rng, n):
        raise AssertionError("the mechanism ran although an argument was bad")

    claim = Claim(epsilon=1.0, delta=1e-5, noise="gaussian")
    for entry in (audit, assert_private):
        with pytest.raises(TypeError, match="^batched must be True or False, got 'yes'$"):
            entry(never_called, 0.0, 1.0, claim=claim, batched="yes")
