"""What the Neyman–Pearson test could certify on DP-Sniper's ReportNoisyMax3, SVT4, PrefixSum and SVT34Parallel.

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
* SVT34Parallel (Lyu et al.'s Algorithms 3 and 4 with c = 2 side by side on independent noise, claim
  0.2): the log-likelihood ratio is the sum of the halves'. Algorithm 3's release (the positions of
  at most two answers above and their noisy values) has a ratio that is a term of the least value
  plus one of the other value, constant outside the answers' two inputs; its cells are binned by
  their ratio (:func:`svt3_binned`, both sides computed, not reweighted) and shifted by each of
  Algorithm 4's 56 outcomes (:func:`svt34_binned`). ``--check-trials`` draws the benchmark's
  mechanism and compares the level sets' frequencies with these probabilities, and bounds an
  audit's statistics on the exact score (:func:`svt34_log_ratio`).

  python benchmarks/neyman_pearson_limits.py --trials 100000 1000000 10000000 100000000 200000000
  python benchmarks/neyman_pearson_limits.py --trials --check-trials 1000000 --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import functools
import itertools

import numpy as np
from scipy import stats
from scipy.stats import laplace

from audits.stats import clopper_pearson_audit
from audits.stats.clopper_pearson import FPR_SHARES
from audits.testbench import DPSNIPER
from audits.testbench.svt import BELOW

#: The sparse vectors' threshold, the grid of the threshold noise r and of a released value v.
T = 1.0
R = np.linspace(-800.0, 800.0, 64_001)
V = np.linspace(-600.0, 600.0, 12_001)
#: Width of the log-likelihood-ratio bins SVT34Parallel's distributions are combined on.
BIN = 1e-4
SVT34 = next(a for a in DPSNIPER if a.name == "SVT34Parallel")


def certified(p: np.ndarray, p_prime: np.ndarray, n: int, confidence: float, *, evaluated: float = 0.8) -> float:
    """The largest Clopper–Pearson bound on the expected counts of the evaluation part (a share
    ``evaluated`` of ``n``) over the sets with probabilities ``p`` on D and ``p_prime`` on D′ (arrays
    over the level sets)."""
    m = n - round((1.0 - evaluated) * n)
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


def below_products(q: np.ndarray, c: int, scale: float) -> tuple[np.ndarray, dict[tuple[int, ...], np.ndarray]]:
    """F_ν(T + r − q_j) on the grid R for every query j (rows), and for each outcome of a sparse vector
    with cutoff ``c`` (the positions above: none, or the first c at most) the product of F_ν over the
    queries it answered below (before its c-th answer above, or all when fewer are above)."""
    below = laplace.cdf(T + R[None, :] - q[:, None], scale=scale)
    products = {}
    for count in range(c + 1):
        for above in itertools.combinations(range(q.size), count):
            limit = above[-1] if count == c else q.size
            rows = [j for j in range(limit) if j not in above]
            products[above] = np.prod(below[rows], axis=0)
    return below, products


def svt4_categories(q: np.ndarray, *, epsilon: float = 0.1, c: int = 1) -> np.ndarray:
    """P(the positions above are these) over the outcomes of Algorithm 4 with cutoff ``c``:
    ∫ f_ρ(r) Π_below F_ν(T + r − q_j) Π_above (1 − F_ν(T + r − q_i)) dr, ρ ~ Lap(4/ε), ν ~ Lap(4/(3ε))."""
    below, products = below_products(q, c, 4.0 / (3.0 * epsilon))
    f_rho = laplace.pdf(R, scale=4.0 / epsilon) * (R[1] - R[0])
    return np.array([np.sum(f_rho * p * np.prod(1.0 - below[list(a)], axis=0)) for a, p in products.items()])


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


def binned(p: np.ndarray, p_prime: np.ndarray, span: int) -> np.ndarray:
    """(2, 2·span + 1): the probabilities ``p`` on D and ``p_prime`` on D′ of cells, summed in bins of
    :data:`BIN` of their log-likelihood ratio (bin span ↔ 0); cells of probability 0 on both sides dropped."""
    kept = (p > 0) | (p_prime > 0)
    if not ((p[kept] > 0) & (p_prime[kept] > 0)).all():
        raise ValueError("a cell of positive probability on one side only: its log-likelihood ratio is infinite")
    index = np.rint((np.log(p[kept]) - np.log(p_prime[kept])) / BIN).astype(np.int64) + span
    if index.min() < 0 or index.max() > 2 * span:
        raise ValueError(f"log-likelihood ratios beyond ±{span * BIN}: widen the bins' span")
    return np.stack([np.bincount(index, w, 2 * span + 1) for w in (p[kept], p_prime[kept])])


def svt3_value_cells(
    q: np.ndarray, *, epsilon: float = 0.1, c: int = 2
) -> tuple[dict[tuple[int, ...], np.ndarray], np.ndarray]:
    """Algorithm 3's (cutoff ``c`` ≤ 2) ingredients on the grid V of released values: for each outcome
    (the positions above), ∫_{r ≤ m − T} f_ρ(r) Π_below F_ν(T + r − q_j) dr as a function of the least
    released value m, and the densities f_ν(v − q_i) dv; ρ ~ Lap(2/ε), ν ~ Lap(2c/ε)."""
    _, products = below_products(q, c, 2.0 * c / epsilon)
    f_rho = laplace.pdf(R, scale=2.0 / epsilon) * (R[1] - R[0])
    upto = np.clip(np.searchsorted(R, V - T, side="right") - 1, 0, R.size - 1)
    integrals = {a: np.cumsum(f_rho * p)[upto] for a, p in products.items()}
    integrals[()] = np.asarray(np.sum(f_rho * products[()]))
    return integrals, laplace.pdf(V[None, :] - q[:, None], scale=2.0 * c / epsilon) * (V[1] - V[0])


def svt3_binned(q: np.ndarray, q_prime: np.ndarray, *, span: int = 20_000) -> np.ndarray:
    """Algorithm 3's (c = 2, ε = 0.1) release on D = ``q`` and D′ = ``q_prime`` binned by its
    log-likelihood ratio (:func:`binned`). A release with answers above at i < k (values v_i, v_k) has
    the density f_ν(v_i − q_i) f_ν(v_k − q_k) G_ik(min(v_i, v_k)) (G the integral of
    :func:`svt3_value_cells`): its ratio is a term of the least value m plus one of the other value
    w > m, which is constant for w outside [min(q_k, q′_k), max(q_k, q′_k)]; the cells are (m on V,
    w on V inside that interval or the masses above m beyond it)."""
    sides = [svt3_value_cells(q), svt3_value_cells(q_prime)]
    total = binned(np.array([sides[0][0][()]]), np.array([sides[1][0][()]]), span)
    grid = np.arange(V.size)
    for above in sides[0][0]:
        if len(above) == 1:
            ((g, f), (g_prime, f_prime)), (i,) = sides, above
            total += binned(f[i] * g[above], f_prime[i] * g_prime[above], span)
        elif len(above) == 2:
            for least, other, strict in ((above[0], above[1], False), (above[1], above[0], True)):
                ends = np.searchsorted(V, sorted((q[other] - 1e-9, q_prime[other] - 1e-9)))
                group = np.clip(grid, *ends) - ends[0]  # one group per distinct ratio term of w
                cells = []
                for g, f in sides:
                    mass = np.zeros((group.max() + 1, V.size))
                    mass[group, grid] = f[other]
                    above_m = np.cumsum(mass[:, ::-1], axis=1)[:, ::-1]  # w ≥ m (w > m when strict)
                    if strict:
                        above_m = np.hstack([above_m[:, 1:], np.zeros((len(above_m), 1))])
                    cells.append(((f[least] * g[above])[None, :] * above_m).ravel())
                total += binned(cells[0], cells[1], span)
    return total


def svt34_binned(q: np.ndarray, q_prime: np.ndarray, *, span: int = 20_000) -> np.ndarray:
    """SVT34Parallel (Algorithms 3 and 4 with c = 2 on independent noise) binned by its log-likelihood
    ratio, the sum of the halves' (bins of :data:`BIN` over ±2·span·BIN): Algorithm 4's finitely many
    outcomes shift Algorithm 3's binned distribution by their own ratio."""
    half = svt3_binned(q, q_prime, span=span)
    p, p_prime = svt4_categories(q, c=2), svt4_categories(q_prime, c=2)
    shifts = np.rint((np.log(p) - np.log(p_prime)) / BIN).astype(np.int64)
    if np.abs(shifts).max() > span:
        raise ValueError(f"Algorithm 4's log-likelihood ratios beyond ±{span * BIN}: widen the bins' span")
    total = np.zeros((2, 4 * span + 1))
    for shift, weights in zip(shifts, np.stack([p, p_prime], axis=1), strict=True):
        total[:, span + shift : 3 * span + 1 + shift] += weights[:, None] * half
    return total


