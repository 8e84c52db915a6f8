"""The mechanisms of DP-Sniper's benchmark that are not sparse vectors, batched over releases.

Bichsel, Steffen, Bogunovic & Vechev (2021), "DP-Sniper: black-box discovery of differential
privacy violations using classifiers" (IEEE S&P 2021), evaluate on the Laplace mechanism, a
truncated geometric mechanism, noisy histograms, report noisy max, the sparse vector variants of
:mod:`audits.testbench.svt`, RAPPOR, a prefix sum and two parallel compositions (their Table II),
all at ε = 0.1. Each function is a mechanism ``(data, rng, n, *, ...) → releases`` of
:func:`audits.audit`, one release per row; ``data`` is a 1-d array of query answers of
sensitivity 1 (a single value for the scalar mechanisms).

* :func:`laplace`: x + Lap(1/ε) (Dwork, McSherry, Nissim & Smith 2006).
* :func:`truncated_geometric`: GeoSample of Balcer & Vadhan (2018), "Differential privacy on finite
  computers" (Algorithm 4.8): a count c ∈ {0, …, m} released exactly from integer arithmetic; by
  their Theorem 4.7 it is ln(1 + 2^−k)-DP with k = ⌈ln(2/ε)⌉.
* :func:`noisy_hist`: every count plus Laplace noise of ``scale`` (1/ε correct; ε incorrect,
  Ding et al. 2018, Algorithms 9–10).
* :func:`report_noisy_max`: the index of the largest answer plus Laplace or exponential noise of
  scale 2/ε (correct), or the largest noisy answer itself (incorrect; Ding et al. 2018, Algorithms 5–8).
* :func:`rappor` / :func:`one_time_rappor`: Erlingsson, Pihur & Korolova (2014), "RAPPOR" (CCS 2014),
  steps 1–3 and 1–2: a Bloom filter of h hashes, the permanent randomized response with f, then
  (RAPPOR) the instantaneous one with p and q. The hash is SHA-256 of "value:i" (any fixed hash
  serves; the privacy depends only on how many bits two values' filters differ in, :func:`bloom_bits`).
  RAPPOR is ε∞ = 2h ln((1 − f/2)/(f/2))-DP after step 2 and, for one report, ε₁ = h ln(q*(1 − p*)/(p*(1 − q*)))-DP
  with q* = f(p + q)/2 + (1 − f)q and p* = f(p + q)/2 + (1 − f)p (their Section 3).
* :func:`prefix_sum`: the running sums of x + Lap(1/ε) (Wang et al. 2019): ε-DP when one answer
  changes by 1, m·ε when all m answers may change by 1.
* :func:`laplace_parallel`: m independent Laplace mechanisms on the same value (m·ε-DP).
* :func:`svt34_parallel`: Algorithms 3 and 4 of Lyu et al. (2017) on the same queries (not private).
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from audits.testbench.svt import query_answers, svt3, svt4

__all__ = [
    "bloom_bits",
    "geometric_cdf",
    "laplace",
    "laplace_parallel",
    "noisy_hist",
    "one_time_rappor",
    "prefix_sum",
    "rappor",
    "rappor_claim",
    "rappor_epsilon",
    "report_noisy_max",
    "svt34_parallel",
    "truncated_geometric",
]


def laplace(data: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1) -> np.ndarray:
    """x + Lap(1/ε), coordinate by coordinate."""
    x = query_answers(data)
    return x + rng.laplace(scale=1.0 / epsilon, size=(n, x.size))


def geometric_cdf(count: int, *, epsilon: float = 0.1, m: int = 5) -> list[int]:
    """Balcer & Vadhan's F(z) for z = 0, …, m (exact integers; P(output ≤ z) = F(z)/F(m))."""
    if not (isinstance(count, int) and 0 <= count <= m):
        raise ValueError(f"count must be an integer in [0, {m}], got {count!r}")
    k = math.ceil(math.log(2.0 / epsilon))
    d = (2 ** (k + 1) + 1) * (2**k + 1) ** (m - 1)
    below = [2 ** (k * (count - z)) * (2**k + 1) ** (m - (count - z)) for z in range(count)]
    above = [d - 2 ** (k * (z - count + 1)) * (2**k + 1) ** (m - 1 - (z - count)) for z in range(count, m)]
    return [*below, *above, d]


def truncated_geometric(
    data: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1, m: int = 5
) -> np.ndarray:
    """GeoSample(ε, m) of the count ``data`` (an integer in [0, m]): the smallest z with F(z) ≥ U,
    U uniform on {1, …, F(m)}."""
    value = query_answers(data)
    if value.size != 1 or value[0] != round(value[0]):
        raise ValueError(f"data must be one integer count, got {value!r}")
    cdf = np.array(geometric_cdf(int(value[0]), epsilon=epsilon, m=m), dtype=np.int64)
    u = rng.integers(1, cdf[-1] + 1, size=n)
    return np.searchsorted(cdf, u, side="left").astype(np.float64)[:, None]


def noisy_hist(data: object, rng: np.random.Generator, n: int, *, scale: float) -> np.ndarray:
    """Every count plus Laplace noise of ``scale`` (1/ε: NoisyHist1; ε: NoisyHist2)."""
    x = query_answers(data)
    return x + rng.laplace(scale=scale, size=(n, x.size))


