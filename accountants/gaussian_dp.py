"""The exact (ε, δ) trade-off of a Gaussian mechanism, and so of any composition of them.

Composing Gaussian releases with noise multipliers z_t (standard deviation over L2 sensitivity) is
exactly μ-GDP with μ = sqrt(Σ_t 1/z_t²) (Dong, Roth & Su 2022, Cor. 3.3), and μ-GDP holds exactly
the (ε, δ(ε)) guarantees δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm. 8;
Dong, Roth & Su Cor. 2.13).

Evaluation. The two terms of that difference agree to many digits when μ is small or ε/μ is large,
so δ is never formed as their difference. With a = −ε/μ + μ/2, b = a − μ and the ratio
M(x) = Φ(x)/φ(x) = ∫_0^∞ exp(xs − s²/2) ds, the identity e^ε φ(b) = φ(a) gives

    δ(ε) = φ(a) · (M(a) − M(b)) = φ(a) · ∫_b^a M'(t) dt,    M'(t) = 1 + t M(t) > 0,

and M(a) − M(b) is computed without cancellation:

* a <= −3: M(a) = R(−a) and M(b) = R(−b) for the Mills ratio R, through Laplace's continued
  fraction R(x) = 1/(x + 1/(x + 2/(x + 3/(x + …)))), whose difference is carried level by level;
* −3 < a, μ <= 1: 12-point Gauss–Legendre quadrature of M' over [b, a] (all derivatives
  M^(k)(t) = ∫ s^k exp(ts − s²/2) ds are positive and increasing, which bounds the quadrature error);
* −3 < a <= 0, μ > 1: M(a) − M(b) as it stands (cancellation costs at most a factor 3.2);
* a > 0, μ > 1: Φ(a) − φ(a) M(b) (at most a factor 2.1).

a and a²/2 are carried in double-double (error-free products and sums; exact rationals when
μ > 2^400), so φ(a) keeps its relative precision even where a²/2 ≈ 700. Every evaluation carries an
a-priori bound on its relative error (below 2e-13; 2e-15 is typical), assuming that scipy's erfcx
and ndtr (positive arguments) err by at most 32 and 8 units of 2^-53; their measured maxima against
mpmath are 9.1 and 1.6 units.

Rounding. Every published number is rounded outward with that bound: :func:`gaussian_delta` is an
upper bound on δ(ε), :func:`gaussian_epsilon` an upper bound on the smallest ε with δ(ε) <= δ, and
:func:`gaussian_mu` a lower bound on the largest μ whose δ(ε) is <= δ. The inverses find the root on
the same evaluation, then step to the safe side (1, 2, 4, … ulps, then bisection over floats) until
the rounded-up δ meets the target.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from scipy import optimize, special

from accountants.rounding import tightest
from accountants.validation import check_delta, check_epsilon

__all__ = ["gaussian_delta", "gaussian_epsilon", "gaussian_mu"]

_U = 2.0**-53  # unit roundoff of binary64
# Assumed bounds on scipy's relative errors, about 4x the maxima measured against mpmath at 40 digits
# (erfcx(y) for y >= -0.36: 9.1 u; ndtr(x) for x >= 0: 1.6 u; both identical in scipy 1.10 and 1.17).
_ERFCX_ERR = 32 * _U
_NDTR_ERR = 8 * _U
_SLACK = 12 * _U  # the roundings of _upper itself: exp (<= 2 u), 4 products, the e^-700 constant
_INV_SQRT_2PI = 0.3989422804014327  # 1/sqrt(2π), correctly rounded
_SQRT_HALF_PI = 1.2533141373155003  # sqrt(π/2), correctly rounded
_INV_SQRT2 = 0.7071067811865476  # 1/sqrt(2), correctly rounded
_LN2 = 0.6931471805599453
_EXP_M700 = math.ldexp(math.exp(-700.0), 1010)  # e^-700 · 2^1010 ≈ 1.08, within 1 ulp
_VELTKAMP = 134217729.0  # 2^27 + 1

# 12-point Gauss–Legendre rule on [-1, 1] (nodes and weights correctly rounded from 40 digits).
_GL_HALF_X = (
    0.1252334085114689,
    0.3678314989981802,
    0.5873179542866175,
    0.7699026741943047,
    0.9041172563704749,
    0.9815606342467192,
)
_GL_HALF_W = (
    0.24914704581340277,
    0.2334925365383548,
    0.20316742672306592,
    0.16007832854334622,
    0.10693932599531843,
    0.04717533638651183,
)
_GL_X = np.array([-x for x in reversed(_GL_HALF_X)] + list(_GL_HALF_X))
_GL_W = np.array(list(reversed(_GL_HALF_W)) + list(_GL_HALF_W))
# Relative quadrature error for an interval [b, a] of width μ <= 1 with -4 <= b < a <= 1/2: the
# 12-point error term μ^24 (12!)^4 / (25 (24!)^3) M^(25)(ξ) with M^(25)(ξ) <= M^(25)(1/2) < 1e15,
# against ∫ M' >= μ M'(-4) > 0.05 μ.
_GL_ERR = 1e-21
# Levels of Laplace's continued fraction for the Mills ratio at x >= bound: each truncates
# R(x) - R(x + μ) with relative error < 1e-19 for every μ > 0 (checked against mpmath at 60
# digits), with a few levels to spare.
_CF_LEVELS = (
    (30.0, 12),
    (20.0, 14),
    (15.0, 16),
    (12.0, 18),
    (10.0, 20),
    (8.0, 24),
    (6.0, 32),
    (5.0, 40),
    (4.0, 56),
    (3.5, 68),
    (3.0, 86),
)
_CF_ERR = 16 * _U  # its rounding error (measured <= 6.2 u) and truncation


class _Delta(NamedTuple):
    """δ̂ = exp(−s) · m · 2^k (s <= 800 exactly, m > 0) with |δ̂/δ − 1| <= err, or δ <= δ̂ if err = 0;
    and, where δ may approach 1 (a > 0 < μ − 1), a lower bound on 1 − δ (else 0)."""

    s: float
    m: float
    k: int
    err: float
    complement: float = 0.0


_NEGLIGIBLE = _Delta(800.0, 1.0, 0, 0.0)  # δ <= e^-800: a <= -40, so δ <= Φ(a) <= φ(a)/|a|
_ONE = _Delta(0.0, 1.0, 0, 0.0)  # δ < 1


def _two_sum(x: float, y: float) -> tuple[float, float]:
    """s + e = x + y exactly, s = fl(x + y) (Knuth)."""
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _split(x: float) -> tuple[float, float]:
    c = _VELTKAMP * x
    high = c - (c - x)
    return high, x - high


def _two_product(x: float, y: float) -> tuple[float, float]:
    """p + e = x · y exactly, p = fl(x · y) (Dekker), barring overflow and underflow."""
    p = x * y
    xh, xl = _split(x)
    yh, yl = _split(y)
    return p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def _a_double(mu: float, epsilon: float) -> tuple[float, float]:
    """a = μ/2 − ε/μ as a_hi + a_lo, to a few units of 2^-106 relative (needs ε/μ <= μ + 101)."""
    if mu <= 1.0:  # ε/μ in double-double; scaled by a power of two so that nothing underflows
        scale = -math.frexp(mu)[1] if mu < 0.5 else 0
        mu_s, eps_s = math.ldexp(mu, scale), math.ldexp(epsilon, scale)
        q_hi = eps_s / mu_s
        p, p_err = _two_product(q_hi, mu_s)
        q_lo = ((eps_s - p) - p_err) / mu_s
        a_hi, a_lo = _two_sum(0.5 * mu, -q_hi)
        a_lo -= q_lo
    elif mu <= 2.0**400:  # a = (μ² − 2ε) / (2μ), the numerator exact up to 3 units of 2^-106
        p, p_err = _two_product(mu, mu)
        s, t = _two_sum(p, -2.0 * epsilon)
        n_hi, n_lo = _two_sum(s, t + p_err)
        a_hi = n_hi / (2.0 * mu)
        r, r_err = _two_product(a_hi, 2.0 * mu)
        a_lo = (((n_hi - r) - r_err) + n_lo) / (2.0 * mu)
    else:
        exact = Fraction(mu) / 2 - Fraction(epsilon) / Fraction(mu)
        a_hi = float(exact)
        a_lo = float(exact - Fraction(a_hi))
    return _two_sum(a_hi, a_lo)


def _mills(x: float) -> float:
    """M(x) = Φ(x)/φ(x) for x <= 1/2, to _ERFCX_ERR + 4 u."""
    return _SQRT_HALF_PI * float(special.erfcx(-_INV_SQRT2 * x))


def _cf_difference(x: float, mu: float) -> float:
    """(R(x) − R(x + μ)) / μ for x >= 3, R the Mills ratio, without subtracting nearby numbers.

    R(x) = C_0(x) with C_k = n_k / (x + C_{k+1}), n_0 = 1, n_k = k (Laplace's continued fraction);
    the scaled differences d_k = (C_k(x) − C_k(x + μ)) / μ obey d_k = C_k(x) C_k(x + μ) (1 − d_{k+1}) / n_k,
    where 0 < d_{k+1} < 1 (x + C_{k+1}(x) increases with x).
    """
    levels = next(n for bound, n in _CF_LEVELS if x >= bound)
    x_far = x + mu
    near = far = d = 0.0
    for k in range(levels, 0, -1):
        near = k / (x + near)
        far = k / (x_far + far)
        d = near * far / k * (1.0 - d)
    near = 1.0 / (x + near)
    far = 1.0 / (x_far + far)
    return near * far * (1.0 - d)


def _gl_difference(a: float, mu: float) -> tuple[float, float]:
    """(M(a) − M(a − μ)) / μ = mean of M' over [a − μ, a], for μ <= 1 and -3 < a <= 1/2, with its
    relative error bound. M'(t) = 1 + t M(t) cancels by the factor |t M(t)| / M'(t) <= 18 on [-4, 0]."""
    half = 0.5 * mu
    t = (a - half) + half * _GL_X
    tm = t * (_SQRT_HALF_PI * special.erfcx(-_INV_SQRT2 * t))
    slope = 1.0 + tm
    mean = 0.5 * float(np.dot(_GL_W, slope))
    amplification = float(np.max(np.abs(tm) / slope))
    # node rounding (|Δt| <= 9 u, |M''/M'| <= 1.5), a_lo (<= 5 u), 12-term sum and weights (<= 13 u)
    return mean, amplification * (_ERFCX_ERR + 4 * _U) + 40 * _U + _GL_ERR


def delta_from_summary(mu: float, epsilon: float) -> _Delta:
    """δ(ε) of μ-GDP for 0 < μ < ∞ and 0 <= ε < ∞, with an a-priori bound on its relative error."""
    if epsilon / mu > mu + 100.0:  # a < −μ/2 − 99
        return _NEGLIGIBLE
    a_hi, a_lo = _a_double(mu, epsilon)
    if a_hi < -40.0:
        return _NEGLIGIBLE
    if a_hi > 40.0:  # then μ > 80, b < −40 and 1 − δ <= Φ(−a) + φ(a) M(b) < e^-800
        return _ONE
    p, p_err = _two_product(a_hi, a_hi)
    s = 0.5 * p  # a²/2 = s + corr, up to a_lo²/2 < 2^-90
    corr = 0.5 * p_err + a_hi * a_lo
    phi_m = math.exp(-corr) * _INV_SQRT_2PI  # φ(a) = exp(−s) · phi_m, to 4 u
    if a_hi > 0.0 and mu > 1.0:  # δ = Φ(a) − φ(a) M(b) >= 0.47 Φ(a)
        phi = math.exp(-s) * phi_m
        cdf = float(special.ndtr(a_hi)) + a_lo * phi
        tail = phi * _mills(a_hi - mu)
        value = cdf - tail
        err = (cdf * (_NDTR_ERR + 3 * _U) + tail * (_ERFCX_ERR + 12 * _U) + 2.0**-1070) / value + _U
        # 1 − δ = Φ(−a) + φ(a) M(b) = φ(a) (M(−a) + M(b)), a sum of positive terms, to _ERFCX_ERR + 14 u
        complement = phi * _mills(-a_hi) + tail
        return _Delta(0.0, value, 0, err, max(0.0, complement * (1.0 - _ERFCX_ERR - 16 * _U) - 2.0**-1070))
    if a_hi <= -3.0:
        mean, mean_err = _cf_difference(-a_hi, mu), _CF_ERR + 2 * _U  # a_lo: |d log D/da| <= 0.6
    elif mu <= 1.0:
        mean, mean_err = _gl_difference(a_hi, mu)
    else:  # -3 < a <= 0 < 1 < μ: M(a) − M(b) >= (M(a) + M(b)) / 3.2
        near, far = _mills(a_hi), _mills(a_hi - mu)
        mean = (near - far) / mu
        mean_err = (near + far) / (near - far) * (_ERFCX_ERR + 4 * _U) + 16 * _U
    mantissa, exponent = math.frexp(mu)
    return _Delta(s, phi_m * mean * mantissa, exponent, mean_err + 6 * _U)


def _upper(d: _Delta) -> float:
    """The least float >= δ̂ (1 + err) up to one ulp (so never below δ), capped at 1."""
    if d.s > 600.0:  # 700 − s is exact (Sterbenz), and exp(700 − s) stays normal
        y, k = math.exp(700.0 - d.s) * d.m * _EXP_M700, d.k - 1010
    else:
        y, k = math.exp(-d.s) * d.m, d.k
    y *= 1.0 + (d.err + _SLACK)
    if math.frexp(y)[1] + k > 1:
        return 1.0
    upper = math.nextafter(math.ldexp(y, k), math.inf)
    if 0 < d.complement <= 0.5:  # the least float >= 1 − complement (1 − v is exact for v in [1/2, 1])
        v = 1.0 - d.complement
        upper = min(upper, v if 1.0 - v <= d.complement else math.nextafter(v, math.inf))
    return min(1.0, upper)


def _excess(delta: float) -> Callable[[_Delta], float]:
    """A continuous measure, for root finding, of how far the upper bound of δ is above ``delta``:
    log δ̂ − log δ, or for ``delta`` > 1/2 log(1 − δ) − log(1 − δ̂), which resolves δ̂ near 1."""
    if delta <= 0.5:
        log_target = math.log(delta)
        return lambda d: -d.s + math.log(d.m) + d.k * _LN2 + math.log1p(d.err + _SLACK) - log_target
    log_room = math.log1p(-delta)  # 1 − δ is exact
    return lambda d: log_room - math.log(max(d.complement if d.complement > 0 else 1.0 - _upper(d), 1e-300))


def gaussian_delta(mu: float, epsilon: float) -> float:
    """δ(ε) of μ-GDP: the smallest δ with (ε, δ)-DP (Balle & Wang 2018, Thm. 8), rounded up.

    The result is never below the exact δ(ε) and exceeds it by less than 1e-12 of δ(ε), or of
    1 − δ(ε) when δ(ε) > 1/2, plus the spacing of floats there (one subnormal below the normal range:
    5e-324 stands for any 0 < δ(ε) < 5e-324).

    Args:
      mu: the GDP parameter, sqrt(Σ Δ_t²/σ_t²) over the composed Gaussian releases.
      epsilon: the target ε (nats).
    """
    epsilon = check_epsilon(epsilon, allow_inf=True)
    mu = check_epsilon(mu, name="mu", allow_inf=True)
    if mu == 0 or math.isinf(epsilon):
        return 0.0
    if math.isinf(mu):
        return 1.0
    return _upper(delta_from_summary(mu, epsilon))


def gaussian_epsilon(mu: float, delta: float) -> float:
    """The smallest ε with δ(ε) <= ``delta`` under μ-GDP, rounded up (never below the true value).

    The returned ε satisfies ``gaussian_delta(mu, ε) <= delta``, an upper bound of δ(ε), so it is
    safe; it is tight up to that bound's slack (< 1e-12 of δ, or of 1 − δ when δ > 1/2) and an ulp
    of ε: the float below it fails that test.
    """
    delta = check_delta(delta)
    mu = check_epsilon(mu, name="mu", allow_inf=True)
    if mu == 0:
        return 0.0
    if math.isinf(mu) or delta == 0:
        return math.inf

    def safe(epsilon: float) -> bool:
        return _upper(delta_from_summary(mu, epsilon)) <= delta

    if safe(0.0):
        return 0.0
    measure = _excess(delta)

    def excess(epsilon: float) -> float:
        return measure(delta_from_summary(mu, epsilon))

    # at a = −sqrt(2 log(1/δ)) − 1, δ(ε) <= Φ(a) < δ already
    high = mu * (0.5 * mu + math.sqrt(-2.0 * math.log(delta)) + 1.0)
    while not math.isinf(high) and not (safe(high) and excess(high) < 0):
        high *= 2.0
    if math.isinf(high):
        return math.inf
    root = 0.0
    if excess(0.0) > 0:
        root = float(optimize.brentq(excess, 0.0, high, xtol=1e-300, maxiter=200, disp=False))
    return tightest(safe, root, high, 0.0)


def gaussian_mu(epsilon: float, delta: float) -> float:
    """The largest μ whose μ-GDP guarantee implies (ε, δ)-DP, rounded down (δ(ε) increases with μ).

    The returned μ satisfies ``gaussian_delta(μ, epsilon) <= delta``; it is tight up to that upper
    bound's slack (< 1e-12 of δ, or of 1 − δ when δ > 1/2) and an ulp of μ.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)

    def safe(mu: float) -> bool:
        return mu == 0 or _upper(delta_from_summary(mu, epsilon)) <= delta

    measure = _excess(delta)

    def excess(log2_mu: float) -> float:
        return measure(delta_from_summary(2.0**log2_mu, epsilon))

    # bracket log2 μ within [-1074, 1023] by steps 1, 2, 4, … (δ tends to 1 as μ grows)
    low = high = 0.0
    step = 1.0
    if excess(0.0) < 0:
        while True:
            high = min(low + step, 1023.0)
            if excess(high) >= 0 or high == 1023.0:  # at μ = 2^1023, δ(ε) = 1 for every finite ε
                break
            low, step = high, 2 * step
    else:
        while True:
            low = max(high - step, -1074.0)
            if excess(low) < 0:
                break
            if low == -1074.0:
                return 5e-324 if safe(5e-324) else 0.0
            high, step = low, 2 * step
    root = float(optimize.brentq(excess, low, high, xtol=1e-15, maxiter=200, disp=False))
    known = 2.0**low if safe(2.0**low) else 0.0
    return tightest(safe, 2.0**root, known, 2.0**high)
