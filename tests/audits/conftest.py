"""Shared audit test fixtures: deterministic score samples (no flakiness: quantile grids), the third party's
target module, the toy audit of a Gaussian mean, and reports compared without their run time."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from attacks.base import ScoreAttack
from audits.spec import AuditSpec, Claim

HERE = Path(__file__).resolve().parent


def gaussian_quantiles(n: int, loc: float = 0.0) -> np.ndarray:
    """n scores at the quantiles (i + ½)/n of N(loc, 1): a sample without sampling noise."""
    return loc + stats.norm.ppf((np.arange(n) + 0.5) / n)


@pytest.fixture(scope="session")
def gaussian_1e5():
    """N(1, 1) vs N(0, 1) scores, 10^5 deterministic quantiles per side (μ = 1)."""
    return gaussian_quantiles(100_000, 1.0), gaussian_quantiles(100_000, 0.0)


@pytest.fixture(scope="session")
def quantiles():
    """The :func:`gaussian_quantiles` helper, for tests that need other sizes or shifts."""
    return gaussian_quantiles


@pytest.fixture(scope="session")
def tiny_target():
    """The third party's target module (tests/audits/tiny_target.py), imported as a user would: by its folder."""
    sys.path.insert(0, str(HERE))
    try:
        import tiny_target
    finally:
        sys.path.remove(str(HERE))
    return tiny_target


@pytest.fixture(scope="session")
def mean_spec():
    """``mean_spec(name, solver, epsilon)``: the unaccounted audit of ``solver``, a Gaussian mean that releases
    problem + N(0, 1) (D = 1, D′ = 0: 1-GDP), against a claimed ε, with the identity as its attack."""

    def build(name, solver, epsilon):
        return AuditSpec(
            name=name,
            solver=solver,
            problem_in=1.0,
            problem_out=0.0,
            participant="user",
            attacks=(ScoreAttack("identity", lambda result: result.model),),
            claim=Claim(statement=f"1-GDP, claimed as ε = {epsilon:g}", delta=1e-5, epsilon=epsilon, noise="gaussian"),
            canary="the mean moves by 1",
            epsilon_meaning="no privacy parameter",
            accounted=False,
        )

    return build


@pytest.fixture(scope="session")
def without_runtime():
    """``without_runtime(result)``: an audit's report as sorted JSON without its ``runtime_seconds``, to compare
    two runs byte for byte."""

    def text(result):
        report = dict(result.report)
        report.pop("runtime_seconds")
        return json.dumps(report, sort_keys=True, default=str)

    return text
