"""audits.targets.pdml: the label guarantee of PDML's randomized response, audited at its server."""

import math

import pytest

from audits.run import run_audit
from audits.runner import run_spec
from audits.targets.pdml import pdml_spec


def run_pdml(*, epsilon, trials, seed, claimed_epsilon=None):
    result = run_spec(
        pdml_spec(claimed_epsilon)(epsilon, 1e-5, True), trials=trials, seed=seed, quick=True, progress=False
    )
    return result.report, result.attacks


@pytest.mark.slow
def test_correct_pdml_is_not_flagged_across_20_seeds_and_flips_at_the_randomized_response_rate():
    # Randomized response is exactly ε-DP, so every accountant is tight here and a correct solver is
    # flagged with probability at most 1 − confidence = 5 % per audit; these 20 fixed seeds show none.
    p = 1 / (1 + math.e)
    for seed in range(20):
        result = run_audit("pdml", trials=400, seed=seed, progress=False)
        report, attacks = result.report, result.attacks
        assert report["verdict"] == "consistent", (seed, report["epsilon_lower"])
        assert report["epsilon_lower"]["clopper_pearson"] <= report["epsilon_upper"]["pure"] == pytest.approx(1.0)
        flips = report["sections"][0]["data"]
        for rate in (flips["flip_rate_in"], flips["flip_rate_out"]):  # 400 Bernoulli(p): sd 0.022
            assert abs(rate - p) < 0.1
    assert report["claimed_epsilon"] == 1.0
    assert attacks[0].scores_in.size == attacks[0].scores_out.size == 400


def test_a_claim_below_the_randomization_level_is_flagged():
    report, _ = run_pdml(epsilon=2.0, claimed_epsilon=1.0, trials=3000, seed=0)
    assert report["verdicts"]["paper (Prop. 1)"] == "VIOLATION"
    assert report["verdicts"]["pure"] == "consistent"  # the accountants see the true ε = 2
    assert report["verdict"] == "VIOLATION"


def test_report_audits_the_derived_broadcast_guarantee_white_box_and_keeps_it_out_of_the_label_bounds():
    report, attacks = run_pdml(epsilon=None, trials=500, seed=0)
    section = report["sections"][1]
    data = section["data"]
    assert section["title"] == "Servers' broadcasts: white-box audit of the derived guarantee"
    assert "grows without bound" in section["markdown"] and "VIOLATION" in section["markdown"]
    assert data["trials"] == 200 and data["replay_error"] <= 1e-8
    assert data["mu_derived"] == pytest.approx(0.5)
    derived = data["epsilon_upper"][data["claimed"]]
    assert derived == pytest.approx(data["epsilon_upper"]["exact_gaussian"], rel=1e-9)  # μ-GDP, μ = 0.5
    # the canary reaches (1 + 2c)/(2 + 2c) of Δ, c = 1/(e^{1/4} − 1), less the canary's own curvature
    c = 1 / math.expm1(0.25)
    assert 0.97 * (1 + 2 * c) / (2 + 2 * c) < data["mu_replayed"] / data["mu_derived"] <= (1 + 2 * c) / (2 + 2 * c)
    for name, eps in data["epsilon_lower"].items():
        assert 0 <= eps <= derived, name
    for name in data["epsilon_upper"]:
        assert report["verdicts"][f"broadcasts: {name}"] == data["verdicts"][name] == "consistent"
    assert set(report["epsilon_lower"]) == {"clopper_pearson"}  # the label audit's keys are unchanged
    assert report["verdict"] == "consistent"
    assert attacks[1].white_box and attacks[1].scores_in.size == 200
    assert list(report["attacks"]) == [attacks[0].attack, attacks[1].attack]


def test_an_underestimated_broadcast_sensitivity_is_flagged(monkeypatch):
    # The solver claims Δ/4 (and calibrates V to it): the broadcasts are then ≈ 1.77-GDP, not 0.5-GDP.
    import solvers.pdml.admm as admm

    real = admm.broadcast_sensitivity
    monkeypatch.setattr(admm, "broadcast_sensitivity", lambda **kwargs: real(**kwargs) / 4)
    report, _ = run_pdml(epsilon=None, trials=500, seed=0)
    data = report["sections"][1]["data"]
    assert data["verdicts"][data["claimed"]] == "VIOLATION"
    assert report["verdicts"]["broadcasts: " + data["claimed"]] == "VIOLATION"
    assert report["verdicts"]["pure"] == "consistent" and report["verdict"] == "VIOLATION"
