"""One neighbouring-relation convention for randomized response across every accountant.

Randomized response is defined under REPLACE_ONE; under ADD_OR_REMOVE_ONE every accountant refuses
it, as dp-accounting's PLD and RDP accountants do (checked against them here).
"""

import math

import pytest
from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.privacy_accountant import NeighboringRelation
from dp_accounting.rdp import rdp_privacy_accountant

from accountants import (
    AdvancedCompositionAccountant,
    ExactGaussianAccountant,
    MomentsAccountant,
    PLDAccountant,
    PrivacyOdometer,
    PureEpsilonAccountant,
    UnsupportedEventError,
)
from accountants.relations import relation_refusal

ACCOUNTANT_TYPES = {
    "pure": PureEpsilonAccountant,
    "optimal": AdvancedCompositionAccountant,
    "drv": lambda **kw: AdvancedCompositionAccountant(theorem="drv", **kw),
    "odometer": PrivacyOdometer,
    "rdp": MomentsAccountant,
    "pld": PLDAccountant,
    "exact_gaussian": ExactGaussianAccountant,
}
RR = dp_event.RandomizedResponseDpEvent(0.5, 3)  # ε = ln(1 + 3·0.5/0.5) = ln 4 under REPLACE_ONE
NESTED = dp_event.ComposedDpEvent([dp_event.SelfComposedDpEvent(RR, 2), dp_event.LaplaceDpEvent(2.0)])


@pytest.mark.parametrize("name", ACCOUNTANT_TYPES)
def test_every_accountant_refuses_randomized_response_under_add_or_remove(name):
    accountant = ACCOUNTANT_TYPES[name](neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE)
    assert not accountant.supports(RR)
    assert not accountant.supports(NESTED)
    with pytest.raises(UnsupportedEventError) as caught:
        accountant.register(NESTED, 3)
    assert caught.value.event == RR
    if name != "exact_gaussian":  # which only knows Gaussian releases
        assert "ADD_OR_REMOVE_ONE" in caught.value.reason
    assert len(accountant.ledger) == 0  # nothing recorded


@pytest.mark.parametrize("relation", [NeighboringRelation.REPLACE_ONE, NeighboringRelation.REPLACE_SPECIAL])
@pytest.mark.parametrize("name", sorted(set(ACCOUNTANT_TYPES) - {"exact_gaussian"}))
def test_every_accountant_bounds_randomized_response_under_replacement(name, relation):
    accountant = ACCOUNTANT_TYPES[name](neighboring_relation=relation)
    assert accountant.supports(RR)
    accountant.register(RR, 3)
    # REPLACE_SPECIAL neighbours are REPLACE_ONE neighbours, so 3 ln 4 holds under both; at δ = 0
    # the (ε, δ) accountants give exactly that (rounded up); PLD and RDP need δ > 0
    if name in ("pld", "rdp"):
        assert 0 < accountant.get_epsilon(1e-9) <= 3 * math.log(4.0) * (1 + 1e-4)
    else:
        assert 3 * math.log(4.0) <= accountant.get_epsilon(0.0) <= 3 * math.log(4.0) * (1 + 1e-12)


@pytest.mark.parametrize("relation", list(NeighboringRelation))
def test_the_convention_is_dp_accountings(relation):
    ours = relation_refusal(RR, relation) == ""
    for theirs in (
        pld_privacy_accountant.PLDAccountant(neighboring_relation=relation),
        rdp_privacy_accountant.RdpAccountant(neighboring_relation=relation),
    ):
        assert theirs.supports(RR) == ours


def test_only_randomized_response_is_concerned():
    for event in (dp_event.LaplaceDpEvent(1.0), dp_event.GaussianDpEvent(1.0), NESTED):
        assert relation_refusal(event, NeighboringRelation.ADD_OR_REMOVE_ONE) == ""
