"""How large a 95 % bound 10^6 trials can give on Lyu et al.'s Algorithm 3 (SVT3, c = 1, ε = 0.1).

The release of Algorithm 3 with one answer above (Lyu, Su & Li 2017) is the index i of the first
query above the noisy threshold and its noisy value v (or no answer). Its probability under the
query answers q is, with ρ ~ Lap(b_ρ) on the threshold T and ν ~ Lap(b_ν) on each query,

    P(i, v | q) = f_ν(v − q_i) ∫_{r ≤ v − T} f_ρ(r) Π_{j<i} F_ν(T + r − q_j) dr,
    P(none | q) = ∫ f_ρ(r) Π_j F_ν(T + r − q_j) dr,

computed here on a grid (v in steps of 0.1, r of 0.025). The exact log-likelihood ratio is the
Neyman–Pearson score (Neyman & Pearson 1933): no distinguisher learned from data does better. For
each of DP-Sniper's candidate pairs the script prints the ε of the optimal test whose probability
under D′ is at least 1 % and 0.1 %, and for the best pairs the 95 % Clopper–Pearson bound that the
exact score reaches in an audit's statistics (a 20 %/80 % split) on 10^6 trials per side.

  python benchmarks/svt3_neyman_pearson.py --seeds 0 1 2 3
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from audits.stats import clopper_pearson_audit
from audits.testbench import DPSNIPER
from audits.testbench.svt import BELOW
from benchmarks.neyman_pearson_limits import V, svt3_value_cells


def cells(q: np.ndarray) -> np.ndarray:
    """The probability of every (i, v) grid cell, row-major over i, then of "no answer"
    (:func:`benchmarks.neyman_pearson_limits.svt3_value_cells` with c = 1)."""
    integrals, densities = svt3_value_cells(q, c=1)
    mass = np.stack([densities[i] * integrals[(i,)] for i in range(q.size)])
    return np.concatenate([mass.ravel(), [float(integrals[()])]])


def optimal_epsilon(p: np.ndarray, p_prime: np.ndarray, floor: float) -> float:
    """The largest log(P(S | D)/P(S | D′)) over the likelihood-ratio sets S with P(S | D′) ≥ floor."""
    order = np.argsort(-(np.log(np.maximum(p, 1e-300)) - np.log(np.maximum(p_prime, 1e-300))))
    top, top_prime = np.cumsum(p[order]), np.cumsum(p_prime[order])
    kept = top_prime >= floor
    return float(np.max(np.log(top[kept] / top_prime[kept])))


def exact_score(p: np.ndarray, p_prime: np.ndarray, releases: np.ndarray) -> np.ndarray:
    """The exact log-likelihood ratio of each release (rounded to 1e-6)."""
    ratio = np.log(np.maximum(p, 1e-300)) - np.log(np.maximum(p_prime, 1e-300))
    table, none = ratio[:-1].reshape(releases.shape[1], V.size), ratio[-1]
    answered = releases > BELOW
    index = np.argmax(answered, axis=1)
    value = releases[np.arange(len(releases)), index]
    cell = np.clip(np.searchsorted(V, value), 0, V.size - 1)
    return np.round(np.where(answered.any(axis=1), table[index, cell], none), 6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2, 3])
    parser.add_argument("--trials", type=int, default=1_000_000)
    args = parser.parse_args()
    svt3 = next(a for a in DPSNIPER if a.name == "SVT3")
    best: list[tuple[float, str]] = []
    for pair in svt3.pairs:
        p, p_prime = cells(np.asarray(pair.D, float)), cells(np.asarray(pair.D_prime, float))
        one, tenth = optimal_epsilon(p, p_prime, 0.01), optimal_epsilon(p, p_prime, 0.001)
        print(f"{pair.name:32} optimal test: ε = {one:.3f} (P(S | D′) ≥ 1 %), {tenth:.3f} (≥ 0.1 %)")
        best.append((one, pair.name))
    for _, name in sorted(best, reverse=True)[:2]:
        pair = next(c for c in svt3.pairs if c.name == name)
        p, p_prime = cells(np.asarray(pair.D, float)), cells(np.asarray(pair.D_prime, float))
        for seed in args.seeds:
            rng = np.random.default_rng(seed)
            scores_in = exact_score(p, p_prime, svt3.mechanism(pair.D, rng, args.trials))
            scores_out = exact_score(p, p_prime, svt3.mechanism(pair.D_prime, rng, args.trials))
            bound = clopper_pearson_audit(scores_in, scores_out, delta=0.0).epsilon
            print(f"{name:32} exact score, {args.trials:.0e} trials/side, seed {seed}: 95 % bound {bound:.3f}")


if __name__ == "__main__":
    main()
