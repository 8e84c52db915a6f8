"""The optimal composition at any scale: a pessimistic privacy-loss distribution on a lattice.

Beyond what :func:`accountants.composition.optimal_epsilon` can enumerate, the optimal composition
(Kairouz, Oh & Viswanath 2015, Thm. 3.3; Murtagh & Vadhan 2016) of heterogeneous (ε_i, δ_i)
releases is bounded from above by composing their dominating pairs on a lattice h·ℤ of losses:

- :func:`lattice_delta` / :func:`lattice_epsilon`: the bounds, within about ``resolution``
  (relative) of the optimum;
- :func:`lattice_losses` / :func:`lattice_support`: the composed distribution and its size.
"""

from __future__ import annotations

import functools
import heapq
import math
from collections.abc import Callable
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy import fft as sfft
from scipy import optimize, special

from accountants.composition import (
    UNIT_ROUNDOFF as _U,
)
from accountants.composition import (
    Guarantees,
    basic_epsilon,
    delta_from_log_rr,
    log_keep_lower,
    total_epsilon,
)
from accountants.rounding import tightest

__all__ = [
    "DEFAULT_RESOLUTION",
    "MAX_LATTICE",
    "MAX_LATTICE_RELEASES",
    "LatticeLosses",
    "lattice_delta",
    "lattice_epsilon",
    "lattice_losses",
    "lattice_support",
]


# ------------------------------------------------------------------------------------------------
# The optimal composition at scale: a pessimistic privacy-loss distribution on a lattice.
#
# Soundness rests on three facts, none of them an approximation:
#   1. An ε-DP release is also ε'-DP for every ε' >= ε, so rounding every ε_i up to a multiple
#      m_i·h of a step h bounds the optimal composition by that of the rounded guarantees.
#   2. δ_RR(ε) = E_P[(1 − e^{ε − L})_+] (the hockey-stick divergence as an expectation of the
#      privacy loss L under the first distribution) increases with L, so any change that only moves
#      mass to larger losses (or to L = +∞) gives an upper bound: cutting a distribution's lower
#      tail onto its lowest kept loss and its upper tail onto +∞ is safe, for every window.
#   3. The composed randomized-response losses L = h·Σ_i ±m_i then live on the lattice h·Z, and
#      the distribution of Σ ±m_i is the convolution of one binomial per distinct m_i.
# Floating point: the binomials carry a-priori relative error bounds, which multiply under
# convolution; each FFT convolution adds an absolute (ℓ1) error bound, which adds up. The one
# assumption is the accuracy of scipy's FFT (pocketfft), see _FFT_ETA.
# Tiny δ: the absolute error is about 1e-13 of the total mass, so below δ = 1e-8 every mass at
# lattice index i is multiplied by e^{θi} (an exponential tilt, which commutes with convolution,
# θ the Chernoff tilt of the ε sought) and scaled by a power of two: the masses that decide δ are
# then the large ones, and δ = Σ x_i (1 − e^{ε − L_i}) is summed in log space after untilting. The
# cut tails are then bounded by Hoeffding's inequality (see _cut) and the windows keep e^-40·δ.

#: Default lattice resolution r (see _lattice_step): the composed ε grows by about r of itself
#: (measured within 0.5 % of the optimum, see the guide).
DEFAULT_RESOLUTION = 0.003
#: Largest lattice (number of loss atoms) a composition may need; coarser steps beyond it.
MAX_LATTICE = 2**23
#: Largest Σ (count + 1) over distinct rounded releases that is enumerated (binomial atoms).
MAX_LATTICE_RELEASES = 10**7
#: Windows keep every loss within the Hoeffding deviation t with e^{-t²/(2Σcm²)} = e^{-80}: the
#: mass cut away is that small (a choice of cost and tightness; soundness holds for any window).
_WINDOW_EXPONENT = 80.0
#: Assumed bound η on the relative error of one butterfly stage of scipy's FFT (pocketfft, whose
#: twiddle factors are accurate to an ulp); Higham (2002), Thm. 24.2 gives, for a radix-2 FFT of
#: length M, ‖ŷ − y‖₂ <= γ ‖y‖₂ with γ = log2(M) η / (1 − log2(M) η) and η = μ + γ_4(√2 + μ)
#: ≈ 6.7 u for twiddle errors μ <= u. 16 u leaves room for pocketfft's mixed radices.
_FFT_ETA = 16 * _U
#: The absolute error of a float operation whose result leaves the normal range (2^-1021 > 2 ulps
#: of the subnormals, where relative error bounds stop holding).
_TINY = 2.0**-1021


