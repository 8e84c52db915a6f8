"""``audits.testing.assert_private`` on a user's 10-dimensional Gaussian mechanism, per effort.

Each effort's assertion (target: at most 2 s for "default" on two cores) is timed against a
plain-numpy floor that draws the same releases (trials and calibration trials per side) and sorts
one projection of them, the least any such test must do; the ratio is floor / assertion. The note
adds the CPU seconds of one assertion run in this process alone (``DP_AUDIT_WORKERS=1``), which a
machine shared with other jobs does not inflate as it does the wall time.

  python benchmarks/bench_testing.py [--quick]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from audits import Claim
from audits.effort import effort_preset
from audits.testing import assert_private
from benchmarks.timing import best_of, row

DIM, DELTA, EPSILON = 10, 1e-5, 8.0
SIGMA = math.sqrt(2 * math.log(1.25 / DELTA)) / EPSILON
CLAIM = Claim(epsilon=EPSILON, delta=DELTA, noise="gaussian")


def gaussian_mechanism(data: np.ndarray, rng: np.random.Generator, n: int) -> np.ndarray:
    """The user's code: the sum of the records plus Gaussian noise (classic calibration, Δ = 1)."""
    return data.sum(axis=0) + rng.normal(0.0, SIGMA, size=(n, DIM))


def floor(releases: int) -> float:
    """Seconds to draw ``releases`` releases per side and sort one projection of each side."""
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for shift in (1.0, 0.0):
        values = shift + rng.normal(0.0, SIGMA, size=(releases, DIM))
        np.sort(values[:, 0])
    return time.perf_counter() - start


def cpu_seconds(effort: str, D: np.ndarray, D_prime: np.ndarray) -> float:
    """CPU seconds of one assertion with every chunk run in this process (``DP_AUDIT_WORKERS=1``)."""
    saved = os.environ.get("DP_AUDIT_WORKERS")
    os.environ["DP_AUDIT_WORKERS"] = "1"
    try:
        start = time.process_time()
        assert_private(gaussian_mechanism, D, D_prime, claim=CLAIM, effort=effort)
        return time.process_time() - start
    finally:
        if saved is None:
            del os.environ["DP_AUDIT_WORKERS"]
        else:
            os.environ["DP_AUDIT_WORKERS"] = saved


def run(quick: bool = False) -> list[dict]:
    D, D_prime = np.zeros((50, DIM)), np.zeros((50, DIM))
    D[0, 0] = 1.0
    assert_private(gaussian_mechanism, D, D_prime, claim=CLAIM, effort="smoke")  # imports and first-call costs
    rows = []
    for effort in ("smoke", "quick") if quick else ("smoke", "quick", "default"):
        preset = effort_preset(effort)
        seconds, report = best_of(
            lambda effort=effort: assert_private(gaussian_mechanism, D, D_prime, claim=CLAIM, effort=effort), 3
        )
        floor_s = floor(preset.trials + preset.calibration_trials(preset.trials))
        cpu_s = cpu_seconds(effort, D, D_prime)
        rows.append(
            row(
                f"assert_private, 10-d Gaussian, effort {effort!r}",
                seconds,
                "numpy draws + one sort (floor)",
                floor_s,
                f"{preset.trials:,} trials per side; CPU {cpu_s:.2f} s in one process; {report.verdict}; "
                f"gdp ε ≥ {report.lower['gdp'].epsilon:.3f}",
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke and quick efforts only")
    for r in run(parser.parse_args().quick):
        print(f"{r['benchmark']}: {r['ours_s']:.2f} s (floor {r['peer_s']:.3f} s, ratio {r['ratio']:.3f}); {r['note']}")


if __name__ == "__main__":
    main()
