"""An accountant with no release reports exactly (0, 0): identical outputs, whatever it is asked."""

from __future__ import annotations

import pytest
from dp_accounting import dp_event

from accountants import ACCOUNTANTS


@pytest.mark.parametrize("name", sorted(ACCOUNTANTS))
def test_no_release_is_exactly_zero_epsilon_and_delta(name):
    accountant = ACCOUNTANTS[name]()
    for delta in (0.0, 1e-300, 1e-10, 0.5):
        assert accountant.get_epsilon(delta) == 0.0, f"ε at δ = {delta}"
    for epsilon in (0.0, 1e-300, 1.0):
        assert accountant.get_delta(epsilon) == 0.0, f"δ at ε = {epsilon}"


@pytest.mark.parametrize("name", sorted(ACCOUNTANTS))
def test_releases_that_reveal_nothing_are_exactly_zero(name):
    accountant = ACCOUNTANTS[name]()
    accountant.register(dp_event.NoOpDpEvent(), 5)
    assert accountant.get_epsilon(1e-300) == 0.0
    assert accountant.get_delta(0.0) == 0.0