class LatticeLosses(NamedTuple):
    """A pessimistic privacy-loss distribution on the lattice ``step``·Z (losses under the first
    distribution of the composed randomized-response pairs), exponentially tilted by ``tilt`` per
    lattice unit and scaled by e^``log_scale`` so that tiny tail masses keep their precision.

    The exact pessimistic masses x (a loss ``step``·i, i = ``offset`` + position, for ``masses[position]``)
    satisfy x_i e^{``tilt``·i − ``log_scale``} <= e^``log_rel_err`` · computed + e_i with ‖e‖₁ <=
    ``abs_err``, and their mass at L = +∞ is at most ``infinite`` (untilted). With ``tilt`` = 0 and
    ``log_scale`` = 0 these are the masses themselves. ``losses`` are the atoms' losses, each
    rounded up (toward +∞).
    """

    step: float
    offset: int
    masses: NDArray[np.float64]
    losses: NDArray[np.float64]
    infinite: float
    log_rel_err: float
    abs_err: float
    tilt: float = 0.0
    log_scale: float = 0.0


class _Piece(NamedTuple):
    offset: int
    masses: NDArray[np.float64]
    infinite: float  # untilted, an upper bound on the exact mass at +∞
    log_rel_err: float
    abs_err: float
    mean: float  # Σ c m tanh(hm/2): the mean of Σ ±m_i
    spread: float  # Σ c m²: Hoeffding's variance proxy
    tilt: float  # θ: masses are tilted by e^{θ i}
    log_scale: float  # S: and scaled by e^{−S}
    moved: float = 0.0  # tilted: Hoeffding bounds on the lower-tail masses moved up so far


def _sum_up(values: NDArray[np.float64]) -> float:
    """An upper bound on the sum of non-negative ``values`` (numpy's pairwise sum errs by at most
    n u of the sum)."""
    total = float(np.sum(values))
    return math.nextafter(total * (1.0 + (values.size + 4) * _U), math.inf) if total > 0 else 0.0


def _lattice_step(guarantees: Guarantees, resolution: float, exponent: float) -> float:
    """The lattice step h (r = ``resolution``): rounding every ε up by at most h raises Σcε² (which
    sets the composed ε of many releases) by at most 2hΣcε + h²Σc, which h <= r Σcε²/Σcε and
    h <= sqrt(r Σcε²/Σc) keep within 3r of Σcε²; and h <= r ε_med (the median ε of the releases)
    keeps most releases within r of their own ε, for when a few large ε dominate Σcε² (the
    small releases then set the tail). Coarsened if the window would exceed ``MAX_LATTICE``."""
    pairs = sorted((eps, count) for eps, _, count in guarantees if eps > 0 and count > 0)
    sum_eps = math.fsum(count * eps for eps, count in pairs)
    sum_squares = math.fsum(count * eps * eps for eps, count in pairs)
    releases = sum(count for _, count in pairs)
    seen, median = 0, pairs[-1][0]
    for eps, count in pairs:
        seen += count
        if 2 * seen >= releases:
            median = eps
            break
    step = min(resolution * sum_squares / sum_eps, math.sqrt(resolution * sum_squares / releases), resolution * median)
    widest = 2.0 * math.sqrt(2.0 * exponent * sum_squares) + 2.0 * max(eps for eps, _ in pairs)
    return max(step, 4.0 * widest / MAX_LATTICE)


