"""The experiments of ADMM sharing (Hu et al. 2019, Sec. 5) on the synthetic gisette stand-in.

The same protocol as :mod:`experiments.sharing_adult` on ``gisette_vertical``: 5,000
features (half probes) split over 3 parties as the paper splits gisette (2000 / 2000 / 1000),
6,000 train / 1,000 test samples per seed (each seed draws a new synthetic data set).

    python -m experiments.sharing_gisette --out results/sharing-gisette
"""

from __future__ import annotations

from collections.abc import Sequence

from experiments.sharing_adult import build_parser, run_experiment
from solvers.sharing import gisette_vertical

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> dict:
    parser = build_parser(
        "python -m experiments.sharing_gisette",
        "Hu et al. 2019 on the 5,000-feature gisette stand-in: ADMM sharing vs SGD per epoch, and utility vs ε.",
        {"seeds": 2, "exact_iterations": 100, "epochs": 30, "b1": 30.0, "learning_rates": (1.0, 3.0, 10.0, 30.0)},
    )
    args = parser.parse_args(argv)
    return run_experiment(
        args.out,
        data_factory=gisette_vertical,
        name="sharing_gisette",
        title="gisette stand-in (synthetic, 5,000 features), 3 parties 2000/2000/1000",
        seeds=args.seeds,
        n_train=args.n_train,
        n_test=args.n_test,
        exact_iterations=args.exact_iterations,
        epochs=args.epochs,
        learning_rates=args.learning_rates,
        rho_scales=args.rho_scales,
        batch_size=args.batch_size,
        epsilons=args.epsilons,
        sigmas=args.sigmas,
        claim_epsilons=args.claim_epsilons,
        dp_iterations=args.dp_iterations,
        delta=args.delta,
        b1=args.b1,
        trials=args.trials,
    )


if __name__ == "__main__":
    main()
