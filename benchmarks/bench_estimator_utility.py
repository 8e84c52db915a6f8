"""Utility of ``DPADMMClassifier``'s defaults against scikit-learn's and diffprivlib's ``LogisticRegression``.

Four tabular data sets (scikit-learn's breast cancer, digits 0 vs rest, wine class 0 vs rest, and
5,000 rows of the bundled Adult set drawn with the seed) × three preprocessings (``StandardScaler``,
``MinMaxScaler``, ``Normalizer``) × 5 seeds (stratified 70/30 splits; the scaler is fitted on the
training rows and stands for the public ranges a deployment supplies). Every model sees the same
rows and the same public data bound B: sqrt(d) after the two scalers (the default of both
libraries' users), 1 after ``Normalizer`` (declared with ``data_norm=1.0``).

- ``LogisticRegression(C=1)`` of scikit-learn, not private.
- ``DPADMMClassifier(epsilon=ε, delta=1e-5, data_norm=B)`` (total (ε, δ) for the whole fit), ε = 1
  and ε = 10^6.
- diffprivlib 0.6.6's ``LogisticRegression(epsilon=ε, data_norm=B, C=1)`` (objective perturbation,
  pure ε-DP: at the same ε its guarantee is the stronger one, δ = 0 against 10^-5). diffprivlib needs
  an older scikit-learn, so it runs in its own virtualenv (``--dpl-python``, default
  /work/venv-dpl/bin/python: ``python -m venv /work/venv-dpl && /work/venv-dpl/bin/pip install
  diffprivlib==0.6.6 scikit-learn==1.5.2``) in a subprocess that reads the same splits from an .npz
  file; without it its column reads n/a.

At ε = 1 every private model is fitted ``--draws`` times per split (noise seeds 1000·seed + r, the
same for both libraries) and the split's accuracy is their mean: with 54 test rows on wine one noise
draw moves the cell by several points, more than the gaps to be read. At ε = 10^6 the noise is
negligible and one draw is kept.

It also times one default fit (ε = 1) on 10^4 rows × 50 features against ``LogisticRegression``'s
(best of 3, wall and CPU seconds, the ratio reported, with the load average: the machine is shared).

    python benchmarks/bench_estimator_utility.py [--seeds 5] [--draws 3] [--out results.json]
        [--table table.md] [--plot utility.png]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, Normalizer, StandardScaler

from benchmarks.timing import best_of
from solvers.datasets import load_adult
from solvers.star.estimator import DPADMMClassifier

DELTA = 1e-5
EPSILONS = (1.0, 1e6)
#: ε at which the noise matters: there every private model is fitted ``draws`` times per split.
NOISY_EPSILON = 1.0
DEFAULT_DPL_PYTHON = "/work/venv-dpl/bin/python"


def breast_cancer(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """569 rows, 30 features, 37 % malignant."""
    return load_breast_cancer(return_X_y=True)


def digits(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """1,797 rows, 64 pixel features, the digit 0 (10 %) against the rest."""
    X, y = load_digits(return_X_y=True)
    return X, (y == 0).astype(int)


def wine(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """178 rows, 13 features, cultivar 0 (33 %) against the rest."""
    X, y = load_wine(return_X_y=True)
    return X, (y == 0).astype(int)


def adult(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """5,000 rows of Adult (one-hot, 104 features, 25 % >50K) drawn with the seed."""
    data = load_adult()
    rows = np.random.default_rng(seed).choice(data.X.shape[0], 5000, replace=False)
    return data.X[rows], (data.y[rows] > 0).astype(int)


DATASETS: dict[str, Callable[[int], tuple[np.ndarray, np.ndarray]]] = {
    "breast cancer": breast_cancer,
    "digits 0 vs rest": digits,
    "wine 0 vs rest": wine,
    "Adult (5,000 rows)": adult,
}

#: preprocessing → (scaler, the public bound B as a function of d).
PREPROCESSINGS: dict[str, tuple[Callable[[], object], Callable[[int], float]]] = {
    "StandardScaler": (StandardScaler, math.sqrt),
    "MinMaxScaler": (MinMaxScaler, math.sqrt),
    "Normalizer": (Normalizer, lambda d: 1.0),
}

#: Runs in diffprivlib's virtualenv: argv[1] the .npz of the splits, argv[2] {ε: draws} (JSON);
#: prints {task: {ε: mean accuracy over the draws}} as JSON.
_DPL_CODE = """
import json, sys, warnings
import numpy as np
from diffprivlib.models import LogisticRegression
data = np.load(sys.argv[1])
draws = json.loads(sys.argv[2])
tasks = sorted({key.rsplit("/", 1)[0] for key in data.files})
out = {}
for task in tasks:
    keys = ("Xtr", "ytr", "Xte", "yte", "B", "s")
    X_train, y_train, X_test, y_test, bound, seed = (data[task + "/" + k] for k in keys)
    out[task] = {}
    for epsilon, count in draws.items():
        scores = []
        for r in range(count):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = LogisticRegression(
                    epsilon=float(epsilon), data_norm=float(bound), C=1.0, random_state=1000 * int(seed) + r
                )
                scores.append(float(model.fit(X_train, y_train).score(X_test, y_test)))
        out[task][epsilon] = sum(scores) / len(scores)