def _cut(piece: _Piece, exponent: float) -> _Piece:
    """``piece`` restricted to its Hoeffding window e^{−``exponent``}, the lower tail moved onto the
    lowest kept atom and the upper tail onto +∞ (fact 2 above), sums rounded up.

    Untilted, the moved masses are the computed ones (their errors move with them). Tilted, moving
    a computed mass would multiply its error by the tilt, so both tails' exact masses are bounded
    by Hoeffding's inequality instead. Cuts only move mass up, so the exact pessimistic variable X'
    is at least the uncut sum X = Σ ±m_i, whose mass below the mean minus t (or above the mean plus
    t) is at most e^{−t²/(2Σcm²)}; and where finite, X' exceeds X only where a lower tail was moved,
    which has probability at most ``moved`` (the sum of those bounds), so the mass X' moves above
    the window is at most Hoeffding's bound plus ``moved``."""
    half = math.sqrt(2.0 * exponent * piece.spread)
    low = max(piece.offset, math.floor(piece.mean - half))
    high = min(piece.offset + piece.masses.size - 1, math.ceil(piece.mean + half))
    if low == piece.offset and high == piece.offset + piece.masses.size - 1:
        return piece
    start, stop = low - piece.offset, high - piece.offset + 1
    kept = piece.masses[start:stop].copy()
    tilted = piece.tilt > 0 or piece.log_scale != 0
    moved_mass = piece.moved
    if start > 0:
        if not tilted:
            moved = float(kept[0]) + _sum_up(piece.masses[:start])
        else:  # the mean is a sum of positive terms, within 1e-10 of itself; bounds rounded up
            log_tail = _hoeffding_log_tail(piece.mean * (1.0 - 1e-10) - low, piece.spread)
            argument = log_tail + piece.tilt * low - piece.log_scale
            if argument > 700.0:  # the tilt would make the moved mass dominate: not a useful tilt
                raise OverflowError("lattice: the tilted lower tail overflows")
            tail = math.exp(argument) * (1.0 + (abs(log_tail) + abs(piece.tilt * low) + 8.0) * 8 * _U)
            moved = float(kept[0]) + tail + _TINY
            moved_mass += math.exp(log_tail) * (1.0 + 8 * _U) + _TINY
        kept[0] = math.nextafter(moved * (1.0 + 2 * _U), math.inf) if moved > 0 else 0.0
    infinite = piece.infinite
    if stop < piece.masses.size:
        if not tilted:
            upper = math.exp(piece.log_rel_err) * (1.0 + 4 * _U) * _sum_up(piece.masses[stop:])
        else:  # X' >= high + 1 (integers)
            log_tail = _hoeffding_log_tail(high + 1 - piece.mean * (1.0 + 1e-10), piece.spread)
            upper = math.exp(log_tail) * (1.0 + 8 * _U) + _TINY + moved_mass
        if upper > 0:
            infinite = min(1.0, math.nextafter((infinite + upper) * (1.0 + 4 * _U), math.inf))
    return piece._replace(offset=low, masses=kept, infinite=infinite, moved=moved_mass)


def _hoeffding_log_tail(deviation: float, spread: float) -> float:
    """An upper bound on log P[|X − E X| >= ``deviation``] on one side, −t²/(2 ``spread``) (Hoeffding
    1963: X a sum of independent terms ±m_i, spread = Σ m_i²), or 0 when the deviation is not positive."""
    if deviation <= 0:
        return 0.0
    return -(deviation * deviation) / (2.0 * spread) * (1.0 - 16 * _U)


