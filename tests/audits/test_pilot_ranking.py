"""The neighbour search ranks pairs by the bound their pilot predicts at the audit's trial count (ties
by the pilot statistic), and the distinguisher search refits a chosen classifier on both halves."""

import mpmath
import numpy as np
import pytest
from scipy import special

from audits.distinguishers import REFITTED, TIE_TOLERANCE, SearchedScore
from audits.neighbour_search import CandidatePair, predicted_epsilon, ranked_first, search_neighbours

ALPHA = 0.05


def _cp_upper(k: int, n: int, alpha: float) -> float:
    """The Clopper–Pearson upper limit: the p with I_p(k + 1, n − k) = 1 − α, by bisection in mpmath."""
    mpmath.mp.dps = 30
    low, high = mpmath.mpf(0), mpmath.mpf(1)
    for _ in range(70):
        middle = (low + high) / 2
        if mpmath.betainc(k + 1, n - k, 0, middle, regularized=True) < 1 - alpha:
            low = middle
        else:
            high = middle
    return float((low + high) / 2)


def _indicator(count: int, m: int) -> np.ndarray:
    values = np.zeros(m)
    values[:count] = 1.0
    return values


def test_ranked_first_takes_the_statistic_among_the_tied_predictions():
    statistics = [0.5, 0.9, 0.2, 0.9]
    assert ranked_first(None, statistics, range(4)) == 1  # no prediction: the statistic, the first of equal ones
    assert ranked_first([0.30, 0.10, 0.31, 0.0], statistics, range(4)) == 0  # 0.30 ties 0.31: the statistic decides
    assert ranked_first([0.30, 0.10, 0.30 + 2 * TIE_TOLERANCE, 0.0], statistics, range(4)) == 2
    assert ranked_first([0.0] * 4, statistics, [0, 2, 3]) == 3  # every prediction 0: only those listed compete


def test_the_pilot_prediction_is_the_clopper_pearson_bound_of_the_best_test_at_the_audit_size():
    """20 of 2,000 pilot releases on D against 1 on D′ in a tail: the test "in iff s ≥ 1", its pilot
    rates at their 97.5 % upper limits, bound at the 8 × 10^5 evaluated trials of a 10^6 audit
    (α/2 on each rate), against mpmath's limits and scipy's inverse incomplete beta function."""
    m, n = 2_000, 800_000
    got = predicted_epsilon(_indicator(20, m), _indicator(1, m), delta=0.0, audit_trials=1_000_000)
    fpr, fnr = _cp_upper(1, m, ALPHA / 2), _cp_upper(m - 20, m, ALPHA / 2)
    fpr_e = special.betaincinv(fpr * n + 1, n - fpr * n, 1 - ALPHA / 2)
    fnr_e = special.betaincinv(fnr * n + 1, n - fnr * n, 1 - ALPHA / 2)
    assert got == pytest.approx(np.log((1 - fnr_e) / fpr_e), rel=1e-9)
    assert 0.5 < got < np.log(20.0)


def _two_pairs(data: object, rng: np.random.Generator, n: int) -> np.ndarray:
    """Pair "broad": P(1) = 0.6 on "broad D", 0.4 on "broad D′" (ε = log 1.5); pair "tail": 0.02 on
    "tail D", 0.0005 on "tail D′" (ε = log 40, rare)."""
    p = {"broad D": 0.6, "broad D'": 0.4, "tail D": 0.02, "tail D'": 0.0005}[str(data)]
    return (rng.random((n, 1)) < p).astype(np.float64)


def _identity(values_in: np.ndarray, values_out: np.ndarray):
    return lambda values: np.asarray(values, dtype=np.float64)[:, 0]


PAIRS = (CandidatePair("broad", "broad D", "broad D'"), CandidatePair("tail", "tail D", "tail D'"))


def test_the_pilot_ranks_a_rare_tail_by_what_the_audit_can_count():
    """4,000 pilot releases per side: the statistic prefers the tail pair (ε = log 40 against log 1.5),
    and so does the bound predicted at 10^6 audited trials; an audit of 2,000 trials per side
    counts too few tail events to bound it, and the prediction there prefers the broad pair."""
    options = {"fits": {"identity": _identity}, "trials": 4_000, "seed": 0, "delta": 0.0}
    plain = search_neighbours(_two_pairs, PAIRS, **options)
    assert plain.pair.name == "tail" and plain.report["pilot_predicted_epsilon"] is None
    statistics = plain.report["pilot_epsilon_lower"]
    assert statistics[1] > statistics[0] + 0.5
    large = search_neighbours(_two_pairs, PAIRS, audit_trials=1_000_000, **options)
    predicted = large.report["pilot_predicted_epsilon"]
    assert large.pair.name == "tail" and large.report["pilot_epsilon_lower"] == statistics  # the same pilots
    assert np.log(1.5) > predicted[0] > 0.2 and np.log(40.0) > predicted[1] > predicted[0] + 0.3
    assert large.report["margin"] == pytest.approx(predicted[1] - predicted[0])
    assert "predicted ε ≥" in large.report["summary"]
    small = search_neighbours(_two_pairs, PAIRS, audit_trials=2_000, **options)
    predicted = small.report["pilot_predicted_epsilon"]
    assert small.pair.name == "broad" and predicted[1] == 0.0 < predicted[0]


@pytest.mark.parametrize("audit_trials", [1, True, 2.5])
def test_the_audit_trial_count_of_the_pilot_is_checked(audit_trials):
    with pytest.raises(ValueError, match=r"audit_trials must be None or an integer >= 2"):
        search_neighbours(
            _two_pairs, PAIRS, fits={"identity": _identity}, trials=100, seed=0, delta=0.0, audit_trials=audit_trials
        )


def test_a_chosen_classifier_is_refitted_on_both_halves():
    """The candidates of REFITTED are fitted again on all calibration releases once chosen; the
    moment fits are not."""
    fitted: list[int] = []

    def column(values_in: np.ndarray, values_out: np.ndarray):
        fitted.append(len(values_in) + len(values_out))
        shift = float(np.mean(values_in))  # the refit's score differs from the first fit's

        return lambda values: np.asarray(values, dtype=np.float64)[:, 0] - shift

    releases = type("R", (), {"values": np.arange(40.0)[:, None]})
    others = type("R", (), {"values": -np.arange(40.0)[:, None]})
    options = {"delta": 0.0, "confidence": 0.95, "deciding": ("clopper_pearson",)}
    assert "logistic classifier" in REFITTED and "mean-difference projection" not in REFITTED
    search = SearchedScore({"logistic classifier": column}, **options)
    assert search.calibrate(releases(), others())["distinguisher"] == "logistic classifier"
    assert fitted == [40, 80]  # the first halves (20 a side), then both halves
    assert search.score is not None and search.score(np.array([[0.0]]))[0] == pytest.approx(-19.5)
    fitted.clear()
    once = SearchedScore({"mean-difference projection": column}, **options)
    once.calibrate(releases(), others())
    assert fitted == [40]