print(json.dumps(out))
"""


def splits(seeds: int) -> list[dict]:
    """Every (data set, preprocessing, seed): the scaled split and the public bound."""
    tasks = []
    for name, load in DATASETS.items():
        for seed in range(seeds):
            X, y = load(seed)
            X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
            for pre, (scaler, bound) in PREPROCESSINGS.items():
                fitted = scaler().fit(X_train)  # type: ignore[attr-defined]
                tasks.append(
                    {
                        "data": name,
                        "pre": pre,
                        "seed": seed,
                        "bound": bound(X.shape[1]),
                        "X_train": fitted.transform(X_train),
                        "X_test": fitted.transform(X_test),
                        "y_train": y_train,
                        "y_test": y_test,
                    }
                )
    return tasks


def draws_at(epsilon: float, draws: int) -> int:
    """Noise draws per split at ``epsilon``: ``draws`` where the noise matters, else 1."""
    return draws if epsilon <= NOISY_EPSILON else 1


def ours_and_sklearn(task: dict, draws: int = 1) -> dict[str, float]:
    """Accuracy of ``LogisticRegression(C=1)`` and of the estimator at each ε (mean over the noise
    draws); the warnings it raised (count over the draws, and how many were ``ConvergenceWarning``)."""
    X_train, X_test, y_train, y_test = task["X_train"], task["X_test"], task["y_train"], task["y_test"]
    scores: dict[str, float] = {
        "sklearn": LogisticRegression(C=1.0, max_iter=10000).fit(X_train, y_train).score(X_test, y_test),
        "majority": max(float(np.mean(y_test)), 1.0 - float(np.mean(y_test))),
    }
    for epsilon in EPSILONS:
        accuracies = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for r in range(draws_at(epsilon, draws)):
                seed = 1000 * task["seed"] + r
                model = DPADMMClassifier(epsilon=epsilon, delta=DELTA, data_norm=task["bound"], random_state=seed)
                accuracies.append(model.fit(X_train, y_train).score(X_test, y_test))
        scores[f"ours {epsilon:g}"] = float(np.mean(accuracies))
        scores[f"warnings {epsilon:g}"] = float(len(caught))
        scores[f"convergence warnings {epsilon:g}"] = float(
            sum(issubclass(w.category, ConvergenceWarning) for w in caught)
        )
    return scores


def diffprivlib_scores(tasks: Sequence[dict], python: str, draws: int = 1) -> list[dict[str, float]] | None:
    """diffprivlib's accuracy per task and ε (mean over the noise draws), from its own virtualenv;
    None when it is not there."""
    if not Path(python).exists():
        return None
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "splits.npz"
        arrays = {}
        for i, task in enumerate(tasks):
            key = f"{i:04d}"
            arrays.update(
                {
                    f"{key}/Xtr": task["X_train"],
                    f"{key}/ytr": task["y_train"],
                    f"{key}/Xte": task["X_test"],
                    f"{key}/yte": task["y_test"],
                    f"{key}/B": np.array(task["bound"]),
                    f"{key}/s": np.array(task["seed"]),
                }
            )
        np.savez(path, **arrays)
        completed = subprocess.run(
            [python, "-c", _DPL_CODE, str(path), json.dumps({str(e): draws_at(e, draws) for e in EPSILONS})],
            capture_output=True,
            text=True,
            check=True,
        )
    found = json.loads(completed.stdout)
    return [{f"dpl {e:g}": found[f"{i:04d}"][str(e)] for e in EPSILONS} for i in range(len(tasks))]


def fit_time(repeats: int = 3) -> dict[str, float]:
    """Seconds (wall, best of ``repeats``, and CPU of this process, best of ``repeats``) of one default
    fit (ε = 1) on 10^4 rows × 50 features and of ``LogisticRegression``'s, with the 1-minute load
    average when the timing ended (wall time on a shared machine grows with it)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((10_000, 50))
    y = (X @ rng.standard_normal(50) + rng.standard_normal(10_000) > 0).astype(int)
    ours, _ = best_of(lambda: DPADMMClassifier(random_state=0).fit(X, y), repeats)
    sklearn, _ = best_of(lambda: LogisticRegression().fit(X, y), repeats)
    ours_cpu = min(_cpu_seconds(lambda: DPADMMClassifier(random_state=0).fit(X, y)) for _ in range(repeats))
    sklearn_cpu = min(_cpu_seconds(lambda: LogisticRegression().fit(X, y)) for _ in range(repeats))
    return {
        "ours_s": ours,
        "sklearn_s": sklearn,
        "ratio": ours / sklearn,
        "ours_cpu_s": ours_cpu,
        "sklearn_cpu_s": sklearn_cpu,
        "load_average": os.getloadavg()[0],
    }