def _binomial_piece(multiple: int, count: int, step: float, tilt: float, exponent: float) -> _Piece:
    """Σ of ``count`` independent ±``multiple`` (+ with probability e^ε'/(1 + e^ε'), ε' = step·multiple):
    the composed randomized response of ``count`` ε'-DP releases, in lattice units, tilted by
    e^{``tilt``·i} and scaled so that its largest mass is 1 (when tilted).

    Error: each log-probability is a log-binomial coefficient (three ``gammaln``, each within 8 u of
    its magnitude) plus count·(log p, log q) (a few u each, and ε' = fl(step·multiple) is within
    u·ε' of the lattice value, which moves log p by at most u·ε'·q and log q by u·ε'·p); the tilt
    and the scale add a rounding of |θ i| and of the sum; ``exp`` adds 2 u, or an absolute 2^-1021
    where it leaves the normal range. The relative error is the largest over the terms whose mass
    can reach 2^-1021; the others are within the absolute one."""
    eps = step * multiple
    flips = np.arange(count + 1, dtype=float)
    log_q = -float(np.logaddexp(0.0, eps))
    log_p = -float(np.logaddexp(0.0, -eps))
    log_binom = special.gammaln(count + 1) - special.gammaln(flips + 1) - special.gammaln(count - flips + 1)
    log_probs = log_binom + (count - flips) * log_p + flips * log_q
    # per term; the rounding of ε' moves log p by at most u·ε'·q and log q by u·ε'·p (their derivatives)
    magnitude = (
        3.0 * (float(special.gammaln(count + 1)) + 2.0)
        + (count - flips) * (abs(log_p) + 2.0 + eps * math.exp(log_q))
        + flips * (abs(log_q) + 2.0 + eps * math.exp(log_p))
    )
    errors = 16 * _U * magnitude + 4 * _U * np.abs(log_probs) + 2 * _U
    log_scale = 0.0
    if tilt > 0:
        shifts = tilt * (multiple * (count - 2.0 * flips))  # θ i, i = multiple (count − 2 l)
        log_probs = log_probs + shifts
        log_scale = float(np.max(log_probs))
        log_probs = log_probs - log_scale
        errors = errors + 4 * _U * (np.abs(shifts) + abs(log_scale) + np.abs(log_probs) + 1.0)
    # a term whose mass is below e^-708 < 2^-1021 even at the top of its error is covered by abs_err
    relevant = log_probs + errors > -708.0
    log_rel_err = float(np.max(errors[relevant])) if relevant.any() else 0.0
    masses = np.zeros(2 * multiple * count + 1)
    masses[:: 2 * multiple] = np.exp(log_probs[::-1])  # index 0: all −multiple
    piece = _Piece(
        offset=-multiple * count,
        masses=masses,
        infinite=0.0,
        log_rel_err=log_rel_err,
        abs_err=(count + 1) * _TINY,  # masses below the normal range lose their relative precision
        mean=count * multiple * math.tanh(eps / 2.0),
        spread=float(count) * multiple * multiple,
        tilt=tilt,
        log_scale=log_scale,
    )
    return _cut(piece, exponent)


def _norms_up(values: NDArray[np.float64]) -> tuple[float, float]:
    """Upper bounds on the ℓ1 and ℓ2 norms of non-negative ``values``."""
    return _sum_up(values), math.sqrt(_sum_up(values * values)) * (1.0 + 4 * _U)


#: Pieces with at most this many non-zero atoms are convolved directly (sums of non-negative
#: products, so the error is relative and no FFT error is added).
_SPARSE_ATOMS = 48


