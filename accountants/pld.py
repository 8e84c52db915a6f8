"""Privacy loss distributions (dp-accounting's PLD, connect-the-dots discretisation).

Each participant's releases are kept as counts per distinct event. A query folds every plain
Gaussian release into one Gaussian PLD (their privacy losses are normal, so they compose exactly:
Dong, Roth & Su 2022, Cor. 3.3), builds one PLD per other distinct event, self-composes it by its
count (FFT powers), and composes the results; the Laplace PLD is discretised here from its closed
form (dp-accounting's own construction fails for small scales). PLDs are cached: the pieces by their parameters
(shared by participants and accountants), the composed ones per summary, so a budget filter that
asks about a candidate release and then registers it builds that composition once. The
pessimistic PLD gives upper bounds (what :meth:`get_epsilon` reports, rounded outward); the
optimistic PLD gives estimates of the same quantity from below the discretisation, available
through :meth:`get_epsilon_interval` (Doroshenko et al. 2022, "Connect the dots"); they are
estimates, not proven lower bounds.

The pessimistic answers are also bounded by basic composition of the releases' pure (ε, δ)
guarantees, when they all state one; where the FFT's absolute error swamps the target (δ below
``FALLBACK_BELOW``), or dp-accounting cannot build or query a PLD, by the Rényi-DP accountant on the
same releases too (a Chernoff tail evaluated in log space, valid to δ = 1e-300). The smallest valid
bound is reported. One Laplace release is answered from its closed form δ(ε) = [1 − e^{(ε − ε₀)/2}]₊.
δ(ε) of plain Gaussian releases mixed with others keeps the Gaussian part continuous: the PLD of the
others averaged against the exact hockey-stick divergence of the Gaussians' μ-GDP (no Gaussian PLD,
no FFT; see :meth:`PLDAccountant._delta_with_exact_gaussians`), which is what a budget filter asks,
first on a grid ten times coarser (:meth:`PLDAccountant.coarse_delta_from_summary`: an upper bound
on the fine grid's, ten times cheaper).
"""

from __future__ import annotations

import functools
import math
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import Any, TypeAlias

import numpy as np
from dp_accounting import dp_event
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from dp_accounting.privacy_accountant import NeighboringRelation

from accountants import composition
from accountants.base import Accountant
from accountants.errors import UnsupportedEventError
from accountants.events import ApproxDpEvent, PureDpEvent, epsilon_delta_of, flatten
from accountants.gaussian_dp import gaussian_delta, gaussian_epsilon
from accountants.ledger import StrPath
from accountants.moments import MomentsAccountant
from accountants.pld_arrays import ArrayPld
from accountants.relations import (
    DEFAULT_RELATION,
    add_or_remove_equivalent,
    check_relation,
    relation_refusal,
    sensitivity_factor,
)
from accountants.rounding import log1p_up
from accountants.sampled_gaussian import sampled_gaussian_arrays
from accountants.validation import check_delta, check_positive

__all__ = [
    "PLDAccountant",
    "COARSE_GRID_FACTOR",
    "FALLBACK_BELOW",
    "laplace_masses",
    "MAX_GRID_INTERVAL",
    "MAX_GRID_POINTS",
    "MAX_SELF_COMPOSITIONS",
    "PLD_ABSOLUTE_ERROR",
    "PLD_RELATIVE_ERROR",
]

#: A participant's summary: how many times it released each distinct event.
_Releases = Counter[dp_event.DpEvent]
#: A summary as a sorted tuple of (event, count); immutable, so it keys the caches.
_Key = tuple[tuple[dp_event.DpEvent, int], ...]
#: A privacy loss distribution: on arrays (:mod:`accountants.pld_arrays`: the pessimistic PLDs of
#: Gaussian, Laplace and Poisson-sampled Gaussian releases) or dp-accounting's (the others).
_Pld: TypeAlias = ArrayPld | pld_lib.PrivacyLossDistribution


