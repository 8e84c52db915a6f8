"""audits.audit on users' code: the bug zoo is flagged, correct twins and exact mechanisms never are.

The mechanisms are plain numpy functions (tests/audits/bug_zoo.py), audited with default arguments
and no hand-written score. Seeds are fixed, so every statistical assertion is deterministic.
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from dp_accounting.dp_event import GaussianDpEvent

from accountants import Ledger, LedgerEntry, best_epsilon
from audits import AuditReport, Claim, audit, audit_one_run, whitebox_replay

HERE = Path(__file__).resolve().parent


def _user_module(name: str) -> ModuleType:
    """Import ``HERE/name.py`` as the top-level module ``name``, as a user's own module is imported."""
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


zoo = _user_module("bug_zoo")
LAPLACE_PAIR = (np.zeros(5), np.array([1.0, 0.0, 0.0, 0.0, 0.0]))
LAPLACE_CLAIM = Claim(epsilon=1.0, delta=0.0, noise="laplace")

BUGS = [
    pytest.param(zoo.variance_as_std, zoo.unit_pair, True, id="variance-as-std"),
    pytest.param(zoo.uncomposed, zoo.unit_pair, True, id="uncomposed-rounds"),
    pytest.param(zoo.data_scale, zoo.extreme_pair, True, id="data-dependent-scale"),
    pytest.param(zoo.half_sensitivity, zoo.replace_pair, True, id="sensitivity-missing-2"),
    pytest.param(zoo.reseeded, zoo.replace_pair, False, id="constant-reseed"),
]
TWINS = [
    pytest.param(zoo.variance_as_std_twin, zoo.unit_pair, True, id="variance-as-std"),
    pytest.param(zoo.uncomposed_twin, zoo.unit_pair, True, id="uncomposed-rounds"),
    pytest.param(zoo.sensitivity_two, zoo.extreme_pair, True, id="data-dependent-scale"),
    pytest.param(zoo.sensitivity_two, zoo.replace_pair, True, id="sensitivity-missing-2"),
    pytest.param(zoo.reseeded_twin, zoo.replace_pair, False, id="constant-reseed"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("mechanism", "pair", "batched"), BUGS)
def test_every_bug_of_the_zoo_is_flagged(mechanism, pair, batched):
    report = audit(mechanism, *pair(), claim=zoo.CLAIM, batched=batched, progress=False)
    assert report.verdict == "VIOLATION"
    assert max(b.epsilon for b in report.epsilon_lower.values()) > zoo.EPSILON
    assert report.report["violated_by"]["claimed"]


def test_a_constant_seed_is_named_in_the_report():
    report = audit(zoo.reseeded, *zoo.replace_pair(), claim=zoo.CLAIM, batched=False, trials=2_000, progress=False)
    assert report.report["constant_releases"] is True
    assert report.report["reproducible"] is True
    assert "Every trial gave the same release" in _section(report, "Reproducibility")


@pytest.mark.slow
@pytest.mark.parametrize(("mechanism", "pair", "batched"), TWINS)
def test_the_correct_twin_is_never_flagged_over_20_seeds(mechanism, pair, batched):
    trials = 10_000 if batched else 3_000  # one Python call per release when unbatched
    flagged = [
        seed
        for seed in range(20)
        if audit(mechanism, *pair(), claim=zoo.CLAIM, batched=batched, trials=trials, seed=seed, progress=False).verdict
        != "consistent"
    ]
    assert flagged == []


@pytest.mark.slow
def test_the_exact_laplace_mechanism_is_never_flagged_over_20_seeds():
    bounds = []
    for seed in range(20):
        report = audit(zoo.laplace, *LAPLACE_PAIR, claim=LAPLACE_CLAIM, trials=10_000, seed=seed, progress=False)
        assert report.verdict == "consistent", seed
        assert set(report.epsilon_lower) == {"clopper_pearson"}  # δ = 0: worst case only
        bounds.append(report.epsilon_lower["clopper_pearson"].epsilon)
    assert 0.5 < max(bounds) <= 1.0  # the search finds a real distinguisher, below the exact ε = 1


def test_the_gdp_bound_cannot_decide_a_laplace_claim():
    """For Laplace noise the Gaussian-DP bound reads ~4.5 against the true ε = 1: it is reported for
    information only, and the verdict stays with the worst-case bound."""
    claim = Claim(epsilon=1.0, delta=1e-5, noise="laplace")
    report = audit(zoo.laplace, *LAPLACE_PAIR, claim=claim, seed=0, progress=False)
    assert report.verdict == "consistent"
    assert set(report.epsilon_lower) == {"clopper_pearson"}
    assert report.report["informational_lower_bounds"]["gdp"]["epsilon"] > 4.0


def test_floating_point_leakage_is_its_own_finding():
    """numpy's Laplace sampler plus a shifted centre leaks through rounding (Mironov 2012): the
    floating-point test sees it, the mechanism verdict does not."""
    report = audit(zoo.laplace, *LAPLACE_PAIR, claim=LAPLACE_CLAIM, seed=0, progress=False)
    finding = report.report["floating_point"]
    assert report.verdict == "consistent"
    assert finding["exceeds_claim"] is True and finding["epsilon_lower"] > 5.0
    assert "leaks through floating point" in _section(report, "Floating-point channel")


def test_raw_scores_would_read_the_low_bits_and_the_resolution_stops_them():
    """The exact Laplace log-likelihood ratio is constant beyond the two centres over the reals; in
    floating point its last bits differ between D and D′. At full precision the bound reads far
    above ε = 1; at the default resolution it stays at or below 1."""

    def exact_llr(releases):
        x = np.asarray(releases)[:, 0]
        return np.abs(x - 1.0) - np.abs(x)

    options = {"claim": LAPLACE_CLAIM, "score": exact_llr, "seed": 0, "progress": False}
    rounded = audit(zoo.laplace, *LAPLACE_PAIR, **options)
    raw = audit(zoo.laplace, *LAPLACE_PAIR, resolution=1e-300, **options)
    assert rounded.verdict == "consistent" and rounded.epsilon_lower["clopper_pearson"].epsilon <= 1.0
    assert raw.epsilon_lower["clopper_pearson"].epsilon > 3.0


def test_whitebox_replay_reaches_the_exact_mu_of_an_iterative_mechanism():
    """The replay of the ADMM-like iteration is the Neyman–Pearson test of the whole transcript:
    its scores are exactly Gaussian with μ = sqrt(T)·Δ/σ, and the GDP bound lands just below it."""
    sigma = 2 * zoo.SIGMA1 * math.sqrt(zoo.ROUNDS)
    D, D_prime = zoo.unit_pair()

    def step(data, history):
        previous = history[:, -1] if history.shape[1] else 0.0
        return 0.5 * previous + data.sum(axis=0)

    replay = whitebox_replay(step, D, D_prime, noise="gaussian", scale=sigma)
    report = audit(zoo.uncomposed_twin, D, D_prime, claim=zoo.CLAIM, score=replay, seed=0, progress=False)
    exact_mu = math.sqrt(zoo.ROUNDS) / sigma
    assert 0.95 * exact_mu < report.epsilon_lower["gdp"].mu <= exact_mu


def test_neighbour_search_picks_the_most_distinguishable_candidate():
    D = zoo.dataset(1.0)
    candidates = [zoo.dataset(0.9), zoo.dataset(-1.0), zoo.dataset(0.5)]
    report = audit(zoo.sensitivity_two, D, neighbours=candidates, claim=zoo.CLAIM, trials=5_000, progress=False)
    search = report.report["neighbour_search"]
    assert search["chosen"] == 1 and search["candidates"] == 3
    assert search["pilot_epsilon_lower"][1] == max(search["pilot_epsilon_lower"])


def test_a_claim_from_the_users_ledger_is_the_accountants_best_bound():
    # the twin's rounds: σ = 2·σ₁·sqrt(T) at replace-one sensitivity 2, so σ/Δ = σ₁·sqrt(T) per round
    ledger = Ledger([LedgerEntry("user", GaussianDpEvent(zoo.SIGMA1 * math.sqrt(zoo.ROUNDS)), count=zoo.ROUNDS)])
    claim = Claim.from_ledger(ledger, zoo.DELTA, noise="gaussian")
    best = best_epsilon(ledger, zoo.DELTA)
    assert claim.upper[claim.bound] == best.epsilon and claim.bound == best.accountant
    report = audit(zoo.uncomposed_twin, *zoo.replace_pair(), claim=claim, trials=5_000, progress=False)
    assert report.verdict == "consistent"
    assert report.epsilon_upper[claim.bound] == best.epsilon


def test_write_gives_the_command_line_report(tmp_path):
    report = audit(zoo.variance_as_std, *zoo.unit_pair(), claim=zoo.CLAIM, trials=2_000, progress=False)
    paths = report.write(tmp_path / "out")
    written = json.loads(paths["json"].read_text())
    assert written["verdict"] == report.verdict == "VIOLATION"
    assert written["solver_params"]["mechanism"] == "bug_zoo.variance_as_std"
    assert "per chunk of trials" in written["random_streams"]["within a trial"]  # the stream layout, recorded
    assert {"roc.png", "bounds.png"} <= {p.name for p in paths.values()}
    assert "# Privacy audit" in paths["md"].read_text()


def test_the_command_line_runs_a_users_audit_spec(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "audits.run", "bug_zoo:variance_as_std_audit", "--quick", "--no-figures"]
        + ["--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=HERE,  # bug_zoo lives outside the toolkit's packages, as a user's module would
        timeout=300,
    )
    assert run.returncode == 1, run.stderr  # VIOLATION
    assert json.loads((tmp_path / "report.json").read_text())["solver"] == "variance-as-std"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epsilon": -1.0, "delta": 1e-5}, r"^epsilon must be None or > 0 \(inf allowed\) .*, got -1.0$"),
        ({"epsilon": 1.0, "delta": 1.0}, r"^delta must be a probability in \[0, 1\), got 1.0$"),
        ({"epsilon": 1.0, "delta": 1e-5, "noise": "uniform"}, "^noise must be one of 'gaussian', 'laplace', 'other'"),
        ({"delta": 1e-5, "upper": {"paper": -1.0}}, r"^upper\['paper'\] must be an ε in \[0, inf\], got -1.0$"),
        ({"epsilon": 1.0, "delta": 1e-5, "bound": "rdp"}, "give epsilon or bound, not both"),
    ],
)
def test_bad_claims_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Claim(**kwargs)


