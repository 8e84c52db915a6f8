"""What the Neyman–Pearson test could certify on DP-Sniper's ReportNoisyMax3, SVT4 and PrefixSum.

For each algorithm the exact probabilities of the likelihood-ratio level sets S under the two inputs
of its worst pair are computed in closed form or by numerical integration; the best test an audit of
n trials per side could certify is then the largest 95 % (or 90 %) Clopper–Pearson bound
log(lower(P(S | D)) / upper(P(S | D′))) on the expected counts of the evaluation part (80 % of n),
over the level sets and the shares of α of :data:`audits.stats.clopper_pearson.FPR_SHARES`: a ceiling
for any audit at that size, which must also choose S on data (Neyman & Pearson 1933; the bounds of
Jagielski, Ullman & Oprea 2020).

* ReportNoisyMax3 (the maximum of 5 answers plus Lap(20), all moved by 1): the maximum is a location
  family of a log-concave density, so the level sets are its lower tails, P(max < t | q) = F(t − q)^5.
* SVT4 (Lyu et al. 2017, Algorithm 4, c = 1): the release is the index of the first answer above or
  none; P(i | q) = ∫ f_ρ(r) Π_{j<i} F_ν(T + r − q_j) (1 − F_ν(T + r − q_i)) dr on a grid of r.
* PrefixSum (running sums of 10 answers plus Lap(10), every answer moved by 1): the log-likelihood ratio
  is the sum of 10 independent increments' terms, each ±0.1 with atoms and a uniform-density middle;
  its distribution under D by convolution on a grid, under D′ by the weights e^(−ℓ).

  python benchmarks/neyman_pearson_limits.py
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats
from scipy.stats import laplace

from audits.stats.clopper_pearson import FPR_SHARES
from audits.testbench import DPSNIPER


def certified(p: np.ndarray, p_prime: np.ndarray, n: int, confidence: float) -> float:
    """The largest Clopper–Pearson bound on the expected counts of the evaluation part (80 % of ``n``)
    over the sets with probabilities ``p`` on D and ``p_prime`` on D′ (arrays over the level sets)."""
    m = n - round(0.2 * n)
    alpha = 1.0 - confidence
    k, k_prime = np.asarray(p) * m, np.asarray(p_prime) * m
    best = 0.0
    for w in FPR_SHARES:
        upper = stats.beta.ppf(1 - w * alpha, k_prime + 1, m - k_prime)
        lower = stats.beta.ppf((1 - w) * alpha, np.maximum(k, 1e-12), m - k + 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.log(lower / upper)
        best = max(best, float(np.nanmax(np.where(np.isfinite(values), values, -np.inf))))
    return best


def level_sets(p: np.ndarray, p_prime: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cumulative probabilities of the top likelihood-ratio sets of atoms ``p``, ``p_prime``."""
    order = np.argsort(-(np.log(np.maximum(p, 1e-300)) - np.log(np.maximum(p_prime, 1e-300))))
    return np.cumsum(p[order]), np.cumsum(p_prime[order])


def report_noisy_max3() -> tuple[np.ndarray, np.ndarray, float]:
    """Lower tails of the maximum: P(max < t) on D = ones(5) and D′ = D + 1."""
    t = np.linspace(-200.0, 1.0, 4_001)
    return laplace.cdf(t - 1.0, scale=20.0) ** 5, laplace.cdf(t - 2.0, scale=20.0) ** 5, 0.25


def svt4_categories(q: np.ndarray, *, epsilon: float = 0.1, t: float = 1.0) -> np.ndarray:
    """P(first answer above is i), i = 0 … m − 1, and P(none) for Algorithm 4 with c = 1."""
    r = np.linspace(-800.0, 800.0, 64_001)
    dr = r[1] - r[0]
    f_rho = laplace.pdf(r, scale=4.0 / epsilon)
    below = laplace.cdf(t + r[None, :] - q[:, None], scale=4.0 / (3.0 * epsilon))
    before = np.vstack([np.ones(r.size), np.cumprod(below, axis=0)])
    first = np.sum(f_rho * before[:-1] * (1.0 - below) * dr, axis=1)
    return np.concatenate([first, [np.sum(f_rho * before[-1] * dr)]])


def svt4() -> tuple[np.ndarray, np.ndarray, float]:
    """The level sets of the pair of DP-Sniper's candidates with the largest exact ε."""
    algorithm = next(a for a in DPSNIPER if a.name == "SVT4")
    best: tuple[float, np.ndarray, np.ndarray] = (-1.0, np.empty(0), np.empty(0))
    for pair in algorithm.pairs:
        p, p_prime = svt4_categories(np.asarray(pair.D)), svt4_categories(np.asarray(pair.D_prime))
        exact = float(np.max(np.log(p / p_prime)))
        if exact > best[0]:
            best = (exact, p, p_prime)
    exact, p, p_prime = best
    top, top_prime = level_sets(p, p_prime)
    return top, top_prime, exact


def prefix_sum(*, b: float = 10.0, m: int = 10, cells: int = 2_000) -> tuple[np.ndarray, np.ndarray, float]:
    """Upper tails of the log-likelihood ratio ℓ = Σ (|z_j + 1| − |z_j|)/b, z_j ~ Lap(b) on D."""
    step = (2.0 / b) / cells
    grid = np.arange(-cells // 2, cells // 2 + 1) * step  # one term's values, −1/b … 1/b
    # one term: atoms at ±1/b (z ≥ 0: +1/b; z ≤ −1: −1/b), the middle z ∈ (−1, 0) gives (2z + 1)/b
    term = np.zeros(grid.size)
    term[-1] = 0.5
    term[0] = laplace.cdf(-1.0, scale=b)
    z = (grid[1:-1] * b - 1.0) / 2.0
    term[1:-1] = laplace.pdf(z, scale=b) * step * b / 2.0
    term /= term.sum()
    total = np.array([1.0])
    for _ in range(m):
        total = np.convolve(total, term)
    values = np.arange(total.size) * step - m / b
    order = np.argsort(-values)
    p = np.cumsum(total[order])
    p_prime = np.cumsum((total * np.exp(-values))[order])
    return p, p_prime, m / b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, nargs="*", default=[100_000, 1_000_000, 10_000_000])
    args = parser.parse_args()
    cases = {"ReportNoisyMax3": report_noisy_max3, "SVT4": svt4, "PrefixSum": prefix_sum}
    published = {a.name: a.published_epsilon for a in DPSNIPER}
    for name, case in cases.items():
        p, p_prime, exact = case()
        cells = [
            f"{n:.0e}/side: {certified(p, p_prime, n, 0.95):.4f} (95 %), {certified(p, p_prime, n, 0.9):.4f} (90 %)"
            for n in args.trials
        ]
        head = f"{name}: true ε {exact:.4f}, DP-Sniper {published[name]}; the Neyman–Pearson test certifies "
        print(head + "; ".join(cells))


if __name__ == "__main__":
    main()
