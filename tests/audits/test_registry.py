"""audits.registry: module:attribute and entry-point targets, bad names, and one audit loop."""

import ast
import importlib.metadata
from pathlib import Path

import pytest

import audits
from audits import registry
from audits.run import main, run_audit
from audits.spec import AuditSpec

HERE = Path(__file__).parent


@pytest.fixture
def user_module(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))  # tiny_target lives outside the toolkit's packages


def test_module_attribute_target_runs_through_the_cli(user_module, tmp_path, capsys):
    out = tmp_path / "tiny"
    assert main(["tiny_target:build", "--quick", "--no-figures", "--no-progress", "--out", str(out)]) == 0
    assert "VERDICT: consistent" in capsys.readouterr().out
    result = run_audit("tiny_target:build", seed=1, progress=False)
    report, attacks = result.report, result.attacks
    assert report["trials"] == 200 and report["claimed_accountant"] == "exact_gaussian"
    assert 0 < report["epsilon_lower"]["gdp"] < report["epsilon_upper"]["exact_gaussian"]
    assert attacks[0].attack == "identity" and (out / "report.json").exists()


def test_a_fixed_spec_is_a_target_and_refuses_an_epsilon(user_module):
    target = registry.get_target("tiny_target:fixed")
    assert isinstance(target.spec(None, 1e-5, False), AuditSpec)
    with pytest.raises(ValueError, match="cannot build the audit .*takes no epsilon"):
        run_audit("tiny_target:fixed", epsilon=1.0)


def test_entry_point_targets_resolve_and_are_listed(user_module, monkeypatch, capsys):
    def entry_points(group):
        assert group == "dp_admm_audit.audits"
        return [importlib.metadata.EntryPoint(name="tiny", value="tiny_target:build", group=group)]

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    assert registry.get_target("tiny").description.startswith("A Gaussian mean")
    report = run_audit("tiny", quick=True, progress=False).report
    assert report["solver"] == "gaussian-mean" and report["trials"] == 100
    assert main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2] == "tiny" and "(from tiny_target:build)" in lines[-1]


@pytest.mark.parametrize(
    "name, message",
    [
        ("no_such_module_xyz:target", "cannot import module 'no_such_module_xyz'"),
        ("tiny_target:missing", "has no attribute 'missing'"),
        ("tiny_target:NOT_A_TARGET", "must be an audits.registry.AuditTarget, an audits.spec.AuditSpec or a callable"),
        ("tiny_target:returns_the_wrong_thing", "the callable must return an audits.spec.AuditSpec, got int"),
        (":target", "must be 'module:attribute'"),
        ("no-such-target", "unknown solver name 'no-such-target'"),
    ],
)
def test_bad_names_are_one_line_and_exit_2(user_module, tmp_path, name, message, capsys):
    assert main([name, "--quick", "--no-figures", "--no-progress", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_every_builtin_target_is_a_spec_run_by_the_one_runner():
    targets = {**registry.TARGETS, **registry.broken_targets()}
    for name, target in targets.items():
        spec = target.spec(None, 1e-5, True)
        assert isinstance(spec, AuditSpec), name
    # the only trial loop: no other module of audits chunks trials or spawns per-trial seeds
    package = Path(audits.__file__).parent
    for path in package.rglob("*.py"):
        if path.name == "runner.py":
            continue
        tree = ast.parse(path.read_text())
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        assert "CHUNK" not in names, path


@pytest.mark.parametrize("name", ["dpadmm", "dpadmm-naive"])
def test_an_epsilon_the_classic_calibration_cannot_take_is_refused_in_the_users_terms(name, capsys):
    assert main([name, "--epsilon", "2", "--quick", "--no-figures", "--no-progress"]) == 2
    error = capsys.readouterr().err
    interval = "[0.001, 1]" if name == "dpadmm-naive" else "(0, 1]"
    assert f"--epsilon must be a per-iteration ε in {interval}" in error and "calibration='analytic'" not in error


def test_the_report_records_where_the_randomness_comes_from(user_module):
    report = run_audit("tiny_target:build", trials=100, seed=3, progress=False).report
    assert "child (0, r) of SeedSequence(3)" in report["random_streams"]["trials"]
