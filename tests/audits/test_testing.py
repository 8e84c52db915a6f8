"""assert_private: the failure text, determinism, the false-alarm rate, the session defaults, a user's test file."""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import audits.testing as testing
from accountants.constraints import check_parameter_constraints
from audits import Claim
from audits.stats.clopper_pearson import FPR_SHARES, bound_function
from audits.testing import assert_private, bound_confidence, configure, records

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("bug_zoo", HERE / "bug_zoo.py")
assert _spec is not None and _spec.loader is not None
zoo = sys.modules.setdefault("bug_zoo", importlib.util.module_from_spec(_spec))
if not hasattr(zoo, "CLAIM"):
    _spec.loader.exec_module(zoo)


def test_bound_confidence_shares_the_false_alarm_rate_among_the_deciding_bounds():
    # a Gaussian claim with δ > 0: Clopper–Pearson, Gaussian-DP and the rounded low bits at half: α / 2.5
    assert bound_confidence(zoo.CLAIM, 0.95) == pytest.approx(1 - 0.05 / 2.5, rel=1e-15)
    # pure DP: Clopper–Pearson and the rounded low bits: α / 1.5; Bonferroni over 10 pairs: α / 15
    laplace = Claim(epsilon=1.0, delta=0.0, noise="laplace")
    assert bound_confidence(laplace, 0.8) == pytest.approx(1 - 0.2 / 1.5, rel=1e-15)
    assert bound_confidence(laplace, 0.8, 10) == pytest.approx(1 - 0.2 / 15, rel=1e-15)
    with pytest.raises(
        ValueError, match=r"^pairs must be an int >= 1 \(the pairs the verdict is corrected for\), got 0$"
    ):
        bound_confidence(laplace, 0.8, 0)


def test_a_violation_fails_with_the_bound_pair_distinguisher_and_the_call_that_reproduces_it():
    with pytest.raises(AssertionError) as first:
        assert_private(zoo.variance_as_std, *zoo.unit_pair(), claim=zoo.CLAIM, effort="smoke", seed=7)
    text = str(first.value)
    lines = text.splitlines()
    assert lines[0] == "privacy VIOLATION: bug_zoo.variance_as_std is not (8, 1e-05)-DP, gaussian noise"
    assert "gdp ε ≥ " in text and "98.0000% confidence" in text
    assert "D and D′ of shape (50, 10) differ in 1 row(s): row 0: " in text
    assert "distinguisher: " in text and "trials: 2,000 per side, effort 'smoke', seed 7" in text
    assert "probability ≤ 0.05" in text
    assert lines[-1] == (
        "  reproduce: assert_private(variance_as_std, D, D_prime, claim=Claim(epsilon=8.0, delta=1e-05, "
        "noise='gaussian'), effort='smoke', seed=7, confidence=0.95)"
    )
    assert all("\x1b" not in line for line in lines)  # plain text: JUnit XML shows it as it is
    with pytest.raises(AssertionError) as again:  # the same seed: the same trials, the same failure
        assert_private(zoo.variance_as_std, *zoo.unit_pair(), claim=zoo.CLAIM, effort="smoke", seed=7)
    assert str(again.value) == text
    assert records()[-1].verdict == "VIOLATION" and records()[-1].seed == 7


def test_a_correct_twin_passes_and_returns_its_report():
    report = assert_private(zoo.variance_as_std_twin, *zoo.unit_pair(), claim=zoo.CLAIM, effort="smoke")
    assert report.verdict == "consistent" and report.report["seed"] == 0
    assert report.report["confidence"] == pytest.approx(0.98)
    assert records()[-1].verdict == "consistent" and records()[-1].effort == "smoke"


