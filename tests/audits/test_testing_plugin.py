"""The pytest plugin: --dp-effort and --dp-seed reach assert_private, the dp_audit fixture, the summary, bad options."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

USER_TEST = """\
import numpy as np
from audits import Claim

def leaky(data, rng, n):  # σ = 0.1 for a claim of ε = 1 at sensitivity 1
    return data.sum() + rng.normal(0.0, 0.1, size=n)

def noisy(data, rng, n):
    return data.sum() + rng.normal(0.0, 10.0, size=n)

CLAIM = Claim(epsilon=1.0, delta=1e-5, noise="gaussian")

def test_leaky(dp_audit):
    dp_audit(leaky, np.zeros(3), np.array([1.0, 0.0, 0.0]), claim=CLAIM)

def test_noisy(dp_audit):
    report = dp_audit(noisy, np.zeros(3), np.array([1.0, 0.0, 0.0]), claim=CLAIM)
    assert (report.report["seed"], report.report["trials"]) == (5, 2_000)
"""


def _pytest(directory: Path, *options: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DP_AUDIT"))}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *options]
    return subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def user_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("user")
    (directory / "test_user.py").write_text(USER_TEST)
    return directory


@pytest.mark.slow
def test_the_options_reach_the_fixture_and_the_summary_lists_the_assertions(user_dir):
    run = _pytest(user_dir, "-v", "--dp-effort", "smoke", "--dp-seed", "5")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "test_user.py::test_leaky FAILED" in run.stdout and "test_user.py::test_noisy PASSED" in run.stdout
    summary = run.stdout.split("privacy assertions", 1)[1]
    assert "FAILED (VIOLATION): test_user.leaky vs (1, 1e-05)-DP, gaussian noise: gdp ε ≥ " in summary
    assert "passed: test_user.noisy vs (1, 1e-05)-DP, gaussian noise" in summary
    assert "effort smoke, seed 5, false alarm ≤ 0.05" in summary
    assert "2 privacy assertion(s), 1 violation(s)\n" in summary
    reproduce = "reproduce: assert_private(leaky, D, D_prime, claim=Claim(epsilon=1.0, delta=1e-05, noise='gaussian'), "
    assert reproduce + "effort='smoke', seed=5, confidence=0.95)" in run.stdout


def test_a_bad_option_is_a_usage_error_in_one_line(user_dir):
    for options in (("--dp-seed", "-3"), ("--dp-effort", "fast")):
        run = _pytest(user_dir, *options)
        assert run.returncode == 4, run.stdout + run.stderr
        assert "Traceback" not in run.stderr
        assert f"argument {options[0]}: " in run.stderr


def test_the_options_offer_every_effort():
    from audits.effort import EFFORTS
    from audits.pytest_plugin import EFFORT_NAMES

    assert tuple(EFFORTS) == EFFORT_NAMES


def test_the_plugin_loads_without_the_toolkit():
    """Registered as an entry point, it loads in every pytest run: it imports no audit code up front."""
    code = "import sys, audits.pytest_plugin; print(sorted(m for m in sys.modules if m.startswith('audits.')))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "['audits.pytest_plugin']"
