import math

import pytest
from dp_accounting import dp_event
from hypothesis import given
from hypothesis import strategies as st

from accountants import ExactGaussianAccountant, PureDpEvent, UnsupportedEventError
from accountants import strategies as dps


def classic_multiplier(eps, delta):
    """DP-ADMM's per-iteration calibration (Huang et al., Theorem 1): σ/Δ."""
    return math.sqrt(2 * math.log(1.25 / delta)) / eps


def test_issue_golden_values():
    acc = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(10.0), count=100)
    assert acc.get_epsilon(1e-5) == pytest.approx(4.377178095681137, abs=1e-9)
    acc.register(dp_event.GaussianDpEvent(10.0), count=900)
    assert acc.get_epsilon(1e-5) == pytest.approx(17.856586830107616, abs=1e-9)


@pytest.mark.parametrize(
    "sigma, delta, true_epsilon",
    [(90219583.21511549, 4.3520542162789136e-13, 3.9892002971847792e-08), (10.0, 1e-5, 0.3406693646843264)],
)
def test_epsilon_is_never_below_the_truth(sigma, delta, true_epsilon):
    """The first case was 3.9892000711605095e-08 before (below the truth by 6e-8 relative)."""
    eps = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(sigma)).get_epsilon(delta)
    assert true_epsilon <= eps <= true_epsilon * (1 + 1e-12)


def test_delta_is_never_below_the_truth():
    """3.26137940677e-14 before, below the truth 3.26137948143e-14 by 2e-8 relative."""
    accountant = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(774546.2823380809))
    delta = accountant.get_delta(6.633754074761472e-06)
    assert 3.26137948143e-14 * (1 - 1e-11) <= delta <= 3.26137948143e-14 * (1 + 1e-11)


@pytest.mark.parametrize("eps, expected", [(0.05, 0.2772), (0.1, 0.6339)])
def test_dpadmm_paper_setting_exact_bound(eps, expected):
    """T = 100 releases calibrated to (ε, 1e-3) as in Huang et al. 2020 (Theorem 1) are exactly μ-GDP, μ = 10/z
    (Dong, Roth & Su 2022, Cor. 3.3); the expected ε were computed by the project."""
    acc = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(classic_multiplier(eps, 1e-3)), 100)
    assert round(acc.get_epsilon(1e-3), 4) == expected


def test_time_varying_noise_composes_as_the_sum_of_inverse_squares():
    multipliers = [0.5 + k / 7 for k in range(50)]
    acc = ExactGaussianAccountant()
    for z in multipliers:
        acc.register(dp_event.GaussianDpEvent(z), participant="agent-3")
    assert acc.get_mu("agent-3") == pytest.approx(math.sqrt(math.fsum(1 / z**2 for z in multipliers)), rel=1e-15)


@given(dps.ledgers(), st.floats(1e-9, 0.1))
def test_reordering_or_splitting_a_ledger_changes_nothing(ledger, delta):
    forward = ExactGaussianAccountant().register_ledger(ledger)
    backward = ExactGaussianAccountant()
    for entry in reversed(list(ledger)):
        backward.register(entry.event, entry.count, entry.participant)
    split = ExactGaussianAccountant()
    for entry in ledger:
        for _ in range(entry.count):
            split.register(entry.event, 1, entry.participant)
    for participant in ledger.participants + [None]:
        values = [a.get_epsilon(delta, participant) for a in (forward, backward, split)]
        assert values[1] == pytest.approx(values[0], rel=1e-12)
        assert values[2] == pytest.approx(values[0], rel=1e-12)


@given(st.floats(0.5, 50.0), st.floats(1.01, 3.0), st.integers(1, 500), st.floats(1e-9, 0.1))
def test_epsilon_falls_with_noise_and_rises_with_count(z, factor, count, delta):
    def eps(z_, count_):
        return ExactGaussianAccountant().register(dp_event.GaussianDpEvent(z_), count_).get_epsilon(delta)

    assert eps(z * factor, count) <= eps(z, count)
    assert eps(z, count + 1) >= eps(z, count)


@given(st.floats(0.5, 50.0), st.integers(1, 500), st.floats(1e-9, 0.1))
def test_get_delta_inverts_get_epsilon(z, count, delta):
    acc = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(z), count)
    eps = acc.get_epsilon(delta)
    if eps > 0:
        assert acc.get_delta(eps) == pytest.approx(delta, rel=1e-6)
        assert acc.get_delta(eps) <= delta


def test_refuses_what_it_cannot_bound_and_records_nothing():
    acc = ExactGaussianAccountant()
    with pytest.raises(UnsupportedEventError, match=r"ExactGaussianAccountant cannot bound the event PureDpEvent"):
        acc.register(PureDpEvent(1.0))
    with pytest.raises(UnsupportedEventError, match="LaplaceDpEvent"):
        acc.register(dp_event.ComposedDpEvent([dp_event.GaussianDpEvent(1.0), dp_event.LaplaceDpEvent(1.0)]))
    assert len(acc.ledger) == 0 and acc.get_epsilon(1e-5) == 0.0
    assert not acc.supports(dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(1.0)))


def test_non_private_releases_have_no_finite_bound():
    acc = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(0.0))
    assert acc.get_epsilon(1e-5) == math.inf and acc.get_delta(100.0) == 1.0
