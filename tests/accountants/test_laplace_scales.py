"""10^4 Laplace scales, log-uniform over 1e-6 … 1e3 (fixed seed), through every accountant and
``best_epsilon``: no errors, and no ε below the truth at any δ from 1e-300 to 0.1 (the full 10^4
through every accountant is the ``slow`` test; the default run takes 1,000 of them through every
accountant but the classic moments one, and every composed total).

The truth for one Laplace release of scale b (ε₀ = 1/b exactly): δ(ε) = [1 − e^{(ε − ε₀)/2}]₊, the
hockey-stick divergence of two Laplace densities one sensitivity apart; so a reported ε is sound iff
ε >= ε₀ + 2 log(1 − δ), checked in mpmath at 40 digits (exact ε₀ from the float b). k releases are
(k/b)-DP: basic composition must report the least float at or above the rational k/b or more.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from dp_accounting import dp_event

from accountants import ACCOUNTANTS, Ledger, LedgerEntry, PureEpsilonAccountant, best_epsilon

SCALES = 10_000
#: Scales in the default run.
SAMPLE = 1_000
#: Every accountant but the classic moments accountant (10^4 orders a release: the slow test).
FAST = {name: factory for name, factory in ACCOUNTANTS.items() if name != "moments_classic"}


def _scales_and_deltas(count: int = SCALES, seed: int = 20261127) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    scales = 10.0 ** rng.uniform(-6.0, 3.0, count)
    deltas = 10.0 ** rng.uniform(-300.0, -1.0, count)
    return scales, deltas


def _ledger(scales: np.ndarray) -> Ledger:
    return Ledger([LedgerEntry(i, dp_event.LaplaceDpEvent(float(b)), 1, None) for i, b in enumerate(scales)])


def _below_truth(epsilons: dict[int, float], scales: np.ndarray, deltas: np.ndarray) -> dict[int, float]:
    """The participants whose ε is below the exact ε(δ) = ε₀ + 2 log(1 − δ)."""
    bad = {}
    with mpmath.workdps(40):
        for i, eps in epsilons.items():
            if not math.isfinite(eps):
                continue  # ∞ is a (useless) valid bound; finiteness is asserted separately
            eps0 = 1 / mpmath.mpf(float(scales[i]))  # the float b is exact in mpmath
            if mpmath.mpf(eps) < eps0 + 2 * mpmath.log1p(-mpmath.mpf(float(deltas[i]))):
                bad[i] = eps
    return bad


def _every_accountant(factories, scales: np.ndarray, deltas: np.ndarray) -> dict[str, dict[int, float]]:
    """{accountant: {participant: ε at its δ}} for the accountants that take Laplace releases;
    an error of any accountant fails the test."""
    ledger = _ledger(scales)
    results = {}
    for name, factory in factories.items():
        accountant = factory()
        if not accountant.supports(dp_event.LaplaceDpEvent(1.0)):
            continue
        accountant.register_ledger(ledger)
        results[name] = {i: accountant.get_epsilon(float(deltas[i]), i) for i in range(len(scales))}
    return results


def _check(results: dict[str, dict[int, float]], scales: np.ndarray, deltas: np.ndarray) -> None:
    for name, epsilons in results.items():
        assert all(math.isfinite(e) for e in epsilons.values()), name
        assert _below_truth(epsilons, scales, deltas) == {}, name


def _through_everything(factories, count: int) -> None:
    scales, deltas = _scales_and_deltas()
    scales, deltas = scales[:count], deltas[:count]
    results = _every_accountant(factories, scales, deltas)
    assert {"rdp", "pld", "optimal_composition", "advanced_composition", "pure"} <= set(results)
    _check(results, scales, deltas)
    # best_epsilon answers per participant with the smallest of these, never below the truth
    ledger = _ledger(scales)
    best = {}
    for i in (0, count // 3, count - 1):  # each call bounds one participant (checking every other event)
        bound = best_epsilon(ledger, float(deltas[i]), participant=i)
        assert bound.failures == {}
        assert bound.epsilon == min(bound.bounds.values())
        best[i] = bound.epsilon
    assert _below_truth(best, scales, deltas) == {}
    worst = best_epsilon(ledger, 1e-300)
    assert worst.failures == {}
    assert worst.epsilon >= float(1 / Fraction(float(scales.min())) + 2 * math.log1p(-1e-300))


@pytest.mark.slow
def test_every_accountant_and_best_epsilon_bound_a_thousand_laplace_scales():
    _through_everything(FAST, SAMPLE)


def test_composed_laplace_pure_totals_are_never_below_k_over_b():
    scales, _ = _scales_and_deltas()
    counts = np.random.default_rng(7).integers(1, 10**6, SCALES)
    for b, k in zip(scales.tolist(), counts.tolist(), strict=True):
        total = PureEpsilonAccountant().register(dp_event.LaplaceDpEvent(b), k).get_epsilon(1e-291)
        assert Fraction(total) >= k / Fraction(b)


@pytest.mark.slow
def test_every_accountant_and_best_epsilon_bound_ten_thousand_laplace_scales():
    _through_everything(FAST, SCALES)
    scales, deltas = _scales_and_deltas()
    for start in range(0, SCALES, 500):  # the classic accountant: 10^4 orders a participant, bounded memory
        chunk = slice(start, start + 500)
        results = _every_accountant({"moments_classic": ACCOUNTANTS["moments_classic"]}, scales[chunk], deltas[chunk])
        _check(results, scales[chunk], deltas[chunk])
