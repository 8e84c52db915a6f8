"""The exit-code contract of ``dp-audit``: 0 consistent, 1 VIOLATION and nothing else, 2 usage error,
3 internal error (one line naming it and the file with its traceback), 128 + N after signal N."""

from __future__ import annotations

import ast
import signal
import tempfile
from pathlib import Path

import pytest

import audits.report
import audits.run
import audits.runner
from audits.run import main
from audits.workers import Terminated

RUN = Path(audits.run.__file__)


def _returned(node: ast.AST) -> list[ast.expr]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]


def test_no_path_of_the_command_exits_1_except_a_violation_verdict():
    tree = ast.parse(RUN.read_text())
    functions = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    statuses = [value for name in ("main", "_main") for value in _returned(functions[name])]
    constants = [v.value for v in statuses if isinstance(v, ast.Constant)]
    assert set(constants) <= {0, 2, 3} and constants.count(3) == 1
    verdicts = [v for v in statuses if isinstance(v, ast.IfExp)]
    assert [ast.unparse(v) for v in verdicts] == [
        "1 if any((report['verdict'] == 'VIOLATION' for report in reports)) else 0"
    ]
    others = [ast.unparse(v) for v in statuses if not isinstance(v, (ast.Constant, ast.IfExp))]
    assert sorted(others) == ["128 + signal.SIGINT", "128 + stop.signum", "_main(parser, args)"]
    exits = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func).endswith("exit")]
    assert sorted(exits) == sorted(
        ["self.exit(2, f'{self.prog}: error: {message} (see --help)\\n')", "sys.exit(main())"]
    )


@pytest.fixture
def traceback_dir(tmp_path, monkeypatch):
    folder = tmp_path / "tracebacks"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.mark.parametrize(
    "where, error",
    [
        ("runner.run_spec", RuntimeError("damped_newton: 2 problem(s) not converged")),
        ("runner.run_spec", ZeroDivisionError("float division by zero")),
        ("runner.run_spec", OverflowError("math range error")),
        ("run.build_spec", KeyError("lost")),
        ("run.check_options", AssertionError("a toolkit bug\nover two lines")),
    ],
)
def test_a_crash_anywhere_exits_3_with_one_line_and_a_saved_traceback(
    where, error, monkeypatch, capsys, tmp_path, traceback_dir
):
    def crash(*args, **kwargs):
        raise error

    module, name = where.split(".")
    monkeypatch.setattr(getattr(audits, module), name, crash)
    assert main(["dpadmm", "--quick", "--no-figures", "--no-progress", "--out", str(tmp_path / "out")]) == 3
    captured = capsys.readouterr()
    err = captured.err
    assert err.count("\n") == 1 and "Traceback" not in err + captured.out
    message = " ".join(str(error).split())
    assert f"internal error: {type(error).__name__}: {message}" in err
    [saved] = traceback_dir.iterdir()
    assert f"traceback saved to {saved};" in err
    text = saved.read_text()
    assert text.startswith("Traceback (most recent call last)") and "in crash" in text and type(error).__name__ in text
    assert not (tmp_path / "out").exists()


def test_a_crash_while_the_report_is_written_exits_3_after_the_verdict_and_writes_nothing(
    monkeypatch, capsys, tmp_path, traceback_dir
):
    def crash(*args, **kwargs):
        raise TypeError("a bug in the report")

    monkeypatch.syspath_prepend(str(Path(__file__).parent))  # tiny_target
    monkeypatch.setattr(audits.report, "write_audit", crash)
    out = tmp_path / "out"
    assert main(["tiny_target:build", "--quick", "--no-figures", "--no-progress", "--out", str(out)]) == 3
    captured = capsys.readouterr()
    assert "VERDICT: consistent" in captured.out and captured.err.count("\n") == 1
    assert "internal error: TypeError: a bug in the report" in captured.err and not out.exists()


@pytest.mark.parametrize(
    "stop, status, said",
    [(KeyboardInterrupt(), 130, "interrupted (SIGINT)"), (Terminated(signal.SIGTERM), 143, "terminated by SIGTERM")],
)
def test_a_signal_stops_the_audit_with_128_plus_its_number_and_one_line(
    stop, status, said, monkeypatch, capsys, tmp_path
):
    def interrupted(*args, **kwargs):
        raise stop

    monkeypatch.setattr(audits.runner, "run_spec", interrupted)
    assert main(["dpadmm", "--quick", "--no-progress", "--out", str(tmp_path / "out")]) == status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "Traceback" not in err


def test_dp_accountant_exits_3_with_one_line_after_an_internal_error(monkeypatch, capsys, traceback_dir):
    import accountants.best
    from accountants.__main__ import main as accountant_main

    def crash(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(accountants.best, "best_epsilon", crash)
    assert accountant_main(["--noise-multiplier", "10", "--count", "100", "--delta", "1e-5"]) == 3
    err = capsys.readouterr().err
    [saved] = traceback_dir.iterdir()
    assert err == (
        f"dp-accountant: internal error: RecursionError: maximum recursion depth exceeded (traceback saved to "
        f"{saved}; please report it)\n"
    )
    assert saved.name.startswith("dp-accountant-") and "RecursionError" in saved.read_text()
