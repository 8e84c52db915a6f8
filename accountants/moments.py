"""The moments accountant: Rényi-DP composition over a wide range of orders.

Per-release RDP curves add up (Mironov 2017, Prop. 1); the total converts to (ε, δ) at the best
order. Gaussian and pure-ε releases use closed forms here; every other ``dp_accounting`` event
(Laplace, randomized response, Poisson-sampled, ...) gets its curve from dp-accounting's
``RdpAccountant`` at the same orders.

``MomentsAccountant.classic()`` reproduces the conversion of Abadi et al. (2016) over integer
log-moment orders τ that the DP-ADMM paper uses (Huang et al. 2020, Theorem 2 and Appendix A):
ε̄ = min_τ [α(τ) + ln(1/δ)]/τ over τ ∈ Z⁺ (capped here at 10^4, not at Abadi et al.'s 32).
"""

from __future__ import annotations

import logging
import math
import numbers
from collections.abc import Hashable

import numpy as np
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation
from dp_accounting.rdp import RdpAccountant
from numpy.typing import ArrayLike, NDArray

from accountants.base import Accountant
from accountants.errors import UnsupportedEventError
from accountants.events import ApproxDpEvent, PureDpEvent, epsilon_delta_of, flatten
from accountants.ledger import StrPath
from accountants.rdp import (
    DEFAULT_ORDERS,
    FloatArray,
    gaussian_rdp,
    laplace_rdp,
    pure_dp_rdp,
    rdp_to_delta,
    rdp_to_epsilon,
    repeat_and_select_rdp,
)
from accountants.relations import DEFAULT_RELATION, add_or_remove_equivalent, check_relation
from accountants.sampled_rdp import sampled_gaussian_fractional_rdp, sampled_gaussian_integer_rdp

__all__ = ["MomentsAccountant", "DELEGATED_CURVE_ERROR", "DELEGATED_MAX_ORDER", "MAX_ORDERS", "OWN_CURVE_ERROR"]

LOGGER = logging.getLogger(__name__)

#: Largest order at which the curves of sampled releases are taken from dp-accounting (each costs
#: O(α) there; its default grid stops at 1024).
DELEGATED_MAX_ORDER = 1024.0
#: Largest noise multiplier of a Poisson-sampled Gaussian whose series are summed: beyond it σ² can
#: overflow, and the unsampled Gaussian's curve α/(2σ²) < 1e-197 at α <= 1e3 bounds the release.
SERIES_MAX_SIGMA = 1e100
#: Assumed relative error of dp-accounting's randomized-response curve above DELEGATED_MAX_ORDER.
HIGH_ORDER_RR_ERROR = 1e-9
#: Relative error bound of the closed-form curves here (Gaussian, Laplace, pure ε): a few
#: roundings each, 256 units of 2^-53 with room to spare.
OWN_CURVE_ERROR = 256 * 2.0**-53
#: Assumed relative error bound of the RDP curves dp-accounting computes (series and log-sum-exp
#: evaluations in float64); every such curve is stepped up by it.
DELEGATED_CURVE_ERROR = 1e-12
#: Most RDP orders an accountant keeps (each summary is one float per order).
MAX_ORDERS = 1_000_000