def test_bad_arguments_and_bad_releases_are_refused():
    D, D_prime = zoo.unit_pair()
    with pytest.raises(ValueError, match="exactly one of D_prime"):
        audit(zoo.sensitivity_two, D, D_prime, neighbours=[D_prime], claim=zoo.CLAIM)
    with pytest.raises(ValueError, match=r"trials must be None or an int in \[10, 100,000,000\] \(audited trials"):
        audit(zoo.sensitivity_two, D, D_prime, claim=zoo.CLAIM, trials=5)
    with pytest.raises(TypeError, match="claim must be an audits.Claim"):
        audit(zoo.sensitivity_two, D, D_prime, claim=(8.0, 1e-5))

    def nan_mechanism(data, rng, n):
        out = rng.normal(size=(n, 2))
        out[0, 0] = np.nan
        return out

    with pytest.raises(ValueError, match="nan_mechanism returned NaN or infinite values in 1 of"):
        audit(nan_mechanism, D, D_prime, claim=zoo.CLAIM, trials=100, progress=False)

    def short_mechanism(data, rng, n):
        return rng.normal(size=(n - 1, 2))

    with pytest.raises(ValueError, match=r"must return n = \d+ releases"):
        audit(short_mechanism, D, D_prime, claim=zoo.CLAIM, trials=100, progress=False)


