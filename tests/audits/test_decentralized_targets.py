"""The radmm / mradmm / ppadmm / dvp audits: calibration, verdicts, realised losses, report keys."""

import json

import numpy as np
import pytest

from audits.neighbours import label_flip_neighbours
from audits.run import main, run_audit
from audits.runner import run_spec
from audits.targets.decentralized import DEFAULT_BETA, alpha_for_beta, build_solver, decentralized_spec

NAMES = ["radmm", "mradmm", "ppadmm", "dvp"]


def audit_decentralized(name, *, trials, seed, quick=False, progress=False, noise_factor=None):
    spec = decentralized_spec(name, noise_factor=noise_factor)(None, 1e-5, quick)
    result = run_spec(spec, trials=trials, seed=seed, quick=quick, progress=progress)
    return result.report, result.attacks


def test_alpha_is_calibrated_to_the_papers_beta():
    problem = label_flip_neighbours().problem_in
    # R-ADMM, K = 5 odd steps, C/B = 1, V = 2, η = 1, ρ/N = 1/3: per step 2(1.4·0.25/(1/3 + 4) + α).
    jacobian = 2 * 0.35 / (1 / 3 + 4)
    assert alpha_for_beta("radmm", 6.0, problem) == pytest.approx((6.0 - 5 * jacobian) / 10, rel=1e-12)
    for name in NAMES:
        alpha = alpha_for_beta(name, 4.0, problem)
        result = build_solver(name, alpha, 1e-5).run(
            problem, seed=0, accountants=("pure",), record_history=False, record_transcript=False
        )
        assert result.privacy["pure"] == pytest.approx(4.0, rel=1e-9)
    with pytest.raises(ValueError, match="epsilon .*must exceed"):
        alpha_for_beta("radmm", 0.5, problem)


def test_canary_is_a_unit_norm_label_flip():
    nb = label_flip_neighbours()
    X_in, y_in = nb.problem_in.partition.X, nb.problem_in.partition.y
    X_out, y_out = nb.problem_out.partition.X, nb.problem_out.partition.y
    assert np.array_equal(X_in, X_out)
    differ = np.argwhere(y_in != y_out)
    assert differ.tolist() == [[0, X_in.shape[1] - 1]]
    assert np.linalg.norm(X_in[0, -1]) == 1.0 and y_in[0, -1] == 1.0 and y_out[0, -1] == -1.0
    assert np.linalg.norm(X_in, axis=-1).max() <= 1.0


@pytest.fixture(scope="module")
def reports():
    return {name: audit_decentralized(name, trials=300, seed=1, quick=True, progress=False) for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_correct_solvers_are_consistent_and_every_realised_loss_is_below_beta(reports, name):
    report, attacks = reports[name]
    assert report["verdict"] == "consistent"
    paper = "paper (Thm V.1 β)" if "radmm" in name else "paper (Thm 4.1 β)"
    assert report["claimed_accountant"] == paper
    assert report["epsilon_upper"][paper] == pytest.approx(DEFAULT_BETA, rel=1e-9)
    tight = [k for k in report["epsilon_upper"] if "tight" in k][0]
    assert report["epsilon_upper"][tight] < report["epsilon_upper"][paper]
    realised = report["realised_loss"]
    assert realised["max_abs_realised_loss"] <= realised["canary_max_loss"] * (1 + 1e-9)
    assert realised["canary_max_loss"] < realised["beta_paper"]
    assert realised["trials_exceeding"][paper] == 0
    assert realised["max_per_iteration_ratio_to_epsilon_t"] < 1.0
    assert realised["reconstruction_max_abs_error"] <= 1e-8
    assert realised["max_abs_jacobian_term"] <= 1e-12
    # The NP test sees the canary: a real (small) lower bound with its confidence level.
    bound = report["lower_bounds"]["clopper_pearson"]
    assert 0 < bound["epsilon"] < realised["canary_max_loss"] and bound["confidence"] == 0.95
    assert attacks[0].scores_in.mean() > 0 > attacks[0].scores_out.mean()
    titles = [s["title"] for s in report["sections"]]
    assert titles[0] == "Realised privacy loss of the transcripts"
    assert any(t.startswith("KKT inference") for t in titles) == (name in ("ppadmm", "dvp"))
    json.dumps(report["sections"][0]["data"])


def test_under_noised_radmm_is_flagged():
    """Noise drawn at 4α while Theorem V.1's β for α is claimed: some transcript's realised loss
    exceeds β (a proof, no statistics), so the audit reports VIOLATION."""
    report, _ = audit_decentralized("radmm", trials=300, seed=1, progress=False, noise_factor=4.0)
    assert report["verdict"] == "VIOLATION"
    assert report["verdicts"]["paper (Thm V.1 β)"] == "VIOLATION"
    assert "realised_loss" in report["violated_by"]["paper (Thm V.1 β)"]
    assert report["realised_loss"]["max_abs_realised_loss"] > report["epsilon_upper"]["paper (Thm V.1 β)"]


def test_cli_quick_run_writes_the_report(tmp_path):
    out = tmp_path / "radmm"
    code = main(
        ["radmm", "--quick", "--trials", "200", "--epsilon", "4", "--out", str(out), "--no-progress", "--no-figures"]
    )
    assert code == 0
    report = json.loads((out / "report.json").read_text())
    assert report["beta_target"] == 4.0 and report["trials"] == 200
    assert "the paper's total β" in report["epsilon_meaning"]
    assert "Realised privacy loss" in (out / "report.md").read_text()


def test_run_audit_refuses_an_epsilon_below_the_noise_free_part():
    with pytest.raises(ValueError, match="must exceed"):
        run_audit("dvp", trials=20, epsilon=0.1, progress=False)