def report_noisy_max(
    data: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1, noise: str, release: str
) -> np.ndarray:
    """Report noisy max with ``noise`` "laplace" or "exponential" of scale 2/ε, releasing the
    ``release`` "index" (correct) or "value" (incorrect) of the largest noisy answer."""
    x = query_answers(data)
    if noise == "laplace":
        noisy = x + rng.laplace(scale=2.0 / epsilon, size=(n, x.size))
    elif noise == "exponential":
        noisy = x + rng.exponential(scale=2.0 / epsilon, size=(n, x.size))
    else:
        raise ValueError(f"noise must be 'laplace' or 'exponential', got {noise!r}")
    if release == "index":
        return np.asarray(np.argmax(noisy, axis=1), dtype=np.float64)[:, None]
    if release == "value":
        return np.asarray(np.max(noisy, axis=1), dtype=np.float64)[:, None]
    raise ValueError(f"release must be 'index' or 'value', got {release!r}")


def bloom_bits(value: int, *, hashes: int = 4, size: int = 20) -> np.ndarray:
    """The Bloom filter of ``value``: a 0/1 vector of ``size`` bits with the ``hashes`` positions set."""
    bits = np.zeros(size)
    for i in range(hashes):
        digest = hashlib.sha256(f"{value}:{i}".encode()).digest()
        bits[int.from_bytes(digest[:8], "little") % size] = 1.0
    return bits


def _permanent(bits: np.ndarray, rng: np.random.Generator, n: int, f: float) -> np.ndarray:
    """Step 2 of RAPPOR: each bit kept with probability 1 − f, else set to 1 or 0 with f/2 each."""
    choice = rng.random(size=(n, bits.size))
    return np.where(choice < f / 2, 1.0, np.where(choice < f, 0.0, bits))


def _integer_value(data: object) -> int:
    value = query_answers(data)
    if value.size != 1 or value[0] != round(value[0]):
        raise ValueError(f"data must be one integer value, got {value!r}")
    return int(value[0])


def one_time_rappor(
    data: object, rng: np.random.Generator, n: int, *, f: float = 0.95, hashes: int = 4, size: int = 20
) -> np.ndarray:
    """RAPPOR's steps 1–2 (Bloom filter, permanent randomized response) on one integer value."""
    return _permanent(bloom_bits(_integer_value(data), hashes=hashes, size=size), rng, n, f)


def rappor(
    data: object,
    rng: np.random.Generator,
    n: int,
    *,
    f: float = 0.75,
    p: float = 0.45,
    q: float = 0.55,
    hashes: int = 4,
    size: int = 20,
) -> np.ndarray:
    """RAPPOR's steps 1–3: the permanent response, then each bit reported 1 with probability q if
    it is 1 and p if it is 0."""
    permanent = _permanent(bloom_bits(_integer_value(data), hashes=hashes, size=size), rng, n, f)
    return (rng.random(size=permanent.shape) < np.where(permanent == 1.0, q, p)).astype(np.float64)


def rappor_epsilon(a: int, b: int, *, f: float, p: float | None = None, q: float | None = None) -> float:
    """The exact ε between the releases of RAPPOR on the values a and b: (bits their filters differ
    in) × the log-ratio of one bit's report probabilities (the bits are independent)."""
    differ = int(np.sum(bloom_bits(a) != bloom_bits(b)))
    if p is None or q is None:
        return differ * math.log((1 - f / 2) / (f / 2))
    q_star, p_star = f * (p + q) / 2 + (1 - f) * q, f * (p + q) / 2 + (1 - f) * p
    return differ * max(math.log(q_star / p_star), math.log((1 - p_star) / (1 - q_star)))


def rappor_claim(*, f: float, p: float | None = None, q: float | None = None, hashes: int = 4) -> float:
    """RAPPOR's guarantee for any two values: ε∞ = 2h ln((1 − f/2)/(f/2)) after the permanent response
    (p, q None), ε₁ = h ln(q*(1 − p*)/(p*(1 − q*))) for one instantaneous report (Erlingsson et al. 2014)."""
    if p is None or q is None:
        return 2 * hashes * math.log((1 - f / 2) / (f / 2))
    q_star, p_star = f * (p + q) / 2 + (1 - f) * q, f * (p + q) / 2 + (1 - f) * p
    return hashes * math.log(q_star * (1 - p_star) / (p_star * (1 - q_star)))


def prefix_sum(data: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1) -> np.ndarray:
    """The running sums of every answer plus Lap(1/ε)."""
    x = query_answers(data)
    return np.cumsum(x + rng.laplace(scale=1.0 / epsilon, size=(n, x.size)), axis=1)


def laplace_parallel(
    data: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.005, copies: int = 20
) -> np.ndarray:
    """``copies`` independent releases of x + Lap(1/ε) of the one value x."""
    x = query_answers(data)
    if x.size != 1:
        raise ValueError(f"data must be one value, got {x.size}")
    return np.asarray(x[0] + rng.laplace(scale=1.0 / epsilon, size=(n, copies)), dtype=np.float64)


def svt34_parallel(
    data: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1, c: int = 2, t: float = 1.0
) -> np.ndarray:
    """Lyu et al.'s Algorithms 3 and 4 run side by side on the same queries (their releases joined)."""
    return np.hstack([svt3(data, rng, n, epsilon=epsilon, c=c, t=t), svt4(data, rng, n, epsilon=epsilon, c=c, t=t)])
