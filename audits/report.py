"""Audit reports: the terminal table, report.md (people), report.json (machines) and figures.

report.json never holds NaN or infinity: an infinite bound is written as null.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # attacks is imported on first use
    from attacks.base import AttackScores

__all__ = ["format_table", "json_ready", "write_figures", "write_report"]


def json_ready(value: Any) -> Any:
    """Plain JSON values; non-finite floats become None."""
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_ready(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def _num(value: float | None, digits: int = 4) -> str:
    if value is None or not math.isfinite(value):
        return "∞"
    return f"{value:.{digits}f}"


def _ratio(value: float | None) -> str:
    """A tightness ratio; "–" where the upper bound is infinite (no ratio)."""
    return "–" if value is None else f"{value:.3f}"


def format_table(report: Mapping[str, Any]) -> str:
    """The summary table printed on the terminal (Markdown-compatible)."""
    lines = [
        f"audit: {report['solver']} — {report['trials']} trials per hypothesis, δ = {report['delta']:g}, "
        f"{report['confidence']:.0%} confidence, attack: {report['attack']['name']}",
        "",
        "| lower bound (empirical) | ε ≥ | μ ≥ |",
        "|---|---|---|",
    ]
    for method, entry in report["lower_bounds"].items():
        mu = entry.get("mu")
        lines.append(
            f"| {method} ({entry['assumption_short']}) | {_num(entry['epsilon'])} | {'' if mu is None else _num(mu)} |"
        )
    methods = list(report["lower_bounds"])
    lines += ["", f"| upper bound | ε ≤ | verdict | tightness ({', '.join(methods)}) |", "|---|---|---|---|"]
    for name, value in report["epsilon_upper"].items():
        tag = " (paper's claim)" if name == report["claimed_accountant"] else ""
        tight = report["tightness_by_bound"][name]
        lines.append(
            f"| {name}{tag} | {_num(value)} | {report['verdicts'][name]} | "
            f"{', '.join(_ratio(tight[m]) for m in methods)} |"
        )
    lines += ["", "| attack | AUROC | TPR at 0.1% FPR | TPR at 1% FPR |", "|---|---|---|---|"]
    for attack, entry in report.get("attacks", {}).items():
        m = entry["metrics"]
        lines.append(
            f"| {attack}{' (white-box)' if entry['white_box'] else ''} | {m['auroc']:.4f} | "
            f"{m['tpr_at_0.1%_fpr']:.4f} | {m['tpr_at_1%_fpr']:.4f} |"
        )
    lines.append("")
    if report.get("exact_mu") is not None:
        lines.append(
            f"exact μ = {_num(report['exact_mu'])} (target agent, exact accountant); lower bounds use the first attack"
        )
    lines.append(
        f"VERDICT: {report['verdict']}; tightness (lower / smallest valid upper): "
        + ", ".join(f"{m} {_ratio(report['tightness'][m])}" for m in methods)
    )
    return "\n".join(lines)


_EXPLAIN = """\
## How to read this report

* **Lower bounds** are measured: the attack's scores on trials with the canary in (D) and out (D′)
  show that the mechanism cannot be (ε′, δ)-DP for any ε′ below the bound, with the stated
  confidence. *Clopper–Pearson* holds for any mechanism (worst case); *GDP* assumes the trade-off
  curve is Gaussian (true for Gaussian mechanisms such as DP-ADMM's, not for the Gamma-norm or
  randomized-response ones, where it is reported for information only) and is much tighter.
  Thresholds are chosen on 20 % of the trials and evaluated on the other 80 %.
* **Upper bounds** are what each accountant proves for the same releases of the target agent; the
  *paper's claim* is the bound the paper states (the moments accountant for DP-ADMM).
* **Verdict** per upper bound: *consistent* if no lower bound exceeds it, *VIOLATION* if one does
  (the claimed guarantee is false at the stated confidence). The overall verdict is VIOLATION if any
  upper bound is violated.
* **Tightness** = lower bound / smallest valid upper bound; 1 means the audit proves the accountant
  exact, values near 0 mean the attack (or the canary) is weak or the accountant loose.
