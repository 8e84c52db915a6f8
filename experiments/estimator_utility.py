"""Privacy–utility of ``DPADMMClassifier`` with its defaults on tabular data sets it was not tuned on.

For each data set and seed s = 0..S−1: a stratified 70/30 train/test split with seed s; the features
are standardised (``StandardScaler`` fitted on the training rows, the same input for every model);
then ``LogisticRegression()`` (scikit-learn's defaults), the majority class of the training rows,
and ``DPADMMClassifier(epsilon=ε, random_state=s)`` with every other parameter at its default, for a
sweep of total budgets ε (δ = 10⁻⁵). C = 1, the intercept, ε = 1 and the data bound sqrt(d) follow
scikit-learn's and the papers' conventions, not these data; T = 300, ρ = 0.01 and 5 agents were
picked from a small grid (T ∈ {100, 300}, ρ ∈ {0.01, 0.1}, N ∈ {2, 5}) that was run on these same
data sets (on each the chosen point was the best at ε = 10⁶, by up to 2.3 points), so for those
three parameters these data sets are not fully held out.

The scaler is fitted on the training rows outside the privacy analysis: it stands for the public
feature ranges a real private deployment must supply (``DPADMMClassifier`` itself never looks at
the data to scale it; it clips each row to the public bound, which is inside the analysis).

Writes ``estimator_utility.md`` (the Markdown table, also printed), ``estimator_utility.json``
(every accuracy) and ``privacy_utility.png`` (test accuracy against the total ε per data set, with
``LogisticRegression()`` and the majority rate as reference lines) into ``--out``.

    python -m experiments.estimator_utility            # 3 data sets, 5 seeds, 7 budgets
    python -m experiments.estimator_utility --quick    # 2 seeds, 3 budgets, Adult subsampled
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from solvers.datasets import load_adult
from solvers.star.estimator import DPADMMClassifier

__all__ = ["DATASETS", "main", "markdown_table", "plot", "run_experiment"]

#: ε = 10⁶ is "no noise to speak of"; ε = 1 is the estimator's default.
EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0, 100.0, 1e6)
QUICK_EPSILONS = (0.3, 1.0, 1e6)
DEFAULT_EPSILON = 1.0
NO_NOISE = 1e6


def breast_cancer(seed: int, quick: bool) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled Wisconsin breast cancer set: 569 rows, 30 features, 37 % malignant."""
    return load_breast_cancer(return_X_y=True)


def synthetic(seed: int, quick: bool) -> tuple[np.ndarray, np.ndarray]:
    """``make_classification``: 2,000 rows, 20 features (5 informative), 30 % minority, 3 % label
    noise; one fixed draw (random_state=0), split differently per seed."""
    return make_classification(
        n_samples=2000, n_features=20, n_informative=5, weights=[0.7], flip_y=0.03, random_state=0
    )


def adult(seed: int, quick: bool) -> tuple[np.ndarray, np.ndarray]:
    """Adult (``solvers.datasets.load_adult``, one-hot, 104 features, 25 % >50K): all 45,222 rows, or
    5,000 drawn with the seed in quick mode."""
    data = load_adult()
    X, y = data.X, data.y
    if quick:
        rows = np.random.default_rng(seed).choice(X.shape[0], 5000, replace=False)
        X, y = X[rows], y[rows]
    return X, y


DATASETS: dict[str, Callable[[int, bool], tuple[np.ndarray, np.ndarray]]] = {
    "breast cancer": breast_cancer,
    "make_classification": synthetic,
    "Adult": adult,
}


def evaluate(name: str, seed: int, epsilons: Sequence[float], quick: bool) -> dict[str, object]:
    """Accuracies of one data set and seed: LogisticRegression(), majority, ours at every ε."""
    X, y = DATASETS[name](seed, quick)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # lbfgs's defaults, reported as they are
        reference = float(LogisticRegression().fit(X_train, y_train).score(X_test, y_test))
    values, counts = np.unique(y_train, return_counts=True)
    majority = float(np.mean(y_test == values[counts.argmax()]))
    ours = {}
    for epsilon in epsilons:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # a noisy model drifts at small ε
            model = DPADMMClassifier(epsilon=epsilon, random_state=seed).fit(X_train, y_train)
        ours[repr(float(epsilon))] = float(model.score(X_test, y_test))
    return {"logistic_regression": reference, "majority": majority, "ours": ours}


def run_experiment(
    out_dir: str | Path | None,
    *,
    datasets: Sequence[str] = tuple(DATASETS),
    seeds: int = 5,
    epsilons: Sequence[float] = EPSILONS,
    quick: bool = False,
) -> dict[str, object]:
    """Every data set × seed × ε; writes the table, the JSON and the figure into ``out_dir`` (None:
    nothing written). Returns the JSON document."""
    unknown = [name for name in datasets if name not in DATASETS]
    if unknown:
        raise ValueError(f"datasets must be among {sorted(DATASETS)}, got {unknown}")
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise ValueError(f"seeds must be a positive integer, got {seeds!r}")
    start = time.perf_counter()
    runs = {name: [evaluate(name, seed, epsilons, quick) for seed in range(seeds)] for name in datasets}
    document: dict[str, object] = {
        "estimator": "DPADMMClassifier(epsilon=ε, random_state=seed), other parameters at their defaults",
        "delta": DPADMMClassifier().delta,
        "seeds": seeds,
        "epsilons": [float(e) for e in epsilons],
        "quick": quick,
        "runs": runs,
        "seconds": time.perf_counter() - start,
    }
    if out_dir is not None:
        out = Path(out_dir).resolve()
        out.mkdir(parents=True, exist_ok=True)
        (out / "estimator_utility.json").write_text(json.dumps(document, indent=2) + "\n")
        (out / "estimator_utility.md").write_text(markdown_table(document) + "\n")
        plot(document, out / "privacy_utility.png")
    return document


