"""Pessimistic privacy-loss distributions on arrays: composition, self-composition and queries.

A :class:`LossPmf` is a discretised privacy loss: mass ``probs[k]`` at the loss (lower + k)·h and
mass ``infinity_mass`` at +∞; an :class:`ArrayPld` is the pair of them for the removal and the
addition of a record (one when both are the same), as in dp-accounting's
``PrivacyLossDistribution`` (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, "Connect the
Dots"). Only pessimistic PLDs are represented: every operation keeps δ(ε) an upper bound on the
δ(ε) of the exact composition of the PLDs it was given.

- Composition (:meth:`LossPmf.compose`) is dp-accounting's: the FFT convolution of the two PMFs
  (by real FFTs, the second PMF's spectrum kept with it, or directly when one PMF has at most
  ``_DIRECT_SIZE`` values: the same convolution, cheaper),
  then each tail of mass at most τ/2 (τ = ``TAIL_MASS_TRUNCATION``) cut, the lower one added to the
  lowest kept loss (moving mass to a larger loss only raises δ(ε)), the upper one to +∞ (which
  raises δ(ε) by at least what that mass contributed, at most its mass).
- Self-composition (:meth:`LossPmf.self_compose`) takes the n-th power of the PMF's discrete
  Fourier transform (repeated squaring; the transform and the power in extended precision, since
  the n-th power multiplies the transform's relative rounding error by n: in float64, δ(ε) of
  1,000 sampled Gaussian releases is 2e-14 off, dp-accounting's too, against 1e-17 here with x86's
  80-bit long double; where long double is double, float64's accuracy) on a
  window [a, b] of the n-fold sum's support that the
  Chernoff bound P(S >= b) <= E[e^{tS}]e^{−tb} (and its lower-tail twin) shows to hold all but τ of
  the mass (Koskela, Jälkö & Honkela 2020; the bound dp-accounting uses, at orders chosen here
  around the optimum of the normal approximation: any order gives a valid bound). The mass outside
  the window wraps around into it or is dropped; τ is added at +∞, which covers both, as in
  dp-accounting's ``self_compose``.
- δ(ε) = p_∞ + Σ_{ℓ_i > ε} p_i (1 − e^{ε − ℓ_i}) is summed directly (positive terms, no
  cancellation); ε(δ), the smallest ε >= 0 with δ(ε) <= δ, is found on the sorted losses from
  suffix sums U_k = p_∞ + Σ_{i>=k} p_i and W_k = Σ_{i>=k} p_i e^{−ℓ_i} (δ(ε) = U_k − e^ε W_k
  while exactly the losses ℓ_k, ℓ_{k+1}, ... exceed ε), then inverted in closed form: the
  hockey-stick divergence's exact formula, vectorised. Callers that need a proven bound check the
  answer with the direct sum (as :mod:`accountants.pld` does), since the suffix sums cancel.
- δ(ε) of the composition with μ-GDP Gaussian releases (:meth:`LossPmf.delta_with_gaussian`) is
  summed from the Gaussian part's exact hockey-stick divergence, without discretising it
  (:func:`gaussian_hockey_stick_sum`).
"""

from __future__ import annotations

import math
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from dp_accounting.pld import pld_pmf
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from numpy.typing import NDArray
from scipy import fft, special

__all__ = [
    "ArrayPld",
    "LossPmf",
    "TAIL_MASS_TRUNCATION",
    "connect_dots_pmf",
    "gaussian_hockey_stick_sum",
    "gaussian_hockey_stick_terms",
]

