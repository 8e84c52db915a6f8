"""The default audits timed against their targets, and DP-ADMM's against a plain-numpy floor.

1. ``python -m audits.run dpadmm`` (10^5 trials per hypothesis, white-box replay, black-box
   attacks, every accountant), in process, against the **floor**: the same trials of DP-ADMM
   (Huang et al. 2020, Algorithm 3: the linearised step (3a), noise (3b), the average (3c) and
   the dual step (3d) on the Huber-hinge loss) with the same number of Gaussian draws, written as
   plain vectorised numpy in one process with no accounting, no attacks and no checks: the least
   arithmetic any audit of these runs must do (target: the audit ≤ 3× the floor, ≤ 20 s).
2. The other default audits (``radmm``, ``mradmm``, ``ppadmm``, ``dvp``, ``pdml``,
   ``sharing-output``; target: ≤ 20 s each) and, with ``--million``, ``dpadmm --trials 1000000``
   (target: ≤ 2 min), with its Clopper–Pearson and Gaussian-DP tightness.

  python benchmarks/bench_audit_speed.py [--quick] [--million]
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import time
from pathlib import Path

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audits.run import run_audit
from audits.targets.star import dpadmm_spec
from benchmarks.floor import dpadmm_floor_seconds
from benchmarks.timing import row

TARGET_SECONDS = 20.0
OTHER_TARGETS = ("radmm", "mradmm", "ppadmm", "dvp", "pdml", "sharing-output")


def dpadmm_floor(trials: int, calibration: int, seed: int = 0) -> float:
    """Seconds for the floor of item 1 (module docstring) on both hypotheses."""
    spec = dpadmm_spec()(None, 1e-5, False)
    total = trials + calibration
    problems = (spec.problem_in, spec.problem_out)
    return sum(dpadmm_floor_seconds(spec.solver, problem, total, seed) for problem in problems)


STARTUP_COMMANDS = {
    "python -m audits.run --help": ["-m", "audits.run", "--help"],
    "python -m audits.run no-such-target (usage error)": ["-m", "audits.run", "no-such-target"],
    "python -m accountants --help": ["-m", "accountants", "--help"],
    "python -c 'import accountants'": ["-c", "import accountants"],
}


def startup_rows() -> list[dict]:
    """Wall time of each start-up command (best of 3), against the 1 s target."""
    rows = []
    for label, arguments in STARTUP_COMMANDS.items():
        best = math.inf
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run([sys.executable, *arguments], capture_output=True, check=False)
            best = min(best, time.perf_counter() - start)
        rows.append(row(label, best, "target 1 s", 1.0, "fresh interpreter, best of 3"))
    return rows


def timed_audit(name: str, trials: int | None = None) -> tuple[float, dict]:
    start = time.perf_counter()
    report = run_audit(name, trials=trials, progress=False).report
    return time.perf_counter() - start, report


def run(quick: bool = False, million: bool = False) -> list[dict]:
    trials = 10_000 if quick else 100_000
    startup = startup_rows()
    ours, report = timed_audit("dpadmm", trials)
    floor = dpadmm_floor(trials, report["diagnostics"]["calibration_trials"])
    tight = report["tightness"]
    rows = [
        *startup,
        row(
            f"python -m audits.run dpadmm ({trials:,} trials per hypothesis)",
            ours,
            "plain-numpy floor: the same iterations and Gaussian draws, one process",
            floor,
            f"target ≤ {TARGET_SECONDS:g} s and ≤ 3× the floor; audit/floor = {ours / floor:.2f}; {report['verdict']}; "
            f"tightness gdp {tight['gdp']:.3f}, clopper_pearson {tight['clopper_pearson']:.3f}",
        ),
    ]
    for name in OTHER_TARGETS:
        seconds, other = timed_audit(name, 1_000 if quick else None)
        rows.append(
            row(
                f"python -m audits.run {name} ({other['trials']:,} trials per hypothesis)",
                seconds,
                f"target {TARGET_SECONDS:g} s",
                TARGET_SECONDS,
                other["verdict"],
            )
        )
    if million:
        seconds, big = timed_audit("dpadmm", 1_000_000)
        tight = big["tightness"]
        rows.append(
            row(
                "python -m audits.run dpadmm --trials 1000000",
                seconds,
                "target 2 min",
                120.0,
                f"{big['verdict']}; tightness gdp {tight['gdp']:.3f}, clopper_pearson {tight['clopper_pearson']:.3f}",
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--million", action="store_true", help="also run dpadmm with 10^6 trials per hypothesis")
    args = parser.parse_args()
    for entry in run(args.quick, args.million):
        print(entry)


if __name__ == "__main__":
    main()
