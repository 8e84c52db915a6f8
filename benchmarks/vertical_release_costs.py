"""Which release costs the vertical estimator's ADMM sharing protocol its accuracy at ε = 1, each made noise-free.

A covered fit of the ADMM sharing protocol makes three kinds of Gaussian releases (``solvers.sharing.row_budget``):
the labels once (randomized response), the parties' shares in each iteration, the model once (output
perturbation). This diagnostic refits that protocol with the estimator's other defaults
(``epsilon=1, delta=1e-5, data_norm=B``) on the splits of
``bench_estimator_utility`` with the noise of some releases set to zero and everything else unchanged (the
same budget, ball b_1, T and noise seeds): a column's accuracy is what the fit would reach if those releases
were free. The fits with a release noise-free are not private; they only attribute the loss.

    python benchmarks/vertical_release_costs.py [--seeds 2] [--draws 2]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from unittest import mock

#: The columns: which releases are noise-free.
CLEAN = ((), ("labels",), ("shares",), ("model",), ("labels", "model"), ("labels", "shares", "model"))


def release_costs(seeds: int, draws: int) -> dict[tuple[str, str], list[float]]:
    """Per (data set, preprocessing), the mean test accuracy over the splits and ``draws`` noise seeds of the
    default fit with each ``CLEAN`` column's releases noise-free. The toolkit is imported here, so that
    ``--help`` stays quick."""
    import numpy as np

    from benchmarks.bench_estimator_utility import ESTIMATORS, NOISY_EPSILON, splits
    from solvers.sharing import estimator
    from solvers.sharing.admm import ADMMSharing
    from solvers.sharing.row_budget import RowBudget

    perturbed_model = RowBudget.perturbed_model
    patches = {
        "labels": (RowBudget, "randomized_labels", lambda self, labels, rng: labels),
        "model": (
            RowBudget,
            "perturbed_model",
            lambda self, p, m, s, b1, rng: perturbed_model(self, p, m, 0.0, b1, rng),
        ),
        "shares": (estimator, "ADMMSharing", lambda **kw: ADMMSharing(**{**kw, "sigma": 0.0 * kw["sigma"]})),
    }
    cells: dict[tuple[str, str], list[list[float]]] = {}
    for task in splits(seeds):
        row = []
        for clean in CLEAN:
            with ExitStack() as stack, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for release in clean:
                    stack.enter_context(mock.patch.object(*patches[release]))
                row.append(
                    np.mean(
                        [
                            ESTIMATORS["VerticalLogisticRegression"](
                                NOISY_EPSILON, task["bound"], 1000 * task["seed"] + r
                            )
                            .set_params(protocol="admm_sharing")
                            .fit(task["X_train"], task["y_train"])
                            .score(task["X_test"], task["y_test"])
                            for r in range(draws)
                        ]
                    )
                )
        cells.setdefault((task["data"], task["pre"]), []).append(row)
    return {cell: [float(v) for v in np.mean(rows, axis=0)] for cell, rows in cells.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="seeds per data set and preprocessing (default 2)")
    parser.add_argument("--draws", type=int, default=2, help="noise draws per split (default 2)")
    args = parser.parse_args(argv)
    if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    names = ["all noisy", *("+".join(c) + " noise-free" for c in CLEAN[1:])]
    print("| data set | preprocessing | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for (data, pre), means in release_costs(args.seeds, args.draws).items():
        print(f"| {data} | {pre} | " + " | ".join(f"{100 * v:.1f}" for v in means) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