"""


def write_report(report: Mapping[str, Any], out: Path) -> dict[str, Path]:
    """Write report.json and report.md into ``out`` (created); return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "report.json", "md": out / "report.md"}
    paths["json"].write_text(json.dumps(json_ready(report), indent=2, allow_nan=False, ensure_ascii=False))
    md = [f"# Privacy audit: `{report['solver']}`", "", format_table(report), "", "## Setup", ""]
    for key in ("claim", "epsilon_meaning", "canary", "solver_params", "seed", "runtime_seconds"):
        md.append(f"* **{key}**: {report.get(key)}")
    md += ["", "## Utility (final global model, trials on D)", ""]
    for key, value in report.get("utility", {}).items():
        md.append(f"* {key}: {_num(value)}")
    for section in report.get("sections", []):
        md += ["", f"## {section['title']}", "", section["markdown"].rstrip()]
    md += ["", "## Figures", ""]
    for figure in report.get("figures", []):
        md.append(f"![{figure}]({figure})")
    md += ["", _EXPLAIN]
    paths["md"].write_text("\n".join(md) + "\n")
    return paths


def write_figures(report: Mapping[str, Any], attacks: Sequence[AttackScores], out: Path) -> list[str]:
    """roc.png (every attack, linear and log-log), bounds.png (lower vs every upper bound),
    privacy_utility.png; ``attacks`` are ``attacks.AttackScores``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from audits.stats import roc_curve

    out.mkdir(parents=True, exist_ok=True)
    rocs = [(a.attack, roc_curve(a.scores_in, a.scores_out)) for a in attacks]
    roc = rocs[0][1]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8))
    for ax, log in zip(axes, (False, True), strict=True):
        for label, curve in rocs:
            ax.plot(curve.fpr, curve.tpr, label=f"{label} (AUROC {curve.auroc:.3f})")
        grid = np.logspace(-5, 0, 200) if log else np.linspace(0, 1, 200)
        ax.plot(grid, grid, "k:", lw=0.8, label="chance")
        if log:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(1.0 / roc.n_out, 1)
            ax.set_ylim(1.0 / roc.n_in, 1)
        ax.set_xlabel("false-positive rate")
        ax.set_ylabel("true-positive rate")
        ax.set_title(f"ROC ({'log-log' if log else 'linear'})")
        ax.legend(loc="lower right", fontsize=8)
    fig.suptitle(f"{report['solver']}: {report['trials']} trials per hypothesis")
    fig.tight_layout()
    fig.savefig(out / "roc.png", dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    names = list(report["epsilon_upper"])
    values = [report["epsilon_upper"][n] for n in names]
    ax.barh(
        names,
        [v if v is not None and math.isfinite(v) else 0 for v in values],
        color="tab:blue",
        alpha=0.6,
        label="upper bounds (accountants)",
    )
    colours = {"gdp": "tab:red", "clopper_pearson": "tab:orange"}
    for method, entry in report["lower_bounds"].items():
        ax.axvline(
            entry["epsilon"],
            color=colours.get(method, "k"),
            ls="--",
            label=f"lower bound, {method}: {entry['epsilon']:.3f}",
        )
    ax.set_xlabel(f"ε at δ = {report['delta']:g}")
    ax.set_title(f"{report['solver']}: empirical lower bounds vs upper bounds — {report['verdict']}")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out / "bounds.png", dpi=110)
    plt.close(fig)

    figures = ["roc.png", "bounds.png"]
    utility = report.get("utility", {})
    if "test_accuracy" in utility:
        fig, ax = plt.subplots(figsize=(6, 4.5))
        best = min(v for v in values if v is not None)
        ax.errorbar(
            [best],
            [utility["test_accuracy"]],
            yerr=[[utility.get("test_accuracy_std", 0.0)]],
            fmt="o",
            label="private (upper bound)",
        )
        for method, entry in report["lower_bounds"].items():
            ax.plot(
                [entry["epsilon"]],
                [utility["test_accuracy"]],
                "x",
                color=colours.get(method, "k"),
                label=f"same model, audited lower bound ({method})",
            )
        if "test_accuracy_nonprivate" in utility:
            ax.axhline(utility["test_accuracy_nonprivate"], color="k", ls=":", label="non-private (σ = 0)")
        ax.set_xlabel(f"ε at δ = {report['delta']:g}")
        ax.set_ylabel("test accuracy of w^T")
        ax.set_title("privacy vs utility")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "privacy_utility.png", dpi=110)
        plt.close(fig)
        figures.append("privacy_utility.png")
    return figures