class PLDAccountant(Accountant[_Releases]):
    """Privacy-loss-distribution accountant.

    Args:
      value_discretization_interval: PLD grid step (smaller is tighter and slower).
      neighboring_relation: dp-accounting's relation (default ``ADD_OR_REMOVE_ONE``, as there):
        noise multipliers are relative to the add-or-remove sensitivity, which doubles under
        ``REPLACE_ONE`` (see :mod:`accountants.relations`), as in dp-accounting's PLD accountant;
        Poisson-sampled Gaussian releases are analysed under every relation, Poisson-sampled
        Laplace ones under ``ADD_OR_REMOVE_ONE`` and ``REPLACE_SPECIAL``; randomized response
        needs ``REPLACE_ONE`` or ``REPLACE_SPECIAL``.
      ledger_path: see :class:`accountants.base.Accountant`.

    Releases a privacy loss distribution cannot hold are refused (``UnsupportedEventError``, so
    :func:`accountants.best_epsilon` uses the other accountants): more than
    ``MAX_SELF_COMPOSITIONS`` releases of one non-Gaussian event, or releases whose loss would need
    a grid step above ``MAX_GRID_INTERVAL`` nats (e.g. 10^12 Gaussian releases at noise 1). Infinite
    noise gives ε = 0; noise scales above 10^4 (of a release, or of the one Gaussian release a
    participant's plain Gaussian releases compose to) are bounded by the PLD at 10^4 (a valid upper bound,
    where dp-accounting's Gaussian arithmetic is still accurate).
    """

    name = "pld"

    def __init__(
        self,
        value_discretization_interval: float = 1e-4,
        neighboring_relation: NeighboringRelation = DEFAULT_RELATION,
        ledger_path: StrPath | None = None,
    ) -> None:
        interval = check_positive(value_discretization_interval, "value_discretization_interval")
        if interval > MAX_GRID_INTERVAL:
            raise ValueError(
                f"value_discretization_interval must be at most {MAX_GRID_INTERVAL}, "
                f"got {value_discretization_interval!r}"
            )
        check_relation(neighboring_relation)
        super().__init__(ledger_path)
        self.value_discretization_interval = interval
        self.neighboring_relation = neighboring_relation
        #: The most recently used composed PLDs (each can hold a million-point grid).
        self._pld_cache: OrderedDict[tuple[_Key, bool], _Pld | None] = OrderedDict()
        #: The compositions of the releases other than plain Gaussians (:meth:`_others`), and how
        #: many compositions extended each one (each adds its FFT's error to the queries' slack).
        self._others_cache: OrderedDict[tuple[_Key, bool, float], _Pld | None] = OrderedDict()
        self._chain: dict[tuple[_Key, bool, float], int] = {}
        self._query_cache: dict[tuple[_Key, str, float, bool], float] = {}
        #: The fallback at tiny δ: the RDP accountant on the same releases (one participant a summary).
        self._rdp_fallback = MomentsAccountant(neighboring_relation=neighboring_relation)
        self._rdp_participants: dict[_Key, int | None] = {}

    def _empty(self) -> _Releases:
        return Counter()

    def _compose(self, summary: _Releases, event: dp_event.DpEvent, count: int) -> _Releases:
        updated = Counter(summary)
        for leaf, repeats in flatten(event, count):
            self._check_leaf(leaf)
            updated[leaf] += repeats
            self._check_size(leaf, updated)
        return updated

    def _check_size(self, leaf: dp_event.DpEvent, summary: _Releases) -> None:
        """Refuse (as unsupported) a participant whose releases this accountant cannot compose
        in reasonable time and memory, rather than overflow or run for hours at query time."""
        count = summary[leaf]
        if count > MAX_SELF_COMPOSITIONS and not isinstance(leaf, dp_event.GaussianDpEvent):
            raise self.unsupported(
                leaf,
                f"{count} releases of it exceed {MAX_SELF_COMPOSITIONS}, the most this accountant "
                "self-composes by FFT; use MomentsAccountant or AdvancedCompositionAccountant",
            )
        self._check_grid(leaf, _loss_span([(leaf, count)], self.neighboring_relation) / MAX_GRID_POINTS)

    def _check_grid(self, event: dp_event.DpEvent, interval: float) -> None:
        if interval > MAX_GRID_INTERVAL:
            raise self.unsupported(
                event,
                f"the participant's privacy loss would need a grid step of {interval:.3g} nats "
                f"(more than {MAX_GRID_INTERVAL}): too many or too nearly noiseless releases for a "
                "privacy loss distribution; use ExactGaussianAccountant or MomentsAccountant",
            )

    def _check_leaf(self, event: dp_event.DpEvent) -> None:
        if type(event) is not dp_event.GaussianDpEvent and type(event) not in _BUILDERS:
            raise self.unsupported(event, "no privacy loss distribution is known for it here")
        reason = _refusal(event, self.neighboring_relation)
        if reason:
            raise self.unsupported(event, reason)
        hash(event)  # an unhashable event cannot be counted

    @staticmethod
    def _key(summary: _Releases) -> _Key:
        return tuple(sorted(summary.items(), key=repr))

    def _cached_query(self, summary: _Releases, kind: str, value: float, pessimistic: bool) -> float:
        """ε or δ of a summary, computed once per distinct summary (participants often share one).

        A summary of plain Gaussian releases only has the PLD of one Gaussian release (the fold of
        :func:`_folded_noise`), whose hockey-stick divergence has a closed form (Balle & Wang 2018,
        Thm. 8): its pessimistic queries evaluate that form (:mod:`accountants.gaussian_dp`,
        rounded outward) instead of a discretised PLD, which is tighter and takes microseconds,
        so that a budget filter over Gaussian releases costs no more than the exact accountant.
        The pessimistic results are rounded outward: δ(ε) as dp-accounting sums it is stepped up
        by ``PLD_RELATIVE_ERROR`` (and ``PLD_ABSOLUTE_ERROR`` once an FFT composition was made),
        and dp-accounting's ε (whose own root finding may be a few ulps low) is raised until that
        stepped-up δ(ε) meets the target."""
        if pessimistic and all(type(e) is dp_event.GaussianDpEvent for e in summary):  # O(releases), no key
            mu = _folded_mu(list(summary.items()), self.neighboring_relation)
            return gaussian_epsilon(mu, value) if kind == "epsilon" else gaussian_delta(mu, value)
        key = (self._key(summary), kind, value, pessimistic)
        if key not in self._query_cache:
            self._query_cache[key] = self._query(summary, key[0], kind, value, pessimistic)
        return self._query_cache[key]

    def _query(self, summary: _Releases, key: _Key, kind: str, value: float, pessimistic: bool) -> float:
        """:meth:`_cached_query` for a summary other than plain Gaussians: the closed form of one
        Laplace release, else the composed PLD's answer and, where it is weak (tiny δ, or
        dp-accounting failed), the fallback bounds (:meth:`_fallback`)."""
        if pessimistic and len(key) == 1 and type(key[0][0]) is dp_event.LaplaceDpEvent and key[0][1] == 1:
            return _laplace_query(key[0][0], kind, value, self.neighboring_relation)
        failure: Exception | None = None
        try:
            result = self._pld_query(summary, key, kind, value, pessimistic)
        except UnsupportedEventError:
            raise
        except _PEER_FAILURES as error:  # dp-accounting's own numerical failure on a valid event
            if not pessimistic:
                raise self.unsupported(key[0][0], f"dp-accounting's PLD failed: {error!s:.200}") from None
            failure, result = error, (math.inf if kind == "epsilon" else 1.0)
        if pessimistic:
            weak = failure is not None or (value < FALLBACK_BELOW if kind == "epsilon" else result < FALLBACK_BELOW)
            weak = weak or result == (math.inf if kind == "epsilon" else 1.0)
            cap = self._fallback(key, kind, value, with_rdp=weak)
            if kind == "epsilon" and cap * (1.0 - PURE_CAP_SNAP) <= result:
                # Within float error below a valid bound: dp-accounting's losses near a pure release's
                # top atom are not exact to the last digits, so the valid bound answers.
                result = cap
            result = min(result, cap)
        if failure is not None and result == (math.inf if kind == "epsilon" else 1.0):
            raise self.unsupported(
                key[0][0], f"dp-accounting's PLD failed ({failure!s:.200}) and no other bound applies"
            ) from None
        return result

    def _pld_query(self, summary: _Releases, key: _Key, kind: str, value: float, pessimistic: bool) -> float:
        if kind == "delta" and pessimistic:
            delta = self._delta_with_exact_gaussians(summary, key, value)
            if delta is not None:
                return delta
        pld = self._pld(summary, pessimistic)
        others = tuple((e, n) for e, n in key if type(e) is not dp_event.GaussianDpEvent)
        chain = self._chain.get((others, pessimistic, self.grid_interval(summary)), 0)
        slack = PLD_ABSOLUTE_ERROR * (1 + chain) if _uses_fft(key) else 0.0
        if pld is None:
            return math.inf if kind == "epsilon" else 1.0
        if kind == "delta":
            delta = float(pld.get_delta_for_epsilon(value)) * (1.0 + PLD_RELATIVE_ERROR) + slack
            if delta == 0 and float(pld.get_delta_for_epsilon(0.0)) > 0:  # a tail below the float range
                delta = 5e-324
            return min(1.0, math.nextafter(delta, math.inf)) if delta > 0 else 0.0  # 0: identical outputs
        result = max(0.0, float(pld.get_epsilon_for_delta(value)))
        return _raised_until_safe(pld, result, value, slack) if pessimistic else result

    def _delta_with_exact_gaussians(self, summary: _Releases, key: _Key, epsilon: float) -> float | None:
        """Pessimistic δ(ε) of releases mixing plain Gaussians with others, the Gaussian part kept
        continuous; None where it does not apply (no Gaussian or no other release, a noiseless or
        only infinitely noisy Gaussian part, an (ε, δ) release, or a PLD not on arrays).

        The plain Gaussian releases compose exactly to μ-GDP (:func:`_folded_mu`, rounded up; at
        least 10^-4, as ``_MAX_NOISE`` caps the PLD's noise: a larger μ is a valid bound), whose
        privacy loss G ~ N(μ²/2, μ²) is continuous and the same in both directions (Dong, Roth &
        Su 2022, Cor. 3.3). With X the composed pessimistic PLD of the other releases (mass p_x at
        loss x, p_∞ at +∞; :meth:`_others`, which dominates their exact composition at every ε)
        and G independent of X, δ(ε) = E[(1 − e^{ε − X − G})₊] = p_∞ + Σ_x p_x H_μ(ε − x), with
        H_μ(t) = Φ(−t/μ + μ/2) − e^t Φ(−t/μ − μ/2) the exact hockey-stick divergence of μ-GDP at
        every real t (Balle & Wang 2018, Thm. 8). Composition preserves domination (the sum is
        an average of X's δ curve over G), so this is an upper bound on the exact δ(ε), tighter
        than discretising G and composing by FFT, and it costs one vectorised pass over X
        (:meth:`ArrayPld.get_delta_with_gaussian`, each H_μ rounded up) instead of building the
        Gaussian PLD and convolving. Rounded outward as the PLD's δ: ``PLD_RELATIVE_ERROR``, and
        ``PLD_ABSOLUTE_ERROR`` per FFT composition that built X."""
        others, mu = _split_gaussians(key, self.neighboring_relation)
        if not 0 < mu < math.inf:
            return None
        return self._delta_over_others(summary, others, mu, epsilon, self.grid_interval(summary))

    def _delta_over_others(
        self, summary: _Releases, others: _Key, mu: float, epsilon: float, interval: float
    ) -> float | None:
        """p_∞ + Σ_x p_x H_μ(ε − x) over the pessimistic PLD X of ``others`` on the grid ``interval``
        (see :meth:`_delta_with_exact_gaussians`), X's own δ(ε) = p_∞ + Σ_x p_x (1 − e^{ε − x})₊
        when ``mu`` is 0 (no Gaussian part), rounded outward; None where it does not apply (no other
        release, an (ε, δ) release, or a PLD not on arrays). Without the Gaussian part, 1e-300 covers
        the terms that underflow (fewer than ``MAX_GRID_POINTS``, each below 2^-1074)."""
        if not others or any(isinstance(event, ApproxDpEvent) for event, _ in others):
            return None
        relation = self.neighboring_relation
        self._check_grid(max(summary, key=lambda e: _loss_span([(e, summary[e])], relation)), interval)
        pld = self._others(others, True, interval)
        if not isinstance(pld, ArrayPld):
            return None
        chain = self._chain.get((others, True, interval), 0)
        slack = PLD_ABSOLUTE_ERROR * (1 + chain) if _uses_fft(others) else 0.0
        if mu > 0:
            delta = pld.get_delta_with_gaussian(epsilon, max(mu, 1.0 / _MAX_NOISE))
        else:
            delta = pld.get_delta_for_epsilon(epsilon) + 1e-300
        return min(1.0, math.nextafter(delta * (1.0 + PLD_RELATIVE_ERROR) + slack, math.inf))

    def _fallback(self, key: _Key, kind: str, value: float, with_rdp: bool) -> float:
        """The smaller of basic composition of the releases' (ε, δ) guarantees (when every release
        states one: e.g. a coarse grid's PLD can exceed the pure total) and, if ``with_rdp``, the
        Rényi-DP accountant's bound on the same releases (when it supports them all): both are
        valid upper bounds at any δ, both rounded outward."""
        bounds = []
        guarantees = _guarantees(key, self.neighboring_relation)
        if guarantees is not None:
            if kind == "epsilon":
                bounds.append(composition.basic_epsilon(guarantees, value))
            else:
                bounds.append(composition.basic_delta(guarantees, value))
        participant = self._rdp_participant(key) if with_rdp else None
        if participant is not None:
            rdp = self._rdp_fallback
            bounds.append(
                rdp.get_epsilon(value, participant) if kind == "epsilon" else rdp.get_delta(value, participant)
            )
        return min(bounds, default=math.inf if kind == "epsilon" else 1.0)

    def _rdp_participant(self, key: _Key) -> int | None:
        """The participant of this accountant's RDP fallback holding these releases (registered on
        first use, so each event's curve is computed once), or None if it refuses one of them."""
        if key not in self._rdp_participants:
            number = len(self._rdp_participants)
            try:
                self._rdp_fallback.register_many(
                    [dp_event.SelfComposedDpEvent(event, count) for event, count in key], [number] * len(key)
                )
            except UnsupportedEventError:
                self._rdp_participants[key] = None
            else:
                self._rdp_participants[key] = number
        return self._rdp_participants[key]

    def _pld(self, summary: _Releases, pessimistic: bool) -> _Pld | None:
        """The composed PLD, or None if some release is not private at all."""
        key = (self._key(summary), pessimistic)
        if key in self._pld_cache:
            self._pld_cache.move_to_end(key)
            return self._pld_cache[key]
        composed = self._composed_pld(summary, key[0], pessimistic)
        self._pld_cache[key] = composed
        if len(self._pld_cache) > _COMPOSED_CACHE_SIZE:
            self._pld_cache.popitem(last=False)
        return composed

    def _others(self, others: _Key, pessimistic: bool, interval: float) -> _Pld | None:
        """The composed PLD of the releases other than plain Gaussians (``_composition``), kept per
        accountant; one that extends a kept composition on the same grid by releases of fewer
        distinct events than it holds (or of one event) composes only those (a convolution each,
        from the kept composition missing the fewest), so that a budget filter adding a release at
        each step does not compose the whole ledger again. That is the composition of the same
        pessimistic PLDs in another order: a valid upper bound too (dp-accounting's accountant also
        composes release by release), equal to the from-scratch one up to the FFTs' rounding; each
        composition of the chain adds ``PLD_ABSOLUTE_ERROR`` to the queries' slack (``_chain``,
        kept per composition and never lowered)."""
        key = (others, pessimistic, interval)
        if key in self._others_cache:
            self._others_cache.move_to_end(key)
            return self._others_cache[key]
        wanted = Counter(dict(others))
        best: tuple[_Pld, Counter[dp_event.DpEvent], int] | None = None
        for (cached, was_pessimistic, grid), base in reversed(self._others_cache.items()):
            if was_pessimistic != pessimistic or grid != interval or base is None or not cached:
                continue
            before = Counter(dict(cached))
            added = wanted - before
            if not added or before - wanted or any(isinstance(e, ApproxDpEvent) for e in added):
                continue
            if (len(added) == 1 or len(added) < len(wanted)) and (best is None or len(added) < len(best[1])):
                best = (base, added, self._chain.get((cached, pessimistic, interval), 0))
                if len(added) == 1:  # the fewest possible, in the most recently used composition
                    break
        composed: _Pld | None
        if best is None:
            composed = _composition(others, pessimistic, interval, self.neighboring_relation)
        else:
            composed, added, chain = best
            for event, count in sorted(added.items(), key=repr):
                piece = _piece(event, count, pessimistic, interval, self.neighboring_relation)
                if piece is None:
                    composed = None
                    break
                composed = _composed(composed, piece)
            self._chain[key] = max(self._chain.get(key, 0), chain + len(added))
        self._others_cache[key] = composed
        if len(self._others_cache) > _COMPOSED_CACHE_SIZE:
            self._others_cache.popitem(last=False)
        return composed

    def _composed_pld(self, summary: _Releases, key: _Key, pessimistic: bool) -> _Pld | None:
        interval = self.grid_interval(summary)
        relation = self.neighboring_relation
        if key:  # each event passed on registration; together they may still need too coarse a grid
            self._check_grid(max(summary, key=lambda e: _loss_span([(e, summary[e])], relation)), interval)
        kept = math.fsum(count * math.log1p(-e.delta) for e, count in key if isinstance(e, ApproxDpEvent))
        if kept < _LOG_MIN_KEPT_MASS:  # see _epsilon_delta: δ = 1 up to a negligible mass
            return None
        # the other releases first: their composition is cached, so a budget filter adding Gaussian
        # releases step by step composes it once, with the folded Gaussian piece of each step
        others = tuple((event, count) for event, count in key if type(event) is not dp_event.GaussianDpEvent)
        gaussians = [(event, count) for event, count in key if type(event) is dp_event.GaussianDpEvent]
        composed = self._others(others, pessimistic, interval) if others else pld_lib.identity(interval)
        if composed is None or not gaussians:
            return composed
        gaussian = _gaussian_pld(_folded_noise(gaussians), pessimistic, interval, relation)
        if gaussian is None or not others:
            return gaussian
        return _composed(composed, gaussian)

    def grid_interval(self, summary: _Releases) -> float:
        """The grid step for a participant's releases: ``value_discretization_interval``, coarsened
        so that the composed privacy-loss support has at most ``MAX_GRID_POINTS`` points (nearly
        noiseless Gaussian releases have losses of order 1/σ²). A coarser pessimistic grid is still
        an upper bound, only a looser one; :meth:`get_epsilon_interval` shows the gap."""
        span = _loss_span(list(summary.items()), self.neighboring_relation)
        return max(self.value_discretization_interval, span / MAX_GRID_POINTS)

    def epsilon_from_summary(self, summary: _Releases, delta: float, pessimistic: bool = True) -> float:
        return self._cached_query(summary, "epsilon", delta, pessimistic)

    def delta_from_summary(self, summary: _Releases, epsilon: float) -> float:
        return self._cached_query(summary, "delta", epsilon, True)

    def coarse_delta_from_summary(self, summary: _Releases, epsilon: float) -> float:
        """An upper bound on δ(ε) of these releases from their pessimistic PLD on a grid
        ``COARSE_GRID_FACTOR`` times coarser than :meth:`grid_interval` (fewer times where that would
        exceed ``MAX_GRID_INTERVAL``), plain Gaussian releases kept exact
        (:meth:`_delta_with_exact_gaussians`); 1.0 where that does not apply (no release other than
        plain Gaussians, an (ε, δ) release, a PLD not on arrays, a noiseless Gaussian release, no
        coarser grid) or fails. Ten times fewer points make each
        composition and each sum about ten times cheaper, so a budget filter admits most releases
        by it (see :class:`accountants.BudgetFilter`).

        It is a valid bound on any grid: each release's pessimistic connect-the-dots PLD dominates its
        exact one on every grid (Doroshenko et al. 2022), domination is preserved by composition,
        and the tails are cut pessimistically. Nor is it below the bound on the finer grid, up to
        rounding and the cut tails: the grids are nested (the coarse step a multiple of the fine one),
        a discrete PLD's δ(ε) = Σ_{ℓ > ε} p_ℓ (1 − e^{ε − ℓ}) is affine in e^ε between grid points,
        connect-the-dots makes it equal to the exact δ(ε), a convex function of e^ε, at every grid
        point (Doroshenko et al. 2022, Alg. 1), and chords of a convex function over a coarser
        partition lie above those over a refinement; so each coarse PLD dominates the fine one,
        and so do their compositions. Whatever bound admitted a release, the ledger is what the
        accountant composes when asked."""
        others, mu = _split_gaussians(self._key(summary), self.neighboring_relation)
        fine = self.grid_interval(summary)
        factor = min(COARSE_GRID_FACTOR, math.floor(MAX_GRID_INTERVAL / fine))
        if math.isinf(mu) or factor < 2:  # (no coarser grid: the fine bound is as cheap)
            return 1.0
        interval = factor * fine
        try:
            delta = self._delta_over_others(summary, others, mu, epsilon, interval)
        except (UnsupportedEventError, *_PEER_FAILURES):
            return 1.0
        return 1.0 if delta is None else delta

    def rdp_delta_from_summary(self, summary: _Releases, epsilon: float) -> float:
        """An upper bound on δ(ε) of these releases that costs no PLD: the Rényi-DP accountant's
        (Mironov 2017, Prop. 1: curves add up; its conversion to δ, rounded up), 1.0 if it refuses
        a release. A valid bound on the same releases, usually looser than the PLD's (a budget
        filter admits a release by it when it already proves the budget: see
        :class:`accountants.BudgetFilter`); the curves of the distinct events are computed once.
        The plain Gaussian releases enter as the one Gaussian they compose to (:func:`_folded_noise`,
        rounded down: their curves add up to its curve), so the cost grows with the distinct other
        events only; a summary of plain Gaussians only gets 1.0 (its PLD query is the exact closed
        form, as cheap)."""
        gaussians = [(event, count) for event, count in summary.items() if type(event) is dp_event.GaussianDpEvent]
        events: list[dp_event.DpEvent] = [
            dp_event.SelfComposedDpEvent(event, count)
            for event, count in summary.items()
            if type(event) is not dp_event.GaussianDpEvent
        ]
        if not events:
            return 1.0
        if gaussians:
            sigma = _folded_noise(gaussians)
            if sigma == 0:
                return 1.0
            if math.isfinite(sigma):
                events.append(dp_event.GaussianDpEvent(sigma))
        try:
            curve = self._rdp_fallback.compose_batch(np.zeros_like(self._rdp_fallback.orders), events)
        except UnsupportedEventError:
            return 1.0
        return self._rdp_fallback.delta_from_summary(curve, epsilon)

    def get_epsilon_interval(self, delta: float, participant: Hashable = None) -> tuple[float, float]:
        """(optimistic estimate, pessimistic upper bound) of ε at ``delta``.

        Only the upper end is a guarantee. The lower end is dp-accounting's optimistic PLD on the
        same (possibly coarsened) grid: it shows the discretisation error, but it is *not* a lower
        bound on the exact ε (floating point and the tail truncation can put it above the truth,
        e.g. 560050.57 against the exact 560050.147 for 10^5 Gaussian releases at σ = 0.3); it is
        capped at the upper end. For a proven lower bound use an exact accountant where one applies
        (:class:`accountants.ExactGaussianAccountant`, optimal composition) or an audit.
        """
        delta = check_delta(delta)
        summaries = self._selected(participant)
        estimate = max(self.epsilon_from_summary(s, delta, pessimistic=False) for s in summaries)
        upper = max(self.epsilon_from_summary(s, delta, pessimistic=True) for s in summaries)
        return min(estimate, upper), upper


