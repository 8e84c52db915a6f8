"""Every benchmark script starts both ways its docstring may name: as a file (``python
benchmarks/NAME.py``, where only ``benchmarks/`` is on the import path) and as a module from the
repository root (``python -m benchmarks.NAME``). ``--help`` parses the arguments and stops before
any measurement, so each run only imports the script."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(
    path.stem
    for path in (ROOT / "benchmarks").glob("*.py")
    if 'if __name__ == "__main__":' in path.read_text(encoding="utf-8")
)
CLEAN_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def test_the_benchmark_scripts_are_found():
    assert {"run", "bench_accountants", "bench_audit_speed", "bench_ledger_recovery"} <= set(SCRIPTS)


@pytest.mark.slow
@pytest.mark.parametrize("name", SCRIPTS)
def test_a_benchmark_script_starts_as_a_file_from_any_directory_and_as_a_module(name, tmp_path):
    as_file = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), "--help"],
        cwd=tmp_path,
        env=CLEAN_ENV,
        capture_output=True,
        text=True,
    )
    assert as_file.returncode == 0, as_file.stderr
    assert as_file.stdout.startswith("usage:")
    as_module = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{name}", "--help"], cwd=ROOT, env=CLEAN_ENV, capture_output=True, text=True
    )
    assert as_module.returncode == 0, as_module.stderr
    assert as_module.stdout.startswith("usage:")
