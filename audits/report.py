"""Audit reports: the terminal table, report.md and report.html (people), report.json (machines) and figures.

report.md and report.html (:mod:`audits.report_html`, self-contained: figures inline, no network) have a
section only where the report has content, and say whose claim the claimed bound is (the user's, or a
paper's with its citation, :mod:`audits.report_text`).

report.json never holds NaN or infinity: an infinite bound is written as null. Its keys are described by
the JSON Schema shipped as ``audits/schema/report.schema.json`` (:func:`report_schema`); every report
carries the schema's version (``schema_version``) and the toolkit's (``toolkit_version``). Reports and
figures are written all or none (:mod:`audits.atomic`): never a half file next to a previous report.
"""

from __future__ import annotations

import functools
import json
import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from audits.atomic import write_files
from audits.report_html import report_page
from audits.report_text import claim_label, reading_notes

if TYPE_CHECKING:  # attacks is imported on first use
    from attacks.base import AttackScores

__all__ = [
    "UTILITY_METRICS",
    "bounds_figure",
    "format_table",
    "json_ready",
    "privacy_utility_figure",
    "report_schema",
    "roc_figure",
    "utility_metric",
    "write_audit",
    "write_privacy_utility",
]


def report_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of report.json, as shipped in ``audits/schema/report.schema.json``.
    Validate a report with any JSON Schema validator, e.g. ``jsonschema.validate(report, report_schema())``."""
    text = resources.files("audits").joinpath("schema").joinpath("report.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


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
        tag = claim_label(name, report)
        tight = report["tightness_by_bound"][name]
        lines.append(
            f"| {name}{tag} | {_num(value)} | {report['verdicts'][name]} | "
            f"{', '.join(_ratio(tight[m]) for m in methods)} |"
        )
    lines += ["", "| attack | AUROC | TPR at 0.1% FPR | TPR at 1% FPR |", "|---|---|---|---|"]
    for attack, entry in report.get("attacks", {}).items():
        m = entry["metrics"]
        tag = " (white-box)" if entry["white_box"] and "white-box" not in attack else ""  # not twice
        lines.append(f"| {attack}{tag} | {m['auroc']:.4f} | {m['tpr_at_0.1%_fpr']:.4f} | {m['tpr_at_1%_fpr']:.4f} |")
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


#: The setup lines of report.md, shown when the report has a value for them.
_SETUP = (
    "claim",
    "epsilon_meaning",
    "canary",
    "solver_params",
    "seed",
    "score_resolution",
    "command",
    "runtime_seconds",
    "toolkit_version",
)


def report_markdown(report: Mapping[str, Any]) -> str:
    """report.md: the table, the setup, then a section only where the report has content (utility, the
    target's own sections, figures) and the reading notes for this report's claim."""
    md = [f"# Privacy audit: `{report['solver']}`", "", format_table(report), "", "## Setup", ""]
    md += [f"* **{key}**: {report[key]}" for key in _SETUP if report.get(key) not in (None, "", {}, [])]
    if report.get("utility"):
        trials = f"the first {report['utility_trials']:,} trials on D" if "utility_trials" in report else "trials on D"
        md += ["", f"## Utility (final global model, {trials})", ""]
        md += [f"* {key}: {_num(value)}" for key, value in report["utility"].items()]
    for section in report.get("sections", []):
        md += ["", f"## {section['title']}", "", section["markdown"].rstrip()]
    if report.get("figures"):
        md += ["", "## Figures", "", *(f"![{figure}]({figure})" for figure in report["figures"])]
    md += ["", "## How to read this report", "", *(f"* {note}" for note in reading_notes(report))]
    return "\n".join(md) + "\n"


def _report_writers(
    report: Mapping[str, Any], attacks: Sequence[AttackScores], figures: Mapping[str, bytes]
) -> dict[str, Callable[[Path], object]]:
    """report.html, report.md and report.json (written last, so that a complete report.json marks a
    complete report)."""
    text = json.dumps(json_ready(report), indent=2, allow_nan=False, ensure_ascii=False)
    markdown = report_markdown(report)
    page = report_page(report, attacks, figures)
    return {
        "report.html": lambda path: path.write_text(page, encoding="utf-8"),
        "report.md": lambda path: path.write_text(markdown, encoding="utf-8"),
        "report.json": lambda path: path.write_text(text, encoding="utf-8"),
    }


def write_audit(
    report: dict[str, Any],
    attacks: Sequence[AttackScores],
    out: Path,
    *,
    figures: bool = True,
    command: str | None = None,
) -> dict[str, Path]:
    """Write an audit's report.html, report.md, report.json and (``figures``) its figures into ``out``,
    all or none (:mod:`audits.atomic`): a failure (a full disk) leaves ``out`` as it was, a previous report
    included. ``report["figures"]`` is set to the figures' file names, ``report["versions"]`` (unless
    set) to the versions of Python, NumPy and SciPy that ran it and ``report["command"]`` to ``command``
    (the command line that ran the audit, when one did); report.html shows the figures inline.

    Returns:
      "html", "md", "json" and each figure's file name → its path.
    """
    pngs = {name: _png(draw) for name, draw in _drawers(report, attacks).items()} if figures else {}
    if figures:
        report["figures"] = list(pngs)
    report.setdefault("versions", versions())
    if command is not None:
        report["command"] = command
    writers: dict[str, Callable[[Path], object]] = {
        name: functools.partial(Path.write_bytes, data=png) for name, png in pngs.items()
    }
    written = write_files(out, {**writers, **_report_writers(report, attacks, pngs)})
    return {
        "html": written.pop("report.html"),
        "md": written.pop("report.md"),
        "json": written.pop("report.json"),
        **written,
    }


def versions() -> dict[str, str]:
    """The versions of Python and of the numerical libraries an audit's numbers depend on."""
    import platform

    import scipy

    return {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__}