def _uses_fft(key: _Key) -> bool:
    """Whether the composed PLD of these releases was convolved (FFT): more than one piece (all
    plain Gaussian releases are one piece, see :func:`_folded_noise`), or a self-composition of
    anything but a Gaussian."""
    others = [count for e, count in key if type(e) is not dp_event.GaussianDpEvent]
    pieces = len(others) + (len(others) < len(key))
    return pieces > 1 or any(count > 1 for count in others)


def _split_gaussians(key: _Key, relation: NeighboringRelation) -> tuple[_Key, float]:
    """(the releases other than plain Gaussians, μ of the plain Gaussians' μ-GDP: :func:`_folded_mu`,
    0 without any)."""
    others = tuple((event, count) for event, count in key if type(event) is not dp_event.GaussianDpEvent)
    gaussians = [(event, count) for event, count in key if type(event) is dp_event.GaussianDpEvent]
    return others, (_folded_mu(gaussians, relation) if gaussians else 0.0)


def _folded_noise(gaussians: list[tuple[dp_event.GaussianDpEvent, int]]) -> float:
    """The noise multiplier σ of the one Gaussian release whose privacy loss is that of all these
    (count, z) plain Gaussian releases, rounded down (less noise is pessimistic); 0 if one is
    noiseless, ∞ if all are infinitely noisy (values above 10^4 are capped there when the PLD is
    built, see ``_MAX_NOISE``).

    Composition is exact: the privacy loss of a Gaussian release with multiplier z is normal,
    N(±Δ²/(2z²), Δ²/z²) for the relation's sensitivity Δ, so k releases compose to the loss of one
    with 1/σ² = Σ count/z² (Dong, Roth & Su 2022, Cor. 3.3). Rounding: each term count/z/z is
    within 3 u (u = 2^-53) of its value, ``math.fsum`` adds 1 u, so the sum stepped up by 8 u is
    at least the exact one (terms that underflow only matter below 10^-8, where σ is capped at
    10^4 anyway); the square root and the division add 2 u, which the factor 1 − 4 u covers.
    """
    return _noise_of(*_inverse_square_sum(gaussians))


