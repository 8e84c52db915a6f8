"""audits.run: the CLI (list, help, errors), report.json contents, and an end-to-end --quick run."""

import json
import re

import numpy as np
import pytest

from audits import Claim
from audits.registry import TARGETS, get_target
from audits.run import main, run_audit

NAMES = ["dpadmm", "dpadmm-naive", "radmm", "mradmm", "ppadmm", "dvp", "pdml", "sharing-output", "sharing-parameter"]


def test_list_prints_every_name_then_its_description(capsys):
    assert main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = [line for line in lines if not line.startswith(" ")]
    assert names == NAMES
    descriptions = [line for line in lines if line.startswith("    ")]
    assert len(descriptions) == len(NAMES) and all(d.strip() for d in descriptions)


def test_help_mentions_every_option(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for option in ("--trials", "--epsilon", "--delta", "--seed", "--out", "--quick", "--list"):
        assert option in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["nonsense"], "unknown solver name 'nonsense'"),
        (["dpadmm", "--delta", "2"], "delta must be a probability in (0, 1), got 2.0"),
        (["dpadmm", "--delta", "0"], "delta must be a probability in (0, 1), got 0.0"),
        (
            ["dpadmm", "--trials", "1"],
            "trials must be an int in [10, 100,000,000] (audited trials per hypothesis), got 1",
        ),
        (["dpadmm", "--trials", "100000001"], "trials must be an int in [10, 100,000,000] (audited trials"),
        (["dpadmm", "--epsilon", "-1"], "epsilon must be finite and > 0 (a real number), got -1.0"),
        (["dpadmm", "--epsilon", "5"], "cannot build the audit with epsilon=5.0"),
        (["dpadmm", "--seed", "-3"], "seed must be an int in [0, 2**128), got -3"),
        (["dpadmm", "--seed", str(2**128)], "seed must be an int in [0, 2**128), got an integer of 129 bits"),
        (["dpadmm", "--confidence", "1"], "confidence must be a probability in (0, 1), got 1.0"),
    ],
)
def test_bad_names_and_values_give_a_clear_error(argv, message, capsys):
    assert main(argv) == 2
    printed = capsys.readouterr().err
    assert message in printed and printed.count("\n") == 1


@pytest.mark.parametrize(
    "name, value, error",
    [("trials", 9, ValueError), ("trials", 2.5, TypeError), ("seed", -1, ValueError), ("seed", "0", TypeError)],
)
def test_the_command_checks_trials_and_seed_with_the_declarations_of_audits_audit(name, value, error):
    """run_audit (the command's checks) and audits.audit refuse the same value with the same error, from one
    declaration (audits.runner.TRIALS, SEED) in the one message format."""
    from audits import audit
    from audits.run import run_audit
    from audits.runner import SEED, TRIALS

    declared = {"trials": TRIALS, "seed": SEED}[name]
    with pytest.raises(error) as from_command:
        run_audit("dpadmm", **{name: value})
    assert str(from_command.value) == f"{name} must be {declared.expected}, got {value!r}"
    with pytest.raises(error, match=re.escape(f"{declared.expected}, got {value!r}")):
        audit(
            lambda data, rng, n: rng.normal(data, 1.0, n),
            0.0,
            1.0,
            claim=Claim(epsilon=1.0, delta=1e-5),
            **{name: value},
        )


