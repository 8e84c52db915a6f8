"""report.html: one self-contained page per audit, from the same report as report.json.

The page opens with the verdict and every bound on one ε axis (the notebook display,
:func:`audits.display.report_html`), then has a section only where the report has content: the
distinguisher and the neighbouring pair; the audited distinguisher's empirical ROC against the
trade-off curve the claim allows (when the attacks' scores are given); the utility with its baselines
(the non-private model, the majority-class rate); the target's own sections; the figures; the
reproducibility (seed, versions, command); how to read it.

Self-contained: figures are inline (SVG, and PNG as ``data:`` URIs), the style is in the page, there is
no script, and a Content-Security-Policy forbids every network load (``default-src 'none'``), so the
page opens offline and asks nothing of any server. Every string of the report is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from accountants.display import html_table
from audits.atomic import write_files
from audits.display import report_html
from audits.markdown_html import markdown_to_html
from audits.report_svg import claim_tradeoff, tradeoff_svg
from audits.report_text import reading_notes

if TYPE_CHECKING:  # attacks is imported on first use
    from attacks.base import AttackScores

__all__ = ["CONTENT_SECURITY_POLICY", "MAX_BYTES", "report_page", "write_html"]

#: No load of any kind from anywhere: images only from the page's own ``data:`` URIs, styles only inline.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
)
#: The page stays below this size (bytes), figures included.
MAX_BYTES = 2_000_000
#: Metadata values longer than this (as JSON) are shown by their size; report.json holds them whole.
_LONGEST_VALUE = 300

_STYLE = """
body{font-family:sans-serif;max-width:1100px;margin:1.5em auto;padding:0 1em;color:#111;line-height:1.45}
h1{font-size:1.5em;margin-bottom:.2em} h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0} th,td{border:1px solid #bbb;padding:.2em .6em;text-align:left}
th{background:#f2f2f2} figure{margin:.6em 0;overflow-x:auto} img{max-width:100%;height:auto}
code{background:#f4f4f4;padding:0 .2em} figure svg{max-width:100%;height:auto} .fields th{width:14em;vertical-align:top}
.note{color:#444;font-size:.92em}
"""


def _num(value: Any, digits: int = 4) -> str:
    if value is None:
        return "∞"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return "∞" if not math.isfinite(value) else f"{value:.{digits}f}"


def _shown(value: Any) -> str:
    """A metadata value as text: strings as they are, anything else as JSON, a long value by its size."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, float) for v in value):
        value = [float(f"{v:.4g}") for v in value]  # report.json holds them whole
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= _LONGEST_VALUE:
        return text
    count = f"{len(value)} values, " if isinstance(value, (list, dict)) else ""
    return f"({count}{len(text):,} characters: see report.json)"


def _definitions(items: Sequence[tuple[str, Any]]) -> str:
    rows = "".join(f"<tr><th>{html.escape(key)}</th><td>{html.escape(_shown(value))}</td></tr>" for key, value in items)
    return f'<table class="fields"><tbody>{rows}</tbody></table>'


def _section(title: str, body: str) -> str:
    return f"<section><h2>{html.escape(title)}</h2>{body}</section>"


def _image(name: str, png: bytes) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<figure><img alt="{html.escape(name)}" src="data:image/png;base64,{data}"></figure>'


def _distinguisher(report: Mapping[str, Any]) -> str:
    attack = report["attack"]
    access = "white-box" if attack.get("white_box") else "black-box"
    items = [("distinguisher", f"{attack['name']} ({access})")]
    items += [(key, value) for key, value in attack.get("metadata", {}).items() if key != "white_box"]
    items.append(("neighbouring pair (D, D′)", report.get("canary", "")))
    return _definitions([(k, v) for k, v in items if v not in ("", None, [], {})])


def _tradeoff(report: Mapping[str, Any], attack: AttackScores) -> str:
    drawn = list(claim_tradeoff(report, np.array([0.5])))
    notes = []
    if drawn:
        notes.append(
            "An (ε, δ)-DP mechanism allows no test a true-positive rate above the solid red line at any "
            "false-positive rate (Kairouz, Oh &amp; Viswanath 2015)"
        )
    if len(drawn) > 1:
        notes.append("a μ-GDP one none above the dashed orange curve (Dong, Roth &amp; Su 2022)")
    claim = "; ".join(notes) + ". " if notes else "The claim has no finite ε: it allows every test. "
    return (
        f"<figure>{tradeoff_svg(report, attack)}</figure>"
        f'<p class="note">{claim}The empirical curve is an estimate from the audited trials: where it crosses a '
        "line by chance the verdict does not follow, as the verdict rests on the lower bounds and their "
        "confidence.</p>"
    )


#: Utility keys drawn as references, and their labels.
BASELINES = {
    "nonprivate": "the same solver without noise (non-private)",
    "majority": "predicting the most frequent test label (majority-class rate)",
}


def _utility(report: Mapping[str, Any], figure: bytes | None) -> str:
    utility = report["utility"]
    rows = []
    for key, value in utility.items():  # each metric, then its baselines; its spread is shown with it
        metric, _, kind = key.rpartition("_")
        if metric in utility and kind in (*BASELINES, "std"):
            continue
        spread = utility.get(f"{key}_std")
        shown = _num(value) + ("" if spread is None else f" ± {_num(spread)}")
        what = "the audited model, mean" + ("" if spread is None else " ± standard deviation") + " over trials on D"
        rows.append([key, shown, what])
        rows += [
            [key, _num(utility[f"{key}_{kind}"]), f"baseline: {label}"]
            for kind, label in BASELINES.items()
            if f"{key}_{kind}" in utility
        ]
    parts = []
    if "utility_trials" in report:
        parts.append(f"<p>The final model of the first {report['utility_trials']:,} trials on D.</p>")
    parts.append(html_table(("metric", "value", "what"), rows))
    accuracy, majority = utility.get("test_accuracy"), utility.get("test_accuracy_majority")
    if accuracy is not None and majority is not None:
        spread = utility.get("test_accuracy_std") or 0.0
        if abs(accuracy - majority) <= max(spread, 1e-9):
            parts.append(
                f"<p><b>The model's test accuracy {accuracy:.4f} is the majority-class rate {majority:.4f}</b>: "
                "it does no better than predicting the most frequent label for every test record.</p>"
            )
    if figure is not None:
        parts.append(_image("privacy_utility.png", figure))
    return "".join(parts)


def _reproducibility(report: Mapping[str, Any]) -> str:
    items: list[tuple[str, Any]] = [("seed", report.get("seed"))]
    if report.get("command"):
        items.append(("command", report["command"]))
    items.append(("toolkit version", report.get("toolkit_version")))
    items += [(f"{name} version", version) for name, version in report.get("versions", {}).items()]
    items.append(("report schema version", report.get("schema_version")))
    items += [(f"random streams ({key})", value) for key, value in report.get("random_streams", {}).items()]
    items += [
        ("trials per hypothesis", report.get("trials")),
        ("δ", report.get("delta")),
        ("confidence", report.get("confidence")),
        ("scores rounded to multiples of", report.get("score_resolution")),
        ("audited object", report.get("solver_class")),
    ]
    if report.get("solver_params"):
        items.append(("its parameters", report["solver_params"]))
    if report.get("runtime_seconds") is not None:
        items.append(("runtime (s)", report["runtime_seconds"]))
    return _definitions([(k, v) for k, v in items if v is not None])


def report_page(
    report: Mapping[str, Any], attacks: Sequence[AttackScores] = (), figures: Mapping[str, bytes] | None = None
) -> str:
    """The whole page (module docstring) of ``report``; ``attacks`` (``attacks.AttackScores``, the audited
    one first) give the trade-off curve, ``figures`` (file name → PNG bytes) are shown inline."""
    figures = dict(figures or {})
    utility_figure = figures.pop("privacy_utility.png", None)
    title = f"Privacy audit: {report['solver']}"
    sections = [_section("Distinguisher and neighbouring pair", _distinguisher(report))]
    if attacks:
        heading = "Trade-off curve: the audited distinguisher against the claim"
        sections.append(_section(heading, _tradeoff(report, attacks[0])))
    if report.get("utility"):
        sections.append(_section("Utility", _utility(report, utility_figure)))
    sections += [
        _section(str(section["title"]), markdown_to_html(str(section["markdown"])))
        for section in report.get("sections", [])
    ]
    if figures:
        sections.append(_section("Figures", "".join(_image(name, png) for name, png in figures.items())))
    sections.append(_section("Reproducibility", _reproducibility(report)))
    notes = "".join(f"<li>{markdown_to_html(note)}</li>" for note in reading_notes(report))
    sections.append(_section("How to read this report", f"<ul>{notes}</ul>"))
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{report_html(report)}" + "".join(sections) + "</body></html>\n"
    )


def write_html(
    report: Mapping[str, Any],
    path: str | Path,
    attacks: Sequence[AttackScores] = (),
    figures: Mapping[str, bytes] | None = None,
) -> Path:
    """Write :func:`report_page` to ``path`` (its folder created), whole or not at all
    (:mod:`audits.atomic`); return the absolute path."""
    target = Path(path).expanduser().absolute()
    page = report_page(report, attacks, figures)
    written = write_files(target.parent, {target.name: lambda temporary: temporary.write_text(page, encoding="utf-8")})
    return written[target.name]