def _noise_of(total: float, finite: int) -> float:
    """:func:`_folded_noise` from :func:`_inverse_square_sum`'s (Σ count/z², finite count)."""
    if math.isinf(total):
        return 0.0
    if total == 0:  # all infinitely noisy (ε = 0), or so noisy that every term underflowed: the cap
        return _MAX_NOISE if finite else math.inf
    upper = math.nextafter(total * (1.0 + 2.0**-50), math.inf)
    return math.nextafter(1.0 / math.sqrt(upper) * (1.0 - 2.0**-51), 0.0)


def _folded_mu(gaussians: list[tuple[dp_event.GaussianDpEvent, int]], relation: NeighboringRelation) -> float:
    """μ of the Gaussian-DP guarantee of these plain Gaussian releases under ``relation``, rounded
    up: the relation's sensitivity factor (1 or 2, exact) over :func:`_folded_noise` (rounded
    down), stepped one float up for the division. When every count/z² underflows (z > 10^154),
    μ <= sqrt(Σ count)/min z instead (each z at least the smallest), with a margin for roundings."""
    total, finite = _inverse_square_sum(gaussians)
    if math.isinf(total):
        return math.inf
    if not finite:
        return 0.0  # only infinitely noisy releases
    if total == 0:
        smallest = min(e.noise_multiplier for e, _ in gaussians)
        bound = math.sqrt(float(sum(count for e, count in gaussians if math.isfinite(e.noise_multiplier))))
        return math.nextafter(
            sensitivity_factor(relation) * bound * (1.0 + 2.0**-50) / smallest * (1.0 + 2.0**-51), math.inf
        )
    return math.nextafter(sensitivity_factor(relation) / _noise_of(total, finite), math.inf)


