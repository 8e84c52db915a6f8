"""The Adult experiment of DP-ADMM (Huang et al. 2020, Sec. VI-B): Algorithms 1, 2 and 3, l2 logistic regression.

Per seed s = 0..S−1: draw the 162 / 21,000 / 9,000 split of Adult with seed s, split the training
rows over N agents with seed s, compute the centralized optimum, and run every algorithm with
noise seed s. Writes ``dpadmm_adult.md`` (the table), ``dpadmm_adult.json`` (every number) and
figures of the per-iteration metrics into ``--out``.

    python -m experiments.dpadmm_adult --out results/dpadmm-adult
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from solvers.builders import adult_problem
from solvers.engine.accounting import DEFAULT_ACCOUNTANTS
from solvers.engine.result import Result
from solvers.horizontal import HorizontalSolver
from solvers.plots import plot_history
from solvers.problem import HorizontalProblem
from solvers.star.admm import ADMM, DPADMM, NaiveNoisyADMM

__all__ = ["main", "run_experiment"]

FIGURE_METRICS = ("objective_mean", "relative_gap", "empirical_loss_mean", "test_accuracy")


def algorithms(
    *, epsilon: float, delta: float, rho: float, n_iterations: int, regularizer: str
) -> dict[str, HorizontalSolver[HorizontalProblem]]:
    """The compared solvers by table label (Algorithm 2 with the paper's σ only for l2)."""
    T = n_iterations
    solvers: dict[str, HorizontalSolver[HorizontalProblem]] = {
        "Algorithm 1 (ADMM, non-private)": ADMM(rho=rho, n_iterations=T)
    }
    if regularizer == "l2":
        solvers["Algorithm 2 (naive, paper σ)"] = NaiveNoisyADMM(
            rho=rho, n_iterations=T, epsilon=epsilon, delta=delta, sensitivity="paper"
        )
    solvers["Algorithm 2 (naive, tight σ)"] = NaiveNoisyADMM(
        rho=rho, n_iterations=T, epsilon=epsilon, delta=delta, sensitivity="tight"
    )
    solvers["DP-ADMM (Algorithm 3)"] = DPADMM(rho=rho, n_iterations=T, epsilon=epsilon, delta=delta)
    return solvers


def run_experiment(
    out_dir: str | Path,
    *,
    seeds: int = 10,
    n_agents: int = 100,
    n_iterations: int = 100,
    epsilon: float = 0.05,
    delta: float = 1e-3,
    rho: float = 1.0,
    lam: float = 0.17,
    regularizer: str = "l2",
    log: Callable[[str], None] = print,
) -> dict:
    """Run the experiment, write table, JSON and figures to ``out_dir``; return the summary."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    solvers = algorithms(epsilon=epsilon, delta=delta, rho=rho, n_iterations=n_iterations, regularizer=regularizer)
    runs: dict[str, list[Result]] = {label: [] for label in solvers}
    reference: dict[str, list[float]] = {"optimum_accuracy": [], "majority_rate": []}
    started = time.perf_counter()
    for seed in range(seeds):
        problem = adult_problem(seed, n_agents=n_agents, lam=lam, regularizer=regularizer)
        optimum, y_test = problem.optimum, problem.y_test
        if optimum is None or y_test is None:  # adult_problem builds both
            raise ValueError("the Adult problem needs its centralized optimum and test set")
        reference["optimum_accuracy"].append(float(problem.accuracy(optimum.w)))
        reference["majority_rate"].append(float(max(np.mean(y_test > 0), np.mean(y_test < 0))))
        for label, solver in solvers.items():
            accountants = DEFAULT_ACCOUNTANTS if seed == 0 else ()  # privacy is the same for every seed
            runs[label].append(solver.run(problem, seed=seed, accountants=accountants, record_transcript=False))
        log(f"seed {seed}: done ({time.perf_counter() - started:.1f} s)")
    rows = {label: _summary(results) for label, results in runs.items()}
    settings = {
        "seeds": seeds,
        "n_agents": n_agents,
        "records_per_agent": 21_000 // n_agents,
        "n_iterations": n_iterations,
        "epsilon": epsilon,
        "delta": delta,
        "rho": rho,
        "lam": lam,
        "regularizer": regularizer,
    }
    summary = {
        "settings": settings,
        "reference": {key: _mean_std(values) for key, values in reference.items()},
        "algorithms": rows,
        "seconds": time.perf_counter() - started,
    }
    (out / "dpadmm_adult.json").write_text(json.dumps(summary, indent=2, default=_json_default))
    table = markdown_table(summary)
    (out / "dpadmm_adult.md").write_text(table)
    summary["figures"] = [
        str(p)
        for p in plot_history(
            runs,
            out,
            metrics=FIGURE_METRICS,
            prefix="dpadmm_adult",
            title=f"Adult, {regularizer}, N={n_agents}, ε={epsilon:g}, δ={delta:g} ({seeds} seeds)",
        )
    ]
    log(table)
    return summary


def markdown_table(summary: dict) -> str:
    """The Markdown table of a ``run_experiment`` summary."""
    s, ref = summary["settings"], summary["reference"]
    lines = [
        f"Adult, {s['regularizer']} logistic regression, N = {s['n_agents']}, m_i = {s['records_per_agent']}, "
        f"ρ = {s['rho']:g}, λ = {s['lam']:g}, T = {s['n_iterations']}, per-iteration ε = {s['epsilon']:g}, "
        f"δ = {s['delta']:g}; mean ± std over {s['seeds']} seeds (split, partition and noise).",
        "",
        f"Centralized optimum test accuracy {_pm(ref['optimum_accuracy'], 100)} %, "
        f"majority-class rate {_pm(ref['majority_rate'], 100)} %.",
        "",
        "| algorithm | test accuracy w^T (%) | accuracy w̄^T (%) | relative gap (F(w^T) − F*)/F* "
        "| ε̄ moments (paper) | ε RDP | ε PLD | ε exact (GDP) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, row in summary["algorithms"].items():
        eps = row["privacy"]
        bounds = " | ".join(_epsilon(eps.get(name)) for name in DEFAULT_ACCOUNTANTS)
        lines.append(
            f"| {label} | {_pm(row['test_accuracy'], 100)} | {_pm(row['test_accuracy_average'], 100)} "
            f"| {row['relative_gap']['mean']:.3g} ± {row['relative_gap']['std']:.2g} | {bounds} |"
        )
    return "\n".join(lines) + "\n"


def _summary(results: Sequence[Result]) -> dict:
    final = {
        key: [float(r.history[key][-1]) for r in results]
        for key in ("test_accuracy", "test_accuracy_average", "relative_gap", "empirical_loss_mean")
    }
    row: dict[str, object] = {key: _mean_std(values) for key, values in final.items()}
    row["privacy"] = dict(results[0].privacy)
    row["per_seed"] = final
    return row


def _mean_std(values: Sequence[float]) -> dict[str, float]:
    return {"mean": float(np.mean(values)), "std": float(np.std(values))}


def _pm(stats: dict[str, float], scale: float = 1.0) -> str:
    return f"{stats['mean'] * scale:.2f} ± {stats['std'] * scale:.2f}"


def _epsilon(value: float | str | None) -> str:
    if value is None:
        return "–"
    value = float(value)  # the JSON file stores ∞ as "inf"
    return "∞" if math.isinf(value) else f"{value:.4f}"


def _json_default(value: object) -> object:
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    raise TypeError(f"not JSON serializable: {value!r}")


def main(argv: Sequence[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.dpadmm_adult",
        description="Reproduce the Adult experiment of Huang et al. 2020 (Sec. VI-B): Algorithms 1, 2 and DP-ADMM.",
    )
    parser.add_argument("--out", required=True, help="output directory for the table, JSON and figures")
    parser.add_argument("--seeds", type=int, default=10, help="number of seeds (default 10)")
    parser.add_argument("--n-agents", type=int, default=100, help="agents N (default 100; 21000/N rows each)")
    parser.add_argument("--iterations", type=int, default=100, help="iterations T (default 100)")
    parser.add_argument("--epsilon", type=float, default=0.05, help="per-iteration ε (default 0.05)")
    parser.add_argument("--delta", type=float, default=1e-3, help="δ (default 1e-3)")
    parser.add_argument("--rho", type=float, default=1.0, help="ADMM penalty ρ (default 1)")
    parser.add_argument("--lam", type=float, default=0.17, help="regularisation λ (default 0.17)")
    parser.add_argument("--regularizer", choices=("l2", "l1"), default="l2")
    args = parser.parse_args(argv)
    return run_experiment(
        args.out,
        seeds=args.seeds,
        n_agents=args.n_agents,
        n_iterations=args.iterations,
        epsilon=args.epsilon,
        delta=args.delta,
        rho=args.rho,
        lam=args.lam,
        regularizer=args.regularizer,
    )


if __name__ == "__main__":
    main()