class MomentsAccountant(Accountant[FloatArray]):
    """RDP / moments accountant.

    Args:
      orders: RDP orders α >= 1, ∞ allowed, as in dp-accounting (default: 1.001 … 10^12 and ∞, see
        ``accountants.rdp.DEFAULT_ORDERS``); order 1 (the KL divergence) only enters the KL bound,
        order ∞ is the pure-DP limit.
      conversion: "improved" (Canonne–Kamath–Steinke; default) or "classic" (Mironov Prop. 3,
        i.e. Abadi et al.'s tail bound).
      neighboring_relation: dp_accounting's relation (default ``ADD_OR_REMOVE_ONE``, as there):
        randomized response needs REPLACE_ONE, Poisson sampling ADD_OR_REMOVE_ONE or
        REPLACE_SPECIAL; Gaussian and Laplace noise multipliers are relative to the add-or-remove
        sensitivity, which doubles under REPLACE_ONE (see :mod:`accountants.relations`).
      ledger_path: see :class:`accountants.base.Accountant`.
    """

    name = "rdp"

    def __init__(
        self,
        orders: ArrayLike | None = None,
        conversion: str = "improved",
        neighboring_relation: NeighboringRelation = DEFAULT_RELATION,
        ledger_path: StrPath | None = None,
    ) -> None:
        super().__init__(ledger_path)
        try:
            grid = DEFAULT_ORDERS if orders is None else np.asarray(orders, dtype=float)
        except (TypeError, ValueError) as error:
            raise TypeError(f"orders must be a 1-D sequence of numbers > 1, got {orders!r:.80}") from error
        if grid.ndim != 1 or grid.size == 0 or np.any(np.isnan(grid)) or np.any(grid < 1):
            raise ValueError(f"orders must be a non-empty 1-D sequence of numbers >= 1 (∞ allowed), got {orders!r:.80}")
        if grid.size > MAX_ORDERS:
            raise ValueError(f"orders must have at most {MAX_ORDERS} entries, got {grid.size}")
        if not isinstance(conversion, str) or conversion not in ("improved", "classic"):
            raise ValueError(f"conversion must be 'improved' or 'classic', got {conversion!r}")
        check_relation(neighboring_relation)
        self.orders = np.array(grid)
        self.orders.setflags(write=False)
        self.conversion = conversion
        self.neighboring_relation = neighboring_relation
        self._curve_cache: dict[dp_event.DpEvent, FloatArray] = {}

    @classmethod
    def classic(cls, max_log_moment_order: int = 10_000, ledger_path: StrPath | None = None) -> MomentsAccountant:
        """The moments accountant exactly as DP-ADMM's Theorem 2 uses it: integer τ = 1..max,
        i.e. RDP orders α = τ + 1, classic tail-bound conversion."""
        if isinstance(max_log_moment_order, bool) or not isinstance(max_log_moment_order, numbers.Integral):
            raise TypeError(f"max_log_moment_order must be an integer >= 1, got {max_log_moment_order!r}")
        if not 1 <= max_log_moment_order <= MAX_ORDERS:
            raise ValueError(f"max_log_moment_order must be in [1, {MAX_ORDERS}], got {max_log_moment_order!r}")
        orders = np.arange(2, max_log_moment_order + 2, dtype=float)
        accountant = cls(orders=orders, conversion="classic", ledger_path=ledger_path)
        accountant.name = "moments_classic"
        return accountant

    def _empty(self) -> FloatArray:
        return np.zeros_like(self.orders)

    def _compose(self, summary: FloatArray, event: dp_event.DpEvent, count: int) -> FloatArray:
        """Curves add up (Mironov 2017, Prop. 1); each product and sum is rounded up (one float
        up after each operation), so the summary stays an upper bound on the exact sum."""
        total = summary
        with np.errstate(over="ignore"):  # a curve that overflows is ε_α = ∞, the right answer
            for leaf, repeats in flatten(event, count):
                total = _up(total + _up(_count_up(repeats) * self._curve(leaf)))
        return total

    def _curve(self, event: dp_event.DpEvent) -> FloatArray:
        try:
            return self._curve_cache[event]
        except KeyError:
            curve = self._upper_curve(event)
            curve.setflags(write=False)
            self._curve_cache[event] = curve
            return curve
        except TypeError:  # an unhashable event (a list inside): compute without caching
            return self._upper_curve(event)

    def _upper_curve(self, event: dp_event.DpEvent) -> FloatArray:
        """The event's curve stepped up by a bound on its evaluation error: the closed forms here
        by ``OWN_CURVE_ERROR`` (a handful of roundings; repeat-and-select adds a few to its inner
        curves, already stepped up), dp-accounting's curves by ``DELEGATED_CURVE_ERROR`` (an assumed
        bound on their series and log-sum-exp evaluations). A negative value (rounding around an
        exact 0) becomes 0."""
        curve = self._compute_curve(event)
        own = type(event) in (
            dp_event.GaussianDpEvent,
            dp_event.LaplaceDpEvent,
            dp_event.RepeatAndSelectDpEvent,
            PureDpEvent,
            ApproxDpEvent,
        )
        error = OWN_CURVE_ERROR if own else DELEGATED_CURVE_ERROR
        with np.errstate(over="ignore"):
            return _up(np.maximum(curve, 0.0) * (1.0 + error))

    def _composed_curve(self, event: dp_event.DpEvent) -> FloatArray:
        """The (upper) curve of all the leaf releases of ``event`` composed."""
        with np.errstate(over="ignore"):
            total = np.zeros_like(self.orders)
            for leaf, repeats in flatten(event, 1):
                total = _up(total + _up(_count_up(repeats) * self._curve(leaf)))
        return total

    def _compute_curve(self, event: dp_event.DpEvent) -> FloatArray:
        # Parameters were checked on entry (accountants.events.check_event).
        event = add_or_remove_equivalent(event, self.neighboring_relation)
        if isinstance(event, dp_event.GaussianDpEvent):
            return gaussian_rdp(self.orders, event.noise_multiplier)
        if isinstance(event, dp_event.LaplaceDpEvent):
            return laplace_rdp(self.orders, event.noise_multiplier)
        if isinstance(event, PureDpEvent):
            return pure_dp_rdp(self.orders, event.epsilon)
        if isinstance(event, ApproxDpEvent):
            if event.delta > 0:
                raise self.unsupported(event, "an (ε, δ) guarantee with δ > 0 has no RDP curve")
            return pure_dp_rdp(self.orders, event.epsilon)
        if type(event).__module__ != dp_event.__name__:
            raise self.unsupported(event, "not a dp_accounting event")
        if _reveals_nothing(event):  # under any relation; dp-accounting divides by ∞ noise or a 0 rate here
            return np.zeros_like(self.orders)
        if isinstance(event, dp_event.RepeatAndSelectDpEvent):
            single = self._composed_curve(event.event)
            return repeat_and_select_rdp(self.orders, single, float(event.mean), float(event.shape))
        return self._delegated_curve(event)

    def _delegated_curve(self, event: dp_event.DpEvent) -> FloatArray:
        """dp-accounting's curve of ``event``: at every order > 1 for the events whose curve it
        evaluates in closed form (O(1) an order); for the sampled ones (O(α) an order) at orders up
        to ``DELEGATED_MAX_ORDER``, and above it the curve of the unsampled Gaussian release, which
        bounds the Poisson-sampled one (Rényi divergence is jointly quasi-convex: van Erven &
        Harremoës 2014, Thm. 13), or ∞ (no bound) for the others. Order 1 gets ∞."""
        closed_form = isinstance(
            event, (dp_event.RandomizedResponseDpEvent, dp_event.ZCDpEvent, dp_event.SingleEpochTreeAggregationDpEvent)
        )
        asked = (self.orders > 1.0) & (closed_form | (self.orders <= DELEGATED_MAX_ORDER))
        # the orders of a sampled Gaussian: dp-accounting's sums, on arrays (accountants.sampled_rdp)
        own = asked & _array_sampled_gaussian(event, self.neighboring_relation)
        integer = self.orders == np.floor(self.orders)
        asked &= ~own
        if np.any(own) and not np.any(asked):
            return self._array_curve(event, own, integer)
        delegate = RdpAccountant(orders=self.orders[asked], neighboring_relation=self.neighboring_relation)
        try:
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # ∞ is a valid curve value
                if not delegate.supports(event):
                    reason = f"dp_accounting's RdpAccountant refuses it under {self.neighboring_relation}"
                    raise self.unsupported(event, reason)
                delegate.compose(event)
        except (OverflowError, ZeroDivisionError, ValueError) as error:  # e.g. sampling a release without noise
            if isinstance(error, UnsupportedEventError):
                raise
            reason = f"dp_accounting cannot compute its RDP curve for these parameters ({type(error).__name__})"
            raise self.unsupported(event, reason) from None
        if np.any(np.isnan(delegate.rdp)):
            raise self.unsupported(event, "dp_accounting's RDP curve is undefined (NaN) for these parameters")
        curve = np.full_like(self.orders, math.inf)
        high = (self.orders > DELEGATED_MAX_ORDER) & ~asked
        if isinstance(event, dp_event.PoissonSampledDpEvent) and type(event.event) is dp_event.GaussianDpEvent:
            curve[high] = gaussian_rdp(self.orders[high], event.event.noise_multiplier)
        curve[asked] = delegate.rdp
        if np.any(own):
            curve[own] = self._array_curve(event, own, integer)[own]
        if isinstance(event, dp_event.RandomizedResponseDpEvent):
            # Above DELEGATED_MAX_ORDER dp-accounting's closed form of a near-uniform randomized
            # response was found 5e-12 (relative) below the truth (the soundness fuzz: p = 0.99999,
            # k = 49, δ = 1e-17): there its curve is stepped up by HIGH_ORDER_RR_ERROR and capped by
            # the curve of the ε₀-DP guarantee randomized response also has.
            # Where the closed form is near 0 (a near-uniform response: the log of a sum that rounds to
            # about 1), its rounding is of the order of the value itself, down to 0 or below for a
            # response that is not uniform (p = 1 − 2^-53, k = 2 or 15702): there the curve is the
            # pure-DP one, a bound in every case, and positive whenever ε₀ is.
            guarantee = epsilon_delta_of(event)
            top = self.orders > DELEGATED_MAX_ORDER
            if guarantee is not None:
                with np.errstate(over="ignore"):
                    stepped = _up(curve[top] * (1.0 + HIGH_ORDER_RR_ERROR))
                curve[top] = np.minimum(stepped, pure_dp_rdp(self.orders[top], guarantee[0]))
                with np.errstate(invalid="ignore"):
                    near_zero = (self.orders > 1.0) & np.isfinite(self.orders) & (curve * (self.orders - 1.0) < 1e-10)
                curve[near_zero] = pure_dp_rdp(self.orders[near_zero], guarantee[0])
        return curve

    def _array_curve(self, event: dp_event.DpEvent, own: NDArray[np.bool_], integer: NDArray[np.bool_]) -> FloatArray:
        """The curve of a Poisson-sampled Gaussian release at the orders ``own`` (∞ elsewhere):
        dp-accounting's sums on arrays, its integer-order one without cancellation
        (:mod:`accountants.sampled_rdp`); above ``DELEGATED_MAX_ORDER``, and at every order when σ
        exceeds ``SERIES_MAX_SIGMA``, the unsampled Gaussian's curve, which bounds it (see
        :meth:`_delegated_curve`)."""
        assert isinstance(event, dp_event.PoissonSampledDpEvent)
        q, sigma = event.sampling_probability, event.event.noise_multiplier
        curve = np.full_like(self.orders, math.inf)
        high = self.orders > DELEGATED_MAX_ORDER
        if sigma > SERIES_MAX_SIGMA:  # σ² can overflow the series; the Gaussian's curve is below 1e-197
            high, own = high | own, np.zeros_like(own)
        curve[high] = gaussian_rdp(self.orders[high], sigma)
        with np.errstate(all="ignore"):  # ∞ is a valid curve value
            curve[own & integer] = sampled_gaussian_integer_rdp(self.orders[own & integer], q, sigma)
            curve[own & ~integer] = sampled_gaussian_fractional_rdp(self.orders[own & ~integer], q, sigma)
        if np.any(np.isnan(curve)):
            raise self.unsupported(event, "its RDP curve is undefined (NaN) for these parameters")
        unconverged = own & ~integer & np.isinf(curve)
        if np.any(unconverged):
            LOGGER.warning(
                "the RDP series of %r failed to converge at %d fractional orders (from %g to %g): "
                "those orders are excluded from the epsilon computation (their curve is infinite)",
                event,
                int(np.sum(unconverged)),
                float(np.min(self.orders[unconverged])),
                float(np.max(self.orders[unconverged])),
            )
        return curve

    def epsilon_from_summary(self, summary: FloatArray, delta: float) -> float:
        return rdp_to_epsilon(self.orders, summary, delta, self.conversion)[0]

    def delta_from_summary(self, summary: FloatArray, epsilon: float) -> float:
        return rdp_to_delta(self.orders, summary, epsilon, self.conversion)[0]

    def get_epsilon_and_order(self, delta: float, participant: Hashable = None) -> tuple[float, float]:
        """(ε, optimal RDP order α) for the worst participant (or the one named)."""
        results = [rdp_to_epsilon(self.orders, s, delta, self.conversion) for s in self._selected(participant)]
        return max(results)

    def rdp(self, participant: Hashable = None) -> FloatArray:
        """The composed RDP curve at ``orders`` (pointwise maximum over participants if None)."""
        curve: FloatArray = np.max(np.stack(self._selected(participant)), axis=0)  # numpy's stubs type this Any
        return curve