def test_the_session_sets_the_default_effort_and_seed():
    saved = testing.Defaults(**vars(configure()))
    try:
        assert configure(effort="smoke", seed=3) == testing.Defaults("smoke", 3)
        report = assert_private(zoo.sensitivity_two, *zoo.replace_pair(), claim=zoo.CLAIM)
        assert report.report["seed"] == 3 and report.report["trials"] == 2_000
        report = assert_private(zoo.sensitivity_two, *zoo.replace_pair(), claim=zoo.CLAIM, seed=4)  # the call wins
        assert report.report["seed"] == 4
    finally:
        configure(effort=saved.effort, seed=saved.seed)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"claim": 8.0}, TypeError, "claim must be an audits.Claim"),
        ({"effort": "fast"}, ValueError, "effort must be None or one of 'smoke', 'quick', 'default', 'thorough', got"),
        ({"seed": -1}, ValueError, "seed must be None or an int >= 0, got -1"),
        ({"confidence": 1.0}, ValueError, "confidence must be a probability in (0, 1), got 1.0"),
        ({"max_examples": 0}, ValueError, "max_examples must be None or an int >= 1, got 0"),
        ({"method": "gpd"}, ValueError, "method must be None or 'clopper_pearson' or 'gdp', got 'gpd'"),
    ],
)
def test_bad_arguments_are_named(change, error, message):
    arguments = {"claim": zoo.CLAIM, "effort": "smoke", **change}
    with pytest.raises(error, match=None) as caught:
        assert_private(zoo.variance_as_std_twin, *zoo.unit_pair(), **arguments)
    assert message in str(caught.value)
    with pytest.raises(ValueError, match="effort must be None or one of 'smoke', 'quick', 'default', 'thorough'"):
        configure(effort="fast")


def test_configure_declares_its_options():
    assert check_parameter_constraints(configure) == 2 + 4  # effort: 1, 'no such option'; seed: 2.5, True, '3', -1
    with pytest.raises(TypeError, match="seed must be None or an int >= 0, got True"):
        configure(seed=True)


#: The user's test file: ten lines, the code under test in mine.py next to it.
USER_TEST = """\
from audits import Claim
from audits.testing import assert_private
from bug_zoo import CLAIM, unit_pair
from mine import noisy_sum, rounds, sparse_vector

def test_noisy_sum(): assert_private(noisy_sum, *unit_pair(), claim=CLAIM)
def test_rounds(): assert_private(rounds, *unit_pair(), claim=CLAIM)
def test_sparse_vector():
    D, D_prime = [1.0] * 10, [2.0] * 5 + [0.0] * 5
    assert_private(sparse_vector, D, D_prime, claim=Claim(epsilon=0.1, delta=0.0))
"""
BUGGY = """\
from audits.testbench.svt import svt5 as sparse_vector  # no noise on the queries (Lyu et al. 2017, Algorithm 5)
from bug_zoo import uncomposed as rounds, variance_as_std as noisy_sum
"""
CORRECT = """\
from audits.testbench.svt import svt1 as sparse_vector
from bug_zoo import uncomposed_twin as rounds, variance_as_std_twin as noisy_sum
"""


def _run_user_tests(directory: Path, mine: str) -> subprocess.CompletedProcess[str]:
    (directory / "mine.py").write_text(mine)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DP_AUDIT"))}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={directory / 'out.xml'}"]
    return subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True, timeout=900, check=False)


@pytest.mark.slow
def test_a_users_ten_line_test_file_fails_on_the_bugs_and_passes_on_their_twins(tmp_path):
    assert len(USER_TEST.splitlines()) == 10
    (tmp_path / "test_private.py").write_text(USER_TEST)
    shutil.copy(HERE / "bug_zoo.py", tmp_path / "bug_zoo.py")
    buggy = _run_user_tests(tmp_path, BUGGY)
    assert buggy.returncode == 1, buggy.stdout + buggy.stderr
    assert "3 failed" in buggy.stdout
    for name in ("bug_zoo.variance_as_std", "bug_zoo.uncomposed", "audits.testbench.svt.svt5"):
        assert f"privacy VIOLATION: {name} is not" in buggy.stdout
    assert "privacy assertions" in buggy.stdout and "3 privacy assertion(s), 3 violation(s)\n" in buggy.stdout
    junit = (tmp_path / "out.xml").read_text()
    assert junit.count('<failure message="AssertionError: privacy VIOLATION: ') == 3
    correct = _run_user_tests(tmp_path, CORRECT)
    assert correct.returncode == 0, correct.stdout + correct.stderr
    assert "3 passed" in correct.stdout and "3 privacy assertion(s), 0 violation(s) (-v lists" in correct.stdout


EDGE_EPSILON, EDGE_TPR = 4.0, 0.95