def _convolve(a: _Piece, b: _Piece, exponent: float) -> _Piece:
    """The composition of two pieces of one tilt (``+∞`` with anything is ``+∞``: at most the sum of
    their masses there, each exact distribution having total mass 1), rescaled by a power of two
    when tilted, then cut to its window.

    Errors: with x <= e^R x̂ + e (e >= 0, ‖e‖₁ <= E) for each input, and B the (bilinear, monotone)
    composition map, x_a ∘ x_b <= e^{R_a + R_b} B(x̂_a, x̂_b) + e^{R_a} B(x̂_a, e_b) + e^{R_b} B(e_a, x̂_b)
    + B(e_a, e_b), whose ℓ1 norms are at most the products of those of the arguments (Young); the
    tilt e^{θ i} is multiplicative over sums of indices, so this holds for tilted masses too.

    When a piece has at most ``_SPARSE_ATOMS`` non-zero atoms the convolution is a direct sum of
    shifted copies: each entry is a sum of at most n non-negative products, within (n + 1) u of its
    value (relative). Otherwise an FFT of length M: it errs in ℓ2 by at most γ(‖a‖₂‖b‖₁ + ‖a‖₁‖b‖₂)
    for the two forward transforms, √5 u for the products and γ of the result for the inverse
    (Parseval; ‖FFT(b)‖_∞ <= ‖b‖₁), so by at most (2γ + 3u)(‖a‖₂‖b‖₁ + ‖a‖₁‖b‖₂) + γ²√M‖a‖₂‖b‖₂,
    and by √M times that in ℓ1; negative results are set to 0, which moves no entry away from its
    non-negative exact value."""
    size = a.masses.size + b.masses.size - 1
    sparse, dense = (a, b) if np.count_nonzero(a.masses) <= np.count_nonzero(b.masses) else (b, a)
    atoms = np.flatnonzero(sparse.masses)
    fft_l1 = 0.0
    log_rel_err = a.log_rel_err + b.log_rel_err
    if atoms.size <= _SPARSE_ATOMS:
        masses = np.zeros(size)
        for index in atoms:
            masses[index : index + dense.masses.size] += sparse.masses[index] * dense.masses
        log_rel_err += (atoms.size + 2) * _U
        fft_l1 = atoms.size * size * _TINY  # products below the normal range
    else:
        length = sfft.next_fast_len(size, real=True)
        product = sfft.rfft(a.masses, length) * sfft.rfft(b.masses, length)
        masses = np.maximum(sfft.irfft(product, length)[:size], 0.0)
        l1_a, l2_a = _norms_up(a.masses)
        l1_b, l2_b = _norms_up(b.masses)
        stages = math.log2(length)
        gamma = stages * _FFT_ETA / (1.0 - stages * _FFT_ETA)
        fft_l2 = (2 * gamma + 3 * _U) * (l2_a * l1_b + l1_a * l2_b) + gamma**2 * math.sqrt(length) * l2_a * l2_b
        fft_l1 = math.sqrt(length) * fft_l2
    total_a = _sum_up(a.masses)
    total_b = _sum_up(b.masses)
    rel_a, rel_b = math.exp(a.log_rel_err), math.exp(b.log_rel_err)
    abs_err = rel_a * total_a * b.abs_err + rel_b * total_b * a.abs_err + a.abs_err * b.abs_err + rel_a * rel_b * fft_l1
    abs_err = math.nextafter(abs_err * (1.0 + 8 * _U), math.inf) if abs_err > 0 else 0.0
    infinite = a.infinite + b.infinite
    moved = a.moved + b.moved
    log_scale = a.log_scale + b.log_scale
    log_rel_err += _U * abs(log_scale)
    if a.tilt > 0 and np.any(masses > 0):  # largest mass into [1/2, 1): exact for normal numbers
        shift = math.frexp(float(np.max(masses)))[1]
        masses = np.ldexp(masses, -shift)
        abs_err = math.ldexp(abs_err, -shift) + size * _TINY  # masses pushed below the normal range
        log_scale += shift * math.log(2.0)
        log_rel_err += _U * (abs(log_scale) + 1.0)
    return _cut(
        _Piece(
            offset=a.offset + b.offset,
            masses=masses,
            infinite=min(1.0, math.nextafter(infinite, math.inf)) if infinite > 0 else 0.0,
            log_rel_err=log_rel_err * (1.0 + 4 * _U),
            abs_err=abs_err,
            mean=a.mean + b.mean,
            spread=a.spread + b.spread,
            tilt=a.tilt,
            log_scale=log_scale,
            moved=math.nextafter(moved, math.inf) if moved > 0 else 0.0,
        ),
        exponent,
    )


class _Grid(NamedTuple):
    step: float
    counts: tuple[tuple[int, int], ...]  # (multiple, count), multiples increasing


@functools.lru_cache(maxsize=16)
def _grid(
    guarantees: tuple[tuple[float, float, int], ...], resolution: float, exponent: float = _WINDOW_EXPONENT
) -> _Grid | None:
    """The lattice step and the rounded releases, or None when there are too many to enumerate."""
    if any(math.isinf(eps) for eps, _, count in guarantees if count):
        return None
    positive = [(eps, count) for eps, _, count in guarantees if eps > 0 and count > 0]
    if not positive:
        return _Grid(1.0, ())
    step = _lattice_step(guarantees, resolution, exponent)
    if not 1e-300 < step < 1e300:  # ε beyond the float range's comfort (Σε² under- or overflows)
        return None
    values = np.array([eps for eps, _ in positive])
    multiples = np.maximum(np.ceil(values / step), 1.0)
    counts: dict[int, int] = {}
    for (eps, count), estimate in zip(positive, multiples.tolist(), strict=True):
        multiple = _multiple_up(eps, step, int(estimate))
        counts[multiple] = counts.get(multiple, 0) + count
    releases = sum(count + 1 for count in counts.values())
    widest = max(2 * multiple * count + 1 for multiple, count in counts.items())
    if releases > MAX_LATTICE_RELEASES or widest > 64 * MAX_LATTICE:
        return None
    return _Grid(step, tuple(sorted(counts.items())))