def _array_sampled_gaussian(event: dp_event.DpEvent, relation: NeighboringRelation) -> bool:
    """Whether ``event`` is a Poisson-sampled Gaussian release whose curve :mod:`accountants.sampled_rdp`
    gives (0 < q < 1, finite σ > 0, add-or-remove-one, as dp-accounting's sums)."""
    return (
        relation == NeighboringRelation.ADD_OR_REMOVE_ONE
        and type(event) is dp_event.PoissonSampledDpEvent
        and type(event.event) is dp_event.GaussianDpEvent
        and 0 < event.sampling_probability < 1
        and 0 < event.event.noise_multiplier < math.inf
    )


def _up(values: FloatArray) -> FloatArray:
    """Every positive entry one float up (zeros stay zero)."""
    stepped: FloatArray = np.where(values > 0, np.nextafter(values, math.inf), values)
    return stepped


def _count_up(count: int) -> float:
    """The least float >= count."""
    value = float(count)
    return value if value >= count else math.nextafter(value, math.inf)


def _reveals_nothing(event: dp_event.DpEvent) -> bool:
    """Whether the output of ``event`` does not depend on its input at all (RDP curve 0): infinite
    noise, nothing sampled, no repetition, or randomized response that always answers at random."""
    if isinstance(event, dp_event.NoOpDpEvent):
        return True
    if isinstance(
        event, (dp_event.GaussianDpEvent, dp_event.LaplaceDpEvent, dp_event.SingleEpochTreeAggregationDpEvent)
    ):
        return math.isinf(event.noise_multiplier)
    if isinstance(event, dp_event.RandomizedResponseDpEvent):
        return bool(event.noise_parameter == 1 or event.num_buckets == 1)
    if isinstance(event, dp_event.ZCDpEvent):
        return bool(event.rho == 0 and event.xi == 0)
    if isinstance(event, dp_event.PoissonSampledDpEvent):
        return event.sampling_probability == 0 or _reveals_nothing(event.event)
    if isinstance(event, dp_event.SampledWithoutReplacementDpEvent):
        return event.sample_size == 0 or _reveals_nothing(event.event)
    if isinstance(event, dp_event.SelfComposedDpEvent):
        return event.count == 0 or _reveals_nothing(event.event)
    if isinstance(event, dp_event.RepeatAndSelectDpEvent):
        return _reveals_nothing(event.event)
    if isinstance(event, dp_event.ComposedDpEvent):
        return all(_reveals_nothing(inner) for inner in event.events)
    return False
