"""A privacy odometer: a running ε that holds at every stopping time of a fully adaptive interaction.

Fully adaptive: the analyst chooses each release, its privacy parameters, and when to stop, from
the outputs so far (Rogers, Roth, Ullman & Vadhan 2016, "Privacy odometers and filters:
pay-as-you-go composition", who introduce filters and odometers). Composition theorems assume the
parameters fixed in advance; a *filter* (stop before a budget fixed in advance is exceeded) needs
its own theorem, and the odometer here is built from filters.

**The guarantee** (stated and proven here; it is not the odometer definition of Rogers et al.
2016 nor that of Whitehouse et al. 2023): for every analyst, every stopping time T, every pair of
neighbouring data sets with transcript laws P and Q (outputs up to T), and every set S of
transcripts,

    P[S] <= E_Q[e^{ε_T} 1_S] + δ,

with ε_T what :meth:`PrivacyOdometer.get_epsilon` reports at T for ``delta`` = δ, δ fixed before
the interaction (the grids below depend on it). Two consequences: for every fixed e,
P[S, ε_T <= e] <= e^e Q[S, ε_T <= e] + δ; and when ε_T is the same on every run, the stopped
interaction is (ε_T, δ)-DP. A :class:`accountants.BudgetFilter` over the odometer therefore is a
privacy filter: it stops before ε_T would exceed its budget, so ε_T <= the budget on every run.

**Proof pattern** (the filter-to-odometer reduction; Lécuyer 2021, "Practical privacy filters and
odometers with Rényi differential privacy", builds RDP odometers the same way). The reported ε_T is
ε_i for an index i = i(transcript) from a countable family fixed in advance, each with a filter F_i
that is (ε_i, δ_i)-DP and Σ_i δ_i <= δ; on {i(transcript) = i} the transcript is exactly the one
filter F_i (the same analyst, halted once F_i's budget would be exceeded) produces, and that event
is a set of F_i's transcripts. So P[S, i = i] <= e^{ε_i} Q[S, i = i] + δ_i for each i, and summing
over i gives the guarantee. The rule (below) is fixed by a participant's first release, which
precedes every output of that participant's data, so each rule may spend all of δ.

The rules, fixed by a participant's first release:

* **Gaussian releases** (``GaussianDpEvent``, noise multiplier z_t, i.e. μ_t = 1/z_t-GDP). Filters:
  Smith & Thakurta (2022, "Fully adaptive composition for Gaussian differential privacy",
  arXiv:2210.17520, main theorem): an analyst stopped before Σ_t μ_t² exceeds μ_B² is μ_B-GDP. The
  index is the least j with μ_T = sqrt(Σ_{t<=T} μ_t²) <= μ_j on the grid μ_j = ``first_mu`` ·
  ``ratio``^(j−1), with δ_j = δ · 6/(π² j²) (Σ_j δ_j = δ) and ε_j = ε_{μ_j}(δ_j), the exact GDP
  trade-off (:func:`accountants.gaussian_epsilon`).
* **Releases with a stated (ε_t, δ_t)** (``PureDpEvent``, ``ApproxDpEvent``, Laplace, randomized
  response; see :func:`accountants.epsilon_delta_of`): basic composition, ε_T = Σ_{t<=T} ε_t,
  valid at every δ >= Σ_{t<=T} δ_t that bounds the sum on every run (the δ side is a filter: the
  analyst must stop before Σ δ_t exceeds δ; with pure releases δ = 0). One filter, no grid: write
  each conditional output law as P_t = A_t + B_t with A_t = min(P_t, e^{ε_t} Q_t), so ‖B_t‖₁ <= δ_t
  by (ε_t, δ_t)-DP; expanding Π_t (A_t + B_t), the all-A term is at most e^{Σ ε_t} Π_t Q_t on every
  transcript and the others have total mass at most E_P[Σ_{t<=T} δ_t] (basic composition under
  adaptivity; Rogers et al. 2016 give it as a filter).
* **Every other release an RDP curve bounds** (Poisson-sampled Gaussian or Laplace, sampling
  without replacement, …, and then Gaussian releases too; the curves of
  :class:`accountants.MomentsAccountant` at ``rdp_orders``). Filters: Feldman & Zrnic (2021,
  "Individual privacy accounting via a Rényi filter", their Rényi filter): an analyst stopped before
  Σ_t ε_t(α) exceeds B at one order α fixed in advance is (α, B)-RDP. The indices are pairs
  (α, j): α one of the m orders, B_{α,j} = α μ_j²/2 (the μ_j-GDP curve, the grid above), δ_{α,j}
  = δ_j/m; ε_{α,j} is the conversion of (α, B_{α,j})-RDP at δ_{α,j} (Canonne, Kamath & Steinke
  2020, Prop. 12; :func:`accountants.rdp.rdp_to_epsilon`), and the reported index minimises it
  over the orders, each order at its least j with Σ_{t<=T} ε_t(α) <= B_{α,j}.

Not supported (``UnsupportedEventError``): an event no rule bounds, and a participant's release of
another kind than its first (e.g. a Poisson-sampled release after a Gaussian one: register the
Poisson-sampled release first, or ``rule="rdp"``). ``NonPrivateDpEvent`` makes ε infinite.

The odometer's ε is never below the non-adaptive bound of the same releases (a coarser budget on a
grid, a smaller δ per filter, the plain sum instead of optimal composition): the price of not
fixing anything in advance (Rogers et al. 2016 show that an odometer cannot in general match the
bounds of parameters fixed in advance).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation
from numpy.typing import ArrayLike

from accountants.base import Accountant
from accountants.composition import basic_delta, basic_epsilon
from accountants.errors import UnsupportedEventError
from accountants.events import epsilon_delta_of, flatten
from accountants.exact_gaussian import ExactGaussianAccountant
from accountants.gaussian_dp import gaussian_delta, gaussian_epsilon
from accountants.ledger import StrPath
from accountants.moments import MomentsAccountant
from accountants.rdp import FloatArray, rdp_to_delta, rdp_to_epsilon
from accountants.relations import DEFAULT_RELATION, add_or_remove_equivalent, check_relation, relation_refusal
from accountants.rounding import tightest
from accountants.validation import check_positive

__all__ = ["PrivacyOdometer", "RDP_ODOMETER_ORDERS"]

_U = 2.0**-53
_SIX_OVER_PI_SQUARED = 0.6079271018540267  # 6/π², correctly rounded (above by < 1 ulp: see grid_delta)

#: The RDP rule's default orders: each order takes δ/m of the budget (m orders), so a few well
#: spread ones (the optimum of a sampled Gaussian at ε from 0.1 to 50 lies in 1.5 … 256).
RDP_ODOMETER_ORDERS: tuple[float, ...] = (
    1.5,
    1.75,
    2.0,
    2.5,
    3.0,
    4.0,
    5.0,
    6.0,
    8.0,
    10.0,
    12.0,
    16.0,
    20.0,
    24.0,
    32.0,
    48.0,
    64.0,
    96.0,
    128.0,
    256.0,
)

_GAUSSIAN, _STATED, _RDP = "gaussian", "stated", "rdp"


@dataclass(frozen=True)
class _OdometerSummary:
    """A participant's releases under its rule: the GDP summary (:class:`ExactGaussianAccountant`'s,
    μ² added up), the multiset of stated (ε, δ) guarantees, or the RDP curve (Σ ε_t(α) at the
    odometer's orders, :class:`MomentsAccountant`'s); and whether a release was non-private."""

    rule: str | None = None  # fixed by the first release
    gaussian: Any = None  # ExactGaussianAccountant's summary
    guarantees: Counter[tuple[float, float]] = field(default_factory=Counter)
    curve: FloatArray | None = None
    non_private: bool = False


class PrivacyOdometer(Accountant[_OdometerSummary]):
    """A privacy odometer (see the module docstring for the guarantee and the theorems).

    Args:
      first_mu: the first GDP budget of the grid (> 0); budgets below it are rounded up to it.
      ratio: the grid's ratio (> 1): a reported Gaussian ε is that of a μ at most ``ratio`` times
        the composed μ, at δ/(1.64 j²) for the j-th budget.
      rule: "auto" (default): a participant's first release fixes its rule (Gaussian, stated
        (ε, δ), or RDP for anything else); "rdp": every release by its RDP curve (Gaussian and
        Poisson-sampled releases may then be mixed in any order).
      rdp_orders: the RDP rule's orders (> 1, at most 1000 of them; default
        ``RDP_ODOMETER_ORDERS``); each takes δ/m.
      neighboring_relation: dp-accounting's relation (default ``ADD_OR_REMOVE_ONE``), as for
        :class:`accountants.ExactGaussianAccountant`, :class:`accountants.PureEpsilonAccountant`
        and :class:`accountants.MomentsAccountant`.
      ledger_path: see :class:`accountants.base.Accountant`.

    ``get_epsilon(delta)`` is the running ε at ``delta`` (the worst participant if none is named);
    ``get_delta(epsilon)`` the least δ at which it is at most ``epsilon``.
    """

    name = "odometer"

    def __init__(
        self,
        first_mu: float = 0.25,
        ratio: float = 1.1,
        ledger_path: StrPath | None = None,
        neighboring_relation: NeighboringRelation = DEFAULT_RELATION,
        rule: str = "auto",
        rdp_orders: ArrayLike = RDP_ODOMETER_ORDERS,
    ) -> None:
        self.first_mu = check_positive(first_mu, "first_mu")
        self.ratio = check_positive(ratio, "ratio")
        if not self.ratio > 1:
            raise ValueError(f"ratio must be > 1, got {ratio!r}")
        if not isinstance(rule, str) or rule not in ("auto", "rdp"):
            raise ValueError(f"rule must be 'auto' or 'rdp', got {rule!r}")
        self.rule = rule
        orders = _check_orders(rdp_orders)
        self.neighboring_relation = check_relation(neighboring_relation)
        self._gaussian = ExactGaussianAccountant(neighboring_relation=self.neighboring_relation)
        self._rdp = MomentsAccountant(orders=orders, neighboring_relation=self.neighboring_relation)
        self.rdp_orders: FloatArray = self._rdp.orders
        super().__init__(ledger_path)

    # ----------------------------------------------------------------------------------------
    def _empty(self) -> _OdometerSummary:
        return _OdometerSummary()

    def _compose(self, summary: _OdometerSummary, event: dp_event.DpEvent, count: int) -> _OdometerSummary:
        for leaf, repeats in flatten(event, count):
            if isinstance(leaf, dp_event.NonPrivateDpEvent):
                summary = replace(summary, non_private=True)
                continue
            rule = summary.rule or self._rule_of(leaf)
            if summary.rule is not None and rule != self._rule_of(leaf) and rule != _RDP:
                raise self.unsupported(
                    leaf,
                    f"the participant's first release fixed the {rule} rule; its releases must all be of that kind",
                )
            if rule == _GAUSSIAN:
                gaussian = self._gaussian.participant_summary(None) if summary.gaussian is None else summary.gaussian
                single = [dp_event.SelfComposedDpEvent(leaf, repeats)]
                summary = replace(summary, rule=rule, gaussian=self._gaussian.compose_batch(gaussian, single))
            elif rule == _STATED:
                refusal = relation_refusal(leaf, self.neighboring_relation)
                if refusal:
                    raise self.unsupported(leaf, refusal)
                guarantee = epsilon_delta_of(add_or_remove_equivalent(leaf, self.neighboring_relation))
                if guarantee is None:  # (the rule of a first release is one that bounds it)
                    raise self.unsupported(leaf, "it states no (ε, δ) guarantee")
                guarantees = Counter(summary.guarantees)
                guarantees[guarantee] += repeats
                summary = replace(summary, rule=rule, guarantees=guarantees)
            else:
                curve = self._rdp.participant_summary(None) if summary.curve is None else summary.curve
                try:
                    curve = self._rdp.compose_batch(curve, [dp_event.SelfComposedDpEvent(leaf, repeats)])
                except UnsupportedEventError as error:
                    raise self.unsupported(leaf, f"no fully adaptive rule bounds it ({error.reason})") from None
                summary = replace(summary, rule=rule, curve=curve)
        return summary

    def _rule_of(self, event: dp_event.DpEvent) -> str:
        if self.rule == "rdp":
            return _RDP
        if type(event) is dp_event.GaussianDpEvent:
            return _GAUSSIAN
        if epsilon_delta_of(event) is not None:
            return _STATED
        return _RDP

    # ----------------------------------------------------------------------------------------
    def grid_index(self, mu: float) -> int:
        """The least j >= 1 with μ <= μ_j = ``first_mu`` · ``ratio``^(j−1) (μ finite)."""
        j = 1 if mu <= self.first_mu else max(1, math.ceil(math.log(mu / self.first_mu) / math.log(self.ratio)) + 1)
        while self.grid_mu(j) < mu:
            j += 1
        while j > 1 and self.grid_mu(j - 1) >= mu:
            j -= 1
        return j

    def grid_mu(self, j: int) -> float:
        """μ_j, the j-th budget of the grid (a fixed function of j, so fixed in advance); ∞ once it
        leaves the float range."""
        try:
            return self.first_mu * self.ratio ** (j - 1)
        except OverflowError:
            return math.inf

    @staticmethod
    def grid_delta(delta: float, j: int) -> float:
        """δ_j = δ · 6/(π² j²), rounded down so that Σ_j δ_j <= δ."""
        return delta * _SIX_OVER_PI_SQUARED / (j * j) * (1.0 - 8 * _U)

    def rdp_budget(self, order: float, j: int) -> float:
        """B_{α,j} = α μ_j²/2, the RDP rule's j-th budget at ``order`` (a fixed function of α and j,
        as computed: the filter's budget is this float)."""
        mu = self.grid_mu(j)
        return order * mu * mu / 2.0

    def rdp_index(self, order: float, total: float) -> int:
        """The least j >= 1 with ``total`` <= :meth:`rdp_budget` (``order``, j) (``total`` finite)."""
        j = self.grid_index(math.sqrt(2.0 * total / order))
        while self.rdp_budget(order, j) < total:
            j += 1
        while j > 1 and self.rdp_budget(order, j - 1) >= total:
            j -= 1
        return j

    def _rdp_delta(self, delta: float, j: int) -> float:
        """δ_{α,j} = δ_j/m, rounded down."""
        return self.grid_delta(delta, j) / self.rdp_orders.size * (1.0 - 4 * _U)

    def _rdp_epsilon(self, curve: FloatArray, delta: float) -> float:
        best = math.inf
        for order, total in zip(self.rdp_orders.tolist(), curve.tolist(), strict=True):
            if total == 0:
                return 0.0
            if math.isinf(total):
                continue
            j = self.rdp_index(order, total)
            epsilon, _ = rdp_to_epsilon([order], [self.rdp_budget(order, j)], self._rdp_delta(delta, j))
            best = min(best, epsilon)
        return best

    def _rdp_delta_needed(self, curve: FloatArray, epsilon: float) -> float:
        """The least δ at which :meth:`_rdp_epsilon` is at most ``epsilon``: at each order the float
        boundary (:func:`accountants.rounding.tightest`) from the conversion's inverse, the least
        over the orders."""
        best = 1.0
        scale = self.rdp_orders.size / _SIX_OVER_PI_SQUARED / (1.0 - 8 * _U) / (1.0 - 4 * _U)
        for order, total in zip(self.rdp_orders.tolist(), curve.tolist(), strict=True):
            if total == 0:
                return 0.0
            if math.isinf(total):
                continue
            j = self.rdp_index(order, total)
            budget = self.rdp_budget(order, j)

            def safe(delta: float, order: float = order, j: int = j, budget: float = budget) -> bool:
                return rdp_to_epsilon([order], [budget], self._rdp_delta(delta, j))[0] <= epsilon

            if not safe(1.0):
                continue
            target, _ = rdp_to_delta([order], [budget], epsilon)  # δ_{α,j} needed at this order
            best = min(best, tightest(safe, min(1.0, target * (j * j) * scale), 1.0, 0.0))
        return best

    def _mu(self, summary: _OdometerSummary) -> float:
        return 0.0 if summary.gaussian is None else float(summary.gaussian.mu_upper)

    def epsilon_from_summary(self, summary: _OdometerSummary, delta: float) -> float:
        if summary.non_private:
            return math.inf
        if summary.rule == _GAUSSIAN:
            mu = self._mu(summary)
            if mu == 0 or math.isinf(mu):
                return mu
            j = self.grid_index(mu)
            return gaussian_epsilon(self.grid_mu(j), self.grid_delta(delta, j))
        if summary.rule == _RDP and summary.curve is not None:
            return self._rdp_epsilon(summary.curve, delta)
        return basic_epsilon(_triples(summary), delta)

    def delta_from_summary(self, summary: _OdometerSummary, epsilon: float) -> float:
        if summary.non_private:
            return 1.0
        if summary.rule == _GAUSSIAN:
            mu = self._mu(summary)
            if mu == 0 or math.isinf(mu):
                return 0.0 if mu == 0 else 1.0
            j = self.grid_index(mu)
            # δ_j(δ) >= gaussian_delta(μ_j, ε) makes the reported ε at most epsilon
            needed = gaussian_delta(self.grid_mu(j), epsilon) * (j * j) / _SIX_OVER_PI_SQUARED / (1.0 - 8 * _U)
            while needed < 1 and self.grid_delta(needed, j) < gaussian_delta(self.grid_mu(j), epsilon):
                needed = math.nextafter(needed, math.inf)
            return min(1.0, needed)
        if summary.rule == _RDP and summary.curve is not None:
            return self._rdp_delta_needed(summary.curve, epsilon)
        return basic_delta(_triples(summary), epsilon)

    def __repr__(self) -> str:
        return (
            f"PrivacyOdometer(first_mu={self.first_mu:g}, ratio={self.ratio:g}, rule={self.rule!r}, "
            f"participants={len(self.participants)}, releases={self.ledger.total_count()})"
        )


def _check_orders(orders: ArrayLike) -> FloatArray:
    try:
        grid = np.asarray(orders, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"rdp_orders must be a 1-D sequence of numbers > 1, got {orders!r:.80}") from None
    if grid.ndim != 1 or not 1 <= grid.size <= 1000 or not np.all(np.isfinite(grid)) or np.any(grid <= 1):
        raise ValueError(f"rdp_orders must be 1 to 1000 finite numbers > 1, got {orders!r:.80}")
    return grid


def _triples(summary: _OdometerSummary) -> list[tuple[float, float, int]]:
    return sorted((eps, delta, count) for (eps, delta), count in summary.guarantees.items() if count)
