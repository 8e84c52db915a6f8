"""dp-accounting interoperability: the same event means the same thing, and code written for
dp-accounting runs unchanged on our accountants (through ``DpAccountingView``)."""

from __future__ import annotations

import math

import pytest
from dp_accounting import dp_event, get_epsilon_gaussian, mechanism_calibration
from dp_accounting.pld import PLDAccountant as DpPLDAccountant
from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant
from dp_accounting.rdp import RdpAccountant

from accountants import (
    DpAccountingView,
    ExactGaussianAccountant,
    MomentsAccountant,
    PLDAccountant,
    PrivacyOdometer,
    PureDpEvent,
    PureEpsilonAccountant,
    UnsupportedEventError,
)

RELATIONS = [NeighboringRelation.ADD_OR_REMOVE_ONE, NeighboringRelation.REPLACE_ONE]


@pytest.mark.parametrize("relation", RELATIONS)
def test_a_gaussian_event_bounds_the_same_quantity_as_dp_accounting_pld(relation):
    """GaussianDpEvent(2.0): ε = 1.99 under add-or-remove and 4.38 under replace-one (sensitivity
    2), in dp-accounting's PLD accountant and in every one of ours that bounds it."""
    theirs = DpPLDAccountant(neighboring_relation=relation).compose(dp_event.GaussianDpEvent(2.0), 10)
    expected = theirs.get_epsilon(1e-5)
    mu = math.sqrt(10) / 2.0 * (2.0 if relation == NeighboringRelation.REPLACE_ONE else 1.0)
    exact = get_epsilon_gaussian(1.0 / mu, 1e-5)  # one Gaussian with the composed μ: closed form
    assert expected == pytest.approx(exact, rel=1e-3)
    ours = {
        "exact": ExactGaussianAccountant(neighboring_relation=relation),
        "pld": PLDAccountant(neighboring_relation=relation),
        "rdp": MomentsAccountant(neighboring_relation=relation),
    }
    for accountant in ours.values():
        accountant.register(dp_event.GaussianDpEvent(2.0), 10)
    assert ours["exact"].get_epsilon(1e-5) == pytest.approx(exact, rel=1e-9)
    assert ours["exact"].get_epsilon(1e-5) >= exact * (1 - 1e-12)
    assert ours["pld"].get_epsilon(1e-5) == pytest.approx(expected, rel=1e-6)
    assert exact <= ours["rdp"].get_epsilon(1e-5) <= 1.15 * exact  # RDP: an upper bound, same quantity


@pytest.mark.parametrize("relation", RELATIONS)
def test_laplace_events_double_their_epsilon_under_replace_one(relation):
    factor = 2.0 if relation == NeighboringRelation.REPLACE_ONE else 1.0
    pure = PureEpsilonAccountant(neighboring_relation=relation).register(dp_event.LaplaceDpEvent(4.0), 3)
    assert pure.get_epsilon(0.0) == 3 * factor / 4.0
    pld = PLDAccountant(neighboring_relation=relation).register(dp_event.LaplaceDpEvent(4.0), 3)
    assert pld.get_delta(3 * factor / 4.0 + 1e-3) <= 1e-12  # the whole loss is within 3/b (or 6/b)
    assert pld.get_delta(3 / 4.0 * 0.99) > 1e-6


def test_dp_accounting_relation_is_checked():
    with pytest.raises(TypeError, match="neighboring_relation must be a dp_accounting NeighboringRelation"):
        ExactGaussianAccountant(neighboring_relation="replace")


def test_the_view_is_a_dp_accounting_privacy_accountant():
    view = DpAccountingView(ExactGaussianAccountant())
    assert isinstance(view, PrivacyAccountant)
    assert isinstance(view.ledger, dp_event.NoOpDpEvent)
    assert view.supports(dp_event.GaussianDpEvent(1.0)) and not view.supports(dp_event.LaplaceDpEvent(1.0))
    view.compose(dp_event.GaussianDpEvent(1.0), 3)
    assert view.ledger == dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(1.0), 3)
    assert view.get_epsilon(target_delta=1e-5) == view.accountant.get_epsilon(1e-5)
    assert view.get_delta(target_epsilon=1.0) == view.accountant.get_delta(1.0)
    with pytest.raises(TypeError, match="accountant must be an accountants.Accountant"):
        DpAccountingView(RdpAccountant())


