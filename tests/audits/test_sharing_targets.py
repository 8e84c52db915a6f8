"""The ADMM-sharing audits (Hu et al. 2019; audits.targets.sharing): parameter mode flagged, output mode
consistent."""

import json
import math

import numpy as np
import pytest

from audits.report import write_audit
from audits.run import main, run_audit
from audits.targets.sharing import SETTINGS, canary_neighbours, sharing_spec
from solvers.sharing import corollary1_epsilon

COR1 = "paper (Theorem 1 + Corollary 1)"


@pytest.fixture(scope="module")
def parameter_audit():
    result = run_audit("sharing-parameter", trials=200, seed=0)
    return result.report, result.attacks


def test_parameter_mode_is_flagged_against_the_papers_claim(parameter_audit):
    """Must show: the paper's noise="parameter" mode is a VIOLATION of its claimed ε, with the evidence."""
    report, attacks = parameter_audit
    T = SETTINGS["parameter"].n_iterations
    claimed = corollary1_epsilon(0.1, T, 1e-5 / (T + 1))
    assert report["claimed_accountant"] == COR1 and report["claimed_epsilon"] == pytest.approx(claimed)
    assert report["verdict"] == "VIOLATION" and report["verdicts"][COR1] == "VIOLATION"
    assert "clopper_pearson" in report["violated_by"][COR1]
    cp = report["lower_bounds"]["clopper_pearson"]
    # zero errors on 200 + 200 trials at a pre-registered threshold: ε ≥ ln((1 − δ − p)/p) with the
    # Clopper–Pearson upper bound p = 1 − 0.025^(1/200) on both error rates
    assert cp["details"]["fp"] == 0 and cp["details"]["fn"] == 0
    p = 1 - 0.025 ** (1 / 200)
    assert cp["epsilon"] == pytest.approx(math.log((1 - 1e-5 - p) / p), rel=1e-9)
    assert cp["epsilon"] > 2 * claimed and cp["correction"].startswith("none")
    evidence = report["sections"][0]["data"]
    assert evidence["max_residual_out"] < 1e-12 and evidence["min_residual_in"] > 1e-6
    assert evidence["true_epsilon"] == math.inf and evidence["trials_needed_to_exceed_claim"] <= 200
    assert evidence["lemma1_counterexample"]["realised"] > evidence["lemma1_counterexample"]["claimed"]
    # no accountant vouches for the mode: every one says ∞
    accountants = {k: v for k, v in report["epsilon_upper"].items() if not k.startswith("paper")}
    assert accountants and all(v == math.inf for v in accountants.values())
    assert attacks[0].metrics()["auroc"] == 1.0


def test_gram_recovery_is_in_the_report_below_1e_6(parameter_audit):
    report, _ = parameter_audit
    gram = next(s for s in report["sections"] if s["title"].startswith("Gram"))["data"]
    assert gram["relative_error"] < 1e-6 and gram["rank"] == gram["d_m"] == SETTINGS["parameter"].widths[0]


def test_every_bound_carries_its_confidence_and_the_report_writes(parameter_audit, tmp_path):
    report, attacks = parameter_audit
    for bound in report["lower_bounds"].values():
        assert bound["confidence"] == 0.95 and bound["delta"] == 1e-5
    paths = write_audit(dict(report), attacks, tmp_path)
    saved = json.loads(paths["json"].read_text())
    assert saved["verdict"] == "VIOLATION" and saved["attacks"]["column-space residual test"]["metrics"]["auroc"] == 1
    assert "Column-space evidence" in paths["md"].read_text()
    assert (tmp_path / "roc.png").stat().st_size > 0 and "epsilon_meaning" in saved


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_output_mode_is_consistent_across_seeds(seed):
    result = run_audit("sharing-output", trials=300, seed=seed)
    report, attacks = result.report, result.attacks
    assert report["verdict"] == "consistent", report["epsilon_lower"]
    assert set(report["epsilon_upper"]) >= {"exact_gaussian", "pld", "rdp", COR1}
    assert max(report["epsilon_lower"].values()) < report["epsilon_upper"]["exact_gaussian"]
    realised = report["sections"][0]["data"]["realised_over_accountant"]
    assert 0.85 < realised <= 1.0  # the canary nearly attains Δ_safe
    assert attacks[0].metrics()["auroc"] > 0.6 and attacks[1].metrics()["auroc"] < 0.6
    assert report["exact_mu"] == pytest.approx(math.sqrt(20) / math.sqrt(2 * math.log(1.25 * 21 / 1e-5)))


def test_neighbours_differ_in_one_row_of_party_0_only():
    for mode in ("parameter", "output"):
        nb = canary_neighbours(mode)
        D, D_out = nb.problem_in.partition.D, nb.problem_out.partition.D
        differ = np.argwhere(np.any(D_out != D, axis=-1))
        assert differ.tolist() == [[0, SETTINGS[mode].n_samples - 1]]
        assert np.all(np.linalg.norm(D, axis=-1) <= 1 + 1e-12) and np.all(np.linalg.norm(D_out, axis=-1) <= 1 + 1e-12)
        np.testing.assert_array_equal(nb.problem_in.partition.y, nb.problem_out.partition.y)
    nb = canary_neighbours("parameter")  # the paper's adjacency: unit rows, ‖a − a′‖ = 1
    assert np.linalg.norm(nb.canary_in - nb.canary_out) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["sharing-parameter", "--epsilon", "1.5", "--trials", "10"], "per-iteration ε in [1e-06, 1]"),
        (["sharing-output", "--trials", "5"], "trials must be an int in [10, 100,000,000]"),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(argv, message, capsys):
    assert main(argv + ["--no-figures", "--no-progress"]) == 2
    assert message in capsys.readouterr().err


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="mode must be one of"):
        sharing_spec("gradient")
    with pytest.raises(ValueError, match="mode must be one of"):
        canary_neighbours("gradient")
