"""How close the audit's Clopper–Pearson bound comes to the exact ε of a μ-GDP pair, and where the rest goes.

Scores N(0, 1) on D′ against N(μ, 1) on D are the trade-off curve of μ-GDP (Dong, Roth & Su 2022,
Definition 2.5), whose exact ε at δ is :func:`accountants.gaussian_dp.gaussian_epsilon`. For n trials
per side the script prints, as shares of the exact ε:

* the oracle: the best single test "in iff s ≥ t" with the exact error rates plugged in as expected
  counts (n·FPR, n·FNR) into the 95 % Clopper–Pearson bound (Jagielski, Ullman & Oprea 2020), at every
  share of α on the FPR in :data:`audits.stats.clopper_pearson.FPR_SHARES`; on all n trials (no
  selection) and on the evaluation part of the default split (its 80 %);
* the toolkit's bound: :func:`audits.stats.clopper_pearson_audit` with the default split (the code path
  of an audit's Clopper–Pearson row) on seeded draws, with the oracle's value at the test it chose.

The gaps: oracle on n − oracle on the evaluation part is the price of holding out the selection part;
oracle on the evaluation part − oracle at the chosen test is the price of choosing the test on the
selection part's noisy counts; the bound − oracle at the chosen test is the evaluation counts' noise.

Measured (μ = 1, δ = 1e-5, exact ε 4.3772; seeds 0, 1, 2): at 10^5 trials per side the oracle gives 0.645 on n
and 0.632 on the evaluation part, the bound 0.616, 0.546, 0.568 (0.625, 0.631, 0.632 at its tests); at 10^6 0.771
and 0.760, the bound 0.766, 0.759, 0.742 (0.757, 0.756, 0.758); at 10^7 0.875 and 0.867, the bound 0.861, 0.854,
0.866 (0.866, 0.861, 0.866). The choice on the selection part costs under 0.01; the rest is the held-out part
(0.01) and the evaluation counts' noise (a few tens of errors at 10^7: about ±0.03).

  python benchmarks/cp_tightness.py --trials 100000 1000000 --seeds 0 1 2
  python benchmarks/cp_tightness.py --trials 10000000 --seeds 0 1   # about a minute a seed
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import norm

from accountants.gaussian_dp import gaussian_epsilon
from audits.stats import Split, clopper_pearson_audit
from audits.stats.clopper_pearson import FPR_SHARES, bound_function

ALPHA = 0.05
DELTA = 1e-5
#: Thresholds of the oracle's search (on the N(0, 1) scale), fine beside the optimum's flatness.
THRESHOLDS = np.linspace(-4.0, 8.0, 12_001)


def oracle(mu: float, n: int, thresholds: np.ndarray = THRESHOLDS) -> np.ndarray:
    """The expected-count Clopper–Pearson bound of each test "in iff s ≥ t", the best share of α on the FPR."""
    fp = norm.sf(thresholds) * n
    fn = norm.cdf(thresholds - mu) * n
    return np.max([bound_function(DELTA, w)(fp, n, fn, n, ALPHA) for w in FPR_SHARES], axis=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--mu", type=float, default=1.0)
    args = parser.parse_args()
    exact = gaussian_epsilon(args.mu, DELTA)
    split = Split()
    print(f"μ = {args.mu:g}, δ = {DELTA:g}, 95 %: exact ε = {exact:.4f}; shares of it below")
    for n in args.trials:
        evaluated = n - split.selected(n)
        best_all, best_evaluated = oracle(args.mu, n).max(), oracle(args.mu, evaluated).max()
        print(
            f"n = {n:.0e}: oracle on n {best_all / exact:.4f}, on the evaluation part ({evaluated}) "
            f"{best_evaluated / exact:.4f}"
        )
        for seed in args.seeds:
            rng = np.random.default_rng(seed)
            scores_out = rng.standard_normal(n)
            scores_in = rng.standard_normal(n) + args.mu
            start = time.perf_counter()
            bound = clopper_pearson_audit(scores_in, scores_out, delta=DELTA)
            seconds = time.perf_counter() - start
            assert bound.threshold is not None
            t = bound.threshold  # either tail: the bound takes the larger of the two ratios at each test
            at_choice = float(oracle(args.mu, evaluated, np.array([t]))[0])
            d = bound.details
            print(
                f"  seed {seed}: bound {bound.epsilon / exact:.4f}, oracle at its test {at_choice / exact:.4f} "
                f"(t = {t:.3f}, fp = {d['fp']}, fn = {d['fn']}, FPR share {d['fpr_share']:g}; {seconds:.1f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
