"""The experiments of Hu et al. 2019 (Sec. 5) on the Adult stand-in for a9a: ADMM sharing, private and not.

Per split seed s = 0..S−1 (a random train/test split of Adult, columns split like a9a's 66/57 at the
same attribute boundary: 53 / 51 columns; λ = ρ = 1/N, i.e. scikit-learn's C = 1):

  1. references: scikit-learn's ``LogisticRegression(C=1, fit_intercept=False)`` on all columns
     (the same objective; its solution is the optimum F*), the same on party 1's columns only
     (baseline 3), and scikit-learn's defaults with an intercept (baseline 2, for context);
  2. non-private ADMM sharing to its optimum, and per epoch against the distributed SGD baseline
     (FDML-style, same split; learning rate tuned on a grid by the final training objective of
     seed 0, never on the test set);
  3. ``noise="output"``: test log loss and accuracy against the total ε (per party, at δ, exact
     μ-GDP accounting of T Gaussian releases: per-iteration noise multiplier z = √T/μ(ε, δ)),
     with ``trials`` noise draws per split in one batched run;
  4. ``noise="parameter"`` (the paper's mechanism) at absolute noise levels σ, with the paper's
     claimed ε (Theorem 1 + Corollary 1), which is **not** a guarantee (``claim_verified=False``).

Writes ``<prefix>.json`` (every number), ``<prefix>.md`` (the tables) and figures into ``--out``.

    python -m experiments.sharing_adult --out results/sharing-adult
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from accountants import gaussian_mu
from solvers.problem import Optimum
from solvers.sharing import ADMMSharing, VerticalData, VerticalSGD, adult_vertical
from solvers.sharing.problem import VerticalProblem

__all__ = ["main", "markdown_tables", "run_experiment", "sklearn_references"]

DEFAULT_EPSILONS = (1.0, 10.0, 1e2, 1e3, 1e4, 1e5, 1e6)
DEFAULT_SIGMAS = (1e-3, 1e-2, 1e-1, 1.0)
#: Per-iteration ε at which the paper's own calibration (Theorem 1 with Lemma 1's C) sets σ.
DEFAULT_CLAIM_EPSILONS = (0.1, 1.0)
DEFAULT_LEARNING_RATES = (0.3, 1.0, 3.0, 10.0)
#: ρN grid for ADMM sharing ({0.5, 1, 2} plus smaller values, which win on wide data).
DEFAULT_RHO_SCALES = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)
TABLE_EPOCHS = (1, 2, 5, 10, 20, 30, 50, 100)
ACCOUNTANTS = ("exact_gaussian", "rdp")


def sklearn_references(data: VerticalData, problem: VerticalProblem) -> tuple[Optimum, dict[str, dict[str, float]]]:
    """scikit-learn's solutions: the optimum F* of the same objective, party 1 only, and the defaults."""
    from sklearn.linear_model import LogisticRegression

    X, y = problem.partition.X, problem.partition.y
    same = LogisticRegression(C=problem.sklearn_C, fit_intercept=False, tol=1e-10, max_iter=10_000).fit(X, y)
    w = same.coef_[0]
    optimum = Optimum(w, float(problem.objective(w)), math.nan, int(np.max(same.n_iter_)), "sklearn-lbfgs")
    rows = {"centralized (sklearn, C = 1, no intercept)": _metrics(same, X, y, data.X_test, data.y_test)}
    columns = data.party_columns(0)
    local = LogisticRegression(C=problem.sklearn_C, fit_intercept=False, max_iter=10_000).fit(X[:, columns], y)
    rows["party 1 only (sklearn, C = 1, no intercept)"] = _metrics(
        local, X[:, columns], y, data.X_test[:, columns], data.y_test
    )
    default = LogisticRegression(max_iter=10_000).fit(X, y)
    rows["centralized (sklearn defaults, with intercept)"] = _metrics(default, X, y, data.X_test, data.y_test)
    rate = float(np.mean(y > 0))  # predict the training base rate for everyone
    positive = data.y_test > 0
    rows["constant (training base rate, majority class)"] = {
        "test_log_loss": float(-np.mean(np.where(positive, np.log(rate), np.log1p(-rate)))),
        "test_accuracy": float(np.mean(positive == (rate >= 0.5))),
    }
    return optimum, rows


