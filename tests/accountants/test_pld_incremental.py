"""The PLD accountant folds Gaussian releases into one and caches compositions: a budget filter's
step-by-step answers are exactly the from-scratch ones, and still bracket the truth."""

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest
from dp_accounting import dp_event
from dp_accounting.pld import PLDAccountant as DpPLDAccountant
from dp_accounting.privacy_accountant import NeighboringRelation

from accountants import BudgetFilter, ExactGaussianAccountant, Ledger, LedgerEntry, PLDAccountant, PureDpEvent
from accountants.gaussian_dp import gaussian_delta

RELEASES = [(3.0, 4), (5.0, 1), (7.5, 10)]  # (noise multiplier, count)
COARSE = 1e-3  # a coarser grid than the default: bounds stay valid, tests stay fast


def noise_of_the_composition(releases):
    """1/sqrt(Σ count/z²) to 40 digits: the one Gaussian release the composition equals."""
    total = sum(Fraction(count) / Fraction(z) ** 2 for z, count in releases)
    with localcontext() as context:
        context.prec = 40
        return float(1 / (Decimal(total.numerator) / Decimal(total.denominator)).sqrt())


@pytest.mark.parametrize("relation", [NeighboringRelation.ADD_OR_REMOVE_ONE, NeighboringRelation.REPLACE_ONE])
def test_gaussian_releases_compose_as_one_gaussian(relation):
    ours = PLDAccountant(COARSE, neighboring_relation=relation)
    sequential = DpPLDAccountant(neighboring_relation=relation, value_discretization_interval=COARSE)  # one by one
    exact = ExactGaussianAccountant(neighboring_relation=relation)
    for z, count in RELEASES:
        event = dp_event.GaussianDpEvent(z)
        ours.register(event, count)
        sequential.compose(event, count)
        exact.register(event, count)
    single = DpPLDAccountant(neighboring_relation=relation, value_discretization_interval=COARSE)
    single.compose(dp_event.GaussianDpEvent(noise_of_the_composition(RELEASES)))
    epsilon = ours.get_epsilon(1e-6)
    # the closed form of the one equivalent release: the exact ε (to the ulps of the outward
    # roundings), below dp-accounting's PLD of that release and of the sequential composition
    assert exact.get_epsilon(1e-6) <= epsilon <= exact.get_epsilon(1e-6) * (1 + 1e-13)
    assert epsilon <= single.get_epsilon(1e-6) <= sequential.get_epsilon(1e-6)
    assert epsilon == pytest.approx(single.get_epsilon(1e-6), rel=1e-4)  # the same quantity
    assert ours.get_delta(epsilon) <= 1e-6


def test_mixed_releases_agree_with_dp_accounting():
    events = [dp_event.LaplaceDpEvent(20.0)] * 3 + [dp_event.GaussianDpEvent(z) for z in (10.0, 12.0, 14.0, 16.0)]
    ours, theirs = PLDAccountant(), DpPLDAccountant()
    for event in events:
        ours.register(event)
        theirs.compose(event)
    assert ours.get_epsilon(1e-6) == pytest.approx(theirs.get_epsilon(1e-6), rel=1e-6)
    assert ours.get_epsilon(1e-6) <= theirs.get_epsilon(1e-6)  # Gaussians folded: one discretisation


def test_a_budget_filter_loop_gets_the_from_scratch_answer_at_every_step():
    """Each step composes only the new release into the kept composition (the Laplace releases
    here; Gaussian releases are folded at each query): the same bound as composing the ledger from
    scratch up to the FFTs' rounding and the slack each composition adds (1e-7 relative), never
    below dp-accounting's own sequential composition beyond its grid step."""
    budget = BudgetFilter(PLDAccountant(COARSE), epsilon=1e3, delta=1e-5, unproven="ignore")
    theirs = DpPLDAccountant(value_discretization_interval=COARSE)
    for step in range(24):
        event = dp_event.LaplaceDpEvent(30.0) if step % 6 == 5 else dp_event.GaussianDpEvent(20.0 + step)
        predicted = budget.epsilon_if_registered(event, 1e-5, participant="p")
        budget.register(event, participant="p")
        theirs.compose(event)
        from_scratch = PLDAccountant(COARSE).register_ledger(budget.ledger)
        assert budget.get_epsilon(1e-5) == predicted == pytest.approx(from_scratch.get_epsilon(1e-5), rel=1e-7)
        assert budget.get_epsilon(1e-5) >= theirs.get_epsilon(1e-5) - COARSE
    # golden, to the last bits FFTs differ in across numpy versions
    assert budget.get_epsilon(1e-5) == pytest.approx(0.6024295268626231, rel=1e-7)
    theirs = DpPLDAccountant(value_discretization_interval=COARSE)
    for entry in budget.ledger:
        theirs.compose(entry.event)
    assert budget.get_epsilon(1e-5) == pytest.approx(theirs.get_epsilon(1e-5), rel=1e-3)


