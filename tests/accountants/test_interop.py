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
    PureEpsilonAccountant,
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