def _drawers(report: Mapping[str, Any], attacks: Sequence[AttackScores]) -> dict[str, Callable[[], Any]]:
    """The figures of :func:`write_audit` by file name, each a function that draws it: roc.png (every attack,
    linear and log-log; attacks with identical ROC curves share one line and a note says why), bounds.png
    (every upper bound with its value, ∞ drawn as such, against the lower bounds) and, when the report has a
    test accuracy, privacy_utility.png (the audited setting's accuracy against its ε interval, the
    non-private accuracy for reference)."""
    drawers: dict[str, Callable[[], Any]] = {
        "roc.png": lambda: roc_figure(report, attacks),
        "bounds.png": lambda: bounds_figure(report),
    }
    if "test_accuracy" in report.get("utility", {}):
        drawers["privacy_utility.png"] = lambda: privacy_utility_figure([report], "test_accuracy")
    return drawers


def _png(draw: Callable[[], Any]) -> bytes:
    """A figure drawn and saved as PNG, in memory."""
    import io

    buffer = io.BytesIO()
    _save(draw, buffer)
    return buffer.getvalue()


def _save(draw: Callable[[], Any], path: Path | BinaryIO) -> None:
    """Draw a figure and save it as PNG at ``path`` (or into a binary file)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = draw()
    try:
        fig.savefig(path, format="png", dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)


#: Line styles that keep partly overlapping ROC curves apart.
_STYLES = ("-", "--", "-.", ":")
#: Colours of the lower bounds (vertical lines) in bounds.png.
_LOWER_COLOURS = {"gdp": "tab:purple", "clopper_pearson": "black"}
#: Background of the value labels, so that a lower-bound line crossing one leaves it readable.
_LABEL_BOX = {"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1.0}


def _why_identical(members: Sequence[AttackScores]) -> str:
    """Why attacks with one ROC curve coincide: they order every trial the same way."""
    names = " and ".join(a.attack for a in members)
    note = f"{names}: identical ROC, because their scores order every trial the same way"
    fits = [
        a.metadata["fit"] for a in members if isinstance(a.metadata.get("fit"), list) and len(a.metadata["fit"]) == 4
    ]
    if fits:  # LiRA (Carlini et al. 2022): log N(z; μ_in, σ_in²) − log N(z; μ_out, σ_out²) of the margin z
        mu_in, sd_in, mu_out, sd_out = fits[0]
        note += (
            f" (LiRA's fitted Gaussians of the margin y·wᵀx, mean {mu_in:.3g} vs {mu_out:.3g}, standard deviation "
            f"{sd_in:.3g} vs {sd_out:.3g}, give a likelihood ratio that is monotone in the margin over the "
            "observed trials, as the loss is: both rank the trials by the margin)"
        )
    return note


def roc_figure(report: Mapping[str, Any], attacks: Sequence[AttackScores]) -> Any:
    """The ROC of every attack (``attacks.AttackScores``), linear and log-log, as a matplotlib Figure
    (the caller saves and closes it). Attacks whose ROC curves are identical share one line, labelled
    "A = B", and a note under the axes says why; the others differ in colour and line style. On the
    log-log axes a rate of 0 is drawn at 1/(2n), and TPR = 1 stays inside the frame. Each curve is
    computed once, in bounded memory, and drawn through at most a few thousand of its vertices, within
    a thousandth of each axis span of the whole curve (:func:`audits.figure_roc.figure_roc`)."""
    import matplotlib.pyplot as plt

    from audits.figure_roc import FigureROC
    from audits.histogram_scores import curve as attack_curve

    groups: list[tuple[list[AttackScores], FigureROC]] = []
    for attack in attacks:
        curve = attack_curve(attack)  # from its scores or its histograms (audits.histogram_scores)
        match = next((g for g in groups if g[1].digest == curve.digest), None)
        if match is None:
            groups.append(([attack], curve))
        else:
            match[0].append(attack)
    n_in, n_out = groups[0][1].n_in, groups[0][1].n_out
    floor_x, floor_y = 0.5 / n_out, 0.5 / n_in
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8))
    for ax, log in zip(axes, (False, True), strict=True):
        for index, (members, curve) in enumerate(groups):
            label = " = ".join(a.attack for a in members) + f" (AUROC {curve.auroc:.3f})"
            fpr, tpr = (
                (np.maximum(curve.fpr, floor_x), np.maximum(curve.tpr, floor_y)) if log else (curve.fpr, curve.tpr)
            )
            ax.plot(fpr, tpr, _STYLES[index % len(_STYLES)], color=f"C{index}", lw=1.6, label=textwrap.fill(label, 60))
        grid = np.logspace(math.log10(min(floor_x, floor_y)), 0, 200) if log else np.linspace(0, 1, 200)
        ax.plot(grid, grid, "k:", lw=0.8, label="chance")
        if log:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(floor_x, 1.0)
            ax.set_ylim(floor_y, 1.3)  # room above TPR = 1, so a perfect attack's line is not hidden by the frame
            ax.set_xlabel(f"false-positive rate (0 drawn at 1/(2·{n_out}))")
            ax.set_ylabel(f"true-positive rate (0 drawn at 1/(2·{n_in}))")
        else:
            ax.set_xlabel("false-positive rate")
            ax.set_ylabel("true-positive rate")
        ax.set_title(f"ROC ({'log-log' if log else 'linear'})")
        ax.legend(loc="lower right", fontsize=8)
    fig.suptitle(f"{report['solver']}: {report['trials']} trials per hypothesis")
    notes = [_why_identical(members) for members, _ in groups if len(members) > 1]
    fig.tight_layout()
    if notes:
        fig.text(0.01, -0.01, textwrap.fill(" ".join(notes), 170), fontsize=8, va="top", ha="left")
    return fig


def bounds_figure(report: Mapping[str, Any]) -> Any:
    """Every upper bound as a bar with its value (∞ as a hatched bar to the edge marked "∞"), coloured
    by its verdict, the claimed bound in bold with whose claim it is, and the deciding lower bounds as
    vertical lines; the legend sits below the axes and the verdict on its own title line. A matplotlib
    Figure (the caller saves and closes it)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    names = list(report["epsilon_upper"])
    values = [report["epsilon_upper"][n] for n in names]
    finite = [v for v in values if v is not None and math.isfinite(v)]
    lowers = {m: e["epsilon"] for m, e in report["lower_bounds"].items() if e["epsilon"] is not None}
    right = 1.22 * max([*finite, *lowers.values(), 1e-3])
    fig, ax = plt.subplots(figsize=(8.5, 2.2 + 0.45 * len(names)))
    colours = {"consistent": "tab:blue", "VIOLATION": "tab:red"}
    for row, (name, value) in enumerate(zip(names, values, strict=True)):
        colour = colours.get(report["verdicts"].get(name, "consistent"), "tab:blue")
        if value is None or not math.isfinite(value):
            ax.barh(row, right, color=colour, alpha=0.25, hatch="//", edgecolor=colour)
            ax.text(right * 0.99, row, "∞ (no finite bound)", va="center", ha="right", fontsize=9, bbox=_LABEL_BOX)
        else:
            ax.barh(row, value, color=colour, alpha=0.6)
            ax.text(value + 0.01 * right, row, _num(value, 3), va="center", ha="left", fontsize=9, bbox=_LABEL_BOX)
    claimed = report.get("claimed_accountant")
    labels = [
        n + (f"\n{textwrap.fill(claim_label(n, report).strip(), 34)}" if claim_label(n, report) else "") for n in names
    ]
    ax.set_yticks(range(len(names)), labels)  # whose claim on lines of its own: the axes keep their width
    for tick, name in zip(ax.get_yticklabels(), names, strict=True):
        tick.set_fontweight("bold" if name == claimed else "normal")
    ax.invert_yaxis()  # the smallest upper bound on top
    handles: list[Any] = [
        Patch(color=colours[v], alpha=0.6, label=f"upper bound, {v}")
        for v in colours
        if v in {report["verdicts"].get(n) for n in names}
    ]
    for method, epsilon in lowers.items():
        entry = report["lower_bounds"][method]
        handles.append(
            ax.axvline(
                epsilon,
                color=_LOWER_COLOURS.get(method, "tab:green"),
                ls="--",
                lw=1.4,
                label=f"lower bound, {method} ({entry['assumption_short']}): {_num(epsilon, 3)}",
            )
        )
    ax.set_xlim(0, right)
    ax.set_xlabel(f"ε at δ = {report['delta']:g}")
    title = textwrap.fill(f"{report['solver']}: empirical lower bounds vs upper bounds", 70)
    fig.suptitle(f"{title}\nverdict: {report['verdict']}")  # centred on the figure, not on the axes
    fig.tight_layout()
    # under the x-axis label, whatever the axes' height: it covers no bar and no label
    below = ax.xaxis.label.get_window_extent().y0 / fig.bbox.height - 0.02
    ax.legend(
        handles=handles,
        fontsize=8,
        loc="upper center",
        bbox_to_anchor=(0.5, below),
        bbox_transform=fig.transFigure,
        ncol=2,
    )
    return fig


