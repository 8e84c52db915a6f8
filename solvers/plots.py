"""Figures of per-iteration metrics (objective, accuracy, ...) for several algorithms.

matplotlib is imported inside the function, with the Agg canvas and no pyplot, so importing this
module (or ``solvers``) never loads matplotlib or touches a global backend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from solvers.engine.result import Result

__all__ = ["plot_history"]

_LABELS = {
    "objective": "objective F(w^k) (sum over agents)",
    "objective_mean": "objective F(w^k)/N",
    "empirical_loss": "empirical loss (sum over agents)",
    "empirical_loss_mean": "empirical loss / N",
    "relative_gap": "relative objective gap (F(w^k) − F*)/|F*|",
    "gap": "objective gap F(w^k) − F*",
    "test_accuracy": "test accuracy of w^k",
    "test_accuracy_average": "test accuracy of the ergodic mean",
    "consensus": "consensus error max_i ‖ŵ_i − w‖",
}


def plot_history(
    runs: Mapping[str, Result | Sequence[Result]],
    out_dir: str | Path,
    *,
    metrics: Sequence[str] = ("objective_mean", "test_accuracy"),
    prefix: str = "history",
    title: str = "",
) -> list[Path]:
    """Save one PNG per metric: mean over all runs and trials of each algorithm, ± 1 std band.

    Args:
      runs: {algorithm label: a Result or a list of Results (e.g. one per seed)}.
      out_dir: directory for the figures (created if missing).
      metrics: history keys to plot; a metric with values ≤ 0 or spanning under a decade gets a
        linear y axis, otherwise a logarithmic one.
      prefix: file names are ``{prefix}_{metric}.png``.
      title: figure title.

    Returns:
      The paths written.

    Raises:
      KeyError: a metric missing from some run's history.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for metric in metrics:
        figure = Figure(figsize=(6.4, 4.2), constrained_layout=True)
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
        means = []
        for label, results in runs.items():
            curves = _curves(results if isinstance(results, Sequence) else [results], metric)
            iterations = np.arange(1, curves.shape[0] + 1)
            mean, std = curves.mean(axis=1), curves.std(axis=1)
            (line,) = axes.plot(iterations, mean, label=label)
            axes.fill_between(iterations, mean - std, mean + std, color=line.get_color(), alpha=0.2, linewidth=0)
            means.append(mean)
        values = np.concatenate(means)
        if np.all(values > 0) and values.max() > 10 * values.min():
            axes.set_yscale("log")
        axes.set_xlabel("iteration k")
        axes.set_ylabel(_LABELS.get(metric, metric))
        axes.set_title(title)
        axes.grid(True, alpha=0.3)
        axes.legend()
        path = out / f"{prefix}_{metric}.png"
        figure.savefig(path, dpi=120)
        paths.append(path)
    return paths


def _curves(results: Sequence[Result], metric: str) -> np.ndarray:
    """(T, runs × trials) curves of one metric."""
    columns = []
    for result in results:
        if metric not in result.history:
            raise KeyError(f"metric {metric!r} not in the history (keys: {sorted(result.history)})")
        values = result.history[metric]
        columns.append(values[:, None] if values.ndim == 1 else values)
    return np.concatenate(columns, axis=1)