def svt34_log_ratio(releases: np.ndarray, q: np.ndarray, q_prime: np.ndarray) -> np.ndarray:
    """The exact log-likelihood ratio of SVT34Parallel's ``releases`` (n, 2·len(q)), the integrals
    interpolated on V (the Monte-Carlo check of :func:`svt34_binned`)."""
    m, b_nu = q.size, 2.0 * 2 / 0.1
    (g, _), (g_prime, _) = svt3_value_cells(q), svt3_value_cells(q_prime)
    values, codes = releases[:, :m], releases[:, m:]
    answered = values > BELOW
    bits = 2 ** np.arange(m)
    mask = answered @ bits  # the positions answered above, as a bit mask
    ratio = np.full(len(releases), np.log(g[()] / g_prime[()]))
    for above in (a for a in g if a):
        rows = mask == bits[list(above)].sum()
        v = values[np.ix_(rows, list(above))]
        least = v.min(axis=1)
        shift = (np.abs(v - q_prime[list(above)]) - np.abs(v - q[list(above)])).sum(axis=1) / b_nu
        ratio[rows] = shift + np.log(np.interp(least, V, g[above]) / np.interp(least, V, g_prime[above]))
    p, p_prime = svt4_categories(q, c=2), svt4_categories(q_prime, c=2)
    lookup = np.zeros(2**m, dtype=np.int64)
    for k, above in enumerate(g):  # the same outcomes in the same order as svt4_categories'
        lookup[bits[list(above)].sum()] = k
    return ratio + np.log(p / p_prime)[lookup[(codes == 1.0) @ bits]]


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


