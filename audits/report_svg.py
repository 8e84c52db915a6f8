"""The report's drawings as inline SVG, whose text (every bound's value, the verdict) is part of the page:
the claim against every lower and upper bound on one ε axis, and the audited distinguisher's empirical
ROC against the trade-off curve the claim allows.

An (ε, δ)-DP mechanism allows no test of D against D′ a true-positive rate above
min(1, e^ε·α + δ, 1 − e^(−ε)(1 − δ − α)) at false-positive rate α (Kairouz, Oh & Viswanath 2015,
Theorem 2.1); a μ-GDP one none above Φ(Φ⁻¹(α) + μ) (Dong, Roth & Su 2022, eq. (2.3)). Every user
string is escaped; nothing refers to a file or a network address.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from audits.report_text import claim_label

if TYPE_CHECKING:  # attacks is imported on first use
    from attacks.base import AttackScores

__all__ = ["bounds_svg", "claim_tradeoff", "tradeoff_svg"]

#: Colours of the upper bounds by verdict, and of the lower bounds by method.
VERDICT_COLOURS = {"consistent": "#1f77b4", "VIOLATION": "#d62728"}
LOWER_COLOURS = {"gdp": "#9467bd", "clopper_pearson": "#000000"}
_FONT = 'font-family="sans-serif"'


def _text(x: float, y: float, text: str, *, size: int = 12, anchor: str = "start", bold: bool = False) -> str:
    """A text with a white halo, so that a line it crosses leaves it readable."""
    weight = ' font-weight="bold"' if bold else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" {_FONT} font-size="{size}" text-anchor="{anchor}"{weight} '
        f'stroke="#ffffff" stroke-width="3" paint-order="stroke">{html.escape(text)}</text>'
    )


def _value(value: float | None) -> str:
    return "∞" if value is None or not math.isfinite(value) else f"{value:.4f}"


def _nice_step(span: float) -> float:
    """A 1, 2 or 5 × 10^k step giving about six ticks over ``span``."""
    raw = span / 6
    power = 10.0 ** math.floor(math.log10(raw))
    return float(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


def bounds_svg(report: Mapping[str, Any]) -> str:
    """Every upper bound as a bar from 0 to its ε (∞ as a pale bar to the edge, labelled), coloured by its
    verdict, the claimed one in bold with whose claim it is, and every lower bound as a dashed vertical
    line labelled with its value, all on one ε axis at the report's δ."""
    uppers = list(report["epsilon_upper"].items())
    lowers = [(m, e["epsilon"]) for m, e in report["lower_bounds"].items() if e.get("epsilon") is not None]
    finite = [v for _, v in uppers if v is not None and math.isfinite(v)] + [v for _, v in lowers]
    right = 1.15 * float(max([*finite, 1e-3]))
    labels = [name + claim_label(name, report) for name, _ in uppers]
    left = 16 + 7 * max([len(label) for label in labels] + [10])
    plot = 520
    top = 22 + 16 * len(lowers)
    row = 28
    bottom = top + row * max(len(uppers), 1)
    width, height = left + plot + 110, bottom + 44

    def x(value: float) -> float:
        return left + plot * min(float(value), right) / right

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="upper and lower bounds on ε">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    claimed = report.get("claimed_accountant")
    for index, ((name, value), label) in enumerate(zip(uppers, labels, strict=True)):
        y = top + row * index
        colour = VERDICT_COLOURS.get(str(report["verdicts"].get(name)), VERDICT_COLOURS["consistent"])
        infinite = value is None or not math.isfinite(value)
        end = x(right) if infinite else x(value)
        opacity = "0.2" if infinite else "0.6"
        parts.append(
            f'<rect x="{left}" y="{y + 4}" width="{end - left:.1f}" height="{row - 8}" fill="{colour}" '
            f'fill-opacity="{opacity}"/>'
        )
        parts.append(_text(left - 8, y + row / 2 + 4, label, anchor="end", bold=name == claimed))
        text = f"ε ≤ {_value(value)}" + ("" if infinite else f" ({report['verdicts'].get(name)})")
        if infinite:
            parts.append(_text(end - 6, y + row / 2 + 4, f"{text}: no finite bound", anchor="end"))
        else:  # the plot ends at 1.15 × the largest finite value: the text fits in the margin on its right
            parts.append(_text(end + 6, y + row / 2 + 4, text))
    for index, (method, value) in enumerate(lowers):
        colour = LOWER_COLOURS.get(method, "#2ca02c")
        position = x(value)
        parts.append(
            f'<line x1="{position:.1f}" y1="{18 + 16 * index}" x2="{position:.1f}" y2="{bottom}" stroke="{colour}" '
            f'stroke-width="1.6" stroke-dasharray="6 4"/>'
        )
        assumption = report["lower_bounds"][method].get("assumption_short", "")
        text = f"{method} ({assumption}): ε ≥ {_value(value)}"
        anchor = "end" if position > left + plot / 2 else "start"
        parts.append(_text(position + (-4 if anchor == "end" else 4), 15 + 16 * index, text, size=11, anchor=anchor))
    parts.append(f'<line x1="{left}" y1="{bottom}" x2="{left + plot}" y2="{bottom}" stroke="#000000"/>')
    step = _nice_step(right)
    for k in range(int(right / step) + 1):
        tick = k * step
        parts.append(f'<line x1="{x(tick):.1f}" y1="{bottom}" x2="{x(tick):.1f}" y2="{bottom + 5}" stroke="#000000"/>')
        parts.append(_text(x(tick), bottom + 18, f"{tick:g}", size=11, anchor="middle"))
    parts.append(_text(left + plot / 2, bottom + 36, f"ε at δ = {report['delta']:g}", anchor="middle"))
    parts.append("</svg>")
    return "".join(parts)