def _stats(values: Sequence[float]) -> tuple[float, float]:
    array = 100.0 * np.asarray(values, dtype=np.float64)
    return float(array.mean()), float(array.std(ddof=1)) if array.size > 1 else 0.0


def _ours(runs: Sequence[dict], epsilon: float) -> list[float]:
    return [run["ours"][repr(float(epsilon))] for run in runs]


def markdown_table(document: dict) -> str:
    """Test accuracy (%, mean ± sd over seeds) per data set: majority, ``LogisticRegression()``,
    ours with the default ε = 1 and with ε = 10⁶ (if swept), and the gap to the reference at 10⁶."""
    epsilons = document["epsilons"]
    columns = [e for e in (DEFAULT_EPSILON, NO_NOISE) if e in epsilons]
    header = ["data set", "seeds", "majority", "LogisticRegression()"]
    header += [f"ours, ε = {e:g}" for e in columns]
    if NO_NOISE in epsilons:
        header.append("LR − ours at ε = 1e+06 (points)")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, runs in document["runs"].items():
        cells = [name, str(len(runs))]
        for values in ([r["majority"] for r in runs], [r["logistic_regression"] for r in runs]):
            cells.append("{:.1f} ± {:.1f}".format(*_stats(values)))
        cells += ["{:.1f} ± {:.1f}".format(*_stats(_ours(runs, e))) for e in columns]
        if NO_NOISE in epsilons:
            gap = [r["logistic_regression"] - o for r, o in zip(runs, _ours(runs, NO_NOISE), strict=True)]
            cells.append("{:+.1f} ± {:.1f}".format(*_stats(gap)))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        f"Test accuracy in %, mean ± sd over seeds 0..{document['seeds'] - 1} (70/30 stratified splits); total "
        f"(ε, δ = {document['delta']:g}) for the whole fit; features standardised on the training rows for every model."
    )
    return "\n".join(lines)


def plot(document: dict, path: str | Path) -> Path:
    """Accuracy against the total ε (log scale), one panel per data set: ours (mean ± sd over seeds),
    ``LogisticRegression()`` (solid line) and the majority rate (dashed line)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(document["runs"])
    epsilons = np.asarray(document["epsilons"], dtype=np.float64)
    fig, axes = plt.subplots(1, len(names), figsize=(4.6 * len(names), 4.0), squeeze=False, constrained_layout=True)
    for ax, name in zip(axes[0], names, strict=True):
        runs = document["runs"][name]
        stats = np.array([_stats(_ours(runs, e)) for e in epsilons])
        reference = _stats([r["logistic_regression"] for r in runs])[0]
        majority = _stats([r["majority"] for r in runs])[0]
        ax.errorbar(epsilons, stats[:, 0], yerr=stats[:, 1], marker="o", capsize=3, label="DPADMMClassifier")
        ax.axhline(reference, color="black", label=f"LogisticRegression() ({reference:.1f} %)")
        ax.axhline(majority, color="grey", linestyle="--", label=f"majority class ({majority:.1f} %)")
        ax.set_xscale("log")
        ax.set_xlabel("total ε of the fit (δ = {:g})".format(document["delta"]))
        ax.set_ylabel("test accuracy (%)")
        ax.set_title(f"{name} ({len(runs)} seeds)")
        low = min(majority, float(np.min(stats[:, 0] - stats[:, 1])))
        ax.set_ylim(max(0.0, low - 5.0), 100.0)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(loc="lower right", fontsize="small")
    fig.suptitle("DPADMMClassifier with its defaults: accuracy against the privacy budget")
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=None, help="output folder (default results/estimator-utility[-quick])")
    parser.add_argument("--seeds", type=int, default=None, help="seeds per data set (default 5; 2 with --quick)")
    parser.add_argument("--quick", action="store_true", help="2 seeds, 3 budgets, Adult subsampled to 5,000 rows")
    args = parser.parse_args(argv)
    out = Path(args.out or ("results/estimator-utility" + ("-quick" if args.quick else ""))).resolve()
    seeds = args.seeds if args.seeds is not None else (2 if args.quick else 5)
    document = run_experiment(out, seeds=seeds, epsilons=QUICK_EPSILONS if args.quick else EPSILONS, quick=args.quick)
    print(markdown_table(document))
    print(f"\nwrote {out / 'estimator_utility.md'}, {out / 'estimator_utility.json'}, {out / 'privacy_utility.png'}")
    print(f"({document['seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