def test_a_filter_on_a_shared_ledger_file_composes_what_others_appended(tmp_path):
    path = tmp_path / "shared.jsonl"
    budget = BudgetFilter(PLDAccountant(COARSE, ledger_path=path), epsilon=50.0, delta=1e-5)
    other = PLDAccountant(COARSE, ledger_path=path)
    budget.register(dp_event.GaussianDpEvent(5.0))
    predicted = budget.epsilon_if_registered(dp_event.GaussianDpEvent(4.0), 1e-5)
    other.register(dp_event.GaussianDpEvent(3.0), count=2).register(PureDpEvent(0.5))  # appended meanwhile
    budget.register(dp_event.GaussianDpEvent(4.0))
    reloaded = PLDAccountant(COARSE, ledger_path=path)
    assert len(reloaded.ledger) == 4 and budget.get_epsilon(1e-5) == reloaded.get_epsilon(1e-5) > predicted
    assert budget.epsilon_if_registered(PureDpEvent(0.1), 1e-5) == pytest.approx(
        PLDAccountant(COARSE)
        .register_ledger(Ledger([*reloaded.ledger, LedgerEntry(None, PureDpEvent(0.1))]))
        .get_epsilon(1e-5),
        rel=1e-9,
    )  # the pure release composed into the kept composition: from scratch up to the FFTs' rounding


def test_folded_noise_too_large_for_floats_is_capped_not_dropped():
    # 1/z² underflows to 0 at z = 1e300: the release still leaks (ε = ∞ at δ = 0), by no more than
    # μ = sqrt(3)/1e300, which is less than at noise 1e5
    huge = PLDAccountant().register(dp_event.GaussianDpEvent(1e300), 3)
    less_noisy = PLDAccountant().register(dp_event.GaussianDpEvent(1e5), 3)
    assert huge.get_epsilon(0.0) == math.inf and 0 < huge.get_delta(0.0) < less_noisy.get_delta(0.0)
    exact = gaussian_delta(math.sqrt(3) * 1e-300, 0.0)
    assert exact <= huge.get_delta(0.0) <= exact * (1 + 1e-14)
    assert PLDAccountant().register(dp_event.GaussianDpEvent(math.inf), 3).get_epsilon(0.0) == 0.0


def test_mixed_releases_composed_step_by_step_bound_what_dp_accounting_composes():
    """Gaussian, Laplace and Poisson-sampled Gaussian releases interleaved, one at a time: every
    step's bound is within 1e-7 of the from-scratch composition and at or above dp-accounting's
    sequential composition (ours folds the Gaussians: tighter, but never by more than a grid step)."""
    mixed = [
        dp_event.LaplaceDpEvent(20.0),
        dp_event.GaussianDpEvent(10.0),
        dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0)),
    ]
    ours, theirs = PLDAccountant(COARSE), DpPLDAccountant(value_discretization_interval=COARSE)
    for step in range(12):
        event = mixed[step % 3]
        predicted = ours.epsilon_if_registered(event, 1e-6)
        ours.register(event)
        theirs.compose(event)
        assert ours.get_epsilon(1e-6) == predicted
        from_scratch = PLDAccountant(COARSE).register_ledger(ours.ledger).get_epsilon(1e-6)
        assert predicted == pytest.approx(from_scratch, rel=1e-7)
        assert theirs.get_epsilon(1e-6) - COARSE <= predicted <= theirs.get_epsilon(1e-6) * (1 + 1e-3)


def test_a_pld_filter_admits_by_delta_at_the_budget_and_refuses_by_epsilon():
    """A PLD filter admits a release when δ at the budget's ε stays within the budget's δ (no ε
    search): after every admitted step the accountant certifies (ε_budget, δ_budget); the release
    that would overspend is refused with its ε above the budget, and nothing is recorded."""
    from accountants import PrivacyBudgetExceeded

    mixed = [
        dp_event.LaplaceDpEvent(10.0),
        dp_event.GaussianDpEvent(8.0),
        dp_event.PoissonSampledDpEvent(0.05, dp_event.GaussianDpEvent(1.5)),
    ]
    accountant = PLDAccountant(COARSE)
    searches = []
    search = accountant.epsilon_if_registered
    accountant.epsilon_if_registered = lambda *args, **kwargs: searches.append(args) or search(*args, **kwargs)
    budget = BudgetFilter(accountant, epsilon=1.0, delta=1e-5, unproven="ignore")
    admitted = 0
    with pytest.raises(PrivacyBudgetExceeded) as refused:
        for step in range(100):
            budget.register(mixed[step % 3])
            admitted += 1
            assert budget.get_delta(1.0) <= 1e-5
            assert budget.get_epsilon(1e-5) <= 1.0
    assert refused.value.epsilon > 1.0 and len(budget.ledger) == admitted > 3
    assert len(searches) == 1  # only the refused release searched for its ε
    from_scratch = PLDAccountant(COARSE).register_ledger(budget.ledger)
    assert from_scratch.get_epsilon(1e-5) <= 1.0 * (1 + 1e-7)
