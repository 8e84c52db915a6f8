from hypothesis import given, settings

from accountants import ACCOUNTANTS, Ledger
from accountants import strategies as dps


@settings(max_examples=15)
@given(dps.ledgers(kinds=("gaussian", "pure", "laplace", "approx", "randomized_response"), min_size=1))
def test_ledgers_are_valid_and_bounded_by_some_accountant(ledger):
    assert isinstance(ledger, Ledger) and len(ledger) >= 1
    instances = {name: factory() for name, factory in ACCOUNTANTS.items()}
    names = [n for n, a in instances.items() if all(a.supports(e.event) for e in ledger)]
    gaussian_only = all(type(e.event).__name__ == "GaussianDpEvent" for e in ledger)
    assert ("exact_gaussian" in names) == gaussian_only


def test_unknown_kinds_are_refused():
    import pytest

    with pytest.raises(ValueError, match="unknown event kinds"):
        dps.events(("cauchy",))
