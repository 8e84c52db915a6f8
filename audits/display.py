"""How an :class:`~audits.api.AuditReport` reads: one line for ``repr``, and the verdict first, the
claim, every lower and upper bound and the attacks for a notebook (``_repr_html_``,
``_repr_markdown_``), from the same report as report.json. User strings (the mechanism's name, the
claim, the attacks' names) are HTML-escaped."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

from accountants.display import html_table, markdown_table

__all__ = ["report_html", "report_markdown", "report_summary"]

LOWER_COLUMNS = ("lower bound (empirical)", "assumption", "ε ≥", "μ ≥")
UPPER_COLUMNS = ("upper bound", "ε ≤", "verdict")
ATTACK_COLUMNS = ("attack", "AUROC", "TPR at 0.1% FPR", "TPR at 1% FPR")


def _num(value: object) -> str:
    if value is None:
        return "—"
    number = float(value)  # type: ignore[arg-type]  # the report's numbers are floats or None
    return "∞" if math.isinf(number) else f"{number:.4f}"


def _rounded(value: object) -> float | None:
    return None if value is None else round(float(value), 4)  # type: ignore[arg-type]  # floats or None


def report_summary(report: Mapping[str, Any]) -> str:
    """``repr(report)``: one line with the verdict, the subject, the claim and the bounds by name."""
    lower = {method: _rounded(entry["epsilon"]) for method, entry in report["lower_bounds"].items()}
    upper = {name: _rounded(value) for name, value in report["epsilon_upper"].items()}
    return (
        f"AuditReport(verdict={report['verdict']!r}, solver={report['solver']!r}, claim={report['claim']!r}, "
        f"trials={report['trials']}, epsilon_lower={lower}, epsilon_upper={upper})"
    )


def _headline(report: Mapping[str, Any]) -> str:
    return f"{report['verdict']}: {report['solver']} against the claim {report['claim']}"


def _setting(report: Mapping[str, Any]) -> str:
    return (
        f"{report['trials']} trials per hypothesis, δ = {report['delta']:g}, {report['confidence']:.0%} confidence, "
        f"attack: {report['attack']['name']}"
    )


def _tables(report: Mapping[str, Any]) -> list[tuple[tuple[str, ...], list[list[str]]]]:
    lower = [
        [method, str(entry.get("assumption_short", "")), _num(entry["epsilon"]), _num(entry.get("mu"))]
        for method, entry in report["lower_bounds"].items()
    ]
    claimed = report.get("claimed_accountant")
    upper = [
        [name + (" (the claim's)" if name == claimed else ""), _num(value), str(report["verdicts"][name])]
        for name, value in report["epsilon_upper"].items()
    ]
    attacks = [
        [
            name,
            f"{entry['metrics']['auroc']:.4f}",
            f"{entry['metrics']['tpr_at_0.1%_fpr']:.4f}",
            f"{entry['metrics']['tpr_at_1%_fpr']:.4f}",
        ]
        for name, entry in report.get("attacks", {}).items()
    ]
    tables = [(LOWER_COLUMNS, lower), (UPPER_COLUMNS, upper)]
    return [*tables, (ATTACK_COLUMNS, attacks)] if attacks else tables


def report_markdown(report: Mapping[str, Any]) -> str:
    parts = [f"**{_headline(report)}**", _setting(report)]
    parts += [markdown_table(headers, rows) for headers, rows in _tables(report)]
    if report.get("epsilon_meaning"):
        parts.append(str(report["epsilon_meaning"]))
    return "\n\n".join(parts)


def report_html(report: Mapping[str, Any]) -> str:
    colour = "#b00020" if report["verdict"] == "VIOLATION" else "#1b5e20"
    parts = [
        f'<p style="font-size:1.2em;color:{colour}"><b>{html.escape(_headline(report))}</b></p>',
        f"<p>{html.escape(_setting(report))}</p>",
        *(html_table(headers, rows) for headers, rows in _tables(report)),
    ]
    if report.get("epsilon_meaning"):
        parts.append(f"<p>{html.escape(str(report['epsilon_meaning']))}</p>")
    return "<div>" + "".join(parts) + "</div>"