def _inverse_square_sum(gaussians: list[tuple[dp_event.GaussianDpEvent, int]]) -> tuple[float, int]:
    """(Σ count/z² over the releases with finite noise z, how many have finite noise); ∞ as the
    sum if one release has no noise."""
    terms = []
    for event, count in gaussians:
        z = event.noise_multiplier
        if z == 0:
            return math.inf, 0
        if not math.isinf(z):
            terms.append(float(count) / z / z)
    return math.fsum(terms), len(terms)


def _raised_until_safe(pld: _Pld, epsilon: float, delta: float, slack: float) -> float:
    """The first of ε, ε(1 + 2^-44), ε(1 + 2^-40), … (and ∞) at which the stepped-up δ(ε) is
    within ``delta``: dp-accounting's direct sum for δ(ε) is checked, not its root finding."""

    def safe(candidate: float) -> bool:
        computed = float(pld.get_delta_for_epsilon(candidate))
        return computed * (1.0 + PLD_RELATIVE_ERROR) + slack <= delta

    if math.isinf(epsilon) or safe(epsilon):
        return epsilon
    candidate = max(epsilon, 1e-300)
    for power in range(44, 0, -4):
        raised = math.nextafter(candidate * (1.0 + 2.0**-power), math.inf)
        if safe(raised):
            return raised
    return math.inf


def _guarantees(key: _Key, relation: NeighboringRelation) -> list[tuple[float, float, int]] | None:
    """(ε, δ, count) of every release that states a pure or approximate guarantee under
    ``relation`` (randomized response states its ``REPLACE_ONE`` one), or None if one does not."""
    triples = []
    for event, count in key:
        if isinstance(event, dp_event.NonPrivateDpEvent):
            triples.append((math.inf, 0.0, count))
            continue
        if isinstance(event, dp_event.RandomizedResponseDpEvent) and relation != NeighboringRelation.REPLACE_ONE:
            return None
        guarantee = epsilon_delta_of(add_or_remove_equivalent(event, relation))
        if guarantee is None and isinstance(event, dp_event.PoissonSampledDpEvent):
            guarantee = _poisson_sampled_guarantee(event, relation)
        if guarantee is None:
            return None
        triples.append((*guarantee, count))
    return triples


def _poisson_sampled_guarantee(
    event: dp_event.PoissonSampledDpEvent, relation: NeighboringRelation
) -> tuple[float, float] | None:
    """(log(1 + q(e^ε − 1)), qδ), rounded up, for an (ε, δ)-DP release on a Poisson sample with
    probability q under ``ADD_OR_REMOVE_ONE`` (amplification by subsampling: Li, Qardaji & Su 2012;
    Balle, Barthe & Gaboardi 2018, Theorem 8), or None (another relation, or an inner release that
    states no guarantee)."""
    if relation != NeighboringRelation.ADD_OR_REMOVE_ONE:
        return None
    inner = epsilon_delta_of(event.event)
    if inner is None:
        return None
    epsilon, delta = inner
    q = event.sampling_probability
    if math.isinf(epsilon):
        return (math.inf, 0.0) if q > 0 else (0.0, 0.0)
    growth = math.nextafter(math.expm1(epsilon) * (1.0 + 4 * 2.0**-53), math.inf)  # >= e^ε − 1
    amplified_delta = min(1.0, math.nextafter(q * delta, math.inf)) if delta > 0 else 0.0
    return log1p_up(Fraction(q) * Fraction(growth)), amplified_delta