def _multiple_up(eps: float, step: float, estimate: int) -> int:
    """The least integer m >= 1 with m·step >= eps exactly, from an estimate: the float product
    decides unless it is within 2 u of eps, then rational arithmetic does."""

    def covers(multiple: int) -> bool:
        product = multiple * step
        if abs(product - eps) > 2 * _U * eps:
            return product > eps
        return multiple * Fraction(step) >= Fraction(eps)

    multiple = max(1, estimate)
    while not covers(multiple):
        multiple += 1
    while multiple > 1 and covers(multiple - 1):
        multiple -= 1
    return multiple


def _canonical(guarantees: Guarantees) -> tuple[tuple[float, float, int], ...]:
    return tuple(sorted((float(eps), float(delta), int(count)) for eps, delta, count in guarantees if count))


def lattice_support(guarantees: Guarantees, resolution: float = DEFAULT_RESOLUTION) -> int | None:
    """Σ (count + 1) over the distinct rounded releases of :func:`lattice_losses` (the binomial atoms
    it enumerates), or None when that exceeds ``MAX_LATTICE_RELEASES`` or a release has ε = ∞."""
    grid = _grid(_canonical(guarantees), _check_resolution(resolution))
    return None if grid is None else sum(count + 1 for _, count in grid.counts)


def _check_resolution(resolution: float) -> float:
    if not 0 < resolution <= 1:
        raise ValueError(f"resolution must be a number in (0, 1], got {resolution!r}")
    return float(resolution)


@functools.lru_cache(maxsize=4)
def _lattice_losses(
    guarantees: tuple[tuple[float, float, int], ...], resolution: float, tilt: float, exponent: float
) -> LatticeLosses:
    """The distribution for a plan (:func:`_plan`): ``tilt`` λ per unit of loss, window e^{−``exponent``}."""
    grid = _grid(guarantees, resolution, exponent)
    if grid is None:
        raise ValueError("lattice_losses: too many releases to enumerate (see lattice_support)")
    if not grid.counts:
        return LatticeLosses(1.0, 0, np.ones(1), np.zeros(1), 0.0, 0.0, 0.0)
    theta = tilt * grid.step
    pieces = [_binomial_piece(multiple, count, grid.step, theta, exponent) for multiple, count in grid.counts]
    heap = [(piece.masses.size, serial, piece) for serial, piece in enumerate(pieces)]
    heapq.heapify(heap)
    serial = len(heap)
    while len(heap) > 1:
        _, _, first = heapq.heappop(heap)
        _, _, second = heapq.heappop(heap)
        merged = _convolve(first, second, exponent)
        heapq.heappush(heap, (merged.masses.size, serial, merged))
        serial += 1
    piece = heap[0][2]
    atoms = grid.step * (piece.offset + np.arange(piece.masses.size, dtype=float))  # integers times h
    losses = atoms + 4 * _U * np.abs(atoms)  # rounded toward +∞
    return LatticeLosses(
        grid.step,
        piece.offset,
        piece.masses,
        losses,
        piece.infinite,
        piece.log_rel_err,
        piece.abs_err,
        piece.tilt,
        piece.log_scale,
    )


def lattice_losses(guarantees: Guarantees, resolution: float = DEFAULT_RESOLUTION) -> LatticeLosses:
    """The pessimistic composed privacy-loss distribution of ``guarantees`` (facts 1–3 above), untilted:
    ε_i rounded up to multiples of the step h = ``resolution``·Σcε²/Σcε (coarser if the window
    would exceed ``MAX_LATTICE`` atoms), one binomial per distinct multiple, convolved shortest
    first (a Huffman order keeps the FFTs short), every intermediate cut to its Hoeffding window.
    The last few results are cached. Requires :func:`lattice_support` to be not None."""
    return _lattice_losses(_canonical(guarantees), _check_resolution(resolution), 0.0, _WINDOW_EXPONENT)