def _section(report: AuditReport, title: str) -> str:
    markdown: str = next(s["markdown"] for s in report.report["sections"] if s["title"] == title)
    return markdown


def _one_run_setup():
    rng = np.random.default_rng(0)
    canaries = rng.normal(size=(2_000, 4_000))
    canaries /= np.linalg.norm(canaries, axis=1, keepdims=True)  # unit canaries: sensitivity 1
    return np.zeros((10, 4_000)), list(canaries), Claim(epsilon=1.0, delta=1e-5, noise="gaussian")


def test_one_run_audit_flags_too_little_noise_and_passes_the_calibrated_sum():
    D, canaries, claim = _one_run_setup()
    sigma = math.sqrt(2 * math.log(1.25 / claim.delta)) / claim.epsilon  # classic calibration, Δ = 1

    def calibrated(data, rng, n):
        return data.sum(axis=0) + rng.normal(0.0, sigma, size=(n, data.shape[1]))

    def too_little_noise(data, rng, n):
        return data.sum(axis=0) + rng.normal(0.0, 0.01, size=(n, data.shape[1]))

    for seed in range(3):
        good = audit_one_run(calibrated, D, canaries, claim=claim, seed=seed)
        assert good.verdict == "consistent" and set(good.epsilon_lower) == {"one-run", "one-run-fdp"}
    bad = audit_one_run(too_little_noise, D, canaries, claim=claim, seed=0)
    assert bad.verdict == "VIOLATION"
    assert bad.epsilon_lower["one-run"].epsilon > 2.0  # worst case, m = 2,000 canaries in one run
    assert bad.to_dict()["included"] == int(bad.included.sum()) and 900 < bad.included.sum() < 1_100