def test_no_name_and_non_numbers_are_usage_errors(capsys):
    for argv in ([], ["dpadmm", "--trials", "many"]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2


def test_registry_lists_every_name_and_every_solver_is_auditable():
    assert list(TARGETS) == NAMES
    assert all(callable(t.spec) for t in TARGETS.values())


def test_quick_end_to_end_writes_report_json_md_and_figures(tmp_path, capsys):
    out = tmp_path / "audit"
    assert main(["dpadmm", "--quick", "--out", str(out), "--seed", "1", "--no-progress"]) == 0
    terminal = capsys.readouterr().out
    assert "VERDICT: consistent" in terminal
    assert "moments_classic (the paper's claim, Huang et al. 2020, Theorem 2)" in terminal
    report = json.loads((out / "report.json").read_text())
    for key in (
        "solver",
        "trials",
        "delta",
        "confidence",
        "epsilon_lower",
        "epsilon_upper",
        "claimed_epsilon",
        "verdict",
        "tightness",
    ):
        assert key in report
    assert (
        report["solver"] == "dpadmm"
        and report["trials"] == get_target("dpadmm").spec(None, 1e-5, True).quick_trials == 2_000
    )
    assert report["delta"] == 1e-5 and report["confidence"] == 0.95
    upper = report["epsilon_upper"]
    assert set(upper) >= {"exact_gaussian", "pld", "rdp", "moments_classic"}
    assert upper["exact_gaussian"] == pytest.approx(4.377178, abs=1e-5)
    assert report["claimed_epsilon"] == upper["moments_classic"] == pytest.approx(5.3026, abs=1e-3)
    assert report["exact_mu"] == pytest.approx(1.0, rel=1e-9)
    assert report["verdict"] == "consistent" and set(report["verdicts"].values()) == {"consistent"}
    for method in ("gdp", "clopper_pearson"):
        lower = report["epsilon_lower"][method]
        assert 0 < lower <= min(upper.values())
        assert report["tightness"][method] == pytest.approx(lower / min(upper.values()))
    metrics = report["attack"]["metrics"]
    assert 0.7 < metrics["auroc"] < 0.82 and report["attack"]["white_box"] is True
    assert set(report["attacks"]) == {
        "white-box NP (summed Gaussian LLR)",
        "black-box loss threshold",
        "black-box LiRA (shadow trials)",
    }
    for entry in report["attacks"].values():
        assert set(entry["metrics"]) == {"auroc", "tpr_at_0.1%_fpr", "tpr_at_1%_fpr"}
    assert "nan" not in (out / "report.json").read_text().lower()
    for name in ("report.md", "roc.png", "bounds.png", "privacy_utility.png"):
        assert (out / name).stat().st_size > 0
    assert "How to read this report" in (out / "report.md").read_text()
    utility = report["utility"]
    assert 0 <= utility["test_accuracy"] <= 1 and 0 <= utility["test_accuracy_nonprivate"] <= 1
    assert utility["objective_nonprivate"] <= utility["objective"]


def test_same_seed_same_report():
    first = run_audit("dpadmm", trials=200, seed=5, calibration_trials=100, progress=False)
    second = run_audit("dpadmm", trials=200, seed=5, calibration_trials=100, progress=False)
    (a, attacks_a), (b, attacks_b) = (first.report, first.attacks), (second.report, second.attacks)
    for x, y in zip(attacks_a, attacks_b, strict=True):
        np.testing.assert_array_equal(x.scores_in, y.scores_in)
    assert [x.white_box for x in attacks_a] == [True, False, False]
    assert a["epsilon_lower"] == b["epsilon_lower"]


def test_version_names_the_command_and_the_toolkit_version(capsys):
    from accountants.version import __version__

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip().endswith(__version__)


@pytest.mark.parametrize("inside", [False, True], ids=["out-is-a-file", "out-below-a-file"])
def test_an_unusable_out_is_refused_before_any_work(tmp_path, monkeypatch, capsys, inside):
    import audits.runner

    def must_not_run(*args, **kwargs):
        raise AssertionError("the audit ran although --out cannot be written")

    monkeypatch.setattr(audits.runner, "run_spec", must_not_run)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out = blocker / "sub" if inside else blocker
    assert main(["dpadmm", "--quick", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err and "is a file" in err and "Traceback" not in err


def test_a_report_that_cannot_be_written_is_exit_2_after_the_table_was_shown(tmp_path, monkeypatch, capsys):
    import audits.report

    def disk_full(report, attacks, out, **options):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(audits.report, "write_audit", disk_full)
    code = main(["dpadmm", "--quick", "--no-figures", "--no-progress", "--out", str(tmp_path / "r"), "--seed", "1"])
    captured = capsys.readouterr()
    assert code == 2
    assert "| verdict |" in captured.out  # the verdict table came first
    assert "could not be written" in captured.err and "No space left on device" in captured.err


def test_quick_runs_default_to_their_own_folder(tmp_path, monkeypatch):
    import audits.run

    seen = {}

    def fake_check(out):
        seen["out"] = out
        raise ValueError("stop here")

    monkeypatch.setattr(audits.run, "check_output", fake_check)
    monkeypatch.chdir(tmp_path)
    assert main(["dpadmm", "--quick"]) == 2
    assert str(seen["out"]).endswith("dpadmm-quick")
    assert main(["dpadmm"]) == 2
    assert str(seen["out"]).endswith("dpadmm") and not str(seen["out"]).endswith("quick")
