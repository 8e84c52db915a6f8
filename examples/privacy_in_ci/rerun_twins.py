"""The correct twins of the guide's user test file at 50 seeds: every failure would be a false alarm.

    python examples/privacy_in_ci/rerun_twins.py [EFFORT]   # from the repository root; default effort "default"

Measured (effort "default", seeds 0–49, two shared cores): 0 false alarms in 150 assertions, 20 minutes.
"""

import importlib.util
import sys
import time
from pathlib import Path

from audits import Claim
from audits.testbench.svt import svt1
from audits.testing import assert_private

_path = Path(__file__).resolve().parents[2] / "tests" / "audits" / "bug_zoo.py"
_spec = importlib.util.spec_from_file_location("bug_zoo", _path)
assert _spec is not None and _spec.loader is not None
zoo = sys.modules.setdefault("bug_zoo", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(zoo)

CASES = [
    ("noisy_sum", zoo.variance_as_std_twin, zoo.unit_pair(), zoo.CLAIM),
    ("rounds", zoo.uncomposed_twin, zoo.unit_pair(), zoo.CLAIM),
    ("sparse_vector", svt1, ([1.0] * 10, [2.0] * 5 + [0.0] * 5), Claim(epsilon=0.1, delta=0.0)),
]


def main() -> None:
    effort = sys.argv[1] if len(sys.argv) > 1 else "default"
    alarms, start = 0, time.perf_counter()
    for seed in range(50):
        for name, mechanism, pair, claim in CASES:
            try:
                assert_private(mechanism, *pair, claim=claim, effort=effort, seed=seed)
            except AssertionError as failure:
                alarms += 1
                print(f"seed {seed}, {name}: {str(failure).splitlines()[0]}", flush=True)
    print(
        f"{alarms} false alarms in {50 * len(CASES)} assertions, effort {effort!r}, {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