def _laplace_query(event: dp_event.LaplaceDpEvent, kind: str, value: float, relation: NeighboringRelation) -> float:
    """ε(δ) or δ(ε) of one Laplace release, exactly: with ε₀ its pure ε (rounded up, which only
    raises both), δ(ε) = [1 − e^{(ε − ε₀)/2}]₊ and ε(δ) = [ε₀ + 2 log(1 − δ)]₊ (the hockey-stick
    divergence of two Laplace densities ε₀ apart in units of the scale; e.g. Balle & Wang 2018's
    analysis of additive noise). Each evaluation has a few roundings: stepped up by 4 units of
    2^-53 of its terms' magnitudes and one float."""
    guarantee = epsilon_delta_of(add_or_remove_equivalent(event, relation))
    assert guarantee is not None  # a Laplace release states its ε
    eps0 = guarantee[0]
    if kind == "epsilon":
        if math.isinf(eps0) or eps0 == 0:
            return eps0
        if value == 1.0:
            return 0.0
        shift = 2.0 * math.log1p(-value)
        result = eps0 + shift + 4 * 2.0**-53 * (eps0 - shift)
        return math.nextafter(result, math.inf) if result > 0 else 0.0
    if math.isinf(eps0):
        return 1.0
    if value >= eps0:
        return 0.0
    delta = -math.expm1((value - eps0) / 2.0) * (1.0 + 4 * 2.0**-53)
    return min(1.0, math.nextafter(delta, math.inf))


def _refusal(event: dp_event.DpEvent, relation: NeighboringRelation) -> str:
    if isinstance(event, ApproxDpEvent | PureDpEvent):
        return ""
    refusal = relation_refusal(event, relation)
    if refusal:
        return refusal
    if isinstance(event, dp_event.PoissonSampledDpEvent):
        if not isinstance(event.event, dp_event.GaussianDpEvent | dp_event.LaplaceDpEvent):
            return "only Poisson-sampled Gaussian or Laplace releases are supported"
        if isinstance(event.event, dp_event.LaplaceDpEvent) and relation == NeighboringRelation.REPLACE_ONE:
            return "neighboring_relation must be `ADD_OR_REMOVE_ONE` or `REPLACE_SPECIAL` for Poisson-sampled Laplace"
    for name in ("noise_multiplier", "noise_parameter"):
        value = getattr(event, name, None)
        if value is not None and (math.isnan(value) or value < 0):
            return f"{name} must be >= 0, got {value!r}"
    return ""


#: Assumed relative error of dp-accounting's sum for δ(ε) over a privacy-loss distribution (a
#: million positive terms in float64: below 1e-10), as a bound on what rounding can hide.
PLD_RELATIVE_ERROR = 1e-9
#: Assumed absolute error of an FFT convolution of privacy-loss distributions (float64 FFT of
#: probability vectors summing to 1; dp-accounting truncates tails of mass 1e-15 pessimistically).
PLD_ABSOLUTE_ERROR = 1e-14
#: Below this δ (target of ε, or the PLD's own δ(ε)) the FFT's absolute error PLD_ABSOLUTE_ERROR
#: dominates, so the pessimistic answers also consult basic composition and the RDP accountant.
FALLBACK_BELOW = 1e-10
#: The errors dp-accounting's PLD construction and queries raise on valid but numerically extreme
#: inputs (e.g. "deltas are not in non-increasing order"): answered by the fallback bounds.
_PEER_FAILURES = (ValueError, ArithmeticError, IndexError, MemoryError)
#: A PLD answer this close (relative) below a valid bound (the releases' basic composition or RDP) is
#: within dp-accounting's evaluation error of it, and the valid bound is answered instead.
PURE_CAP_SNAP = 1e-6
#: How many times coarser than a query's grid the grid of :meth:`PLDAccountant.coarse_delta_from_summary`
#: is: about 1e-4 relative looser in δ on a filter's mixed releases at the default grid, ten times cheaper.
COARSE_GRID_FACTOR = 10
#: Largest privacy-loss grid a query allocates (8 bytes a point, several arrays in the FFT).
MAX_GRID_POINTS = 1_000_000
#: Coarsest grid step (nats) a query uses; releases needing a coarser one are refused
#: (dp-accounting's pessimistic discretisation computes e^step - 1, which overflows past ~709).
MAX_GRID_INTERVAL = 100.0
#: Most releases of one non-Gaussian event that are self-composed by FFT (the cost grows with the
#: count: about 8 s for 10^6 Laplace releases). Gaussian releases compose exactly at any count.
MAX_SELF_COMPOSITIONS = 1_000_000
#: Noise scales above this are replaced by it: less noise is a valid (pessimistic) bound, and
#: dp-accounting's Gaussian δ(ε) cancels at large scales (at σ = 10^6 its δ(0) is 2e-10 below the
#: truth, at 10^4 within 3e-13, against mpmath), so that its PLD stays within PLD_RELATIVE_ERROR.
_MAX_NOISE = 1e4
#: A composition of (ε, δ) releases whose finite part keeps less mass than e^-27 (~2e-12) is
#: treated as not private (δ = 1 up to that mass).
_LOG_MIN_KEPT_MASS = -27.0
#: Composed PLDs an accountant keeps (the most recently used), and PLDs of releases other than
#: plain Gaussians kept across accountants (by their parameters); a PLD on a fine grid can take
#: several megabytes.
_COMPOSED_CACHE_SIZE = 8
_PIECE_CACHE_SIZE = 16
#: Privacy-loss tails beyond this many standard deviations carry negligible mass (dp-accounting
#: truncates at e^-50); used only to size the grid.
_TAIL_SDS = 10.0


def _loss_spread(event: dp_event.DpEvent, relation: NeighboringRelation) -> tuple[float, float]:
    """(width between the two hypotheses' mean losses, variance of the loss) of one release, for
    grid sizing only: a Gaussian with noise multiplier s has loss N(±1/(2s²), 1/s²) under the two
    hypotheses; Laplace (b) and ε-DP losses lie in [−1/b, 1/b] and [−ε, ε]. Poisson sampling with
    probability q < 1 shrinks the loss log(1 − q + q·Y) of a likelihood ratio Y: its spread is at
    most q/(1 − q) times Y's, whose variance under the unsampled pair is its χ² divergence
    (e^{1/s²} − 1 for the Gaussian), and its mean at most the KL divergence <= log(1 + q²χ²)."""
    sampling = event.sampling_probability if isinstance(event, dp_event.PoissonSampledDpEvent) else 1.0
    if isinstance(event, dp_event.PoissonSampledDpEvent):
        event = event.event
    event = add_or_remove_equivalent(event, relation)
    if isinstance(event, dp_event.GaussianDpEvent) and event.noise_multiplier > 0:
        # dp-accounting enumerates the loss over both hypotheses' supports: its mean ±1/(2s²) too
        s: float = event.noise_multiplier
        width, variance = 1.0 / s / s, 1.0 / s / s  # s² may underflow: divide twice
        if sampling < 1.0:
            chi_squared = math.expm1(min(width, 700.0))
            width = min(width, 2.0 * math.log1p(sampling * sampling * chi_squared))
            variance = min(variance, (sampling / (1.0 - sampling)) ** 2 * chi_squared)
        return width, variance
    sd: float
    if isinstance(event, dp_event.LaplaceDpEvent) and event.noise_multiplier > 0:
        sd = 1.0 / event.noise_multiplier
    elif isinstance(event, (PureDpEvent, ApproxDpEvent, dp_event.RandomizedResponseDpEvent)):
        # the loss of an ε-DP release (randomized response: ε = log of its likelihood ratio) lies in [−ε, ε]
        guarantee = epsilon_delta_of(event)
        sd = guarantee[0] if guarantee is not None and math.isfinite(guarantee[0]) else 0.0
    else:
        return 0.0, 0.0
    return 0.0, sd * sd