def claim_tradeoff(report: Mapping[str, Any], fpr: np.ndarray) -> dict[str, np.ndarray]:
    """The largest true-positive rates the claim allows at false-positive rates ``fpr``: "(ε, δ)" from
    the claimed ε and the report's δ and, when the Gaussian-DP bound decides the verdict (a Gaussian
    claim, δ > 0), "μ-GDP" from the largest μ whose guarantee implies the claim (module docstring).
    Empty when the claim has no finite ε."""
    epsilon, delta = report.get("claimed_epsilon"), float(report["delta"])
    if epsilon is None or not math.isfinite(epsilon):
        return {}
    scale = math.exp(min(float(epsilon), 700.0))
    curves = {"(ε, δ)": np.minimum.reduce([np.ones_like(fpr), scale * fpr + delta, 1 - (1 - delta - fpr) / scale])}
    if "gdp" in report["lower_bounds"] and delta > 0:
        from scipy.stats import norm

        from accountants import gaussian_mu

        mu = gaussian_mu(float(epsilon), delta)
        curves[f"μ-GDP, μ = {mu:.4f}"] = norm.cdf(norm.ppf(fpr) + mu)
    return curves


#: The number of false-positive rates at which the empirical ROC is drawn (a page of bounded size).
ROC_POINTS = 240


def tradeoff_svg(report: Mapping[str, Any], attack: AttackScores) -> str:
    """The audited attack's empirical ROC (true- against false-positive rate, log-log, a rate of 0 drawn
    at 1/(2n)) against the curves the claim allows (:func:`claim_tradeoff`) and chance. The empirical
    curve is an estimate from the trials: the verdict rests on the lower bounds and their confidence."""
    from audits.histogram_scores import tpr_steps, trials

    floor = 0.5 / max(trials(attack))
    grid = np.logspace(math.log10(floor), 0, ROC_POINTS)
    empirical = np.maximum(tpr_steps(attack, grid), floor)
    size, margin_left, margin_top = 420, 64, 14
    low = math.log10(floor)
    claims = claim_tradeoff(report, grid)
    legend = [(f"{attack.attack} (empirical)", "#1f77b4", "", 2.2)]
    for (name, _), (colour, dash) in zip(claims.items(), (("#d62728", ""), ("#ff7f0e", "6 4")), strict=False):
        legend.append((f"largest allowed by the claim as {name}", colour, dash, 1.8))
    legend.append(("chance", "#7f7f7f", "2 3", 1.0))
    below = margin_top + size + 52  # the legend's first line, under the axis label: it covers no curve
    width = max(margin_left + size + 20, int(margin_left + 40 + 6.5 * max(len(entry[0]) for entry in legend)))
    height = below + 16 * len(legend)

    def point(a: float, b: float) -> str:
        px = margin_left + size * (math.log10(max(a, floor)) - low) / -low
        py = margin_top + size * (1 - (math.log10(min(max(b, floor), 1.0)) - low) / -low)
        return f"{px:.1f},{py:.1f}"

    def polyline(xs: Sequence[float], ys: Sequence[float], colour: str, dash: str = "", stroke: float = 1.8) -> str:
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        points = " ".join(point(a, b) for a, b in zip(xs, ys, strict=True))
        return f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="{stroke}"{dashes}/>'

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="empirical ROC against the claimed trade-off curve">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<rect x="{margin_left}" y="{margin_top}" width="{size}" height="{size}" fill="none" stroke="#000000"/>',
    ]
    for power in range(math.ceil(low), 1):
        tick = 10.0**power
        px, py = (float(v) for v in point(tick, tick).split(","))
        axis = margin_top + size
        parts.append(f'<line x1="{px:.1f}" y1="{axis}" x2="{px:.1f}" y2="{axis + 5}" stroke="#000000"/>')
        parts.append(_text(px, margin_top + size + 18, f"{tick:g}", size=11, anchor="middle"))
        parts.append(f'<line x1="{margin_left - 5}" y1="{py:.1f}" x2="{margin_left}" y2="{py:.1f}" stroke="#000000"/>')
        parts.append(_text(margin_left - 8, py + 4, f"{tick:g}", size=11, anchor="end"))
    parts.append(polyline(grid.tolist(), grid.tolist(), "#7f7f7f", "2 3", 1.0))
    for allowed, (_, colour, dash, stroke) in zip(claims.values(), legend[1:], strict=False):
        parts.append(polyline(grid.tolist(), allowed.tolist(), colour, dash, stroke))
    parts.append(polyline(grid.tolist(), empirical.tolist(), "#1f77b4", "", 2.2))
    for row, (label, colour, dash, stroke) in enumerate(legend):
        y = below + 16 * row
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<line x1="{margin_left}" y1="{y - 4}" x2="{margin_left + 24}" y2="{y - 4}" '
            f'stroke="{colour}" stroke-width="{stroke}"{dashes}/>'
        )
        parts.append(_text(margin_left + 30, y, label, size=11))
    parts.append(_text(margin_left + size / 2, margin_top + size + 36, "false-positive rate", anchor="middle"))
    parts.append(
        f'<text x="14" y="{margin_top + size / 2:.1f}" {_FONT} font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 14 {margin_top + size / 2:.1f})">true-positive rate</text>'
    )
    parts.append("</svg>")
    return "".join(parts)
