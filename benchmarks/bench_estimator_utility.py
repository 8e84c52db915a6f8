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

It also times one default fit (ε = 1) on 10^4 rows × 50 features against ``LogisticRegression``'s
(best of 3, the ratio reported).

    python benchmarks/bench_estimator_utility.py [--seeds 5] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, Normalizer, StandardScaler

from benchmarks.timing import best_of
from solvers.datasets import load_adult
from solvers.star.estimator import DPADMMClassifier

DELTA = 1e-5
EPSILONS = (1.0, 1e6)
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

#: Runs in diffprivlib's virtualenv: argv[1] the .npz of the splits, argv[2] the ε list (JSON);
#: prints {task: {ε: accuracy}} as JSON.
_DPL_CODE = """
import json, sys, warnings
import numpy as np
from diffprivlib.models import LogisticRegression
data = np.load(sys.argv[1])
epsilons = json.loads(sys.argv[2])
tasks = sorted({key.rsplit("/", 1)[0] for key in data.files})
out = {}
for task in tasks:
    keys = ("Xtr", "ytr", "Xte", "yte", "B", "s")
    X_train, y_train, X_test, y_test, bound, seed = (data[task + "/" + k] for k in keys)
    out[task] = {}
    for epsilon in epsilons:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = LogisticRegression(epsilon=epsilon, data_norm=float(bound), C=1.0, random_state=int(seed))
            out[task][str(epsilon)] = float(model.fit(X_train, y_train).score(X_test, y_test))
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


def ours_and_sklearn(task: dict) -> dict[str, float]:
    """Accuracy of ``LogisticRegression(C=1)`` and of the estimator at each ε; the warnings it raised."""
    X_train, X_test, y_train, y_test = task["X_train"], task["X_test"], task["y_train"], task["y_test"]
    scores: dict[str, float] = {
        "sklearn": LogisticRegression(C=1.0, max_iter=10000).fit(X_train, y_train).score(X_test, y_test),
        "majority": max(float(np.mean(y_test)), 1.0 - float(np.mean(y_test))),
    }
    for epsilon in EPSILONS:
        model = DPADMMClassifier(epsilon=epsilon, delta=DELTA, data_norm=task["bound"], random_state=task["seed"])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scores[f"ours {epsilon:g}"] = model.fit(X_train, y_train).score(X_test, y_test)
        scores[f"warnings {epsilon:g}"] = float(len(caught))
    return scores


def diffprivlib_scores(tasks: Sequence[dict], python: str) -> list[dict[str, float]] | None:
    """diffprivlib's accuracy per task and ε, from its own virtualenv; None when it is not there."""
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
            [python, "-c", _DPL_CODE, str(path), json.dumps(list(EPSILONS))],
            capture_output=True,
            text=True,
            check=True,
        )
    found = json.loads(completed.stdout)
    return [{f"dpl {e:g}": found[f"{i:04d}"][str(e)] for e in EPSILONS} for i in range(len(tasks))]


def fit_time(repeats: int = 3) -> dict[str, float]:
    """Seconds of one default fit (ε = 1) on 10^4 rows × 50 features and of ``LogisticRegression``'s."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((10_000, 50))
    y = (X @ rng.standard_normal(50) + rng.standard_normal(10_000) > 0).astype(int)
    ours, _ = best_of(lambda: DPADMMClassifier(random_state=0).fit(X, y), repeats)
    sklearn, _ = best_of(lambda: LogisticRegression().fit(X, y), repeats)
    return {"ours_s": ours, "sklearn_s": sklearn, "ratio": ours / sklearn}


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


def _signed(points: float) -> str:
    return "n/a" if math.isnan(points) else f"{points:+.1f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds per data set and preprocessing (default 5)")
    parser.add_argument("--dpl-python", default=DEFAULT_DPL_PYTHON, help="the python of diffprivlib's virtualenv")
    parser.add_argument("--out", type=Path, help="also write the rows and timings as JSON")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds must be a positive integer, got {args.seeds}")
    tasks = splits(args.seeds)
    rows = []
    for task in tasks:
        rows.append({"data": task["data"], "pre": task["pre"], "seed": task["seed"], **ours_and_sklearn(task)})
    peer = diffprivlib_scores(tasks, args.dpl_python)
    if peer is not None:
        for row, scores in zip(rows, peer, strict=True):
            row.update(scores)
    timing = fit_time()
    print(table(rows))
    print(
        f"\nFit time, 10^4 rows × 50 features, defaults (ε = 1): {timing['ours_s']:.2f} s; LogisticRegression() "
        f"{timing['sklearn_s']:.3f} s (ratio {timing['ratio']:.0f}×)"
    )
    if args.out is not None:
        args.out.write_text(json.dumps({"rows": rows, "fit_time": timing}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
