"""About a hundred mistaken ``dp-audit`` invocations: each exits 2 with one line on stderr, no traceback,
before any trial runs (bad numbers, ranges, names, flags; the invocations of the crash reports among them)."""

from __future__ import annotations

from pathlib import Path

import pytest

import audits.run
import audits.runner
from audits.registry import TARGETS
from audits.run import main

HERE = Path(__file__).resolve().parent

#: --epsilon values no target takes.
BAD_EPSILONS = ["-1", "0", "nan", "inf", "-inf", "1e309"]
#: Values a target refuses in its own terms (its range), by target.
OUT_OF_RANGE = {
    "dpadmm": ["5", "1.0001", "1e308"],
    "dpadmm-naive": ["1e-300", "1e-6", "2"],
    "radmm": ["0.1", "1e-300", "1e308", "710"],
    "mradmm": ["0.5", "1e308"],
    "ppadmm": ["1", "1e308"],
    "dvp": ["1", "1e308"],
    "pdml": ["710", "1e6", "1e308", "1e-300", "51"],
    "sharing-output": ["1e-300", "1e-7", "1.5"],
    "sharing-parameter": ["1e-300", "2"],
}
SEED_2_128 = str(2**128)

CASES: list[list[str]] = [
    *([name, "--epsilon", value] for name in TARGETS for value in BAD_EPSILONS),
    *([name, "--epsilon", value] for name, values in OUT_OF_RANGE.items() for value in values),
    *(["pdml", "--delta", value] for value in ("0.3", "0.5", "0.9", "0.999", "0.2")),
    *(["dpadmm", "--delta", value] for value in ("0", "1", "-0.1", "nan", "inf", "2", "x", "1e-300")),
    *(["dpadmm", "--trials", value] for value in ("0", "9", "-5", "1e5", "x", "10000000000000", "100000001", "2.5")),
    *(["dpadmm", "--seed", value] for value in ("-1", SEED_2_128, "1.5", "x", "9" * 5000)),
    *(["dpadmm", "--confidence", value] for value in ("0", "1", "1.5", "nan", "-0.5")),
    ["nonsense"],
    ["dpadmm-broken-nonexistent"],
    [""],
    [":target"],
    ["no_such_module_xyz:target"],
    ["raises_on_import:target"],
    ["tiny_target:missing"],
    ["tiny_target:NOT_A_TARGET"],
    ["tiny_target:returns_the_wrong_thing"],
    ["tiny_target:fixed", "--epsilon", "1"],
    ["dpadmm", "--bogus"],
    ["dpadmm", "--trials"],
    ["dpadmm", "--epsilon"],
    ["dpadmm", "--epsilon", "0.5", "0.5"],
    ["dpadmm", "extra-name"],
    [],
    ["--quick"],
    ["dpadmm", "--out", "/proc/nope"],
    ["dpadmm", "--out", "{file}"],
    ["dpadmm", "--out", "{file}/below"],
]


@pytest.fixture
def user_modules(tmp_path, monkeypatch):
    (tmp_path / "raises_on_import.py").write_text("raise ZeroDivisionError('the module fails on import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(HERE))  # tiny_target


def test_there_are_about_a_hundred_cases():
    assert len(CASES) >= 100


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(argv)[:60] or "(none)" for argv in CASES])
def test_a_mistaken_invocation_exits_2_with_one_line_before_any_trial(
    argv, user_modules, tmp_path, monkeypatch, capsys
):
    def no_trials(*args, **kwargs):
        raise AssertionError(f"an audit ran for the mistaken invocation {argv}")

    monkeypatch.setattr(audits.runner, "run_spec", no_trials)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    argv = [a.replace("{file}", str(blocker)) for a in argv]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "out")]
    try:
        status = main([*argv, "--no-progress"])
    except SystemExit as stop:  # argparse's own errors
        status = stop.code
    captured = capsys.readouterr()
    assert status == 2, captured.err
    assert captured.err.count("\n") == 1 and captured.err.startswith("python -m audits.run: error: ")
    assert "Traceback" not in captured.err + captured.out
    assert not (tmp_path / "out").exists()
