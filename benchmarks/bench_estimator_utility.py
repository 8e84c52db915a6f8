"""Utility of every private estimator's defaults against scikit-learn's and diffprivlib's ``LogisticRegression``.

Four tabular data sets (scikit-learn's breast cancer, digits 0 vs rest, wine class 0 vs rest, and
5,000 rows of the bundled Adult set drawn with the seed) × three preprocessings (``StandardScaler``,
``MinMaxScaler``, ``Normalizer``) × 5 seeds (stratified 70/30 splits; the scaler is fitted on the
training rows and stands for the public ranges a deployment supplies). Every model sees the same
rows and the same public data bound B: sqrt(d) after the two scalers (the default of both
libraries' users), 1 after ``Normalizer`` (declared with ``data_norm=1.0``).

- ``LogisticRegression(C=1)`` of scikit-learn, not private.
- Each estimator of the toolkit (``--estimators``, default all four: ``DPADMMClassifier``,
  ``DecentralizedClassifier``, ``PDMLClassifier``, ``VerticalLogisticRegression``) with its defaults
  and ``epsilon=ε, data_norm=B`` (and ``delta=1e-5`` where the guarantee is approximate; the
  decentralized one is pure ε-DP), a total budget for the whole fit, at ε = 1 and ε = 10^6.
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

It also times one default fit (ε = 1) of each estimator on 10^4 rows × 50 features against
``LogisticRegression()``'s in the same run (wall seconds, median of 3, the ratio reported, with the
load average: the machine is shared; ``--timing-only`` runs just that, e.g. under ``nice -n -20``).
Runs can be split by estimator (``--out`` each) and joined with ``--join a.json b.json ...``.

    python benchmarks/bench_estimator_utility.py [--seeds 5] [--draws 3] [--estimators NAME ...]
        [--out results.json] [--table table.md] [--plot utility.png] [--no-timing | --timing-only]
    python benchmarks/bench_estimator_utility.py --join a.json b.json --table table.md --plot utility.png
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, Normalizer, StandardScaler

from solvers.datasets import load_adult
from solvers.decentralized.estimator import DecentralizedClassifier
from solvers.pdml.estimator import PDMLClassifier
from solvers.sharing.estimator import VerticalLogisticRegression
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


#: Every estimator of the toolkit with its defaults at a total ε and the public bound B (δ = DELTA where
#: the guarantee is approximate; the decentralized one is pure ε-DP), and the noise seed.
ESTIMATORS: dict[str, Callable[[float, float, int], Any]] = {
    "DPADMMClassifier": lambda epsilon, bound, seed: DPADMMClassifier(
        epsilon=epsilon, delta=DELTA, data_norm=bound, random_state=seed
    ),
    "DecentralizedClassifier": lambda epsilon, bound, seed: DecentralizedClassifier(
        epsilon=epsilon, data_norm=bound, random_state=seed
    ),
    "PDMLClassifier": lambda epsilon, bound, seed: PDMLClassifier(
        epsilon=epsilon, delta=DELTA, data_norm=bound, random_state=seed
    ),
    "VerticalLogisticRegression": lambda epsilon, bound, seed: VerticalLogisticRegression(
        epsilon=epsilon, delta=DELTA, data_norm=bound, random_state=seed
    ),
}


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


def sklearn_scores(task: dict) -> dict[str, float]:
    """Accuracy of ``LogisticRegression(C=1)`` and the majority rate of the test rows."""
    X_train, X_test, y_train, y_test = task["X_train"], task["X_test"], task["y_train"], task["y_test"]
    return {
        "sklearn": LogisticRegression(C=1.0, max_iter=10000).fit(X_train, y_train).score(X_test, y_test),
        "majority": max(float(np.mean(y_test)), 1.0 - float(np.mean(y_test))),
    }


def estimator_scores(task: dict, name: str, draws: int = 1) -> dict[str, float]:
    """Accuracy of the estimator ``name`` at each ε (mean over the noise draws), keyed "NAME ε"; the
    warnings it raised (count over the draws, and how many were ``ConvergenceWarning``)."""
    X_train, X_test, y_train, y_test = task["X_train"], task["X_test"], task["y_train"], task["y_test"]
    scores: dict[str, float] = {}
    for epsilon in EPSILONS:
        accuracies = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for r in range(draws_at(epsilon, draws)):
                model = ESTIMATORS[name](epsilon, task["bound"], 1000 * task["seed"] + r)
                accuracies.append(model.fit(X_train, y_train).score(X_test, y_test))
        scores[f"{name} {epsilon:g}"] = float(np.mean(accuracies))
        scores[f"{name} warnings {epsilon:g}"] = float(len(caught))
        scores[f"{name} convergence warnings {epsilon:g}"] = float(
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


def fit_time(names: Sequence[str], repeats: int = 3) -> dict[str, Any]:
    """Wall seconds (median of ``repeats``) of one default fit (ε = 1) of each estimator on 10^4 rows ×
    50 features and of ``LogisticRegression()``'s, timed in turns within one run, each estimator's
    ratio to it, and the 1-minute load average when the timing ended (wall time on a shared machine
    grows with it)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((10_000, 50))
    y = (X @ rng.standard_normal(50) + rng.standard_normal(10_000) > 0).astype(int)
    fits: dict[str, Callable[[], object]] = {"LogisticRegression": lambda: LogisticRegression().fit(X, y)}
    for name in names:
        fits[name] = partial(_default_fit, type(ESTIMATORS[name](1.0, 1.0, 0)), X, y)
    seconds: dict[str, list[float]] = {name: [] for name in fits}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(repeats):
            for name, fit in fits.items():
                start = time.perf_counter()
                fit()
                seconds[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    sklearn = medians["LogisticRegression"]
    return {
        "seconds": medians,
        "ratio": {name: medians[name] / sklearn for name in names},
        "repeats": repeats,
        "load_average": os.getloadavg()[0],
    }


def _default_fit(estimator: type, X: np.ndarray, y: np.ndarray) -> object:
    """One fit of ``estimator`` with its defaults (ε = 1) and a fixed noise seed."""
    return estimator(random_state=0).fit(X, y)


def _cell_means(rows: Sequence[dict]) -> dict[tuple[str, str], dict[str, float]]:
    """Per (data set, preprocessing), the mean over the seeds (in %) of every column present in all
    of its rows (warning columns: their sum)."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["data"], row["pre"]), []).append(row)
    means = {}
    for key, group in groups.items():
        columns = set.intersection(*(set(r) for r in group)) - {"data", "pre", "seed"}
        means[key] = {
            c: float(np.sum([r[c] for r in group])) if "warnings" in c else 100 * float(np.mean([r[c] for r in group]))
            for c in columns
        }
    return means


def estimators_in(rows: Sequence[dict]) -> list[str]:
    """The estimators with a column in ``rows``, in the order of ``ESTIMATORS``."""
    present = set().union(*(set(r) for r in rows)) if rows else set()
    return [name for name in ESTIMATORS if f"{name} 1" in present]


def table(rows: Sequence[dict]) -> str:
    """Markdown: per estimator, mean test accuracy (%) over the seeds per data set × preprocessing at
    ε = 10^6 against ``LogisticRegression(C=1)`` and at ε = 1 against diffprivlib, with the gaps and
    a summary of both criteria (within 1 point of scikit-learn at ε = 10^6; ahead of diffprivlib on
    average at ε = 1 and never more than 2 points behind)."""
    cells = _cell_means(rows)
    seeds = len({r["seed"] for r in rows})
    parts = []
    for name in estimators_in(rows):
        lines = [
            f"### {name}",
            "",
            "| data set | preprocessing | majority | LogisticRegression(C=1) | ε=1e6 | − LR | ConvergenceWarnings "
            "at ε=1e6 | ε=1 | diffprivlib ε=1 | − diffprivlib |",
            "|" + "---|" * 10,
        ]
        behind_lr, behind_dpl, gaps, warned = [], [], [], 0.0
        for (data, pre), m in cells.items():
            big, small = m[f"{name} 1e+06"], m[f"{name} 1"]
            dpl = m.get("dpl 1", math.nan)
            lr_gap, dpl_gap = big - m["sklearn"], small - dpl
            warned += m[f"{name} convergence warnings 1e+06"]
            gaps.append(dpl_gap)
            if lr_gap < -1.0:
                behind_lr.append(f"{data} + {pre} ({lr_gap:+.1f})")
            if dpl_gap < -2.0:
                behind_dpl.append(f"{data} + {pre} ({dpl_gap:+.1f})")
            lines.append(
                f"| {data} | {pre} | {m['majority']:.1f} | {m['sklearn']:.1f} | {big:.1f} | {_signed(lr_gap)} "
                f"| {m[f'{name} convergence warnings 1e+06']:.0f} | {small:.1f} | {_number(dpl)} | {_signed(dpl_gap)} |"
            )
        lines += [
            "",
            f"{name}, {seeds} seeds: at ε = 1e6, {len(cells) - len(behind_lr)} of {len(cells)} cells within 1 point of "
            f"LogisticRegression(C=1)"
            + (f" (more than 1 behind: {'; '.join(behind_lr)})" if behind_lr else "")
            + f", {warned:.0f} ConvergenceWarnings; at ε = 1, ahead of diffprivlib by {_signed(float(np.mean(gaps)))} "
            "points on average"
            + (f", more than 2 behind on {'; '.join(behind_dpl)}." if behind_dpl else ", never more than 2 behind."),
        ]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def timing_text(timing: dict[str, Any]) -> str:
    """One line per estimator: its median wall time and its ratio to ``LogisticRegression()``'s."""
    sklearn = timing["seconds"]["LogisticRegression"]
    lines = [
        f"Fit time, 10^4 rows × 50 features, defaults (ε = 1), wall seconds, median of {timing['repeats']} "
        f"(load average {timing['load_average']:.1f} on {os.cpu_count()} cores): LogisticRegression() {sklearn:.2f} s"
    ]
    lines += [f"- {name}: {timing['seconds'][name]:.2f} s ({ratio:.1f}×)" for name, ratio in timing["ratio"].items()]
    return "\n".join(lines)


def plot(rows: Sequence[dict], path: Path) -> None:
    """Per data set × preprocessing, mean test accuracy of every model at ε = 1 (top) and ε = 10^6
    (bottom), with the majority rate; saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = _cell_means(rows)
    labels = [f"{name.split(' (')[0].replace(' vs rest', '')}\n{pre.replace('Scaler', '')}" for name, pre in cells]
    x = np.arange(len(cells))
    names = estimators_in(rows)
    markers = "o^vD"
    width = 0.6 / max(len(names), 1)

    def mean(column: str) -> np.ndarray:
        return np.array([m.get(column, math.nan) for m in cells.values()])

    figure, axes = plt.subplots(2, 1, figsize=(12, 8), sharex=True)
    for axis, epsilon in zip(axes, EPSILONS, strict=True):
        axis.bar(x, mean("majority"), width=0.9, color="0.88", label="majority class")
        axis.plot(x, mean("sklearn"), "k_", markersize=26, markeredgewidth=2, label="LogisticRegression(C=1)")
        for k, name in enumerate(names):
            offset = -0.3 + width * (k + 0.5)
            axis.plot(x + offset, mean(f"{name} {epsilon:g}"), markers[k], color=f"C{k}", markersize=6, label=name)
        axis.plot(x + 0.38, mean(f"dpl {epsilon:g}"), "s", color="C7", markersize=6, label="diffprivlib 0.6.6")
        axis.set_ylim(20, 101)
        axis.set_ylabel("test accuracy (%)")
        budget = "ε = 1, δ = 1e-5 (diffprivlib and Decentralized: δ = 0)" if epsilon == 1.0 else f"ε = {epsilon:g}"
        axis.set_title(budget, fontsize=10)
        axis.grid(axis="y", alpha=0.3)
    axes[0].legend(loc="lower left", fontsize=7, ncol=4)
    axes[1].set_xticks(x, labels, fontsize=8)
    figure.suptitle("Mean test accuracy over seeds (70/30 splits), same rows and data bound for every model")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _signed(points: float) -> str:
    return "n/a" if math.isnan(points) else f"{points:+.1f}"


def _number(points: float) -> str:
    return "n/a" if math.isnan(points) else f"{points:.1f}"


def join(paths: Sequence[Path]) -> tuple[list[dict], dict[str, Any] | None]:
    """The rows of several runs' JSON merged by (data set, preprocessing, seed), and the last timing found."""
    merged: dict[tuple[str, str, int], dict] = {}
    timing = None
    for path in paths:
        found = json.loads(path.read_text())
        for row in found["rows"]:
            merged.setdefault((row["data"], row["pre"], row["seed"]), {}).update(row)
        timing = found.get("fit_time") or timing
    return list(merged.values()), timing


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds per data set and preprocessing (default 5)")
    parser.add_argument("--dpl-python", default=DEFAULT_DPL_PYTHON, help="the python of diffprivlib's virtualenv")
    parser.add_argument("--draws", type=int, default=3, help="noise draws per split at ε = 1 (default 3)")
    parser.add_argument("--estimators", nargs="+", choices=sorted(ESTIMATORS), default=list(ESTIMATORS))
    parser.add_argument("--out", type=Path, help="also write the rows and timings as JSON")
    parser.add_argument("--table", type=Path, help="also write the Markdown table")
    parser.add_argument("--plot", type=Path, help="also draw the accuracies (PNG)")
    timing_mode = parser.add_mutually_exclusive_group()
    timing_mode.add_argument("--no-timing", action="store_true", help="skip the fit-time measurement")
    timing_mode.add_argument("--timing-only", action="store_true", help="only the fit-time measurement")
    timing_mode.add_argument("--join", type=Path, nargs="+", help="merge these runs' JSON instead of running")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds must be a positive integer, got {args.seeds}")
    if args.draws < 1:
        parser.error(f"--draws must be a positive integer, got {args.draws}")
    rows: list[dict] = []
    timing = None
    if args.join:
        missing = [str(path) for path in args.join if not path.is_file()]
        if missing:
            parser.error(f"--join needs existing JSON files, missing: {', '.join(missing)}")
        rows, timing = join(args.join)
    elif not args.timing_only:
        tasks = splits(args.seeds)
        for task in tasks:
            scores = sklearn_scores(task)
            for name in args.estimators:
                scores.update(estimator_scores(task, name, args.draws))
            rows.append({"data": task["data"], "pre": task["pre"], "seed": task["seed"], **scores})
        peer = diffprivlib_scores(tasks, args.dpl_python, args.draws)
        if peer is not None:
            for row, found in zip(rows, peer, strict=True):
                row.update(found)
    if not (args.join or args.no_timing):
        timing = fit_time(args.estimators)
    if args.out is not None:  # before the table, which a run's rows are all it needs to redraw
        args.out.write_text(json.dumps({"rows": rows, "fit_time": timing}, indent=1))
    text = table(rows) if rows else ""
    if timing is not None:
        text += ("\n\n" if text else "") + timing_text(timing)
    print(text)
    if args.table is not None:
        args.table.write_text(text + "\n")
    if args.plot is not None and rows:
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
