"""audits.broken: every deliberately broken mechanism is flagged; the correct one never is."""

import numpy as np
import pytest

from audits.broken import BROKEN_VARIANTS, HalvedNoise, UnnoisedIteration
from audits.run import run_audit


@pytest.mark.parametrize("variant", sorted(BROKEN_VARIANTS))
def test_every_broken_variant_is_flagged_as_a_violation(variant):
    report = run_audit(f"dpadmm-broken-{variant}", trials=3000, seed=0, progress=False).report
    assert report["verdict"] == "VIOLATION"
    # the ledger still claims the correct guarantee: the broken code lies about its privacy
    assert report["epsilon_upper"]["exact_gaussian"] == pytest.approx(4.377178, abs=1e-5)
    assert report["epsilon_lower"]["gdp"] > report["epsilon_upper"]["moments_classic"]
    assert report["verdicts"]["exact_gaussian"] == "VIOLATION"


@pytest.mark.slow
def test_correct_dpadmm_is_never_flagged_across_20_seeds():
    lowers = []
    for seed in range(20):
        report = run_audit("dpadmm", trials=600, seed=seed, calibration_trials=200, progress=False).report
        assert report["verdict"] == "consistent", seed
        lowers.append(report["epsilon_lower"]["gdp"])
    assert max(lowers) < 4.377178


def test_broken_noise_is_what_the_name_says():
    from audits.neighbours import canary_neighbours
    from audits.targets.star import DPADMM_ITERATIONS
    from solvers.star.privacy import unit_mu_epsilon

    nb = canary_neighbours()
    kwargs = dict(epsilon=unit_mu_epsilon(1e-5, DPADMM_ITERATIONS), delta=1e-5, n_iterations=5, dw=1.0)
    for cls, expected in ((HalvedNoise, 0.5), (UnnoisedIteration, None)):
        solver = cls(**kwargs)
        white = solver.run(
            nb.problem_in, seed=3, trials=400, accountants=(), record_history=False, record_white_box=True
        )
        noise = white.transcript["w_tilde"] - white.transcript["w_local"]  # (T, R, N, d)
        sigma = white.details.sigma  # claimed (T, N)
        ratio = noise.std(axis=(1, 3)) / sigma
        if expected is None:
            assert np.all(ratio[-1] == 0) and np.all(np.abs(ratio[:-1] - 1) < 0.1)
        else:
            assert np.all(np.abs(ratio - expected) < 0.05)
        assert white.privacy == {}