def run_experiment(
    out_dir: str | Path,
    *,
    data_factory: Callable[..., VerticalData] = adult_vertical,
    name: str = "sharing_adult",
    title: str = "Adult (a9a stand-in), 2 parties 53/51",
    seeds: int = 3,
    n_train: int | None = None,
    n_test: int | None = None,
    exact_iterations: int = 300,
    epochs: int = 30,
    learning_rates: Sequence[float] = DEFAULT_LEARNING_RATES,
    rho_scales: Sequence[float] = DEFAULT_RHO_SCALES,
    batch_size: int = 64,
    epsilons: Sequence[float] = DEFAULT_EPSILONS,
    sigmas: Sequence[float] = DEFAULT_SIGMAS,
    claim_epsilons: Sequence[float] = DEFAULT_CLAIM_EPSILONS,
    dp_iterations: int = 20,
    delta: float = 1e-5,
    b1: float = 25.0,
    trials: int = 5,
    log: Callable[[str], None] = print,
) -> dict:
    """Run the experiment, write JSON, Markdown and figures to ``out_dir``; return the summary."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    T_exact = max(exact_iterations, epochs)
    references: dict[str, list[dict[str, float]]] = {}
    admm_curves, sgd_curves, exact_final = [], [], []
    output_rows: dict[float, list[dict[str, list[float]]]] = {eps: [] for eps in epsilons}
    parameter_rows: dict[tuple[str, float], list[dict[str, list[float]]]] = {
        key: [] for key in [("sigma", v) for v in sigmas] + [("epsilon", v) for v in claim_epsilons]
    }
    noiseless_rows = []
    privacy: dict[float, dict[str, float]] = {}
    claims: dict[tuple[str, float], dict[str, object]] = {}
    best_rate, rate_scores, block_norms, optimum_objectives = None, {}, [], []
    best_rho, rho_scores = None, {}
    for seed in range(seeds):
        data = _data(data_factory, seed, n_train, n_test)
        problem = data.problem()
        optimum, rows = sklearn_references(data, problem)
        problem = problem.with_optimum(optimum)
        block_norms.append(np.linalg.norm(problem.partition.split_model(optimum.w), axis=-1).tolist())
        optimum_objectives.append(optimum.objective)
        for label, values in rows.items():
            references.setdefault(label, []).append(values)
        if best_rho is None:  # tuned like SGD's rate: final training objective of split 0 at the epoch budget
            for scale in rho_scales:
                trial = ADMMSharing(rho=scale / problem.n_samples, n_iterations=epochs).run(
                    problem, seed=seed, accountants=(), record_transcript=False
                )
                rho_scores[scale] = float(trial.history["objective"][-1])
            best_rho = min(rho_scores, key=lambda r: (not math.isfinite(rho_scores[r]), rho_scores[r]))
        rho = best_rho / problem.n_samples
        exact = ADMMSharing(rho=rho, n_iterations=T_exact).run(
            problem, seed=seed, accountants=(), record_transcript=False
        )
        admm_curves.append({k: exact.history[k][:epochs] for k in ("objective", "test_log_loss", "test_accuracy")})
        exact_final.append(
            {
                "relative_gap": float(exact.history["relative_gap"][-1]),
                "test_log_loss": float(exact.history["test_log_loss"][-1]),
                "test_accuracy": float(exact.history["test_accuracy"][-1]),
                "iterations": T_exact,
            }
        )
        if best_rate is None:
            for rate in learning_rates:
                trial = VerticalSGD(learning_rate=rate, batch_size=batch_size, n_epochs=epochs).run(
                    problem, seed=seed, accountants=(), record_transcript=False, record_history=True
                )
                rate_scores[rate] = float(trial.history["objective"][-1])
            best_rate = min(rate_scores, key=lambda r: (not math.isfinite(rate_scores[r]), rate_scores[r]))
        sgd = VerticalSGD(learning_rate=best_rate, batch_size=batch_size, n_epochs=epochs).run(
            problem, seed=seed, accountants=(), record_transcript=False
        )
        sgd_curves.append({k: sgd.history[k] for k in ("objective", "test_log_loss", "test_accuracy")})
        short = ADMMSharing(rho=rho, n_iterations=dp_iterations, b1=b1).run(
            problem, seed=seed, accountants=(), record_transcript=False
        )
        noiseless_rows.append(_final(short))
        for eps in epsilons:
            z = math.sqrt(dp_iterations) / gaussian_mu(eps, delta)
            result = ADMMSharing(
                rho=rho, n_iterations=dp_iterations, noise="output", noise_multiplier=z, b1=b1, delta=delta
            ).run(
                problem,
                seed=seed,
                trials=trials,
                accountants=ACCOUNTANTS if seed == 0 else (),
                record_transcript=False,
            )
            output_rows[eps].append(_final(result))
            if seed == 0:
                first_sigma = float(np.asarray(result.details.sigma)[0])
                privacy[eps] = {**dict(result.privacy), "noise_multiplier": z, "sigma": first_sigma}
        settings_list = [("sigma", sigma) for sigma in sigmas] + [("epsilon", eps) for eps in claim_epsilons]
        for kind, value in settings_list:
            result = ADMMSharing(
                rho=rho,
                n_iterations=dp_iterations,
                noise="parameter",
                sigma=value if kind == "sigma" else None,
                epsilon=value if kind == "epsilon" else None,
                b1=b1,
                delta=delta,
            ).run(problem, seed=seed, trials=trials, accountants=(), record_transcript=False)
            parameter_rows[(kind, value)].append(_final(result))
            if seed == 0:
                keys = (
                    "claimed_epsilon",
                    "claimed_delta",
                    "claimed_epsilon_per_iteration",
                    "claim_theorem1_applies",
                    "claim_verified",
                    "claim_reason",
                )
                claims[(kind, value)] = {"sigma": float(np.max(np.asarray(result.details.sigma)))}
                claims[(kind, value)].update({key: getattr(result.details, key) for key in keys})
        log(f"seed {seed}: done ({time.perf_counter() - started:.1f} s)")
    if best_rho is None or best_rate is None:  # tuned on the first split
        raise ValueError(f"seeds must be >= 1, got {seeds}")
    summary = {
        "title": title,
        "settings": {
            "seeds": seeds,
            "n_train": problem.n_samples,
            "n_test": int(data.y_test.shape[0]),
            "widths": problem.partition.widths.tolist(),
            "lam": problem.lam,
            "rho": best_rho / problem.n_samples,
            "rho_scale": best_rho,
            "rho_scales": list(rho_scales),
            "rho_scale_objective": rho_scores,
            "sklearn_C": problem.sklearn_C,
            "exact_iterations": T_exact,
            "epochs": epochs,
            "learning_rates": list(learning_rates),
            "sgd_learning_rate": best_rate,
            "sgd_rate_objective": rate_scores,
            "batch_size": batch_size,
            "dp_iterations": dp_iterations,
            "delta": delta,
            "b1": b1,
            "trials": trials,
            "description": data.description,
        },
        "optimum_block_norms": block_norms,
        "optimum_objective": {"mean": float(np.mean(optimum_objectives)), "std": float(np.std(optimum_objectives))},
        "references": {label: _stats(values) for label, values in references.items()},
        "admm_exact": _stats(exact_final),
        "curves": {"admm": _curve_stats(admm_curves), "sgd": _curve_stats(sgd_curves)},
        "output_mode": [{"epsilon": eps, **privacy[eps], **_stats(rows)} for eps, rows in output_rows.items()],
        "noiseless_short": _stats(noiseless_rows),
        "parameter_mode": [
            {"set_by": kind, **claims[(kind, value)], **_stats(rows)} for (kind, value), rows in parameter_rows.items()
        ],
        "seconds": time.perf_counter() - started,
    }
    (out / f"{name}.json").write_text(json.dumps(summary, indent=2, default=_json_default))
    tables = markdown_tables(summary)
    (out / f"{name}.md").write_text(tables)
    summary["figures"] = [str(p) for p in _figures(summary, out, name)]
    log(tables)
    return summary


def markdown_tables(summary: dict) -> str:
    """The Markdown tables of a ``run_experiment`` summary."""
    s = summary["settings"]
    lines = [
        f"### {summary['title']}",
        "",
        f"N = {s['n_train']} train / {s['n_test']} test, blocks {s['widths']}, λ = 1/N (sklearn C = 1, no "
        f"intercept), ADMM ρ = {s['rho_scale']:g}/N (chosen from ρN ∈ {s['rho_scales']} by the training objective "
        f"after {s['epochs']} epochs on split 0); mean ± std over {s['seeds']} random splits.",
        "",
        "| model | test log loss | test accuracy (%) |",
        "|---|---|---|",
    ]
    for label, row in summary["references"].items():
        lines.append(f"| {label} | {_pm(row['test_log_loss'])} | {_pm(row['test_accuracy'], 100, 2)} |")
    exact = summary["admm_exact"]
    lines += [
        f"| ADMM sharing, non-private, T = {s['exact_iterations']}, ρN = {s['rho_scale']:g} (relative gap to sklearn "
        f"{exact['relative_gap']['mean']:.1e}) | {_pm(exact['test_log_loss'])} "
        f"| {_pm(exact['test_accuracy'], 100, 2)} |",
        "",
        f"**ADMM sharing vs distributed SGD per epoch** (SGD: batch {s['batch_size']}, learning rate "
        f"{s['sgd_learning_rate']:g} chosen from {s['learning_rates']} by the final training objective of split 0; "
        "random init N(0, 0.01²); ADMM from 0 with the ρ above; one ADMM iteration = one epoch = N numbers per "
        "party).",
        "",
        "| epoch | ADMM objective | SGD objective | ADMM test log loss | SGD test log loss | ADMM acc (%) "
        "| SGD acc (%) |",
        "|---|---|---|---|---|---|---|",
    ]
    admm, sgd = summary["curves"]["admm"], summary["curves"]["sgd"]
    for epoch in TABLE_EPOCHS:
        if epoch > s["epochs"]:
            break
        k = epoch - 1
        lines.append(
            f"| {epoch} | {admm['objective']['mean'][k]:.4f} | {sgd['objective']['mean'][k]:.4f} "
            f"| {admm['test_log_loss']['mean'][k]:.4f} | {sgd['test_log_loss']['mean'][k]:.4f} "
            f"| {100 * admm['test_accuracy']['mean'][k]:.2f} | {100 * sgd['test_accuracy']['mean'][k]:.2f} |"
        )
    lines += [
        "",
        f'**noise="output" (certified)**: Gaussian noise on each released D_m x_m, Δ_safe = 2√N·b1 with '
        f"b1 = {s['b1']:g} enforced, T = {s['dp_iterations']} iterations; ε per party at δ = {s['delta']:g} "
        f"(exact μ-GDP accounting; RDP for comparison); {s['trials']} noise trials per split.",
        "",
        "| target ε | ε exact (GDP) | ε RDP | noise multiplier z | σ per shared value | test log loss "
        "| test accuracy (%) |",
        "|---|---|---|---|---|---|---|",
    ]
    short = summary["noiseless_short"]
    lines.append(
        f"| ∞ (no noise, same T and ball) | – | – | – | 0 | {_pm(short['test_log_loss'])} "
        f"| {_pm(short['test_accuracy'], 100, 2)} |"
    )
    for row in summary["output_mode"]:
        lines.append(
            f"| {row['epsilon']:g} | {_eps(row.get('exact_gaussian'))} | {_eps(row.get('rdp'))} "
            f"| {row['noise_multiplier']:.3g} | {row['sigma']:.3g} | {_pm(row['test_log_loss'])} "
            f"| {_pm(row['test_accuracy'], 100, 2)} |"
        )
    lines += [
        "",
        f'**noise="parameter" (the paper\'s mechanism; NOT differentially private)**: ξ ~ N(0, σ²(D_mᵀD_m)^+) on '
        f"x_m, T = {s['dp_iterations']}; the paper's claimed ε (Theorem 1 with Lemma 1's C, Corollary 1, "
        "δ' = 1e-5) is reported but unverified: the release stays in col(D_m) and Lemma 1 fails.",
        "",
        "| σ | claimed ε per iteration | claimed total ε (unverified) | claimed δ | Theorem 1 applies (ε ≤ 1) "
        "| test log loss | test accuracy (%) |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in summary["parameter_mode"]:
        origin = " (paper's calibration)" if row["set_by"] == "epsilon" else ""
        lines.append(
            f"| {row['sigma']:.4g}{origin} | {_eps(np.max(row['claimed_epsilon_per_iteration']))} "
            f"| {_eps(row['claimed_epsilon'])} | {row['claimed_delta']:.2g} "
            f"| {'yes' if row['claim_theorem1_applies'] else 'no'} | {_pm(row['test_log_loss'])} "
            f"| {_pm(row['test_accuracy'], 100, 2)} |"
        )
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------
def _data(factory, seed, n_train, n_test) -> VerticalData:
    kwargs = {}
    if n_train is not None:
        kwargs["n_train"] = n_train
    if n_test is not None:
        kwargs["n_test"] = n_test
    return factory(seed=seed, **kwargs)


def _metrics(model, X, y, X_test, y_test) -> dict[str, float]:
    p = np.clip(model.predict_proba(X_test)[:, list(model.classes_).index(1.0)], 1e-300, 1 - 1e-16)
    positive = y_test > 0
    return {
        "test_log_loss": float(-np.mean(np.where(positive, np.log(p), np.log1p(-p)))),
        "test_accuracy": float(np.mean(model.predict(X_test) == y_test)),
    }


def _final(result) -> dict[str, list[float]]:
    """The final metrics of every trial."""
    return {key: np.atleast_1d(result.history[key][-1]).tolist() for key in ("test_log_loss", "test_accuracy")}


def _stats(rows: list[dict]) -> dict[str, dict[str, float]]:
    """Mean, std and count of each metric, pooled over splits (and trials, for per-trial lists)."""
    out = {}
    for key in rows[0]:
        pooled = [v for row in rows for v in np.atleast_1d(row[key]).tolist()]
        out[key] = {"mean": float(np.mean(pooled)), "std": float(np.std(pooled)), "n": len(pooled)}
    return out


def _curve_stats(curves: list[dict[str, np.ndarray]]) -> dict[str, dict[str, list[float]]]:
    return {
        key: {
            "mean": np.mean([c[key] for c in curves], axis=0).tolist(),
            "std": np.std([c[key] for c in curves], axis=0).tolist(),
        }
        for key in curves[0]
    }


def _figures(summary: dict, out: Path, name: str) -> list[Path]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    paths = []
    s = summary["settings"]
    # 1. test log loss and accuracy vs ε (output mode), with the references
    figure = Figure(figsize=(10, 4))
    FigureCanvasAgg(figure)
    rows = summary["output_mode"]
    eps = [r["epsilon"] for r in rows]
    references = summary["references"]
    panels = zip(
        figure.subplots(1, 2), ("test_log_loss", "test_accuracy"), ("test log loss", "test accuracy"), strict=True
    )
    for ax, key, label in panels:
        mean = np.array([r[key]["mean"] for r in rows])
        std = np.array([r[key]["std"] for r in rows])
        ax.errorbar(
            eps, mean, yerr=std, marker="o", capsize=3, label=f"ADMM sharing, noise='output' (T={s['dp_iterations']})"
        )
        exact = summary["admm_exact"][key]["mean"]
        ax.axhline(exact, color="k", linestyle="--", label="non-private ADMM sharing (= sklearn optimum)")
        local = references["party 1 only (sklearn, C = 1, no intercept)"][key]["mean"]
        ax.axhline(local, color="tab:red", linestyle=":", label="party 1 only (sklearn)")
        constant = references["constant (training base rate, majority class)"][key]["mean"]
        ax.axhline(constant, color="tab:gray", linestyle="-.", label="constant (majority class / base rate)")
        ax.set_xscale("log")
        ax.set_xlabel(f"total ε per party (δ = {s['delta']:g}, exact GDP accounting)")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    figure.axes[0].legend(fontsize=7)
    figure.suptitle(f"{summary['title']}: utility vs ε, Δ_safe = 2√N·b1, b1 = {s['b1']:g}")
    path = out / f"{name}_epsilon.png"
    figure.savefig(path, dpi=120, bbox_inches="tight")
    paths.append(path)
    # 2. ADMM vs SGD per epoch
    figure = Figure(figsize=(10, 4))
    FigureCanvasAgg(figure)
    curves = summary["curves"]
    panels = zip(
        figure.subplots(1, 2), ("objective", "test_log_loss"), ("training objective F", "test log loss"), strict=True
    )
    algorithms = (
        ("admm", f"ADMM sharing (from 0, ρN = {s['rho_scale']:g})"),
        ("sgd", f"distributed SGD (η = {s['sgd_learning_rate']:g})"),
    )
    for ax, key, label in panels:
        for algorithm, title in algorithms:
            mean, std = np.array(curves[algorithm][key]["mean"]), np.array(curves[algorithm][key]["std"])
            epochs = np.arange(1, mean.size + 1)
            ax.plot(epochs, mean, label=title)
            ax.fill_between(epochs, mean - std, mean + std, alpha=0.2)
        reference = summary["optimum_objective"]["mean"] if key == "objective" else summary["admm_exact"][key]["mean"]
        ax.axhline(reference, color="k", linestyle="--", linewidth=0.8, label="optimum (sklearn)")
        ax.set_xlabel("epoch (one ADMM iteration / one pass of SGD)")
        ax.set_ylabel(label)
        ax.set_ylim(reference - 0.02 * abs(reference), None)
        ax.grid(True, alpha=0.3)
    figure.axes[0].legend(fontsize=8)
    figure.suptitle(f"{summary['title']}: ADMM sharing vs distributed SGD")
    path = out / f"{name}_epochs.png"
    figure.savefig(path, dpi=120, bbox_inches="tight")
    paths.append(path)
    return paths


def _pm(stats: dict[str, float], scale: float = 1.0, digits: int = 4) -> str:
    return f"{stats['mean'] * scale:.{digits}f} ± {stats['std'] * scale:.{digits}f}"


def _eps(value) -> str:
    if value is None:
        return "–"
    value = float(value)
    return "∞" if math.isinf(value) else f"{value:.4g}"


def _json_default(value: object) -> object:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    raise TypeError(f"not JSON serializable: {value!r}")


def build_parser(prog: str, description: str, defaults: dict) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--out", required=True, help="output directory for the tables, JSON and figures")
    parser.add_argument(
        "--seeds", type=int, default=defaults.get("seeds", 3), help="random splits (default %(default)s)"
    )
    parser.add_argument("--n-train", type=int, default=None, help="training records (default: the full split)")
    parser.add_argument("--n-test", type=int, default=None, help="test records (default: the full split)")
    parser.add_argument(
        "--exact-iterations",
        type=int,
        default=defaults.get("exact_iterations", 300),
        help="iterations of the non-private run (default %(default)s)",
    )
    parser.add_argument(
        "--epochs", type=int, default=defaults.get("epochs", 30), help="epochs compared with SGD (default %(default)s)"
    )
    parser.add_argument(
        "--learning-rates",
        type=float,
        nargs="+",
        default=list(defaults.get("learning_rates", DEFAULT_LEARNING_RATES)),
        help="SGD learning-rate grid (default %(default)s)",
    )
    parser.add_argument(
        "--rho-scales",
        type=float,
        nargs="+",
        default=list(DEFAULT_RHO_SCALES),
        help="ρN grid for ADMM sharing, tuned by the training objective (default %(default)s)",
    )
    parser.add_argument("--batch-size", type=int, default=64, help="SGD mini-batch size (default %(default)s)")
    parser.add_argument(
        "--epsilons",
        type=float,
        nargs="+",
        default=list(DEFAULT_EPSILONS),
        help="total ε per party for noise='output' (default %(default)s)",
    )
    parser.add_argument(
        "--sigmas",
        type=float,
        nargs="+",
        default=list(DEFAULT_SIGMAS),
        help="σ for noise='parameter' (default %(default)s)",
    )
    parser.add_argument(
        "--claim-epsilons",
        type=float,
        nargs="+",
        default=list(DEFAULT_CLAIM_EPSILONS),
        help="per-iteration ε for noise='parameter' calibrated by the paper's Theorem 1 (default %(default)s)",
    )
    parser.add_argument("--dp-iterations", type=int, default=20, help="T of the private runs (default %(default)s)")
    parser.add_argument("--delta", type=float, default=1e-5, help="δ (default %(default)s)")
    parser.add_argument(
        "--b1",
        type=float,
        default=defaults.get("b1", 25.0),
        help="radius of the ball ‖x_m‖ ≤ b1 (a public choice; default %(default)s)",
    )
    parser.add_argument("--trials", type=int, default=5, help="noise trials per split (default %(default)s)")
    return parser


def main(argv: Sequence[str] | None = None) -> dict:
    parser = build_parser(
        "python -m experiments.sharing_adult",
        "Hu et al. 2019 on Adult (a9a stand-in): ADMM sharing vs SGD per epoch, and test log loss / accuracy vs ε.",
        {},
    )
    args = parser.parse_args(argv)
    return run_experiment(
        args.out,
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