def _loss_span(releases: list[tuple[dp_event.DpEvent, int]], relation: NeighboringRelation) -> float:
    """Width of the privacy-loss support of these composed releases (count each), for grid sizing
    only: the mean losses add up, the standard deviations in quadrature, and the support spans the
    means ±_TAIL_SDS standard deviations."""
    spreads = [(count, *_loss_spread(event, relation)) for event, count in releases]
    width = math.fsum(count * mean_width for count, mean_width, _ in spreads)
    variance = math.fsum(count * variance for count, _, variance in spreads)
    return width + 2.0 * _TAIL_SDS * math.sqrt(variance)


@functools.lru_cache(maxsize=_PIECE_CACHE_SIZE)
def _gaussian_pld(sigma: float, pessimistic: bool, interval: float, relation: NeighboringRelation) -> _Pld | None:
    """The PLD of one Gaussian release with noise multiplier ``sigma`` (see :func:`_folded_noise`);
    the pessimistic one under add-or-remove built on arrays (:mod:`accountants.sampled_gaussian`
    with sampling probability 1: dp-accounting's to the bit), kept by its parameters."""
    if sigma == 0:
        return None
    if math.isinf(sigma):  # infinite noise reveals nothing: ε = 0
        return pld_lib.identity(interval)
    if pessimistic and relation != NeighboringRelation.REPLACE_ONE:
        return sampled_gaussian_arrays(min(sigma, _MAX_NOISE), 1.0, interval)
    return pld_lib.from_gaussian_mechanism(
        standard_deviation=min(sigma, _MAX_NOISE),
        pessimistic_estimate=pessimistic,
        value_discretization_interval=interval,
        use_connect_dots=pessimistic,  # connect-the-dots has no optimistic variant
        neighboring_relation=relation,  # sensitivity 2 under REPLACE_ONE
    )


def _composed(first: _Pld, second: _Pld) -> _Pld:
    """The composition of two PLDs on the same grid: on arrays when both are, else by dp-accounting."""
    if isinstance(first, ArrayPld) and isinstance(second, ArrayPld):
        return first.compose(second)
    if isinstance(first, ArrayPld):
        first = first.to_dp_accounting()
    return first.compose(second.to_dp_accounting() if isinstance(second, ArrayPld) else second)


@functools.lru_cache(maxsize=_PIECE_CACHE_SIZE)
def _composition(releases: _Key, pessimistic: bool, interval: float, relation: NeighboringRelation) -> _Pld | None:
    """The composed PLD of (event, count) releases, none of them a plain Gaussian, in the given
    order (None: some release is not private)."""
    composed: _Pld | None = None
    for event, count in releases:
        piece = _piece(event, count, pessimistic, interval, relation)
        if piece is None:
            return None
        composed = piece if composed is None else _composed(composed, piece)
    return composed


@functools.lru_cache(maxsize=_PIECE_CACHE_SIZE)
def _piece(
    event: dp_event.DpEvent, count: int, pessimistic: bool, interval: float, relation: NeighboringRelation
) -> _Pld | None:
    """The PLD of ``count`` releases of one event other than a plain Gaussian (None: not private)."""
    return _BUILDERS[type(event)](relation, event, count, pessimistic, interval)


def _laplace(
    relation: NeighboringRelation, event: dp_event.LaplaceDpEvent, count: int, pessimistic: bool, interval: float
) -> _Pld | None:
    """``count`` Laplace releases: the PLD of one discretised from its closed form
    (:func:`laplace_masses`), self-composed by FFT."""
    if event.noise_multiplier == 0:
        return None
    if math.isinf(event.noise_multiplier):
        return pld_lib.identity(interval)
    guarantee = epsilon_delta_of(add_or_remove_equivalent(event, relation))
    assert guarantee is not None  # a Laplace release states its ε
    if math.isinf(guarantee[0]):
        return None
    masses = laplace_masses(guarantee[0], interval, pessimistic)
    if pessimistic:
        return ArrayPld.from_masses(masses, interval).self_compose(count)
    single = pld_lib.PrivacyLossDistribution.create_from_rounded_probability(
        masses, 0.0, interval, pessimistic_estimate=pessimistic
    )
    with np.errstate(over="ignore"):  # scipy's log-sum-exp of the truncation bound: harmless here
        return single.self_compose(count)


def laplace_masses(eps0: float, interval: float, pessimistic: bool) -> dict[int, float]:
    """The privacy-loss distribution of one Laplace release whose pure ε is ``eps0``, on the grid
    ``interval``·Z, from its closed form: pessimistic by connect-the-dots (Doroshenko et al. 2022,
    Alg. 1: the discrete PLD whose δ(ε) matches the exact one at every grid point, an upper bound
    between them), else with the losses rounded down (an estimate).

    Under the first hypothesis the loss L has atoms ½ at ε₀ and ½e^{−ε₀} at −ε₀ and, between them,
    P(L <= l) = ½e^{(l − ε₀)/2} (L = (|x − Δ| − |x|)/b for x ~ Laplace(b), ε₀ = Δ/b; both
    hypotheses give the same distribution), so δ(ε) = 1 − g(ε) with g(ε) = e^{(ε − ε₀)/2} on
    [−ε₀, ε₀], e^ε below and 1 above. Everything is computed from g (never from 1 − g), inside
    [−ε₀, ε₀] in closed form: no cancellation and no overflow for any ε₀.
    """
    h = interval
    if not pessimistic:  # cell i holds the losses in [ih, (i + 1)h)
        first, last = math.floor(-eps0 / h), math.floor(eps0 / h)
        index = np.arange(first, last + 1)
        low, high = np.maximum(index * h, -eps0), np.minimum((index + 1) * h, eps0)
        with np.errstate(under="ignore"):
            masses = np.where(high > low, 0.5 * np.exp((high - eps0) / 2.0) * -np.expm1(-(high - low) / 2.0), 0.0)
        masses[0] += 0.5 * math.exp(-eps0)
        masses[-1] += 0.5
        return dict(zip(index.tolist(), masses.tolist(), strict=True))
    first, last = math.floor(-eps0 / h), math.ceil(eps0 / h)
    if first == last:
        return {first: 1.0}
    index = np.arange(first, last + 1)
    epsilons = index * h
    region = np.where(epsilons >= eps0, 1, np.where(epsilons >= -eps0, 0, -1))  # above, on, below [−ε₀, ε₀]
    with np.errstate(under="ignore", over="ignore"):
        g_middle = np.exp((epsilons - eps0) / 2.0)
        # rises[i] = g_{i+1} − g_i = δ_i − δ_{i+1}, in closed form where both ends share a region
        rises = np.where(region[:-1] == 0, g_middle[:-1] * math.expm1(h / 2.0), np.exp(epsilons[:-1]) * math.expm1(h))
        rises = np.where(region[:-1] == 1, 0.0, rises)
        for k in np.flatnonzero(region[:-1] != region[1:]).tolist():  # at most two crossings
            rises[k] = _laplace_crossing_rise(eps0, h, first + k, int(region[k]), int(region[k + 1]))
        masses = np.empty(index.size)
        masses[1:-1] = (math.exp(h) * rises[:-1] - rises[1:]) / math.expm1(h)
        inside = (region[:-2] == 0) & (region[2:] == 0)
        masses[1:-1] = np.where(inside, g_middle[1:-1] * math.expm1(h / 2.0) ** 2 / math.expm1(h), masses[1:-1])
        masses[1:-1] = np.where((region[:-2] == -1) & (region[2:] == -1), 0.0, masses[1:-1])
    if region[0] == -1 and region[1] == 0:  # g_0 − rises_0/(e^h − 1), rearranged without cancellation
        masses[0] = (
            math.exp((epsilons[1] - eps0) / 2.0) * math.expm1(_exact_half_sum(first + 1, h, eps0)) / math.expm1(h)
        )
    else:
        g0 = math.exp(epsilons[0]) if region[0] == -1 else float(g_middle[0])
        masses[0] = g0 - rises[0] / math.expm1(h)
    masses[-1] = rises[-1] / -math.expm1(-h)
    masses = np.maximum(masses, 0.0)
    return dict(zip(index.tolist(), masses.tolist(), strict=True))