def _cpu_seconds(function: Callable[[], object]) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def table(rows: Sequence[dict]) -> str:
    """Markdown: mean test accuracy (%) over the seeds per data set × preprocessing."""
    columns = ["sklearn", *(f"ours {e:g}" for e in EPSILONS), *(f"dpl {e:g}" for e in EPSILONS)]
    header = (
        "| data set | preprocessing | majority | LogisticRegression(C=1) | ours ε=1 | ours ε=1e6 | diffprivlib ε=1 "
        "| diffprivlib ε=1e6 | ours − diffprivlib at ε=1 |"
    )
    lines = [header, "|" + "---|" * 9]
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["data"], row["pre"]), []).append(row)
    gaps = []
    for (name, pre), group in groups.items():
        means = {c: (100 * float(np.mean([r[c] for r in group])) if c in group[0] else math.nan) for c in columns}
        gap = means["ours 1"] - means["dpl 1"]
        gaps.append(gap)
        majority = 100 * float(np.mean([r["majority"] for r in group]))
        cells = " | ".join("n/a" if math.isnan(means[c]) else f"{means[c]:.1f}" for c in columns)
        lines.append(f"| {name} | {pre} | {majority:.1f} | {cells} | {_signed(gap)} |")
    lines.append(f"\nMean over the grid of ours − diffprivlib at ε = 1: {_signed(float(np.mean(gaps)))} points.")
    return "\n".join(lines)


def plot(rows: Sequence[dict], path: Path) -> None:
    """Per data set × preprocessing, mean test accuracy of every model at ε = 1 (left) and ε = 10^6
    (right), with the majority rate; saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["data"], row["pre"]), []).append(row)
    labels = [f"{name.split(' (')[0].replace(' vs rest', '')}\n{pre.replace('Scaler', '')}" for name, pre in groups]
    x = np.arange(len(groups))

    def mean(column: str) -> np.ndarray:
        return np.array([100 * float(np.mean([r.get(column, math.nan) for r in g])) for g in groups.values()])

    figure, axes = plt.subplots(2, 1, figsize=(11, 7.5), sharex=True)
    for axis, epsilon in zip(axes, EPSILONS, strict=True):
        axis.bar(x, mean("majority"), width=0.8, color="0.88", label="majority class")
        axis.plot(x, mean("sklearn"), "k_", markersize=22, markeredgewidth=2, label="LogisticRegression(C=1)")
        axis.plot(x - 0.15, mean(f"ours {epsilon:g}"), "o", color="C0", markersize=8, label="DPADMMClassifier")
        axis.plot(x + 0.15, mean(f"dpl {epsilon:g}"), "s", color="C1", markersize=7, label="diffprivlib 0.6.6")
        axis.set_ylim(40, 101)
        axis.set_ylabel("test accuracy (%)")
        budget = "ε = 1, δ = 1e-5 (diffprivlib: δ = 0)" if epsilon == 1.0 else f"ε = {epsilon:g} (negligible noise)"
        axis.set_title(budget, fontsize=10)
        axis.grid(axis="y", alpha=0.3)
    axes[0].legend(loc="lower left", fontsize=8, ncol=4)
    axes[1].set_xticks(x, labels, fontsize=8)
    figure.suptitle("Mean test accuracy over seeds (70/30 splits), same rows and data bound for every model")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _signed(points: float) -> str:
    return "n/a" if math.isnan(points) else f"{points:+.1f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds per data set and preprocessing (default 5)")
    parser.add_argument("--dpl-python", default=DEFAULT_DPL_PYTHON, help="the python of diffprivlib's virtualenv")
    parser.add_argument("--draws", type=int, default=3, help="noise draws per split at ε = 1 (default 3)")
    parser.add_argument("--out", type=Path, help="also write the rows and timings as JSON")
    parser.add_argument("--table", type=Path, help="also write the Markdown table")
    parser.add_argument("--plot", type=Path, help="also draw the accuracies (PNG)")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds must be a positive integer, got {args.seeds}")
    if args.draws < 1:
        parser.error(f"--draws must be a positive integer, got {args.draws}")
    tasks = splits(args.seeds)
    rows = []
    for task in tasks:
        scores = ours_and_sklearn(task, args.draws)
        rows.append({"data": task["data"], "pre": task["pre"], "seed": task["seed"], **scores})
    peer = diffprivlib_scores(tasks, args.dpl_python, args.draws)
    if peer is not None:
        for row, scores in zip(rows, peer, strict=True):
            row.update(scores)
    timing = fit_time()
    text = table(rows)
    warned = sum(row["convergence warnings 1e+06"] > 0 for row in rows)
    text += f"\nSplits with a ConvergenceWarning at ε = 1e6: {warned} of {len(rows)}."
    text += (
        f"\n\nFit time, 10^4 rows × 50 features, defaults (ε = 1): {timing['ours_s']:.2f} s wall, "
        f"{timing['ours_cpu_s']:.2f} s CPU; LogisticRegression() {timing['sklearn_s']:.2f} s wall, "
        f"{timing['sklearn_cpu_s']:.2f} s CPU (load average {timing['load_average']:.1f} on {os.cpu_count()} cores)."
    )
    print(text)
    if args.table is not None:
        args.table.write_text(text + "\n")
    if args.plot is not None:
        plot(rows, args.plot)
    if args.out is not None:
        args.out.write_text(json.dumps({"rows": rows, "fit_time": timing}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
