"""A privacy odometer: a running ε that holds at every stopping time of a fully adaptive interaction.

Fully adaptive: the analyst chooses each release, its privacy parameters, and when to stop, from
the outputs so far (Rogers, Roth, Ullman & Vadhan 2016, "Privacy odometers and filters:
pay-as-you-go composition"). Composition theorems assume the parameters fixed in advance; a
*filter* (stop before a budget fixed in advance is exceeded) and an *odometer* (no budget; report
the privacy spent so far) each need their own theorem. What :class:`PrivacyOdometer` guarantees:

    for every analyst, every stopping time T and every set S of transcripts (outputs up to T),
    P[transcript ∈ S] <= E_Q[e^{ε_T} 1{transcript ∈ S}] + δ,

with P and Q the two neighbouring data sets and ε_T what :meth:`PrivacyOdometer.get_epsilon`
reports at T for ``delta`` = δ (fixed before the interaction: the grid below depends on it). When
ε_T is the same on every run this is (ε_T, δ)-DP of the stopped interaction.

Two rules, one per kind of release (a participant's releases must all be of one kind):

* **Gaussian releases** (``GaussianDpEvent``, noise multiplier z_t, i.e. μ_t = 1/z_t-GDP).
  Smith & Thakurta (2022, "Fully adaptive composition for Gaussian differential privacy",
  arXiv:2210.17520, their main theorem): if an adaptive analyst stops before Σ_t μ_t² exceeds
  μ_B², the interaction is μ_B-GDP (a filter with the non-adaptive parameters). The odometer runs
  these filters on the geometric grid μ_j = ``first_mu`` · ``ratio``^(j−1), j = 1, 2, …, with
  δ_j = δ · 6/(π² j²) (Σ_j δ_j = δ), and reports ε_T = ε_{μ_j}(δ_j) (the exact GDP trade-off,
  :func:`accountants.gaussian_epsilon`) for the least j with μ_T = sqrt(Σ_{t<=T} μ_t²) <= μ_j.
  Why this is valid (the filter-to-odometer reduction of Rogers et al. 2016, as Lécuyer 2021,
  "Practical privacy filters and odometers with Rényi differential privacy", does for RDP): the
  reported index j* is a function of the transcript, and on {j* = j} the transcript is exactly
  that of filter j (which stops the same analyst once μ_j would be exceeded); so
  P[S, j* = j] <= e^{ε_j} Q[S, j* = j] + δ_j for each j, and summing over j gives the guarantee.
* **Releases with a stated (ε_t, δ_t)** (``PureDpEvent``, ``ApproxDpEvent``, Laplace, randomized
  response; see :func:`accountants.epsilon_delta_of`): basic composition, ε_T = Σ_{t<=T} ε_t,
  valid at every δ >= Σ_{t<=T} δ_t that bounds the sum on every run (the δ side is a filter:
  the analyst must stop before Σ δ_t exceeds δ; with pure releases δ = 0 and there is nothing to
  stop). The argument (Rogers et al. 2016's basic composition filter, in ex-post form): write
  each conditional output law as P_t = A_t + B_t with A_t = min(P_t, e^{ε_t} Q_t), so
  ‖B_t‖₁ <= δ_t by (ε_t, δ_t)-DP; expanding Π_t (A_t + B_t), the all-A term is at most
  e^{Σ ε_t} Π_t Q_t on every transcript, and the others have total mass at most E_P[Σ_{t<=T} δ_t].

Not supported (``UnsupportedEventError``): every other event (Poisson-sampled releases, …), for
which no fully adaptive rule is implemented here, and a participant mixing Gaussian releases with
(ε, δ) releases. ``NonPrivateDpEvent`` makes ε infinite.

The odometer's ε is larger than the non-adaptive bound of the same releases (never smaller: a
coarser μ and a smaller δ_j on the Gaussian grid; the plain sum instead of optimal composition):
that is the price of not fixing anything in advance, which Rogers et al. (2016) show is
unavoidable for odometers in general.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation

from accountants.base import Accountant
from accountants.composition import basic_delta, basic_epsilon
from accountants.events import epsilon_delta_of, flatten
from accountants.exact_gaussian import ExactGaussianAccountant
from accountants.gaussian_dp import gaussian_delta, gaussian_epsilon
from accountants.ledger import StrPath
from accountants.relations import DEFAULT_RELATION, add_or_remove_equivalent, check_relation, relation_refusal
from accountants.validation import check_positive

__all__ = ["PrivacyOdometer"]

_U = 2.0**-53
_SIX_OVER_PI_SQUARED = 0.6079271018540267  # 6/π², correctly rounded (above by < 1 ulp: see _grid_delta)


@dataclass(frozen=True)
class _OdometerSummary:
    """A participant's releases: their GDP summary (:class:`ExactGaussianAccountant`'s, μ² added
    up), the multiset of stated (ε, δ) guarantees, and whether a release was non-private."""

    gaussian: Any = None  # ExactGaussianAccountant's summary (None: no Gaussian release)
    guarantees: Counter[tuple[float, float]] = field(default_factory=Counter)
    non_private: bool = False


class PrivacyOdometer(Accountant[_OdometerSummary]):
    """A privacy odometer (see the module docstring for the guarantee and the theorems).

    Args:
      first_mu: the first GDP budget of the grid (> 0); budgets below it are rounded up to it.
      ratio: the grid's ratio (> 1): a reported Gaussian ε is that of a μ at most ``ratio`` times
        the composed μ, at δ/(1.64 j²) for the j-th budget.
      neighboring_relation: dp-accounting's relation (default ``ADD_OR_REMOVE_ONE``), as for
        :class:`accountants.ExactGaussianAccountant` and
        :class:`accountants.PureEpsilonAccountant`.
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
    ) -> None:
        self.first_mu = check_positive(first_mu, "first_mu")
        self.ratio = check_positive(ratio, "ratio")
        if not self.ratio > 1:
            raise ValueError(f"ratio must be > 1, got {ratio!r}")
        self.neighboring_relation = check_relation(neighboring_relation)
        self._gaussian = ExactGaussianAccountant(neighboring_relation=self.neighboring_relation)
        super().__init__(ledger_path)

    # ----------------------------------------------------------------------------------------
    def _empty(self) -> _OdometerSummary:
        return _OdometerSummary()

    def _compose(self, summary: _OdometerSummary, event: dp_event.DpEvent, count: int) -> _OdometerSummary:
        gaussian, guarantees, non_private = summary.gaussian, Counter(summary.guarantees), summary.non_private
        for leaf, repeats in flatten(event, count):
            if isinstance(leaf, dp_event.NonPrivateDpEvent):
                non_private = True
            elif isinstance(leaf, dp_event.GaussianDpEvent):
                if guarantees:
                    raise self.unsupported(leaf, "a participant's releases must all be Gaussian or all (ε, δ)")
                gaussian = self._gaussian.compose_batch(
                    self._gaussian.participant_summary(None) if gaussian is None else gaussian,
                    [dp_event.SelfComposedDpEvent(leaf, repeats)],
                )
            else:
                refusal = relation_refusal(leaf, self.neighboring_relation)
                if refusal:
                    raise self.unsupported(leaf, refusal)
                guarantee = epsilon_delta_of(add_or_remove_equivalent(leaf, self.neighboring_relation))
                if guarantee is None:
                    raise self.unsupported(leaf, "no fully adaptive rule: only Gaussian and (ε, δ) releases")
                if gaussian is not None:
                    raise self.unsupported(leaf, "a participant's releases must all be Gaussian or all (ε, δ)")
                guarantees[guarantee] += repeats
        return replace(summary, gaussian=gaussian, guarantees=guarantees, non_private=non_private)

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

    def _mu(self, summary: _OdometerSummary) -> float:
        return 0.0 if summary.gaussian is None else float(summary.gaussian.mu_upper)

    def epsilon_from_summary(self, summary: _OdometerSummary, delta: float) -> float:
        if summary.non_private:
            return math.inf
        if summary.gaussian is not None:
            mu = self._mu(summary)
            if mu == 0 or math.isinf(mu):
                return mu
            j = self.grid_index(mu)
            return gaussian_epsilon(self.grid_mu(j), self.grid_delta(delta, j))
        return basic_epsilon(_triples(summary), delta)

    def delta_from_summary(self, summary: _OdometerSummary, epsilon: float) -> float:
        if summary.non_private:
            return 1.0
        if summary.gaussian is not None:
            mu = self._mu(summary)
            if mu == 0 or math.isinf(mu):
                return 0.0 if mu == 0 else 1.0
            j = self.grid_index(mu)
            # δ_j(δ) >= gaussian_delta(μ_j, ε) makes the reported ε at most epsilon
            needed = gaussian_delta(self.grid_mu(j), epsilon) * (j * j) / _SIX_OVER_PI_SQUARED / (1.0 - 8 * _U)
            while needed < 1 and self.grid_delta(needed, j) < gaussian_delta(self.grid_mu(j), epsilon):
                needed = math.nextafter(needed, math.inf)
            return min(1.0, needed)
        return basic_delta(_triples(summary), epsilon)

    def __repr__(self) -> str:
        return (
            f"PrivacyOdometer(first_mu={self.first_mu:g}, ratio={self.ratio:g}, "
            f"participants={len(self.participants)}, releases={len(self.ledger)})"
        )


def _triples(summary: _OdometerSummary) -> list[tuple[float, float, int]]:
    return sorted((eps, delta, count) for (eps, delta), count in summary.guarantees.items() if count)