def test_calibrate_dp_mechanism_runs_on_our_accountants():
    """dp-accounting's calibration finds the noise multiplier whose ε is the target; with the
    exact Gaussian accountant that is the closed-form calibration of one Gaussian with μ = sqrt(k)/z."""
    noise = mechanism_calibration.calibrate_dp_mechanism(
        lambda: DpAccountingView(ExactGaussianAccountant()),
        lambda z: dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(z), 100),
        target_epsilon=2.0,
        target_delta=1e-5,
        bracket_interval=mechanism_calibration.ExplicitBracketInterval(1.0, 100.0),
        tol=1e-9,
    )
    assert get_epsilon_gaussian(noise / 10.0, 1e-5) == pytest.approx(2.0, abs=1e-6)
    assert ExactGaussianAccountant().register(dp_event.GaussianDpEvent(noise), 100).get_epsilon(1e-5) <= 2.0


@pytest.mark.slow
def test_a_dp_sgd_accounting_loop_runs_unchanged():
    """The DP-SGD loop of dp-accounting's documentation: Poisson-sampled Gaussian steps composed
    one epoch at a time; ours agrees with dp-accounting's own accountants (RDP: never looser)."""
    q, z, steps_per_epoch = 0.01, 1.1, 100

    def train(accountant):
        for _ in range(5):
            event = dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(z))
            accountant.compose(dp_event.SelfComposedDpEvent(event, steps_per_epoch))
        return accountant.get_epsilon(target_delta=1e-5)

    ours_rdp, theirs_rdp = train(DpAccountingView(MomentsAccountant())), train(RdpAccountant())
    assert theirs_rdp * 0.99 <= ours_rdp <= theirs_rdp * (1 + 1e-10)
    ours_pld, theirs_pld = train(DpAccountingView(PLDAccountant())), train(DpPLDAccountant())
    assert ours_pld == pytest.approx(theirs_pld, rel=1e-3)  # one 500-fold self-composition vs 5 of 100


# ---------------------------------------------------------------------------------------------
# A refused release is an error, recorded nowhere (the view once returned it from _maybe_compose
# and recorded it in its own ledger: ε = 0 after 10^12 Gaussian releases).
def test_releases_a_pld_cannot_hold_are_refused_and_the_exact_accountant_bounds_them():
    view = DpAccountingView(PLDAccountant())
    with pytest.raises(
        UnsupportedEventError, match=r"grid step of 1e\+06 nats .*\] caused by subevent GaussianDpEvent"
    ) as raised:
        view.compose(dp_event.GaussianDpEvent(1.0), 10**12)
    assert raised.value.event == dp_event.GaussianDpEvent(1.0)
    assert view.ledger == dp_event.NoOpDpEvent() and len(view.accountant.ledger) == 0
    exact = DpAccountingView(ExactGaussianAccountant()).compose(dp_event.GaussianDpEvent(1.0), 10**12)
    assert exact.get_epsilon(1e-6) == pytest.approx(get_epsilon_gaussian(1e-6, 1e-6), rel=1e-9)  # μ = 10^6
    assert exact.get_epsilon(1e-6) >= get_epsilon_gaussian(1e-6, 1e-6) * (1 - 1e-12)


def test_a_release_over_the_pld_limit_is_refused_given_what_is_registered():
    """600,000 Laplace releases fit a privacy loss distribution; 600,000 more do not (the limit is
    10^6 self-compositions): the second compose raises and the first stays the whole record;
    ``supports`` and the dry run are checked with the real count against the real ledger."""
    view = DpAccountingView(PLDAccountant())
    laplace = dp_event.LaplaceDpEvent(10.0)
    assert view._maybe_compose(laplace, 600_000, do_compose=False) is None
    view.compose(laplace, 600_000)
    details = view._maybe_compose(laplace, 600_000, do_compose=False)
    assert details is not None and details.invalid_event == laplace and "1200000 releases" in details.error_message
    with pytest.raises(UnsupportedEventError, match="1200000 releases of it exceed 1000000"):
        view.compose(laplace, 600_000)
    assert view.ledger == dp_event.SelfComposedDpEvent(laplace, 600_000)
    assert [entry.count for entry in view.accountant.ledger] == [600_000]
    view.compose(laplace, 399_999)
    assert view.supports(laplace)  # one more is the 10^6-th
    view.compose(laplace)
    assert not view.supports(laplace) and PLDAccountant().supports(laplace)


