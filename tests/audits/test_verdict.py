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


def test_run_audit_dispatches_to_a_targets_own_runner(monkeypatch, tmp_path):
    calls = {}

    def runner(**kwargs):
        calls.update(kwargs)
        return _report({"clopper_pearson": _bound(0.1)}, {"paper": 1.0}), []

    target = registry.AuditTarget("toy-runner", "a toy", run=runner, trials=50, quick_trials=20)
    monkeypatch.setitem(registry.TARGETS, "toy-runner", target)
    report, _ = run_audit("toy-runner", quick=True, seed=3)
    assert calls == {
        "epsilon": None,
        "delta": 1e-5,
        "confidence": 0.95,
        "trials": 20,
        "seed": 3,
        "quick": True,
        "progress": None,
    }
    assert report["verdict"] == "consistent" and "runtime_seconds" in report

    from audits.report import format_table, write_report

    paths = write_report(report, tmp_path)
    assert "## Extra\n\ntext" in paths["md"].read_text()
    assert "VERDICT: consistent; tightness (lower / smallest valid upper): clopper_pearson 0.100" in format_table(
        report
    )
