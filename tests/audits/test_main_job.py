"""The main job goes forward only: ``python -m audits.run dpadmm`` resolves its target once, builds each
spec once, and the report dict is built in one place (``audits.verdict.assemble_report``), once per audit,
with nothing added after; ``audit()``, ``run_audit`` and the command return the same result type."""

import copy
import dataclasses
import json
from collections import Counter

import numpy as np

import audits.registry
import audits.run
import audits.runner
import audits.verdict
from audits import AuditReport, Claim, audit


def _trace(monkeypatch, counts, built, module, name):
    original = getattr(module, name)

    def traced(*args, **kwargs):
        counts[name] += 1
        value = original(*args, **kwargs)
        if name in ("assemble_report", "run_spec"):
            built.append(copy.deepcopy(value) if name == "assemble_report" else value)
        return value

    monkeypatch.setattr(module, name, traced)


def test_the_command_resolves_and_builds_each_spec_once_and_builds_each_report_in_one_place(
    monkeypatch, tmp_path, capsys
):
    counts: Counter[str] = Counter()
    built: list = []
    target = audits.registry.TARGETS["dpadmm"]

    def spec(epsilon, delta, quick):
        counts["spec builder"] += 1
        return target.spec(epsilon, delta, quick)

    monkeypatch.setitem(audits.registry.TARGETS, "dpadmm", dataclasses.replace(target, spec=spec))
    for module, name in [
        (audits.run, "get_target"),
        (audits.registry, "get_target"),
        (audits.run, "check_options"),
        (audits.run, "build_spec"),
        (audits.runner, "run_spec"),
        (audits.verdict, "assemble_report"),
    ]:
        _trace(monkeypatch, counts, built, module, name)
    out = tmp_path / "out"
    argv = ["dpadmm", "--trials", "20", "--epsilon", "0.5", "0.9", "--no-figures", "--no-progress", "--out", str(out)]
    assert audits.run.main(argv) == 0
    capsys.readouterr()
    assert counts == {
        "get_target": 1,  # audits.run's name for the registry's function: the wrapper counted once
        "check_options": 1,
        "build_spec": 2,  # one per --epsilon value
        "spec builder": 2,
        "run_spec": 2,
        "assemble_report": 2,
    }
    # each audit's report is the dict assemble_report built, with nothing added or changed after it
    for report, result, folder in zip(built[::2], built[1::2], ("epsilon-0.5", "epsilon-0.9"), strict=True):
        assert type(result) is AuditReport and result.report == report and result.verdict == "consistent"
        written = json.loads((out / folder / "report.json").read_text())
        assert [key for key in written if key in report] == list(report)  # the writer adds only what it wrote
        assert written["epsilon_per_iteration"] == float(folder[8:])


def test_audit_and_the_command_share_one_result_type():
    def mechanism(dataset, rng, n):
        return dataset.sum() + rng.normal(0.0, 1.0, size=(n, 1))

    result = audit(
        mechanism,
        np.array([1.0]),
        np.array([0.0]),
        claim=Claim(epsilon=8.0, delta=1e-5, noise="gaussian"),
        trials=100,
        search_trials=40,
        progress=False,
    )
    assert type(result) is AuditReport and result.verdict == result.report["verdict"] == "consistent"
