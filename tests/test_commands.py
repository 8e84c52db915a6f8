"""The installed commands work from any directory: ``dp-audit`` (= ``python -m audits.run``) and
``dp-accountant`` (= ``python -m accountants``) answer ``--version`` and ``--help``, and ``dp-audit
--list`` names every target, run from an empty directory outside the repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from accountants.version import __version__

SCRIPTS = Path(sys.executable).parent
CLEAN_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def command(name: str) -> str:
    path = SCRIPTS / name
    assert path.exists(), f"{name} is not installed next to {sys.executable}: pyproject.toml [project.scripts]"
    return str(path)


@pytest.mark.parametrize("name", ["dp-audit", "dp-accountant"])
def test_version_and_help_from_an_empty_directory(name, tmp_path):
    version = subprocess.run([command(name), "--version"], cwd=tmp_path, env=CLEAN_ENV, capture_output=True, text=True)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"{name} {__version__}"
    help_text = subprocess.run([command(name), "--help"], cwd=tmp_path, env=CLEAN_ENV, capture_output=True, text=True)
    assert help_text.returncode == 0 and help_text.stdout.startswith(f"usage: {name}")


def test_list_from_an_empty_directory_names_every_target(tmp_path):
    from audits.registry import TARGETS

    listed = subprocess.run(
        [command("dp-audit"), "--list"], cwd=tmp_path, env=CLEAN_ENV, capture_output=True, text=True
    )
    assert listed.returncode == 0, listed.stderr
    names = [line for line in listed.stdout.splitlines() if line and not line.startswith(" ")]
    assert names == list(TARGETS)
    assert list(tmp_path.iterdir()) == []  # listing writes nothing


@pytest.mark.slow
@pytest.mark.parametrize("how", ["dp-audit", "python -m audits.run"])
def test_a_module_attribute_target_resolves_from_the_current_directory_with_both_commands(how, tmp_path):
    (tmp_path / "goodmod.py").write_text((Path(__file__).parent / "audits" / "tiny_target.py").read_text())
    (tmp_path / "badmod.py").write_text("raise ZeroDivisionError('fails on import')\n")
    start = [command("dp-audit")] if how == "dp-audit" else [sys.executable, "-m", "audits.run"]
    options = ["--quick", "--no-figures", "--no-progress", "--out", str(tmp_path / "out")]
    ran = subprocess.run(
        [*start, "goodmod:build", *options], cwd=tmp_path, env=CLEAN_ENV, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    assert "VERDICT: consistent" in ran.stdout and (tmp_path / "out" / "report.json").exists()
    bad = subprocess.run(
        [*start, "badmod:build", *options], cwd=tmp_path, env=CLEAN_ENV, capture_output=True, text=True
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    assert "importing module 'badmod' raised ZeroDivisionError: fails on import" in bad.stderr