def test_twice_600000_laplace_releases_are_bounded_by_the_accountants_that_hold_them():
    for accountant in (PureEpsilonAccountant(), MomentsAccountant()):
        view = DpAccountingView(accountant)
        view.compose(dp_event.LaplaceDpEvent(10.0), 600_000).compose(dp_event.LaplaceDpEvent(10.0), 600_000)
        direct = type(accountant)().register(dp_event.LaplaceDpEvent(10.0), 1_200_000)
        assert view.get_epsilon(1e-6) == direct.get_epsilon(1e-6)
    assert DpAccountingView(PureEpsilonAccountant()).compose(dp_event.LaplaceDpEvent(10.0), 1_200_000).get_epsilon(
        1e-6
    ) == pytest.approx(120_000.0, rel=1e-15)


def test_an_odometer_refuses_a_pure_release_after_gaussian_ones():
    """The odometer's Gaussian and (ε, δ) rules do not mix within a participant: after ten
    Gaussian releases a pure one is refused (it was dropped, leaving ε at 1.5), whereas an empty
    odometer supports it."""
    view = DpAccountingView(PrivacyOdometer())
    view.compose(dp_event.GaussianDpEvent(10.0), 10)
    before = view.get_epsilon(1e-6)
    assert PrivacyOdometer().supports(PureDpEvent(5.0)) and not view.supports(PureDpEvent(5.0))
    with pytest.raises(UnsupportedEventError, match=r"releases must all be .*\] caused by subevent PureDpEvent"):
        view.compose(PureDpEvent(5.0))
    assert view.get_epsilon(1e-6) == before
    assert before == PrivacyOdometer().register(dp_event.GaussianDpEvent(10.0), 10).get_epsilon(1e-6)
    assert view.ledger == dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(10.0), 10)


def test_the_unsupported_part_of_a_nested_event_and_the_reason_are_reported():
    view = DpAccountingView(ExactGaussianAccountant())
    event = dp_event.ComposedDpEvent([dp_event.GaussianDpEvent(1.0), dp_event.LaplaceDpEvent(1.0)])
    details = view._maybe_compose(event, 1, do_compose=False)
    assert details == view.CompositionErrorDetails(
        invalid_event=dp_event.LaplaceDpEvent(1.0), error_message="only Gaussian releases compose exactly as μ-GDP"
    )
    with pytest.raises(UnsupportedEventError) as raised:
        view.compose(event)
    assert str(raised.value) == (
        f"ExactGaussianAccountant cannot bound the event {event!r}: [only Gaussian releases compose exactly as "
        "μ-GDP] caused by subevent LaplaceDpEvent(noise_multiplier=1.0)"
    )
    assert len(view.accountant.ledger) == 0  # the Gaussian part is not recorded either


def test_bad_arguments_are_named_and_nothing_is_recorded():
    view = DpAccountingView(PLDAccountant())
    with pytest.raises(ValueError, match="GaussianDpEvent.noise_multiplier must be >= 0"):
        view.compose(dp_event.GaussianDpEvent(math.nan))
    with pytest.raises(ValueError, match="GaussianDpEvent.noise_multiplier must be >= 0"):
        view.supports(dp_event.GaussianDpEvent(-1.0))
    with pytest.raises(TypeError, match="event must be a dp_accounting DpEvent"):
        view.compose("GaussianDpEvent(1.0)")
    for count in (0, -1):  # dp-accounting's ledger refuses a count below 1; so does the view
        with pytest.raises(ValueError, match="count must be a positive integer"):
            view.compose(dp_event.GaussianDpEvent(1.0), count)
    with pytest.raises(TypeError, match="count must be a non-negative integer"):
        view.compose(dp_event.GaussianDpEvent(1.0), 1.0)
    assert len(view.accountant.ledger) == 0


def test_the_ledger_is_the_wrapped_accountants_record(tmp_path):
    """Releases registered on the accountant directly, or loaded from its ledger file, are in the
    view's ledger (the default participant's); another participant's are not."""
    path = tmp_path / "ledger.jsonl"
    ExactGaussianAccountant(ledger_path=path).register(dp_event.GaussianDpEvent(2.0), 4)
    accountant = ExactGaussianAccountant(ledger_path=path)
    view = DpAccountingView(accountant)
    accountant.register(dp_event.GaussianDpEvent(2.0), 2)
    accountant.register(dp_event.GaussianDpEvent(1.0), 5, participant="agent-1")
    view.compose(dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(3.0), 2))
    assert view.ledger == dp_event.ComposedDpEvent(
        [
            dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(2.0), 6),
            dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(3.0), 2),
        ]
    )
    assert view.get_epsilon(1e-5) == accountant.get_epsilon(1e-5, participant="agent-1")  # the worst
    assert view.get_epsilon(1e-5, participant=None) == accountant.get_epsilon(1e-5)
