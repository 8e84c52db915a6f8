"""How a solver's :class:`~solvers.engine.result.Result` reads in a notebook (``_repr_html_``,
``_repr_markdown_``) and as a pandas DataFrame (``to_frame``): the privacy it reports by accountant
and the last iteration's metrics; nothing is computed beyond what the run recorded."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import numpy as np

from accountants.display import data_frame, html_table, markdown_table, number

if TYPE_CHECKING:
    from solvers.engine.result import Result

__all__ = ["result_columns", "result_frame", "result_html", "result_markdown", "result_title"]


def result_title(result: Result) -> str:
    """One line: solver, trials, model shape, privacy scope and δ."""
    name = result.solver.get("name", "?")
    shape = "×".join(map(str, result.model.shape))
    delta = "no δ (not private)" if result.delta is None else f"δ = {result.delta:g}"
    trials = f"{result.n_trials} trial{'' if result.n_trials == 1 else 's'}"
    return f"{name}: {trials}, model {shape}, {delta}; privacy of {result.privacy_scope}"


def _privacy_rows(result: Result) -> list[list[str]]:
    return [[name, number(value)] for name, value in sorted(result.privacy.items(), key=lambda item: item[1])]


def _metric_rows(result: Result) -> list[list[str]]:
    """Each metric at the last iteration (mean ± standard deviation over a batched run's trials)."""
    rows = []
    for name, values in result.history.items():
        last = np.asarray(values)[-1] if len(values) else np.asarray([])
        if last.size == 0:
            continue
        if last.ndim == 0:
            rows.append([name, f"{float(last):.6g}"])
        else:
            rows.append([name, f"{float(np.mean(last)):.6g} ± {float(np.std(last)):.2g}"])
    return rows


def _tables(result: Result) -> list[tuple[tuple[str, str], list[list[str]]]]:
    """The result's tables, (headers, rows) each: the accountants' ε, then the last iteration's metrics."""
    tables = []
    if result.privacy:
        tables.append((("accountant", "ε (upper bound, worst agent)"), _privacy_rows(result)))
    metrics = _metric_rows(result)
    if metrics:
        tables.append((("metric at the last iteration", "value"), metrics))
    return tables


def result_markdown(result: Result) -> str:
    parts = [f"**{result_title(result)}**", *(markdown_table(headers, rows) for headers, rows in _tables(result))]
    return "\n\n".join(parts)


def result_html(result: Result) -> str:
    title = f"<p><b>{html.escape(result_title(result))}</b></p>"
    return "<div>" + title + "".join(html_table(headers, rows) for headers, rows in _tables(result)) + "</div>"


def result_columns(result: Result) -> dict[str, list[Any]]:
    """The per-iteration history as columns: iteration (from 1), trial for a batched run, one column per metric."""
    histories = {name: np.asarray(values) for name, values in result.history.items()}
    n_iterations = max((len(values) for values in histories.values()), default=0)
    trials = result.n_trials if result.batched else 1
    columns: dict[str, list[Any]] = {"iteration": [k + 1 for k in range(n_iterations) for _ in range(trials)]}
    if result.batched:
        columns["trial"] = [r for _ in range(n_iterations) for r in range(trials)]
    for name, values in histories.items():
        if len(values) != n_iterations:
            raise ValueError(f"history {name!r} has {len(values)} iterations, the others {n_iterations}")
        columns[name] = np.broadcast_to(values.reshape(n_iterations, -1), (n_iterations, trials)).ravel().tolist()
    return columns


def result_frame(result: Result) -> Any:
    return data_frame(result_columns(result), "Result")
