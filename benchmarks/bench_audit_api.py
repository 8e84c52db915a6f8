"""``audits.audit`` on a user's 10-dimensional Gaussian mechanism, against a plain-numpy floor.

1. 2×10^5 releases (10^5 per hypothesis; quick: 10^4) audited with the distinguisher search
   (2×10^4 calibration releases), the floating-point test and the reproducibility check
   (target: under 30 s on two cores). The floor draws the same Gaussians in plain numpy and
   scores them with one fixed projection and one sort per side, the least any audit must do.
2. Where the time goes: one profiled run, the cumulative time of each phase.

  python benchmarks/bench_audit_api.py [--quick]
"""

from __future__ import annotations

import argparse
import cProfile
import math
import pstats
import sys
import time
from pathlib import Path

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from audits import Claim, audit
from benchmarks.timing import row

DIM, DELTA, EPSILON = 10, 1e-5, 8.0
SIGMA = math.sqrt(2 * math.log(1.25 / DELTA)) / EPSILON
#: Phases of an audit by the function that runs them (file suffix, function name).
PHASES = {
    "mechanism draws": ("audits/mechanism_runs.py", "run"),
    "distinguisher search": ("audits/distinguishers.py", "calibrate"),
    "scoring": ("audits/distinguishers.py", "observe"),
    "floating-point test": ("audits/floating_point.py", "observe"),
    "Clopper–Pearson bound": ("audits/stats/clopper_pearson.py", "clopper_pearson_audit"),
    "Gaussian-DP bound": ("audits/stats/gdp.py", "gdp_audit"),
}


def gaussian_mechanism(data: np.ndarray, rng: np.random.Generator, n: int) -> np.ndarray:
    """The user's code: the sum of the records plus Gaussian noise (classic calibration, Δ = 1)."""
    return data.sum(axis=0) + rng.normal(0.0, SIGMA, size=(n, DIM))


def floor(trials: int, calibration: int) -> float:
    """Seconds to draw every release of the audit and score each side once with a fixed projection."""
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    direction = np.ones(DIM) / math.sqrt(DIM)
    for _ in range(2):
        releases = rng.normal(0.0, SIGMA, size=(trials + calibration, DIM))
        np.sort(releases @ direction)
    return time.perf_counter() - start


def phases(report_call) -> dict[str, float]:
    """Cumulative seconds per phase (:data:`PHASES`) of one profiled call."""
    profile = cProfile.Profile()
    profile.runcall(report_call)
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    out = dict.fromkeys(PHASES, 0.0)
    for (filename, _, function), (_, _, _, cumulative, _) in stats.items():
        for phase, (suffix, name) in PHASES.items():
            if filename.endswith(suffix) and function == name:
                out[phase] += cumulative
    return out


def run(quick: bool = False) -> list[dict]:
    trials = 10_000 if quick else 100_000
    data = np.zeros((50, DIM))
    neighbour = data.copy()
    neighbour[0, 0] = 1.0
    claim = Claim(epsilon=EPSILON, delta=DELTA, noise="gaussian")

    def call():
        return audit(gaussian_mechanism, data, neighbour, claim=claim, trials=trials, seed=0, progress=False)

    start = time.perf_counter()
    report = call()
    ours = time.perf_counter() - start
    calibration = report.report["diagnostics"]["calibration_trials"]
    peer = floor(trials, calibration)
    split = phases(call)
    bounds = ", ".join(f"{m} ε ≥ {b.epsilon:.3f}" for m, b in report.epsilon_lower.items())
    return [
        row(
            f"audit() of a {DIM}-dim Gaussian mechanism, 2×{trials:,} releases + search",
            ours,
            "plain numpy: same draws, one projection and sort",
            peer,
            f"{report.verdict}; {bounds}; chosen: {report.report['diagnostics']['distinguisher']}; "
            + "phases (profiled run): "
            + ", ".join(f"{phase} {seconds:.2f} s" for phase, seconds in split.items()),
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    for entry in run(parser.parse_args().quick):
        print(entry)


if __name__ == "__main__":
    main()
