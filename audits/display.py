"""How an :class:`~audits.verdict.AuditReport` reads: one line for ``repr``, and the verdict first, the
claim and whose it is, every lower and upper bound (on one ε axis and in tables) and the attacks for a
notebook (``_repr_html_``, ``_repr_markdown_``), from the same report as report.json. report.html
(:mod:`audits.report_html`) opens with the same HTML. User strings (the mechanism's name, the claim,
the attacks' names) are HTML-escaped."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

from accountants.display import html_table, markdown_table
from audits.report_svg import bounds_svg
from audits.report_text import claim_label, claim_owner

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


def _owner(report: Mapping[str, Any]) -> str:
    """Whose claim it is and its ε, or "" when the report claims no bound."""
    owner = claim_owner(report)
    if owner is None:
        return ""
    claimed = report.get("claimed_epsilon")
    return f"The claim is {owner}: ε ≤ {_num(claimed)} at δ = {report['delta']:g}."


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
    upper = [
        [name + claim_label(name, report), _num(value), str(report["verdicts"][name])]
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
    parts = [f"**{_headline(report)}**", _setting(report), *([_owner(report)] if _owner(report) else [])]
    parts += [markdown_table(headers, rows) for headers, rows in _tables(report)]
    if report.get("epsilon_meaning"):
        parts.append(str(report["epsilon_meaning"]))
    return "\n\n".join(parts)


def report_html(report: Mapping[str, Any]) -> str:
    """The verdict, the setting, whose claim it is, every bound on one ε axis (inline SVG) and the
    tables, as one ``<div>``: a notebook's display and the top of report.html."""
    colour = "#b00020" if report["verdict"] == "VIOLATION" else "#1b5e20"
    parts = [
        f'<p style="font-size:1.2em;color:{colour}"><b>{html.escape(_headline(report))}</b></p>',
        f"<p>{html.escape(_setting(report))}</p>",
        *([f"<p>{html.escape(_owner(report))}</p>"] if _owner(report) else []),
        f"<figure>{bounds_svg(report)}</figure>",
        *(html_table(headers, rows) for headers, rows in _tables(report)),
    ]
    if report.get("epsilon_meaning"):
        parts.append(f"<p>{html.escape(str(report['epsilon_meaning']))}</p>")
    return "<div>" + "".join(parts) + "</div>"
