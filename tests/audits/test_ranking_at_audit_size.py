"""The distinguisher search ranks its candidates by the bound each is predicted to give at the audit's
own trial count, on the validation half alone: a rare but telling event loses at the validation size
and wins at 10^6 audited trials."""

import mpmath
import numpy as np
import pytest
from scipy import special

from audits.distinguishers import SearchedScore
from audits.stats.clopper_pearson import FPR_SHARES

M = 2_000  # validation releases per side (the second half of the calibration)
ALPHA = 0.05
OPTIONS = {"delta": 0.0, "confidence": 1 - ALPHA, "deciding": ("clopper_pearson",)}


def _indicator(count: int) -> np.ndarray:
    values = np.zeros(M)
    values[:count] = 1.0
    return values


def _releases(broad: int, tail: int) -> object:
    """Calibration releases (2M, 2): column 0 is 1 on ``broad`` of each half, column 1 on ``tail``."""
    half = np.column_stack([_indicator(broad), _indicator(tail)])
    return type("Releases", (), {"values": np.concatenate([half, half])})()


# Broad: P(1 | D) = 0.6 against 0.4 (true ε = log 1.5 ≈ 0.405); tail: 0.01 against 0.0005 (true ε = log 20 ≈ 3.0).
ON_D, ON_D_PRIME = _releases(1_200, 20), _releases(800, 1)


class Recorder:
    """Candidates that read one column and record the number of rows every fit and score saw."""

    def __init__(self) -> None:
        self.fitted: list[int] = []
        self.scored: list[int] = []

    def column(self, j: int):
        def fit(values_in: np.ndarray, values_out: np.ndarray):
            self.fitted.append(len(values_in) + len(values_out))

            def score(values: np.ndarray) -> np.ndarray:
                self.scored.append(len(values))
                return np.asarray(values, dtype=np.float64)[:, j]

            return score

        return fit


def _search(trials: int | None, recorder: Recorder | None = None) -> tuple[SearchedScore, dict]:
    recorder = recorder or Recorder()
    search = SearchedScore({"broad": recorder.column(0), "tail": recorder.column(1)}, trials=trials, **OPTIONS)
    return search, search.calibrate(ON_D, ON_D_PRIME)


def _cp_upper(k: float, n: int, alpha: float) -> mpmath.mpf:
    """The Clopper–Pearson upper limit: the p with I_p(k + 1, n − k) = 1 − α, by bisection in mpmath (to 2^−70)."""
    if k >= n:
        return mpmath.mpf(1)
    low, high = mpmath.mpf(0), mpmath.mpf(1)
    for _ in range(70):  # I_p(k + 1, n − k) increases in p
        middle = (low + high) / 2
        if mpmath.betainc(k + 1, n - k, 0, middle, regularized=True) < 1 - alpha:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def _reference(fp: int, fn: int, n: int) -> float:
    """The Clopper–Pearson ε predicted at n audited trials per side (80 % evaluated) for a test with
    ``fp`` and ``fn`` errors of M validation releases, at every share of α: the validation rates' upper
    limits in mpmath, the evaluation's through scipy's inverse of the regularised incomplete beta
    function (not the Beta distribution's isf, which the toolkit uses)."""
    mpmath.mp.dps = 30
    n_eval = n - round(0.2 * n)
    fpr, fnr = float(_cp_upper(fp, M, ALPHA / 2)), float(_cp_upper(fn, M, ALPHA / 2))

    def upper(k: float, level: float) -> float:
        return 1.0 if k >= n_eval else float(special.betaincinv(k + 1, n_eval - k, 1 - level))

    best = 0.0
    for w in FPR_SHARES:
        fpr_e, fnr_e = upper(fpr * n_eval, ALPHA * w), upper(fnr * n_eval, ALPHA * (1 - w))
        best = max(best, *(np.log(top / bottom) for top, bottom in ((1 - fnr_e, fpr_e), (1 - fpr_e, fnr_e)) if top > 0))
    return best


def test_the_ranking_flips_from_the_validation_size_to_the_audited_trial_count():
    _, small = _search(None)  # ranked as if the audit had the validation half's size
    assert small["distinguisher"] == "broad"
    assert small["distinguisher_validation_epsilon"]["tail"] == 0.0
    assert 0.2 < small["distinguisher_validation_epsilon"]["broad"] < np.log(1.5)
    _, large = _search(1_000_000)
    assert large["distinguisher"] == "tail"
    predicted = large["distinguisher_validation_epsilon"]
    assert predicted["broad"] < predicted["tail"] < np.log(20.0)
    # the tail's best test is "in iff s ≥ 1": 1 false positive and 1,980 false negatives of 2,000
    assert predicted["tail"] == pytest.approx(_reference(1, 1_980, 1_000_000), rel=1e-9)
    assert predicted["broad"] == pytest.approx(_reference(800, 800, 1_000_000), rel=1e-9)


def test_the_ranking_sees_only_the_calibration_releases():
    """Fitting sees the first half, scoring the second (the joint-category refit aside): the audited
    trials, scored after the choice, take no part in it; their count enters, never their values."""
    recorder = Recorder()
    search, diagnostics = _search(1_000_000, recorder)
    assert recorder.fitted == [2 * M, 2 * M]  # one fit per candidate, on M releases per side
    assert recorder.scored == [M] * 4  # each candidate scores the M validation releases of each side
    audited = np.column_stack([np.ones(7), np.zeros(7)])
    assert np.array_equal(search.observe(type("R", (), {"values": audited})(), on_d=True), np.zeros(7))
    assert recorder.scored == [M] * 4 + [7]  # only the chosen candidate scores audited trials, after the choice


@pytest.mark.parametrize("trials, error", [(1, ValueError), (True, TypeError), (2.5, TypeError)])
def test_the_audited_trial_count_is_checked(trials, error):
    with pytest.raises(error, match=r"^trials must be None or an int >= 2 \(audited trials per side\), got"):
        SearchedScore({"broad": Recorder().column(0)}, trials=trials, **OPTIONS)