#: Utility keys the privacy–utility figure can show, in order of preference, and which way is better.
UTILITY_METRICS = {
    "test_accuracy": "test accuracy of the final model w^T",
    "objective": "objective F(w^T), lower is better",
}


def utility_metric(reports: Sequence[Mapping[str, Any]]) -> str | None:
    """The first of :data:`UTILITY_METRICS` that every report has, or None."""
    return next((m for m in UTILITY_METRICS if all(m in r.get("utility", {}) for r in reports)), None)


def write_privacy_utility(
    reports: Sequence[Mapping[str, Any]], out: Path, labels: Sequence[str] | None = None
) -> Path | None:
    """privacy_utility.png in ``out`` for audits of one target at several privacy levels (``--epsilon``
    with several values): each audit's utility against the interval its ε lies in, marked with its
    ``labels`` entry (e.g. the ``--epsilon`` value). None (nothing is written) if the reports share no
    utility metric."""
    metric = utility_metric(reports)
    if metric is None:
        return None
    written = write_files(
        out, {"privacy_utility.png": functools.partial(_save, lambda: privacy_utility_figure(reports, metric, labels))}
    )
    return written["privacy_utility.png"]


def _interval(report: Mapping[str, Any]) -> tuple[float, str, float | None]:
    """(largest deciding lower bound, its method, smallest upper bound or None if none is finite)."""
    found = [(e["epsilon"], m) for m, e in report["lower_bounds"].items() if e["epsilon"] is not None]
    lower, method = max(found, default=(0.0, "none"))
    return lower, method, report.get("smallest_upper")