def svt34_parallel(name: str) -> tuple[np.ndarray, np.ndarray, float]:
    """The level sets of SVT34Parallel's pair ``name`` (top log-likelihood-ratio bins first)."""
    pair = next(c for c in SVT34.pairs if c.name == name)
    total = svt34_binned(np.asarray(pair.D, float), np.asarray(pair.D_prime, float))
    seen = np.flatnonzero(total.sum(axis=0))
    top, top_prime = np.cumsum(total[:, seen[::-1]], axis=1)
    return top, top_prime, float((seen[-1] - (total.shape[1] - 1) // 2) * BIN)


def monte_carlo_check(name: str, trials: int, seed: int) -> None:
    """SVT34Parallel's level-set probabilities on pair ``name``, from :func:`svt34_binned` and from
    ``trials`` releases per side of the benchmark's mechanism scored by :func:`svt34_log_ratio`; then
    the 95 % Clopper–Pearson bound of an audit's statistics on that exact score (a 20 %/80 % split)."""
    pair = next(c for c in SVT34.pairs if c.name == name)
    q, q_prime = np.asarray(pair.D, float), np.asarray(pair.D_prime, float)
    total = svt34_binned(q, q_prime)
    rng = np.random.default_rng(seed)
    scores = [svt34_log_ratio(SVT34.mechanism(d, rng, trials), q, q_prime) for d in (q, q_prime)]
    for share in (0.3, 0.05, 0.01, 0.002):  # thresholds where P(S | D′) is about this
        above = np.cumsum(total[1, ::-1])[::-1]
        edge = int(np.flatnonzero(above >= share)[-1])
        t = (edge - (total.shape[1] - 1) // 2 - 0.5) * BIN
        exact = [float(total[k, edge:].sum()) for k in (0, 1)]
        seen = [float(np.mean(s >= t)) for s in scores]
        errors = [np.sqrt(e * (1 - e) / trials) for e in exact]
        print(
            f"SVT34Parallel ({name}), log-ratio ≥ {t:.4f}: P(S | D) exact {exact[0]:.5f}, "
            f"Monte Carlo {seen[0]:.5f} (± {errors[0]:.5f}); P(S | D′) exact {exact[1]:.5f}, "
            f"Monte Carlo {seen[1]:.5f} (± {errors[1]:.5f})"
        )
    bound = clopper_pearson_audit(np.round(scores[0], 6), np.round(scores[1], 6), delta=0.0).epsilon
    print(f"SVT34Parallel ({name}), exact score on {trials:.0e} releases per side, seed {seed}: 95 % bound {bound:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, nargs="*", default=[100_000, 1_000_000, 10_000_000])
    parser.add_argument("--svt34-pairs", nargs="*", default=["half half", "X shape (swapped)", "one above"])
    parser.add_argument("--check-trials", type=int, default=0, help="Monte-Carlo releases per side (0: no check)")
    parser.add_argument("--seeds", type=int, nargs="*", default=[0], help="of the Monte-Carlo checks")
    args = parser.parse_args()
    cases = {"ReportNoisyMax3": report_noisy_max3, "SVT4": svt4, "PrefixSum": prefix_sum}
    cases |= {f"SVT34Parallel ({name})": functools.partial(svt34_parallel, name) for name in args.svt34_pairs}
    published = {a.name: a.published_epsilon for a in DPSNIPER}
    for name, case in cases.items():
        p, p_prime, exact = case()
        cells = [
            f"{n:.0e}/side: {certified(p, p_prime, n, 0.95):.4f} (95 %), {certified(p, p_prime, n, 0.9):.4f} (90 %)"
            for n in args.trials
        ]
        floor = p_prime >= 0.01  # DP-Sniper's attacks have P(S | D′) ≥ c = 0.01
        best = float(np.max(np.log(p[floor] / p_prime[floor])))
        head = (
            f"{name}: true ε {exact:.4f}, the best test with P(S | D′) ≥ 1 % {best:.4f}, "
            f"DP-Sniper {published[name.split()[0]]}; the Neyman–Pearson test certifies "
        )
        dpsniper = [certified(p, p_prime, 200_000_000, 0.9, evaluated=1.0)]
        dpsniper.append(certified(p[floor], p_prime[floor], 200_000_000, 0.9, evaluated=1.0))
        setting = "DP-Sniper's setting (2e+08/side all in the estimate, 90 %): {:.4f}, with P(S | D′) ≥ 1 % {:.4f}"
        print(head + "; ".join(cells) + "; " + setting.format(*dpsniper), flush=True)
    for name in args.svt34_pairs if args.check_trials else []:
        for seed in args.seeds:
            monte_carlo_check(name, args.check_trials, seed)


if __name__ == "__main__":
    main()