#: Below this δ the distribution is tilted (:func:`_plan`): the FFT's absolute error, about 1e-13
#: of the total mass, would otherwise swamp δ.
_TILT_BELOW = 1e-8


def _log_mgf(triples: tuple[tuple[float, float, int], ...], tilt: float) -> float:
    """log E[e^{λL}] of the composed randomized-response loss L (λ = ``tilt``), ε_i as given."""
    total = 0.0
    for eps, _, count in triples:
        if eps > 0 and count:
            log_p, log_q = -math.log1p(math.exp(-eps)), -math.log1p(math.exp(eps)) if eps < 700 else -eps
            total += count * float(np.logaddexp(log_p + tilt * eps, log_q - tilt * eps))
    return total


def _chernoff_tilt(triples: tuple[tuple[float, float, int], ...], log_bound: Callable[[float], float]) -> float:
    """The λ in [1e-6, 1e6] minimising ``log_bound`` (a Chernoff exponent), searched on log λ."""
    result = optimize.minimize_scalar(
        lambda log_tilt: log_bound(math.exp(log_tilt)), bounds=(math.log(1e-6), math.log(1e6)), method="bounded"
    )
    return float(f"{math.exp(float(result.x)):.3g}")  # a round value, so that near queries share a cache entry


def _plan(triples: tuple[tuple[float, float, int], ...], delta: float) -> tuple[float, float]:
    """(λ, window exponent) for a query whose δ is about ``delta``: untilted with the e^-80 window
    down to ``_TILT_BELOW``; below it, the window keeps e^-40·δ of mass, and λ is the Chernoff
    tilt of the ε at which e^{log M(λ) − λε} = δ (so the tilted masses peak near that ε and the
    FFT's error is relative to δ). Any plan gives an upper bound; this one keeps it tight."""
    if not 0 < delta < _TILT_BELOW:
        return 0.0, _WINDOW_EXPONENT
    log_delta = math.log(delta)
    tilt = _chernoff_tilt(triples, lambda lam: (_log_mgf(triples, lam) - log_delta) / lam)
    return tilt, max(_WINDOW_EXPONENT, 40.0 - log_delta)


def _lattice_log_rr_upper(dist: LatticeLosses, epsilon: float) -> float:
    """An upper bound on log δ_RR(ε), δ_RR(ε) = Σ_{L > ε} x_L (1 − e^{ε − L}) + x_∞, of the exact
    pessimistic masses, in log space: with x_i <= e^{S − θi}(e^R x̂_i + e_i) (θ >= 0),
    δ_RR <= e^{S + R} Σ x̂_i e^{−θi}(1 − e^{ε − L_i}) + e^{S − θ i₀}(‖e‖₁ + n·2^-1021) + x_∞ with
    i₀ the first index above ε. Each log term is within a few u of its magnitude; the log-sum-exp
    of n terms within (n + 4) u (relative)."""
    start = int(np.searchsorted(dist.losses, epsilon, side="right"))
    parts = [math.log(dist.infinite)] if dist.infinite > 0 else []
    if start < dist.losses.size:
        masses = dist.masses[start:]
        positive = masses > 0
        indices = dist.offset + start + np.flatnonzero(positive)
        with np.errstate(divide="ignore"):
            weights = np.log(-np.expm1(epsilon - dist.losses[start:][positive]))
        logs = np.log(masses[positive])
        shifts = dist.tilt * indices
        terms = logs - shifts + weights
        if terms.size:
            magnitude = float(np.max(np.abs(logs) + np.abs(shifts) + np.abs(weights))) + 4.0
            body = float(special.logsumexp(terms)) + dist.log_scale + dist.log_rel_err
            body += (terms.size + 16) * _U + 8 * _U * (magnitude + abs(dist.log_scale) + abs(body))
            parts.append(body)
        first = dist.offset + start
        noise = dist.abs_err + masses.size * _TINY
        if noise > 0:
            log_noise = math.log(noise) + dist.log_scale - dist.tilt * first
            parts.append(log_noise + 8 * _U * (abs(dist.log_scale) + abs(dist.tilt * first) + abs(log_noise) + 4.0))
    if not parts:
        return -math.inf
    total = float(special.logsumexp(parts))
    return total + (len(parts) + 4) * _U + 4 * _U * abs(total)


