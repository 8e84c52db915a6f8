"""The sparse vector technique and its variants, batched over releases (Lyu, Su & Li 2017).

Each function is a mechanism ``(queries, rng, n) → releases`` of :func:`audits.audit`: ``queries``
is a 1-d array of query answers of sensitivity 1, the releases an (n, len(queries)) array, one row
per run. The six algorithms are Algorithms 1–6 of Lyu, Su & Li (2017), "Understanding the sparse
vector technique for differential privacy" (PVLDB 10(6)), with the privacy budget split and noise
scales of their Figure 1; answers are coded 1 (above the noisy threshold), 0 (below) and −1 (not
answered: the algorithm stopped after ``c`` answers above), as in Bichsel et al. (2021)'s versions.
Algorithm 3 releases the noisy answer itself when it is above, and the codes −1000 (below) and
−2000 (stopped). :func:`numerical_svt` is the numerical sparse vector of Wang, Ding, Wang, Kifer &
Zhang (2019), "Proving differential privacy with shadow execution" (PLDI 2019).

Privacy (Lyu et al. 2017, Table 1): Algorithms 1 and 2 are ε-DP, Algorithm 4 is ((1 + 6c)/4)ε-DP
and Algorithms 3, 5 and 6 are not ε′-DP for any finite ε′.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "ABORTED",
    "BELOW",
    "answer_codes",
    "numerical_svt",
    "query_answers",
    "stopped_after",
    "svt1",
    "svt2",
    "svt3",
    "svt4",
    "svt5",
    "svt6",
]

#: Algorithm 3's code for an answer below the threshold, and every value-releasing variant's code
#: for a query not answered (Bichsel et al. 2021 use the same sentinels).
BELOW, ABORTED = -1000.0, -2000.0


def query_answers(queries: object) -> np.ndarray:
    """``queries`` as a non-empty 1-d float64 array (ValueError otherwise)."""
    values = np.asarray(queries, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"queries must be a non-empty 1-d array of query answers, got shape {values.shape}")
    return values


def stopped_after(above: np.ndarray, c: int) -> np.ndarray:
    """Which answers of each run (rows of the boolean ``above``) come after its c-th answer above:
    the queries a sparse vector with cutoff c never answers."""
    before = np.cumsum(above, axis=1) - above
    return np.asarray(before >= c)


def answer_codes(above: np.ndarray, c: int | None) -> np.ndarray:
    """The answers as codes: 1 above, 0 below, −1 after the c-th answer above (c None: no cutoff)."""
    codes = above.astype(np.float64)
    if c is not None:
        codes[stopped_after(above, c)] = -1.0
    return codes


def svt1(
    queries: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1, c: int = 1, t: float = 1.0
) -> np.ndarray:
    """Algorithm 1 (ε-DP): ρ ~ Lap(2/ε), ν_i ~ Lap(4c/ε), at most c answers above."""
    q = query_answers(queries)
    rho = rng.laplace(scale=2.0 / epsilon, size=(n, 1))
    nu = rng.laplace(scale=4.0 * c / epsilon, size=(n, q.size))
    return answer_codes(q + nu >= t + rho, c)


def svt2(
    queries: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1, c: int = 1, t: float = 1.0
) -> np.ndarray:
    """Algorithm 2 (ε-DP): ρ ~ Lap(2c/ε), drawn afresh after every answer above; ν_i ~ Lap(4c/ε)."""
    q = query_answers(queries)
    rho = rng.laplace(scale=2.0 * c / epsilon, size=n)
    nu = rng.laplace(scale=4.0 * c / epsilon, size=(n, q.size))
    above = np.empty((n, q.size), dtype=bool)
    for i in range(q.size):
        above[:, i] = q[i] + nu[:, i] >= t + rho
        fresh = rng.laplace(scale=2.0 * c / epsilon, size=n)
        rho = np.where(above[:, i], fresh, rho)
    return answer_codes(above, c)


def svt3(
    queries: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1, c: int = 1, t: float = 1.0
) -> np.ndarray:
    """Algorithm 3 (not private): ρ ~ Lap(2/ε), ν_i ~ Lap(2c/ε); releases q_i + ν_i when above."""
    q = query_answers(queries)
    rho = rng.laplace(scale=2.0 / epsilon, size=(n, 1))
    noisy = q + rng.laplace(scale=2.0 * c / epsilon, size=(n, q.size))
    above = noisy >= t + rho
    out = np.where(above, noisy, BELOW)
    out[stopped_after(above, c)] = ABORTED
    return out


def svt4(
    queries: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1, c: int = 1, t: float = 1.0
) -> np.ndarray:
    """Algorithm 4 (((1 + 6c)/4)ε-DP): ρ ~ Lap(4/ε), ν_i ~ Lap(4/(3ε)), at most c answers above."""
    q = query_answers(queries)
    rho = rng.laplace(scale=4.0 / epsilon, size=(n, 1))
    nu = rng.laplace(scale=4.0 / (3.0 * epsilon), size=(n, q.size))
    return answer_codes(q + nu >= t + rho, c)


def svt5(queries: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1, t: float = 1.0) -> np.ndarray:
    """Algorithm 5 (not private): ρ ~ Lap(2/ε), no noise on the queries, every query answered."""
    q = query_answers(queries)
    rho = rng.laplace(scale=2.0 / epsilon, size=(n, 1))
    return answer_codes(np.broadcast_to(q, (n, q.size)) >= t + rho, None)


def svt6(queries: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1, t: float = 1.0) -> np.ndarray:
    """Algorithm 6 (not private): ρ ~ Lap(2/ε), ν_i ~ Lap(2/ε), every query answered."""
    q = query_answers(queries)
    rho = rng.laplace(scale=2.0 / epsilon, size=(n, 1))
    nu = rng.laplace(scale=2.0 / epsilon, size=(n, q.size))
    return answer_codes(q + nu >= t + rho, None)


def numerical_svt(
    queries: object, rng: np.random.Generator, n: int, *, epsilon: float = 0.1, c: int = 2, t: float = 1.0
) -> np.ndarray:
    """Numerical sparse vector (ε-DP, Wang et al. 2019): ρ₁ ~ Lap(3/ε) on the threshold, ρ₂ ~ Lap(6c/ε)
    on the comparisons, and an answer above releases q_i + ρ₃ with ρ₃ ~ Lap(3c/ε) (0 below, −2000
    once c answers were above)."""
    q = query_answers(queries)
    rho1 = rng.laplace(scale=3.0 / epsilon, size=(n, 1))
    above = q + rng.laplace(scale=6.0 * c / epsilon, size=(n, q.size)) >= t + rho1
    out = np.where(above, q + rng.laplace(scale=3.0 * c / epsilon, size=(n, q.size)), 0.0)
    out[stopped_after(above, c)] = ABORTED
    return out