def privacy_utility_figure(
    reports: Sequence[Mapping[str, Any]], metric: str, labels: Sequence[str] | None = None
) -> Any:
    """Each audit is one privacy level: its model's ``metric`` (mean ± standard deviation over the
    trials on D) against the interval in which the mechanism's ε lies, from the deciding lower bound
    (×) to the smallest upper bound (●), marked with its ``labels`` entry, with the baselines the report
    has marked and labelled: the majority-class rate (``METRIC_majority``) and the non-private model
    (``METRIC_nonprivate``). With one report the figure says that it is one point, not a curve, and
    when that point is the majority-class rate, says so. A matplotlib Figure (the caller saves and closes it)."""
    import matplotlib.pyplot as plt

    names = list(labels) if labels is not None else [""] * len(reports)
    points = sorted(
        (
            (*_interval(r), r["utility"][metric], r["utility"].get(f"{metric}_std", 0.0) or 0.0, name)
            for r, name in zip(reports, names, strict=True)
        ),
        key=lambda p: p[2] if p[2] is not None else math.inf,
    )
    fig, ax = plt.subplots(figsize=(7, 4.6))
    labelled: list[tuple[str, float, float]] = []
    for lower, _, upper, value, spread, name in points:
        if upper is not None:
            ax.plot([lower, upper], [value, value], "-", color="tab:blue", lw=3, alpha=0.3)
            ax.errorbar([upper], [value], yerr=[[spread], [spread]], fmt="o", color="tab:blue", capsize=4)
        if name:  # placed once the axes are final (_place_labels)
            labelled.append((name, (lower + (upper if upper is not None else lower)) / 2, value))
    ax.plot([p[0] for p in points], [p[3] for p in points], "x--" if len(points) > 1 else "x", color="black", ms=9)
    proven = [(p[2], p[3]) for p in points if p[2] is not None]
    if len(points) > 1:
        ax.plot([], [], "x--", color="black", label="audited lower bound on ε")
        if proven:
            ax.plot(*zip(*proven, strict=True), "o-", color="tab:blue", label="proven upper bound on ε (smallest)")
    else:
        lower, method, upper, value, spread, _ = points[0]
        if upper is not None:
            ax.annotate(
                f"proven ε ≤ {_num(upper, 3)}", (upper, value), textcoords="offset points", xytext=(0, 10), ha="center"
            )
        ax.annotate(
            f"audited ε ≥ {_num(lower, 3)} ({method})", (lower, value), textcoords="offset points", xytext=(-40, -18)
        )
    values = [p[3] for p in points]
    majority = reports[0]["utility"].get(f"{metric}_majority")
    if majority is not None:  # drawn under the non-private line: both stay visible where they coincide
        label = f"baseline: majority-class rate (always the most frequent label): {majority:.4f}"
        ax.axhline(majority, color="tab:red", ls="-", lw=3, alpha=0.35, label=label)
        values.append(majority)
    reference = reports[0]["utility"].get(f"{metric}_nonprivate")
    if reference is not None:
        ax.axhline(reference, color="k", ls=":", label=f"baseline: non-private (σ = 0): {reference:.4f}")
        values.append(reference)
    margin = max(0.02 * max(1.0, max(abs(v) for v in values)), 3 * max(p[4] for p in points))
    ax.set_ylim(min(values) - margin, max(values) + margin)
    ax.set_xlim(0, 1.25 * max([*(p[2] for p in points if p[2] is not None), *(p[0] for p in points), 1e-3]))
    ax.set_xlabel(f"ε at δ = {reports[0]['delta']:g}")
    ax.set_ylabel(f"{UTILITY_METRICS[metric]} (mean ± std over trials)")
    if len(points) > 1:
        title = f"{reports[0]['solver']}: privacy vs utility, {len(points)} audited privacy levels"
        at_level = [p for p in points if majority is not None and abs(p[3] - majority) <= max(p[4], 1e-9)]
        if at_level:
            title += (
                f"\n{len(at_level)} of {len(points)} within one std of the majority-class rate: no better than "
                "always predicting one label"
            )
    else:
        value, spread = points[0][3], points[0][4]
        at_majority = majority is not None and abs(value - majority) <= max(spread, 1e-9)
        title = f"{reports[0]['solver']}: one audited setting, {metric} {value:.4f} ± {spread:.4f}\n" + (
            "= the majority-class rate (within one std): no better than always predicting one label"
            if at_majority
            else "its true ε lies between the audited lower and the proven upper bound"
        )
        ax.text(
            0.01,
            0.02,
            "One audit is one privacy level, not a privacy–utility curve:\ngive --epsilon several values for a curve.",
            transform=ax.transAxes,
            fontsize=8,
            va="bottom",
        )
    ax.set_title(title, fontsize=10)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    _place_labels(fig, ax, labelled)
    return fig


#: Vertical offsets (points) tried in turn for a label of the privacy–utility figure.
_LABEL_OFFSETS = (10, -16, 22, -28, 34, -40, 46, -52, 58, -64)


def _place_labels(fig: Any, ax: Any, labelled: Sequence[tuple[str, float, float]]) -> None:
    """Each (text, x, y) as a label above or below its point, at the first offset where it overlaps no
    label placed before it, no other text and not the legend (the last offset if none is free)."""
    renderer = fig.canvas.get_renderer()
    taken = [text.get_window_extent(renderer) for text in ax.texts]
    if ax.get_legend() is not None:
        taken.append(ax.get_legend().get_window_extent(renderer))
    frame = ax.get_window_extent(renderer)
    for name, x, y in labelled:
        for offset in _LABEL_OFFSETS:
            label = ax.annotate(name, (x, y), xytext=(0, offset), textcoords="offset points", ha="center", fontsize=8)
            box = label.get_window_extent(renderer)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            if inside and not any(box.overlaps(other) for other in taken):
                break
            if offset != _LABEL_OFFSETS[-1]:
                label.remove()
        taken.append(box)
