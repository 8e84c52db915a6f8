"""One logger per package, silent by default; meaningful records (an audit's stages, a refused event);
the commands' -v/--verbose shows them on standard error without changing exit statuses."""

import logging
import subprocess
import sys
from pathlib import Path

import pytest
from dp_accounting import dp_event

from accountants import ExactGaussianAccountant, PureDpEvent, UnsupportedEventError
from accountants.logs import PACKAGES, log_to_stderr

ROOT = Path(__file__).resolve().parents[1]


def python(code, cwd=ROOT):
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True)


def test_every_package_logger_is_silent_by_default():
    imports = "; ".join(f"import {name}" for name in PACKAGES)
    warn = "; ".join(f"logging.getLogger('{name}.somewhere').warning('heard from {name}')" for name in PACKAGES)
    quiet = python(f"import logging; {imports}; {warn}")
    assert quiet.stderr == ""  # without a NullHandler, Python's last-resort handler prints each warning
    loud = python(f"import logging; {imports}; logging.basicConfig(level=logging.INFO); {warn}")
    assert [line.split(":")[-1] for line in loud.stderr.splitlines()] == [f"heard from {name}" for name in PACKAGES]


@pytest.mark.parametrize("name", PACKAGES)
def test_each_package_has_its_null_handler(name):
    __import__(name)
    assert any(isinstance(handler, logging.NullHandler) for handler in logging.getLogger(name).handlers)


def test_a_refused_event_is_a_debug_record(caplog):
    accountant = ExactGaussianAccountant()
    with caplog.at_level(logging.DEBUG, logger="accountants"), pytest.raises(UnsupportedEventError):
        accountant.register(PureDpEvent(1.0))
    refused = [r for r in caplog.records if r.name == "accountants.base" and r.levelno == logging.DEBUG]
    assert [r.getMessage() for r in refused] == [
        "ExactGaussianAccountant refuses PureDpEvent(epsilon=1.0): only Gaussian releases compose exactly as μ-GDP"
    ]
    accountant.register(dp_event.GaussianDpEvent(1.0))
    assert len([r for r in caplog.records if r.name == "accountants.base"]) == 1  # an accepted release: none


def test_log_to_stderr_leaves_the_loggers_as_they_were(capsys):
    before = [(logging.getLogger(n).level, list(logging.getLogger(n).handlers)) for n in PACKAGES]
    with log_to_stderr():
        logging.getLogger("solvers.x").info("inside")
    logging.getLogger("solvers.x").info("outside")
    with log_to_stderr(enabled=False):
        logging.getLogger("solvers.x").info("disabled")
    assert capsys.readouterr().err == "solvers.x: INFO: inside\n"
    assert [(logging.getLogger(n).level, list(logging.getLogger(n).handlers)) for n in PACKAGES] == before


@pytest.mark.slow
@pytest.mark.parametrize("verbose", [False, True])
def test_dp_audit_verbose_logs_the_audits_stages(verbose, tmp_path):
    (tmp_path / "goodmod.py").write_text((ROOT / "tests" / "audits" / "tiny_target.py").read_text())
    command = [sys.executable, "-m", "audits.run", "goodmod:build", "--quick", "--no-figures", "--no-progress"]
    command += ["--out", str(tmp_path / "out"), *(["-v"] if verbose else [])]
    ran = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    stages = [line for line in ran.stderr.splitlines() if line.startswith("audits.runner: INFO: audit gaussian-mean")]
    if not verbose:
        assert stages == []
        return
    assert [line.split(": ", 3)[3].split()[0] for line in stages] == ["100", "100", "the", "lower", "0", "consistent"]
    assert "trials per hypothesis, seed 0" in stages[0] and "clopper_pearson ε ≥" in stages[3]
    assert stages[2].endswith("the attacks concluded") and stages[4].endswith("0 report section(s) built")


def test_verbose_keeps_a_usage_error_to_one_line_and_status_2(tmp_path):
    ran = subprocess.run(
        [sys.executable, "-m", "audits.run", "no-such-target", "-v"], cwd=tmp_path, capture_output=True, text=True
    )
    assert ran.returncode == 2 and ran.stderr.count("\n") == 1 and "Traceback" not in ran.stderr
