"""A third party's audit target, as a user would write it outside the toolkit: one Gaussian release
of a data set's mean with noise N(0, 1) and sensitivity 1 (μ = 1, Dong, Roth & Su 2022)."""

from types import SimpleNamespace

import numpy as np
from dp_accounting.dp_event import GaussianDpEvent

from accountants.ledger import Ledger, LedgerEntry
from attacks.base import ScoreAttack
from audits.spec import AuditSpec, Claim


class GaussianMean:
    """The mechanism: releases problem + N(0, 1) once per trial seed."""

    def run(self, problem, *, seeds, accountants, record_history):
        model = np.array([np.random.default_rng(s).normal(problem, 1.0) for s in seeds])
        return SimpleNamespace(model=model, info={})

    def get_params(self):
        return {"sigma": 1.0}


def build(epsilon, delta, quick):
    """A Gaussian mean, μ = 1 (tests/audits/tiny_target.py)."""
    return AuditSpec(
        name="gaussian-mean",
        solver=GaussianMean(),
        problem_in=1.0,
        problem_out=0.0,
        participant="user",
        attacks=(ScoreAttack("identity", lambda result: result.model),),
        claim=Claim(
            statement="one Gaussian release with σ = Δ = 1 is 1-GDP",
            delta=delta,
            bound="exact_gaussian",
            noise="gaussian",
        ),
        canary="the mean moves by the sensitivity 1",
        epsilon_meaning="no privacy parameter: σ = 1",
        trials=200,
        quick_trials=100,
        ledger=Ledger([LedgerEntry(participant="user", event=GaussianDpEvent(noise_multiplier=1.0), iteration=1)]),
    )


fixed = build(None, 1e-5, False)
NOT_A_TARGET = 42


def returns_the_wrong_thing(epsilon, delta, quick):
    """Returns a number, not an AuditSpec."""
    return 42
