"""audits.verdict: verdicts and tightness against every upper bound; the custom-runner hook."""

import math

import numpy as np
import pytest

from attacks.base import AttackScores
from audits import registry
from audits.run import run_audit
from audits.stats import LowerBound
from audits.stats.bounds import CONDITIONAL_ON_GDP
from audits.verdict import assemble_report, verdicts


def _bound(epsilon, method="clopper-pearson", **kw):
    return LowerBound(epsilon=epsilon, delta=1e-5, confidence=0.95, method=method, correction="split", **kw)


def _report(lower, upper, claimed="paper"):
    scores = AttackScores("toy", np.array([1.0, 2.0, 3.0]), np.array([0.0, 0.5, 1.0]))
    return assemble_report(
        solver="toy",
        solver_object=object(),
        trials=3,
        delta=1e-5,
        confidence=0.95,
        seed=0,
        lower=lower,
        upper=upper,
        claimed=claimed,
        claim="a claim",
        attacks=[scores],
        epsilon_meaning="total ε",
        canary="none",
        sections=[{"title": "Extra", "markdown": "text", "data": {"x": 1}}],
    )


def test_verdict_flags_exactly_the_bounds_below_the_best_lower_bound():
    lower = {"clopper_pearson": _bound(1.0), "gdp": _bound(2.5, "gdp", mu=1.0, assumption=CONDITIONAL_ON_GDP)}
    assert verdicts(lower, {"paper": 2.0, "rdp": 3.0, "none": None}) == {
        "paper": "VIOLATION",
        "rdp": "consistent",
        "none": "consistent",
    }
    report = _report(lower, {"rdp": 3.0, "paper": 2.0, "pure": math.inf})
    assert report["verdict"] == "VIOLATION"
    assert report["claimed_epsilon"] == 2.0
    assert list(report["epsilon_upper"]) == ["paper", "rdp", "pure"]  # sorted by value
    assert report["violated_by"]["paper"] == ["gdp"]
    assert report["tightness"] == {"clopper_pearson": 0.5, "gdp": 1.25}
    assert report["tightness_by_bound"]["pure"] == {"clopper_pearson": None, "gdp": None}
    assert report["lower_bounds"]["gdp"]["assumption_short"] == "conditional on GDP"
    assert report["lower_bounds"]["clopper_pearson"]["assumption_short"] == "worst case"


def test_consistent_when_every_lower_bound_is_below_every_upper_bound():
    report = _report({"clopper_pearson": _bound(0.4)}, {"paper": 2.0, "rdp": 0.5})
    assert report["verdict"] == "consistent" and report["tightness"]["clopper_pearson"] == pytest.approx(0.8)


def test_claimed_must_name_an_upper_bound():
    with pytest.raises(ValueError, match="claimed must be one of the upper bounds"):
        _report({"clopper_pearson": _bound(0.4)}, {"rdp": 0.5}, claimed="paper")


def test_run_audit_builds_the_targets_spec_and_runs_it(monkeypatch, tmp_path):
    from types import SimpleNamespace

    from dp_accounting.dp_event import GaussianDpEvent

    from accountants.ledger import Ledger, LedgerEntry
    from attacks.base import ScoreAttack
    from audits.spec import AuditSpec, Claim, Finding

    class Mechanism:  # one release N(problem, 1)
        def run(self, problem, *, seeds, accountants, record_history):
            return SimpleNamespace(model=np.array([np.random.default_rng(s).normal(problem) for s in seeds]), info={})

    calls = []

    def spec(epsilon, delta, quick):
        calls.append((epsilon, delta, quick))
        return AuditSpec(
            name="toy",
            solver=Mechanism(),
            problem_in=1.0,
            problem_out=0.0,
            participant=0,
            attacks=(ScoreAttack("identity", lambda result: result.model),),
            claim=Claim(statement="1-GDP", delta=delta, bound="exact_gaussian", noise="gaussian"),
            canary="a shift of 1",
            epsilon_meaning="none",
            trials=50,
            quick_trials=20,
            sections=(lambda context: Finding(section={"title": "Extra", "markdown": "text", "data": {}}),),
            ledger=Ledger([LedgerEntry(participant=0, event=GaussianDpEvent(noise_multiplier=1.0), iteration=1)]),
        )

    monkeypatch.setitem(registry.TARGETS, "toy", registry.AuditTarget("toy", "a toy", spec))
    result = run_audit("toy", quick=True, seed=3)
    report = result.report
    assert calls == [(None, 1e-5, True)]
    assert report["trials"] == 20 and report["seed"] == 3 and "runtime_seconds" in report
    assert report["verdict"] == "consistent"

    from audits.report import format_table

    paths = result.write(tmp_path, figures=False)
    assert "## Extra\n\ntext" in paths["md"].read_text()
    assert "VERDICT: consistent" in format_table(report)