def _exact_half_sum(i: int, h: float, eps0: float) -> float:
    """(i·h + ε₀)/2, rounded once (the grid point and ε₀ nearly cancel at the crossing)."""
    return float((i * Fraction(h) + Fraction(eps0)) / 2)


def _laplace_crossing_rise(eps0: float, h: float, i: int, here: int, there: int) -> float:
    """g((i+1)h) − g(ih) for grid points in different regions of the Laplace loss (−1: below −ε₀,
    0: in [−ε₀, ε₀), 1: at or above ε₀), each exponent formed exactly before one rounding."""
    at = Fraction(i) * Fraction(h)
    if here == -1 and there == 0:  # e^{ε_i}(e^{(ε_{i+1} − ε₀)/2 − ε_i} − 1)
        return math.exp(float(at)) * math.expm1(float((at + Fraction(h) - Fraction(eps0)) / 2 - at))
    if here == 0:  # 1 − e^{(ε_i − ε₀)/2} = δ_i
        return -math.expm1(float((at - Fraction(eps0)) / 2))
    return -math.expm1(float(at))  # from below −ε₀ straight to above ε₀: 1 − e^{ε_i}


def _randomized_response(
    relation: NeighboringRelation,
    event: dp_event.RandomizedResponseDpEvent,
    count: int,
    pessimistic: bool,
    interval: float,
) -> _Pld | None:
    if event.num_buckets == 1 or event.noise_parameter == 1:  # the output does not depend on the input
        return pld_lib.identity(interval)
    if event.noise_parameter / event.num_buckets == 0:  # no noise, or so little that p/k underflows: ∞
        return None
    return pld_lib.from_randomized_response(
        noise_parameter=event.noise_parameter,
        num_buckets=event.num_buckets,
        pessimistic_estimate=pessimistic,
        value_discretization_interval=interval,
        neighboring_relation=relation,
    ).self_compose(count)


def _epsilon_delta(
    relation: NeighboringRelation, event: PureDpEvent | ApproxDpEvent, count: int, pessimistic: bool, interval: float
) -> _Pld | None:
    """The dominating pair of (ε, δ)-DP (Kairouz, Oh & Viswanath 2015, Thm. 2.2)."""
    epsilon = event.epsilon
    delta: float = getattr(event, "delta", 0.0)
    if math.isinf(epsilon) or count * math.log1p(-delta) < _LOG_MIN_KEPT_MASS:
        # all but a negligible mass is the δ atom: (ε, δ) with δ = 1 − (1 − δ_i)^count ≈ 1; the
        # FFT truncation would leave no finite mass (dp-accounting then fails), so report ∞ / δ = 1
        return None
    log_keep = math.log1p(-delta)
    log_p = -math.log1p(math.exp(-epsilon))  # e^ε / (1 + e^ε)
    log_q = log_p - epsilon  # 1 / (1 + e^ε), without overflowing e^ε
    upper = {1: log_keep + log_p, 2: log_keep + log_q}
    lower = {1: log_keep + log_q, 2: log_keep + log_p}
    if delta > 0:
        upper[0] = math.log(delta)
        lower[3] = math.log(delta)
    return pld_lib.from_two_probability_mass_functions(
        lower,
        upper,
        pessimistic_estimate=pessimistic,
        value_discretization_interval=interval,
    ).self_compose(count)


def _poisson_sampled(
    relation: NeighboringRelation, event: dp_event.PoissonSampledDpEvent, count: int, pessimistic: bool, interval: float
) -> _Pld | None:
    """``count`` Poisson-sampled Gaussian or Laplace releases: the PLD of one (:func:`_sampled_single`),
    self-composed by FFT."""
    inner = event.event
    if event.sampling_probability == 0:
        return pld_lib.identity(interval)
    if inner.noise_multiplier == 0:
        return None
    if math.isinf(inner.noise_multiplier):
        return pld_lib.identity(interval)
    single = _sampled_single(
        type(inner).__name__,
        min(inner.noise_multiplier, _MAX_NOISE),
        event.sampling_probability,
        pessimistic,
        interval,
        relation,
    )
    return single.self_compose(count)


@functools.lru_cache(maxsize=_PIECE_CACHE_SIZE)
def _sampled_single(
    kind: str,
    noise: float,
    sampling_probability: float,
    pessimistic: bool,
    interval: float,
    relation: NeighboringRelation,
) -> _Pld:
    """The PLD of one Poisson-sampled Gaussian or Laplace release (``kind``: the class name), kept by its parameters
    (a budget filter composing such releases one at a time builds it once). The pessimistic
    Gaussian one under add-or-remove is built on arrays (:mod:`accountants.sampled_gaussian`, the
    same PLD as dp-accounting's, ten times faster); the others by dp-accounting."""
    if kind == dp_event.GaussianDpEvent.__name__:
        if pessimistic and relation != NeighboringRelation.REPLACE_ONE:
            return sampled_gaussian_arrays(noise, sampling_probability, interval)
        return pld_lib.from_gaussian_mechanism(
            standard_deviation=noise,
            pessimistic_estimate=pessimistic,
            value_discretization_interval=interval,
            sampling_prob=sampling_probability,
            neighboring_relation=relation,
            use_connect_dots=pessimistic,
        )
    return pld_lib.from_laplace_mechanism(
        parameter=noise,
        pessimistic_estimate=pessimistic,
        value_discretization_interval=interval,
        sampling_prob=sampling_probability,
        use_connect_dots=pessimistic,
    )


#: Builds the PLD of ``count`` releases of one event (None: not private at all); plain Gaussian
#: releases are folded into one instead (:func:`_gaussian_pld`). Each builder takes its own event
#: class, so the event argument is typed loosely here.
_Builder = Callable[[NeighboringRelation, Any, int, bool, float], _Pld | None]

_BUILDERS: dict[type[dp_event.DpEvent], _Builder] = {
    dp_event.LaplaceDpEvent: _laplace,
    dp_event.RandomizedResponseDpEvent: _randomized_response,
    dp_event.PoissonSampledDpEvent: _poisson_sampled,
    PureDpEvent: _epsilon_delta,
    ApproxDpEvent: _epsilon_delta,
    dp_event.NonPrivateDpEvent: lambda relation, event, count, pessimistic, interval: None,
}