#: Mass a composition may cut from the tails of its result (dp-accounting's default), added at +∞.
TAIL_MASS_TRUNCATION = 1e-15
#: Largest loss whose e^{−ℓ} the ε(δ) search takes in floating point (beyond it, in log space).
_LARGEST_PLAIN_LOSS = 700.0
#: Indices per block in the search for the Chernoff order (see :func:`_chernoff_window`).
_BLOCK = 32
#: Unit roundoff of binary64, and assumed bounds on the relative errors of scipy's erfcx (arguments
#: >= 0), ndtr (arguments >= 0) and log_ndtr (absolute, in units of max(1, |result|)): 4x and more
#: the maxima measured against mpmath (9.1 u and 1.6 u for the first two, as in
#: :mod:`accountants.gaussian_dp`).
_U = 2.0**-53
_ERFCX_ERR = 32 * _U
_NDTR_ERR = 8 * _U
_LOG_NDTR_ERR = 32 * _U
_INV_SQRT2 = 0.7071067811865476  # 1/sqrt(2), correctly rounded
#: z beyond which H_μ's terms are bounded together (see :meth:`LossPmf.delta_with_gaussian`).
_NEGLIGIBLE_Z = 8.5
#: Bounds on H_μ(ε − jh) kept by (ε, μ, h) (see :func:`_hockey_stick_terms`), the most recently used last.
_TERMS: OrderedDict[tuple[float, float, float], tuple[float, int, NDArray[np.float64]]] = OrderedDict()
_TERMS_LOCK = threading.Lock()
_KEPT_TERMS = 4
#: Size up to which a composition convolves directly (cheaper than the FFTs, and exact up to rounding).
_DIRECT_SIZE = 32
#: The kept spectra of composed PMFs (see :func:`_spectrum`), by PMF (dropped with it).
_SPECTRA: weakref.WeakKeyDictionary[LossPmf, dict[int, NDArray[np.complex128]]] = weakref.WeakKeyDictionary()
_SPECTRA_PER_PMF = 4
_LENGTH_STEP = 4096
_MAX_KEPT_SPECTRUM = 1 << 18

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class LossPmf:
    """Mass ``probs[k]`` at the privacy loss (``lower`` + k)·``interval``, ``infinity_mass`` at +∞."""

    interval: float
    lower: int
    probs: FloatArray
    infinity_mass: float

    @property
    def losses(self) -> FloatArray:
        """The losses of ``probs``, computed as dp-accounting computes them."""
        losses: FloatArray = np.multiply(np.arange(self.probs.size) + self.lower, self.interval, dtype=float)
        return losses

    def compose(self, other: LossPmf, tail_mass_truncation: float = TAIL_MASS_TRUNCATION) -> LossPmf:
        """The PMF of the sum of the two losses, with tails of mass at most τ/2 each cut
        pessimistically (see the module docstring)."""
        _check_same_grid(self, other)
        if min(self.probs.size, other.probs.size) <= _DIRECT_SIZE:
            probs = np.convolve(self.probs, other.probs)
        else:
            size = self.probs.size + other.probs.size - 1
            # a length from a coarse set, so that successive compositions reuse the kept spectrum
            length = fft.next_fast_len(-(-size // _LENGTH_STEP) * _LENGTH_STEP, real=True)
            spectrum = fft.rfft(self.probs, length) * _spectrum(other, length)
            probs = np.asarray(fft.irfft(spectrum, length)[:size], dtype=float)
        infinity = self.infinity_mass + other.infinity_mass - self.infinity_mass * other.infinity_mass
        offset, kept, upper_tail = _truncate_tails(probs, tail_mass_truncation)
        return LossPmf(self.interval, self.lower + other.lower + offset, kept, infinity + upper_tail)

    def self_compose(self, count: int, tail_mass_truncation: float = TAIL_MASS_TRUNCATION) -> LossPmf:
        """The PMF of the sum of ``count`` independent copies of the loss, on the Chernoff window
        that holds all but ``tail_mass_truncation`` of its mass (added at +∞)."""
        if count < 1:
            raise ValueError(f"count must be at least 1, got {count!r}")
        if count == 1:
            return self
        size = self.probs.size
        low, high = _chernoff_window(self.probs, count, tail_mass_truncation)
        length = high - low + 1
        fast = fft.next_fast_len(max(length, size), real=True)
        wrapped = fft.irfft(_spectrum_power(self.probs, fast, count), fast)
        probs = np.asarray(wrapped[(low + np.arange(length)) % fast], dtype=float)
        infinity = tail_mass_truncation - math.expm1(count * math.log1p(-self.infinity_mass))
        return LossPmf(self.interval, self.lower * count + low, probs, min(1.0, infinity))

    def delta_for_epsilon(self, epsilon: float) -> float:
        """p_∞ + Σ_{ℓ_i > ε} p_i (1 − e^{ε − ℓ_i}) (summed by numpy's pairwise sum: a BLAS dot product
        can cost a thousand times more when its threads compete for the cores)."""
        losses = self.losses
        above = losses > epsilon
        return float(self.infinity_mass + np.sum(-np.expm1(epsilon - losses[above]) * self.probs[above]))

    def delta_with_gaussian(self, epsilon: float, mu: float) -> float:
        """δ(ε) of this loss composed with a μ-GDP Gaussian part, summed as p_∞ + Σ_i p_i H_μ(ε − ℓ_i)
        rounded up (:func:`gaussian_hockey_stick_sum`): exact for this PMF and the Gaussian's
        continuous loss up to that rounding (relative, below 1e-12) and the three final additions.

        H_μ decreases in t, so the losses with ε − ℓ above t_c = μ(``_NEGLIGIBLE_Z`` + μ/2), where
        H_μ(t_c) <= Φ(−8.5) < 1e-17, are bounded together by their mass times H_μ at (just below) t_c:
        at most 1e-17 more than their exact terms, and the PMF's long lower tail costs nothing. The
        bounds on H_μ(ε − jh) are kept for a range of grid indices j by (ε, μ, h)
        (:func:`_hockey_stick_terms`), so that the PMFs a budget filter composes step after step on
        one grid, against one Gaussian part, each cost a dot product."""
        losses = self.losses
        cut = mu * (_NEGLIGIBLE_Z + 0.5 * mu)
        start = int(np.searchsorted(losses, epsilon - cut, side="left"))  # the losses below ε − t_c
        bound, first, terms = _hockey_stick_terms(
            epsilon, mu, self.interval, self.lower + start, self.lower + losses.size
        )
        head = float(np.sum(self.probs[:start])) * bound
        if start == losses.size:
            return self.infinity_mass + head
        offset = self.lower + start - first
        rest = _bounded_dot(self.probs[start:], terms[offset : offset + losses.size - start])
        return self.infinity_mass + head + rest

    def epsilon_for_delta(self, delta: float) -> float:
        """The smallest ε >= 0 with δ(ε) <= ``delta`` (∞ if the mass at +∞ exceeds it), from the
        suffix sums (see the module docstring)."""
        if self.infinity_mass > delta:
            return math.inf
        losses = self.losses
        start = int(np.searchsorted(losses, 0.0, side="right"))  # only losses > 0 matter for ε >= 0
        probs, positive = self.probs[start:], losses[start:]
        if probs.size == 0:
            return 0.0
        upper = self.infinity_mass + np.cumsum(probs[::-1])[::-1]  # U_k
        with np.errstate(divide="ignore", under="ignore", over="ignore", invalid="ignore"):
            if positive[-1] < _LARGEST_PLAIN_LOSS:
                log_lower = np.log(np.cumsum((probs * np.exp(-positive))[::-1])[::-1])  # log W_k
            else:  # e^{−ℓ} would underflow: the suffix sums in log space
                log_lower = np.logaddexp.accumulate((np.log(np.maximum(probs, 0.0)) - positive)[::-1])[::-1]
            if upper[0] - math.exp(log_lower[0]) <= delta:  # δ(0)
                return 0.0
            # δ at ε = ℓ_k: the losses above it are ℓ_{k+1}, ...
            at_losses = np.append(upper[1:], self.infinity_mass) - np.exp(positive + np.append(log_lower[1:], -np.inf))
        exceeding = np.flatnonzero(at_losses > delta)
        k = int(exceeding[-1]) + 1 if exceeding.size else 0  # ε in (ℓ_{k−1}, ℓ_k]: the losses above are ℓ_k, ...
        if not math.isfinite(log_lower[k]):  # no mass above: ℓ_k itself is a valid answer
            return float(positive[k])
        epsilon = math.log(float(upper[k]) - delta) - float(log_lower[k])
        floor = float(positive[k - 1]) if k > 0 else 0.0
        return min(max(epsilon, floor), float(positive[k]))

    def to_dp_accounting(self) -> pld_pmf.DensePLDPmf:
        return pld_pmf.DensePLDPmf(self.interval, self.lower, self.probs, self.infinity_mass, True)


@dataclass(frozen=True, eq=False)
class ArrayPld:
    """A pessimistic PLD: the PMFs for removing and for adding a record (``add`` None: the same)."""

    remove: LossPmf
    add: LossPmf | None = None

    @classmethod
    def from_masses(cls, masses: dict[int, float], interval: float) -> ArrayPld:
        """The symmetric PLD with ``masses`` at consecutive grid indices (keys ascending) and none at +∞."""
        lower = min(masses)
        probs = np.fromiter((masses.get(k, 0.0) for k in range(lower, max(masses) + 1)), dtype=float)
        return cls(LossPmf(interval, lower, probs, 0.0))

    def _pair(self) -> tuple[LossPmf, LossPmf]:
        return self.remove, self.remove if self.add is None else self.add

    def compose(self, other: ArrayPld) -> ArrayPld:
        remove = self.remove.compose(other.remove)
        if self.add is None and other.add is None:
            return ArrayPld(remove)
        return ArrayPld(remove, self._pair()[1].compose(other._pair()[1]))

    def self_compose(self, count: int) -> ArrayPld:
        if self.add is None:
            return ArrayPld(self.remove.self_compose(count))
        return ArrayPld(self.remove.self_compose(count), self.add.self_compose(count))

    def get_delta_for_epsilon(self, epsilon: float) -> float:
        """δ(ε): the larger of the two directions'."""
        return max(pmf.delta_for_epsilon(epsilon) for pmf in self._pair())

    def get_delta_with_gaussian(self, epsilon: float, mu: float) -> float:
        """δ(ε) of this PLD composed with μ-GDP (:meth:`LossPmf.delta_with_gaussian`): the larger of
        the two directions' (the Gaussian's loss is N(μ²/2, μ²) in both)."""
        return max(pmf.delta_with_gaussian(epsilon, mu) for pmf in self._pair())

    def get_epsilon_for_delta(self, delta: float) -> float:
        """ε(δ): the larger of the two directions'."""
        return max(pmf.epsilon_for_delta(delta) for pmf in self._pair())

    def to_dp_accounting(self) -> pld_lib.PrivacyLossDistribution:
        """The same PLD as dp-accounting's object (to compose it with PLDs built there)."""
        if self.add is None:
            return pld_lib.PrivacyLossDistribution(self.remove.to_dp_accounting())
        return pld_lib.PrivacyLossDistribution(self.remove.to_dp_accounting(), self.add.to_dp_accounting())


def connect_dots_pmf(interval: float, lower: int, upper: int, deltas: FloatArray) -> LossPmf:
    """The pessimistic connect-the-dots PMF on the losses lower·h … upper·h whose δ(ε) equals
    ``deltas`` at each of them (Doroshenko et al. 2022, Alg. 1), in dp-accounting's order of
    operations (``create_pmf_pessimistic_connect_dots_fixed_gap``), on arrays."""
    deltas = np.asarray(deltas, dtype=float)
    if deltas.size != upper - lower + 1 or upper < lower:
        raise ValueError(f"deltas must have one value per loss from {lower} to {upper}, got {deltas.size}")
    if np.any(deltas < 0) or np.any(deltas > 1):
        raise ValueError("deltas must lie in [0, 1]")
    if lower == upper:
        return LossPmf(interval, lower, np.array([1 - deltas[0]]), float(deltas[0]))
    if np.any(np.diff(deltas) > 1e-12):
        raise ValueError("deltas must be non-increasing")
    deltas = np.minimum.accumulate(deltas)
    diffs = np.diff(deltas)
    probs = np.zeros_like(deltas)
    probs[0] = 1 - deltas[0] + diffs[0] / math.expm1(interval)
    probs[1:-1] = (diffs[1:] - diffs[:-1] * math.exp(interval)) / math.expm1(interval)
    probs[-1] = diffs[-1] / math.expm1(-interval)
    return LossPmf(interval, lower, np.maximum(0.0, probs), float(deltas[-1]))


def gaussian_hockey_stick_sum(probs: FloatArray, t: FloatArray, mu: float) -> float:
    """An upper bound on Σ_i probs_i H_μ(t_i) (``probs`` >= 0 summing to at most 1, ``t``
    non-increasing, ``mu`` positive and finite), H_μ the hockey-stick divergence of μ-GDP
    (:func:`gaussian_hockey_stick_terms`): Σ_i probs_i U_i with U_i >= H_μ(t_i) those terms' upper
    bounds, plus 16 units of 2^-53 times log2 of the size for the pairwise sum and 1e-300 for the
    underflowed terms (each below 1e-300 then)."""
    t = np.asarray(t, dtype=float)
    if t.size == 0:
        return 0.0
    terms = gaussian_hockey_stick_terms(t, mu)
    return _bounded_dot(np.asarray(probs, dtype=float), terms)


def _bounded_dot(probs: FloatArray, terms: FloatArray) -> float:
    """Σ probs_i terms_i (non-negative), rounded up: see :func:`gaussian_hockey_stick_sum`."""
    return float(np.sum(probs * terms)) * (1 + 16 * _U * math.log2(terms.size + 1)) + 1e-300


def gaussian_hockey_stick_terms(t: FloatArray, mu: float) -> FloatArray:
    """Upper bounds U_i >= H_μ(t_i) (``t`` non-increasing, ``mu`` positive and finite), H_μ the
    hockey-stick divergence of μ-GDP,
    H_μ(t) = Φ(−t/μ + μ/2) − e^t Φ(−t/μ − μ/2) = E[(1 − e^{t − G})₊], G ~ N(μ²/2, μ²), at every real t
    (Balle & Wang 2018, Thm. 8; Dong, Roth & Su 2022, Cor. 2.13: the privacy loss of μ-GDP is G),
    except where H_μ(t_i) < 1e-300 and U_i underflows to 0 (:func:`gaussian_hockey_stick_sum`
    adds 1e-300 for those).

    With z = t/μ − μ/2 (rounded: H is then evaluated at t' = μz + μ²/2, whose distance to t the
    error bound covers through |dH/dt| = e^t Φ(−z − μ)), on the two runs of ``t``:

    * z > 0: Φ(−z) = ½ erfcx(z/√2) e^{−z²/2} and e^t Φ(−z − μ) = ½ erfcx((z + μ)/√2) e^{−z²/2}
      (since t − (z + μ)²/2 = −z²/2), so H = ½ e^{−z²/2} (erfcx(z/√2) − erfcx((z + μ)/√2)): no
      overflow of e^t and no underflow before the common factor; the difference loses about
      log10(1 + z/μ) digits, which the error bound's first term covers relative to the sum of the two.
    * z <= 0: H = Φ(−z) − exp(t + log Φ(−z − μ)) (e^t formed in log space), with Φ(−z) >= ½; the
      rounding of z moves H only to second order there (∂H/∂z = 0 at fixed t).

    Each value is clipped at 0 (H >= 0). Its error bound is the assumed library errors plus the
    roundings of the arguments at the run's extreme |z|, |t| and |log Φ| (to first order in 2^-53,
    doubled: bounds at a run's extremes hold on any part of it) times the magnitudes of its two
    parts; each U_i is then raised by 8 units of 2^-53 for the roundings that combine them."""
    t = np.asarray(t, dtype=float)
    terms = np.zeros(t.size)
    if t.size == 0:
        return terms
    with np.errstate(under="ignore", over="ignore"):
        z = t / mu - 0.5 * mu
        split = int(np.searchsorted(-z, 0.0, side="left"))  # z[:split] > 0 >= z[split:]
        if split:
            zu = z[:split]
            first = special.erfcx(zu * _INV_SQRT2)
            second = special.erfcx((zu + mu) * _INV_SQRT2)
            z_max, t_max = float(zu[0]), max(abs(float(t[0])), abs(float(t[split - 1])))
            rounding = 16 * _U + _U * z_max * z_max + 4 * _U * (t_max + mu * z_max + mu * mu)
            error = 2 * (_ERFCX_ERR + rounding)
            terms[:split] = (0.5 * np.exp(-0.5 * zu**2)) * (np.maximum(first - second, 0.0) + error * (first + second))
        if split < t.size:
            zl, tl = z[split:], t[split:]
            head = special.ndtr(-zl)
            log_tail = special.log_ndtr(-zl - mu)
            tail = np.exp(tl + log_tail)
            t_max, z_max = max(abs(float(tl[0])), abs(float(tl[-1]))), abs(float(zl[-1]))
            log_max = max(abs(float(log_tail[0])), abs(float(log_tail[-1])))
            tail_rounding = 4 * _U * (2 + z_max) + _U * (t_max + log_max) + _LOG_NDTR_ERR * max(1.0, log_max)
            terms[split:] = np.maximum(head - tail, 0.0) + 2 * (_NDTR_ERR + 4 * _U) * head + 2 * tail_rounding * tail
    terms *= 1 + 8 * _U
    return terms


def _hockey_stick_terms(
    epsilon: float, mu: float, interval: float, low: int, high: int
) -> tuple[float, int, FloatArray]:
    """(an upper bound on H_μ at (just below) the cut t_c of :meth:`LossPmf.delta_with_gaussian`,
    j₀, U) with U[j − j₀] >= H_μ(ε − j·h) (:func:`gaussian_hockey_stick_terms`, at t computed as
    the PMF computes ε − ℓ) for every grid index j in [``low``, ``high``) at least. Kept by
    (ε, μ, h) for the ``_KEPT_TERMS`` most recently used; a range that does not cover the one asked
    is computed again over both, widened by an eighth on each side (the bounds at a run's extremes
    hold on any part of it, so a wider range only rounds up more, by far less than 1e-12)."""
    key = (epsilon, mu, interval)
    with _TERMS_LOCK:
        kept = _TERMS.get(key)
        if kept is not None and kept[1] <= low and high <= kept[1] + kept[2].size:
            _TERMS.move_to_end(key)
            return kept
    if kept is not None:
        low, high = min(low, kept[1]), max(high, kept[1] + kept[2].size)
    margin = max(64, (high - low) // 8)
    first = low - margin
    t = epsilon - np.multiply(np.arange(first, high + margin), interval, dtype=float)
    cut = mu * (_NEGLIGIBLE_Z + 0.5 * mu)
    bound = gaussian_hockey_stick_sum(np.ones(1), np.array([cut - 4 * _U * (abs(epsilon) + cut)]), mu)
    entry = (bound, first, gaussian_hockey_stick_terms(t, mu))
    with _TERMS_LOCK:
        _TERMS[key] = entry
        while len(_TERMS) > _KEPT_TERMS:
            _TERMS.popitem(last=False)
    return entry


def _spectrum(pmf: LossPmf, length: int) -> NDArray[np.complex128]:
    """The real DFT of ``pmf.probs`` zero-padded to ``length``, kept with the PMF (for up to
    ``_SPECTRA_PER_PMF`` lengths, PMFs of at most ``_MAX_KEPT_SPECTRUM`` values) while it lives: a
    budget filter composes the same release's PMF into a growing composition at each step."""
    if pmf.probs.size > _MAX_KEPT_SPECTRUM:
        return np.asarray(fft.rfft(pmf.probs, length))
    kept = _SPECTRA.setdefault(pmf, {})
    if length not in kept:
        if len(kept) >= _SPECTRA_PER_PMF:
            kept.clear()
        kept[length] = np.asarray(fft.rfft(pmf.probs, length))
    return kept[length]


def _check_same_grid(first: LossPmf, second: LossPmf) -> None:
    if first.interval != second.interval:
        raise ValueError(f"PLDs on different grids cannot be composed: {first.interval} != {second.interval}")


def _truncate_tails(probs: FloatArray, tail_mass_truncation: float) -> tuple[int, FloatArray, float]:
    """(index of the first kept value, the kept values with the cut lower tail added to the first,
    the cut upper tail's mass): the longest prefix and suffix each of mass at most τ/2 are cut, as
    dp-accounting's ``_truncate_tails`` (pessimistic) cuts them, vectorised."""
    if tail_mass_truncation == 0:
        return 0, probs, 0.0
    half = tail_mass_truncation / 2
    size = probs.size
    left = min(_prefix_within(probs, half), size - 1)  # keep at least one value
    right = min(max(size - _prefix_within(probs[::-1], half), left + 1), size)
    kept = probs[left:right].copy()
    kept[0] += np.sum(probs[:left])
    return left, kept, float(np.sum(probs[right:]))


def _prefix_within(values: FloatArray, threshold: float) -> int:
    """The length of the longest prefix whose running sums all stay at most ``threshold``."""
    over = np.flatnonzero(np.cumsum(values) > threshold)
    return int(over[0]) if over.size else values.size


def _chernoff_window(probs: FloatArray, count: int, tail_mass_truncation: float) -> tuple[int, int]:
    """Indices [a, b] of the ``count``-fold sum S of indices drawn from ``probs`` (a sub-probability
    vector) with P(S < a) + P(S > b) <= τ. For every order t > 0, P(S >= s) <= M(t)^n e^{−ts}, with
    M the moment generating function of one index, so b = ⌈(n log M(t) + log(2/τ))/t⌉ leaves at
    most τ/2 above; likewise below with t < 0. Any order gives a valid bound: a few Newton steps
    towards the optimal order (where n(tK'(t) − K(t)) = log(2/τ), K = log M) are taken from the
    normal approximation's, and the best bound seen is used, widened by one index for rounding."""
    size = probs.size
    top = (size - 1) * count
    if tail_mass_truncation <= 0 or size == 1:
        return 0, top
    weights = np.maximum(probs, 0.0)
    mass = float(np.sum(weights))
    if mass <= 0:
        return 0, top
    index = np.arange(size, dtype=float)
    mean = float(np.sum(weights * index)) / mass
    centred = index - mean
    variance = float(np.sum(weights * centred**2)) / mass
    log_tail = math.log(2 / tail_mass_truncation)
    guess = math.sqrt(2 * log_tail / (count * variance)) if variance > 0 else 1.0 / size
    # the order is searched on blocks of _BLOCK indices (each at its mean index: an approximation,
    # only the search uses it), then the bound evaluated exactly at the order found and refined
    blocks = -(-size // _BLOCK)
    padded = np.zeros(blocks * _BLOCK)
    padded[:size] = weights
    block_weights = padded.reshape(blocks, _BLOCK).sum(axis=1)
    padded[:size] = weights * centred
    with np.errstate(invalid="ignore", divide="ignore"):
        block_centres = np.where(block_weights > 0, padded.reshape(blocks, _BLOCK).sum(axis=1) / block_weights, 0.0)
    tails = []
    for sign in (1.0, -1.0):
        _, order = _best_tail(block_weights, sign * block_centres, count, log_tail, guess, 16)
        tails.append(_best_tail(weights, sign * centred, count, log_tail, order, 2)[0])
    upper = min(top, math.ceil(count * mean + tails[0]))
    lower = max(0, math.floor(count * mean - tails[1]))
    if lower > upper:  # cannot happen for valid bounds; keep the whole range rather than guess
        return 0, top
    return lower, upper


def _best_tail(
    weights: FloatArray, centred: FloatArray, count: int, log_tail: float, order: float, steps: int
) -> tuple[float, float]:
    """(the least y seen with P(Σ of ``count`` draws of the centred values >= y) <= τ/2 by the
    Chernoff bound y(t) = (n K(t) + log(2/τ))/t, K(t) = log Σ w_j e^{t c_j}, plus one index and
    1e-9 relative for the rounding of K; the last order t tried). The optimal t > 0 is the root of
    the increasing g(t) = n(tK'(t) − K(t)) − log(2/τ): at most ``steps`` safeguarded Newton steps,
    bisection (in log t) once it is bracketed."""
    low, high = 0.0, math.inf
    support = weights > 0
    weights, centred = weights[support], centred[support]
    # the sum never exceeds count × the largest value: the bound when no order is finite (a point mass)
    best = count * float(np.max(centred)) + 1.0
    for _ in range(steps):
        if not 0 < order < math.inf:
            break
        exponents = order * centred
        shift = float(np.max(exponents))
        with np.errstate(under="ignore"):
            scaled = np.exp(exponents - shift) * weights
        total = float(np.sum(scaled))  # >= the largest term, at least its weight: positive
        first = float(np.sum(scaled * centred)) / total
        log_mgf = math.log(total) + shift
        value = (count * log_mgf + log_tail) / order
        if math.isfinite(value):
            best = min(best, value + 1e-9 * abs(value) + 1.0)
        gap = count * (order * first - log_mgf) - log_tail
        if not math.isfinite(gap) or abs(gap) < 1e-2 * log_tail:
            break
        if gap > 0:
            high = order
        else:
            low = order
        slope = count * order * (float(np.sum(scaled * centred**2)) / total - first**2)
        newton = order - gap / slope if slope > 0 else math.nan
        if low < newton < high and newton < 4 * order and newton > order / 4:
            order = newton
        elif low > 0 and high < math.inf:
            order = math.sqrt(low * high)
        else:
            order = order * 4 if high == math.inf else order / 4
    return best, order


def _spectrum_power(probs: FloatArray, length: int, count: int) -> NDArray[np.complex128]:
    """The real DFT of ``probs`` (zero-padded to ``length``) to the power ``count``, both in
    extended precision. Coefficients with |z|^n below e^-80 (against |z_0|^n ≈ 1) are set to 0:
    each output of the inverse transform moves by less than e^-80 (the mean of those powers)."""
    spectrum = fft.rfft(probs.astype(np.longdouble), length)
    with np.errstate(divide="ignore"):
        relevant = count * np.log(np.abs(spectrum.astype(np.complex128))) > -80.0
    powered = np.zeros(spectrum.size, dtype=np.complex128)
    powered[relevant] = _power(spectrum[relevant], count).astype(np.complex128)
    return powered


def _power(values: NDArray[np.clongdouble], count: int) -> NDArray[np.clongdouble]:
    """values**count by repeated squaring (about log2(count) complex products)."""
    result: NDArray[np.clongdouble] | None = None
    base = values
    while count:
        if count & 1:
            result = base if result is None else result * base
        count >>= 1
        if count:
            base = base * base
    assert result is not None
    return result
