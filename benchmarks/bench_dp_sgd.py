"""DP-SGD accounting against dp-accounting: ε during training, and σ for a target ε, one run.

    python -m benchmarks.bench_dp_sgd                  # 1,000 steps, ε every 100 (about a minute)
    python -m benchmarks.bench_dp_sgd --quick          # 200 steps, ε every 20
    python -m benchmarks.bench_dp_sgd --default-grid   # and row (c), dp-accounting's part the slowest

The run: Poisson-sampled Gaussian steps, sampling rate q = 0.01, noise multiplier σ = 1.1, δ = 1e-5
(the steps of DP-SGD, Abadi et al. 2016), under add-or-remove-one (both libraries' default).

Rows (ours against dp-accounting, the same accountant type and settings on both sides):

(a) RDP at dp-accounting's default orders (``DEFAULT_RDP_ORDERS``): ``MomentsAccountant(orders=...)``
    against ``RdpAccountant()``, each registering 100 steps then asking ε, ten times.
(b) PLD at grid step 1e-3 (``value_discretization_interval``, pessimistic), the same loop.
(c) PLD at dp-accounting's default grid step 1e-4, the same loop (with ``--default-grid`` only).
(d) σ for ε = 1 after all the steps: ``calibrate_noise_multiplier(..., sampling_rate=q)`` with (a)'s
    accountant against ``calibrate_dp_mechanism`` with ``RdpAccountant()``, both to 1e-9.

Each measurement runs in a fresh interpreter (both libraries cache curves and distributions within a
process, and ours reuses dp-accounting's RDP code for sampled releases), imports untimed. The note
gives the largest difference of the ε (or σ) the two sides report.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.timing import row

ROOT = Path(__file__).resolve().parents[1]
Q, SIGMA, DELTA, TARGET = 0.01, 1.1, 1e-5, 1.0


def _step() -> object:
    from dp_accounting import dp_event

    return dp_event.PoissonSampledDpEvent(Q, dp_event.GaussianDpEvent(SIGMA))


def _loop(register: Callable[[int], float], steps: int, every: int) -> tuple[float, list[float]]:
    """(seconds, ε after every ``every`` steps) of a training loop that registers ``every`` steps at a time."""
    start = time.perf_counter()
    epsilons = [register(every) for _ in range(steps // every)]
    return time.perf_counter() - start, epsilons


def measure(name: str, steps: int, every: int) -> tuple[float, list[float]]:
    """One measurement, in this interpreter: (seconds, values)."""
    from dp_accounting import mechanism_calibration
    from dp_accounting.pld import PLDAccountant as DpPLD
    from dp_accounting.rdp import RdpAccountant
    from dp_accounting.rdp.rdp_privacy_accountant import DEFAULT_RDP_ORDERS

    from accountants import MomentsAccountant, PLDAccountant, calibrate_noise_multiplier

    step = _step()
    if name.startswith("ours"):
        kind = name.split("-", 1)[1]
        if kind == "calibrate":
            start = time.perf_counter()
            sigma = calibrate_noise_multiplier(
                TARGET, DELTA, steps, lambda: MomentsAccountant(orders=DEFAULT_RDP_ORDERS), sampling_rate=Q
            )
            return time.perf_counter() - start, [sigma]
        ours = {
            "rdp": lambda: MomentsAccountant(orders=DEFAULT_RDP_ORDERS),
            "pld-1e-3": lambda: PLDAccountant(value_discretization_interval=1e-3),
            "pld-1e-4": lambda: PLDAccountant(value_discretization_interval=1e-4),
        }[kind]()
        return _loop(lambda count: ours.register(step, count).get_epsilon(DELTA), steps, every)
    kind = name.split("-", 1)[1]
    if kind == "calibrate":
        from dp_accounting import dp_event

        start = time.perf_counter()
        sigma = mechanism_calibration.calibrate_dp_mechanism(
            RdpAccountant,
            lambda s: dp_event.SelfComposedDpEvent(
                dp_event.PoissonSampledDpEvent(Q, dp_event.GaussianDpEvent(s)), steps
            ),
            TARGET,
            DELTA,
            tol=1e-9,
        )
        return time.perf_counter() - start, [float(sigma)]
    theirs = {
        "rdp": lambda: RdpAccountant(),
        "pld-1e-3": lambda: DpPLD(value_discretization_interval=1e-3),
        "pld-1e-4": lambda: DpPLD(value_discretization_interval=1e-4),
    }[kind]()

    def register(count: int) -> float:
        theirs.compose(step, count)
        return float(theirs.get_epsilon(DELTA))

    return _loop(register, steps, every)


def _fresh(name: str, steps: int, every: int) -> tuple[float, list[float]]:
    command = [
        sys.executable,
        "-m",
        "benchmarks.bench_dp_sgd",
        "--one",
        name,
        "--steps",
        str(steps),
        "--every",
        str(every),
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    seconds, values = json.loads(done.stdout.splitlines()[-1])
    return seconds, values


def run(quick: bool = False, default_grid: bool = False) -> list[dict]:
    steps, every = (200, 20) if quick else (1000, 100)
    kinds = ["rdp", "pld-1e-3", "calibrate"] + (["pld-1e-4"] if default_grid else [])
    labels = {
        "rdp": "RdpAccountant (default orders)",
        "pld-1e-3": "PLDAccountant (grid 1e-3)",
        "pld-1e-4": "PLDAccountant (grid 1e-4)",
        "calibrate": "calibrate_dp_mechanism (RdpAccountant)",
    }
    rows = []
    for kind in kinds:
        ours_s, ours = _fresh(f"ours-{kind}", steps, every)
        peer_s, peers = _fresh(f"dp-{kind}", steps, every)
        gap = max(abs(a - b) for a, b in zip(ours, peers, strict=True))
        what = "σ" if kind == "calibrate" else f"ε at steps {every}, {2 * every}, …, {steps}"
        task = f"σ for ε = {TARGET} after {steps} steps" if kind == "calibrate" else f"ε every {every} of {steps} steps"
        note = f"{what}: ours {ours[-1]:.10f}, peer {peers[-1]:.10f}; largest |difference| {gap:.1e}"
        rows.append(row(f"DP-SGD q={Q} σ={SIGMA}: {task}", ours_s, f"dp-accounting {labels[kind]}", peer_s, note))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_dp_sgd", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 steps, ε every 20")
    parser.add_argument(
        "--default-grid", action="store_true", help="also the PLD loop at grid 1e-4 (dp-accounting's is the slowest)"
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)  # one measurement in this interpreter (used by run)
    parser.add_argument("--steps", type=int, default=1000, help=argparse.SUPPRESS)
    parser.add_argument("--every", type=int, default=100, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, args.steps, args.every)))
        return 0
    from benchmarks.run import markdown

    print(markdown(run(args.quick, args.default_grid)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