def at_the_edge(data, rng, n):
    """Releases 1 with probability 0.95 on D = [1] and 0.95·e^−4 on D′ = [0]: 4-DP, with equality for
    the test "release 1" (its ratio is e^4) and a margin of a nat for the other (0.9826/0.05 = e^2.98)."""
    p = EDGE_TPR if data[0] == 1 else EDGE_TPR * np.exp(-EDGE_EPSILON)
    return (rng.random(n) < p).astype(np.float64)


def exact_false_alarm(fpr_share: float, n: int, alpha: float) -> float:
    """The probability that the Clopper–Pearson bound of the test "release 1" on n fresh trials per side,
    with ``fpr_share`` of α on its false-positive rate, exceeds the claimed 4 (summed over both counts)."""
    fpr = EDGE_TPR * np.exp(-EDGE_EPSILON)
    fp, fn = np.arange(0, 120), np.arange(0, 200)
    bound = bound_function(0.0, fpr_share)
    grid_fp, grid_fn = (g.ravel().astype(float) for g in np.meshgrid(fp, fn, indexing="ij"))
    exceeds = (bound(grid_fp, n, grid_fn, n, alpha) > EDGE_EPSILON).reshape(fp.size, fn.size)
    weights = stats.binom.pmf(fp, n, fpr)[:, None] * stats.binom.pmf(fn, n, 1 - EDGE_TPR)[None, :]
    return float(np.sum(weights * exceeds))


def test_a_pre_registered_bound_decides_alone_with_the_whole_error_rate():
    claim = Claim(epsilon=EDGE_EPSILON, delta=0.0)
    assert bound_confidence(claim, 0.8, method="clopper_pearson") == pytest.approx(0.8, rel=1e-15)
    assert bound_confidence(claim, 0.8, 4, method="clopper_pearson") == pytest.approx(0.95, rel=1e-15)
    with pytest.raises(ValueError, match="method must be one of the bounds that can decide 4-DP.*'clopper_pearson'"):
        bound_confidence(claim, 0.8, method="gdp")  # no GDP bound decides a pure-DP claim
    report = assert_private(
        at_the_edge, np.ones(1), np.zeros(1), claim=claim, effort="smoke", seed=0, method="clopper_pearson"
    )
    bound = report.lower["clopper_pearson"]
    assert bound.confidence == 0.95 and bound.details["fpr_share"] == 0.9  # the uncertain side gets the most
    assert records()[-1].method == "clopper_pearson" and records()[-1].confidence == 0.95


@pytest.mark.slow
def test_the_false_alarm_rate_of_a_pre_registered_bound_matches_the_stated_one():
    """200 seeds of a mechanism that meets its claim with equality, at confidence 0.8 (a stated false-alarm
    rate of 20 %), the Clopper–Pearson bound pre-registered. Its exact rate at the share of α the
    selection chooses (0.99 on the false-positive rate, in 164 of 167 passing seeds measured) is 15.3 %,
    below 20 % only by the discreteness of the exact binomial bound (and 7.5 % with an even split);
    measured: 33 failures (16.5 %)."""
    claim = Claim(epsilon=EDGE_EPSILON, delta=0.0)
    n, alpha = 1_600, 0.2  # the smoke effort's evaluation part: 80 % of 2,000 trials per side
    exact = {share: exact_false_alarm(share, n, alpha) for share in FPR_SHARES}
    assert max(exact.values()) <= alpha  # the assertion's promise, whatever share is chosen
    assert exact[0.99] == pytest.approx(0.1525, abs=5e-4) and exact[0.5] == pytest.approx(0.0751, abs=5e-4)
    failures = 0
    for seed in range(200):
        try:
            assert_private(
                at_the_edge, np.ones(1), np.zeros(1), claim=claim, effort="smoke", seed=seed, confidence=0.8,
                method="clopper_pearson",
            )  # fmt: skip
        except AssertionError:
            failures += 1
    assert failures <= stats.binom.ppf(0.999, 200, alpha)  # never above the stated 20 % beyond sampling error
    assert failures >= stats.binom.ppf(0.001, 200, 0.75 * alpha)  # and not far below it: calibrated
    assert failures == 33  # seeds 0–199 (a golden value: the runs are deterministic)