def test_one_run_audit_refuses_what_it_cannot_score():
    D, canaries, claim = _one_run_setup()
    with pytest.raises(ValueError, match="at least 2 records"):
        audit_one_run(zoo.sensitivity_two, D, canaries[:1], claim=claim)
    with pytest.raises(TypeError, match="audits.Claim with a number"):
        audit_one_run(zoo.sensitivity_two, D, canaries, claim=Claim(delta=1e-5, bound="rdp"))
    with pytest.raises(ValueError, match="the default score needs canaries of the release's size"):
        audit_one_run(lambda data, rng, n: rng.normal(size=(n, 3)), D, canaries, claim=claim)


@pytest.mark.slow
def test_audit_with_a_whitebox_replay_matches_the_dpadmm_command():
    """DP-ADMM audited as a user's code (its transcript as the release, the paper's step (3a) as the
    replay) gives the same Gaussian-DP bound as ``python -m audits.run dpadmm``, within the
    run-to-run spread, and the same verdict against the same accountants."""
    from audits.run import run_audit
    from audits.targets.star import dpadmm_spec

    spec = dpadmm_spec()(None, 1e-5, False)
    solver, D, D_prime, agent = spec.solver, spec.problem_in, spec.problem_out, spec.participant
    plan = solver.plan(D).details  # η and σ (T, N), public constants

    def mechanism(problem, rng, n):  # agent 0's noisy iterates and the public average, (n, T, 2, d)
        seeds = rng.integers(2**63, size=n).tolist()
        transcript = solver.run(problem, seeds=seeds, accountants=(), record_history=False).transcript
        return np.stack([transcript["w_tilde"][:, :, agent], transcript["w"]], axis=2).swapaxes(0, 1)

    def step(problem, history):  # (3a): agent 0's noise-free update from what was released
        if history.shape[1] == 0:
            w_tilde = w = gamma = np.zeros((history.shape[0], history.shape[-1]))
        else:
            w_tilde, w = history[:, -1, 0], history[:, -1, 1]
            gamma = -solver.rho * (history[:, :, 0] - history[:, :, 1]).sum(axis=1)  # (3d)
        X, y = problem.partition.agent_data(agent)
        gradient = problem.loss.gradient(w_tilde, X, y)
        gradient += (problem.lam / problem.n_agents) * problem.regularizer.gradient(w_tilde)
        inverse_eta = 1.0 / plan.eta[history.shape[1], agent]
        return (solver.rho * w + gamma + w_tilde * inverse_eta - gradient) / (solver.rho + inverse_eta)

    replay = whitebox_replay(
        step, D, D_prime, noise="gaussian", scale=plan.sigma[:, agent], release=lambda round_: round_[:, 0]
    )
    ledger = solver.run(D, seed=0, accountants=(), record_transcript=False).ledger
    claim = Claim.from_ledger(ledger, 1e-5, participant=agent, noise="gaussian")
    ours = audit(mechanism, D, D_prime, claim=claim, score=replay, trials=20_000, seed=0, progress=False)
    command = run_audit("dpadmm", trials=20_000, seed=0, progress=False).report
    assert ours.verdict == command["verdict"] == "consistent"
    assert ours.epsilon_upper["exact_gaussian"] == pytest.approx(command["epsilon_upper"]["exact_gaussian"], rel=1e-12)
    # the same statistic: the Neyman–Pearson score is N(±μ²/2, μ²) with the exact μ = 1 on both routes
    scores = ours.attacks[0]
    moments = command["score_moments"]
    assert (
        abs(scores.scores_in.mean() - moments["in_mean"]) < 0.03
        and abs(scores.scores_in.var() - moments["in_var"]) < 0.05
    )
    assert abs(scores.scores_out.mean() - moments["out_mean"]) < 0.03
    # and the bound within the run-to-run spread at 2×10^4 trials (seeds 0–3 of audit(): μ ≥ 0.918–0.968)
    assert 0.9 < ours.epsilon_lower["gdp"].mu <= 1.0 and 0.9 < command["mu_lower"]["gdp"] <= 1.0


def test_the_report_is_the_same_for_any_number_of_worker_processes(monkeypatch):
    reports = []
    for workers in ("1", "2"):
        monkeypatch.setenv("DP_AUDIT_WORKERS", workers)
        report = audit(zoo.sensitivity_two, *zoo.replace_pair(), claim=zoo.CLAIM, trials=12_000, progress=False)
        reports.append({k: v for k, v in report.report.items() if k != "runtime_seconds"})
    assert reports[0] == reports[1]
    monkeypatch.setenv("DP_AUDIT_WORKERS", "0")
    with pytest.raises(ValueError, match="DP_AUDIT_WORKERS must be a positive integer"):
        audit(zoo.sensitivity_two, *zoo.replace_pair(), claim=zoo.CLAIM, trials=12_000, progress=False)
