"""The algorithms StatDP was evaluated on, batched over releases (Ding, Wang, Wang, Zhang & Kifer 2018).

Ding et al. (2018), "Detecting violations of differential privacy" (CCS 2018), test report noisy
max, a noisy histogram and the sparse vector technique, each in a correct version and one or more
incorrect ones (their Section 6 and Algorithms 1–10), at claimed ε₀ ∈ {0.2, 0.7, 1.5}. Each
function here is a mechanism ``(queries, rng, n, *, epsilon) → releases`` of :func:`audits.audit`
(``queries``: a 1-d array of query answers of sensitivity 1; one release per row):

* report noisy max: Laplace noise of scale 2/ε (``noisy_max_v1a``, correct: releases the index) or
  exponential noise of scale 2/ε (``noisy_max_v2a``); ``noisy_max_v1b`` and ``noisy_max_v2b``
  release the noisy maximum instead of its index (incorrect);
* ``histogram``: every query plus Laplace noise of scale 1/ε, for queries of which one differs by
  at most 1 between neighbours (correct); ``histogram_eps`` uses scale ε instead (incorrect);
* ``svt``: the sparse vector with threshold noise Lap(2/ε), query noise Lap(4N/ε) and at most N
  answers above (correct), and the incorrect variants: ``isvt1`` adds no noise to the queries and
  never stops; ``isvt2`` adds Lap(2/ε) to the queries and never stops; ``isvt3`` uses threshold noise
  Lap(4/ε) and query noise Lap(4/(3ε)); ``isvt4`` releases the noisy answer instead of "above".

The sparse vector variants release every answer, coded 1 (above), 0 (below) and −1 (not answered
after N answers above); ``isvt4`` releases the noisy answer when above and the codes −1000 (below)
and −2000 (not answered). StatDP's own test harness post-processes these outputs into counts; the
releases here are the algorithms' full outputs, of which those counts are functions.
"""

from __future__ import annotations

import numpy as np

from audits.testbench.svt import ABORTED, BELOW, answer_codes, query_answers, stopped_after

__all__ = [
    "histogram",
    "histogram_eps",
    "isvt1",
    "isvt2",
    "isvt3",
    "isvt4",
    "noisy_max_v1a",
    "noisy_max_v1b",
    "noisy_max_v2a",
    "noisy_max_v2b",
    "svt",
]


def noisy_max_v1a(queries: object, rng: np.random.Generator, n: int, *, epsilon: float) -> np.ndarray:
    """Report noisy max with Laplace noise (correct): the index of the largest noisy answer."""
    q = query_answers(queries)
    return np.asarray(np.argmax(q + rng.laplace(scale=2.0 / epsilon, size=(n, q.size)), axis=1), dtype=np.float64)[
        :, None
    ]


def noisy_max_v1b(queries: object, rng: np.random.Generator, n: int, *, epsilon: float) -> np.ndarray:
    """Incorrect: the largest noisy answer itself, with Laplace noise."""
    q = query_answers(queries)
    return np.asarray(np.max(q + rng.laplace(scale=2.0 / epsilon, size=(n, q.size)), axis=1), dtype=np.float64)[:, None]


def noisy_max_v2a(queries: object, rng: np.random.Generator, n: int, *, epsilon: float) -> np.ndarray:
    """Report noisy max with exponential noise (correct): the index of the largest noisy answer."""
    q = query_answers(queries)
    return np.asarray(np.argmax(q + rng.exponential(scale=2.0 / epsilon, size=(n, q.size)), axis=1), dtype=np.float64)[
        :, None
    ]


def noisy_max_v2b(queries: object, rng: np.random.Generator, n: int, *, epsilon: float) -> np.ndarray:
    """Incorrect: the largest noisy answer itself, with exponential noise."""
    q = query_answers(queries)
    return np.asarray(np.max(q + rng.exponential(scale=2.0 / epsilon, size=(n, q.size)), axis=1), dtype=np.float64)[
        :, None
    ]


def histogram(queries: object, rng: np.random.Generator, n: int, *, epsilon: float) -> np.ndarray:
    """Noisy histogram (correct when one count differs by at most 1): Laplace noise of scale 1/ε."""
    q = query_answers(queries)
    return q + rng.laplace(scale=1.0 / epsilon, size=(n, q.size))


def histogram_eps(queries: object, rng: np.random.Generator, n: int, *, epsilon: float) -> np.ndarray:
    """Incorrect noisy histogram: Laplace noise of scale ε instead of 1/ε."""
    q = query_answers(queries)
    return q + rng.laplace(scale=epsilon, size=(n, q.size))


def svt(queries: object, rng: np.random.Generator, n: int, *, epsilon: float, N: int = 1, T: float = 0.5) -> np.ndarray:
    """Sparse vector (correct): threshold T + Lap(2/ε), queries + Lap(4N/ε), at most N answers above."""
    q = query_answers(queries)
    threshold = T + rng.laplace(scale=2.0 / epsilon, size=(n, 1))
    return answer_codes(q + rng.laplace(scale=4.0 * N / epsilon, size=(n, q.size)) >= threshold, N)


def isvt1(
    queries: object, rng: np.random.Generator, n: int, *, epsilon: float, N: int = 1, T: float = 1.0
) -> np.ndarray:
    """Incorrect: no noise on the queries, no cutoff (N is ignored)."""
    q = query_answers(queries)
    threshold = T + rng.laplace(scale=2.0 / epsilon, size=(n, 1))
    return answer_codes(np.broadcast_to(q, (n, q.size)) >= threshold, None)


def isvt2(
    queries: object, rng: np.random.Generator, n: int, *, epsilon: float, N: int = 1, T: float = 1.0
) -> np.ndarray:
    """Incorrect: query noise Lap(2/ε) that does not grow with N, no cutoff (N is ignored)."""
    q = query_answers(queries)
    threshold = T + rng.laplace(scale=2.0 / epsilon, size=(n, 1))
    return answer_codes(q + rng.laplace(scale=2.0 / epsilon, size=(n, q.size)) >= threshold, None)


def isvt3(
    queries: object, rng: np.random.Generator, n: int, *, epsilon: float, N: int = 1, T: float = 1.0
) -> np.ndarray:
    """Incorrect: threshold noise Lap(4/ε) and query noise Lap(4/(3ε)) that does not grow with N."""
    q = query_answers(queries)
    threshold = T + rng.laplace(scale=4.0 / epsilon, size=(n, 1))
    return answer_codes(q + rng.laplace(scale=4.0 / (3.0 * epsilon), size=(n, q.size)) > threshold, N)


def isvt4(
    queries: object, rng: np.random.Generator, n: int, *, epsilon: float, N: int = 1, T: float = 1.0
) -> np.ndarray:
    """Incorrect: releases the noisy answer q_i + Lap(2N/ε) when it is above the noisy threshold."""
    q = query_answers(queries)
    threshold = T + rng.laplace(scale=2.0 / epsilon, size=(n, 1))
    noisy = q + rng.laplace(scale=2.0 * N / epsilon, size=(n, q.size))
    above = noisy > threshold
    out = np.where(above, noisy, BELOW)
    out[stopped_after(above, N)] = ABORTED
    return out