def _lattice_delta_at(dist: LatticeLosses, log_keep: float, epsilon: float) -> float:
    return delta_from_log_rr(_lattice_log_rr_upper(dist, epsilon), log_keep)


def lattice_delta(guarantees: Guarantees, epsilon: float, resolution: float = DEFAULT_RESOLUTION) -> float:
    """An upper bound on the optimal δ(ε) of the composition (KOV 2015, Thm. 3.3; Murtagh & Vadhan
    2016) of any number of heterogeneous releases, from :func:`lattice_losses`; 1.0 when the
    lattice would be too large (:func:`lattice_support` is None). Where the untilted distribution
    gives δ below 1e-8 the distribution is recomputed tilted toward ε (:func:`_plan`), so that δ
    keeps its relative precision down to 1e-300."""
    key = _canonical(guarantees)
    resolution = _check_resolution(resolution)
    if _grid(key, resolution) is None:
        return 1.0
    log_keep = log_keep_lower(key)
    delta = _lattice_delta_at(_lattice_losses(key, resolution, 0.0, _WINDOW_EXPONENT), log_keep, epsilon)
    if delta >= _TILT_BELOW or epsilon <= 0:
        return delta
    tilt = _chernoff_tilt(key, lambda lam: _log_mgf(key, lam) - lam * epsilon)
    exponent = max(_WINDOW_EXPONENT, 40.0 - (_log_mgf(key, tilt) - tilt * epsilon))
    if _grid(key, resolution, exponent) is None:
        return delta
    try:
        tilted = _lattice_losses(key, resolution, tilt, exponent)
    except OverflowError:  # a tilt the float range cannot carry: the untilted bound
        return delta
    return min(delta, _lattice_delta_at(tilted, log_keep, epsilon))


def lattice_epsilon(guarantees: Guarantees, delta: float, resolution: float = DEFAULT_RESOLUTION) -> float:
    """The least float ε with the lattice's δ bound <= ``delta`` at ε (an upper bound on the optimal
    ε), capped by the plain sum Σ count·ε_i; ∞ when the lattice would be too large. Below δ = 1e-8
    the distribution is tilted toward the ε sought (:func:`_plan`).

    The search: bisection over the lattice's losses for the two atoms around the boundary, then
    the float boundary between them (:func:`accountants.rounding.tightest`)."""
    key = _canonical(guarantees)
    resolution = _check_resolution(resolution)
    if _grid(key, resolution) is None:
        return math.inf
    total = total_epsilon(key)
    log_keep = log_keep_lower(key)
    if not delta > -math.expm1(log_keep):
        return basic_epsilon(key, delta)  # no room beyond the releases' own δ
    tilt, exponent = _plan(key, delta)
    if _grid(key, resolution, exponent) is None:
        tilt, exponent = 0.0, _WINDOW_EXPONENT
    try:
        dist = _lattice_losses(key, resolution, tilt, exponent)
    except OverflowError:  # a tilt the float range cannot carry: the untilted bound
        dist = _lattice_losses(key, resolution, 0.0, _WINDOW_EXPONENT)

    def safe(epsilon: float) -> bool:
        return epsilon >= total or _lattice_delta_at(dist, log_keep, epsilon) <= delta

    if safe(0.0):
        return 0.0
    losses = dist.losses
    low = int(np.searchsorted(losses, 0.0, side="right"))  # losses[low:] > 0
    if low == losses.size or not safe(float(losses[-1])):
        return total
    if safe(float(losses[low])):
        return tightest(safe, float(losses[low]), float(losses[low]), 0.0)
    high = losses.size - 1  # safe(losses[high]), not safe(losses[low])
    while high - low > 1:
        middle = (low + high) // 2
        if safe(float(losses[middle])):
            high = middle
        else:
            low = middle
    return tightest(safe, float(losses[high]), float(losses[high]), float(losses[low]))
