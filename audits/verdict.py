"""The verdict of an audit: empirical lower bounds held against every upper bound, as a report.

Every audit, whatever its solver and attack, ends in :func:`assemble_report` (the one place a report
is built, once its sections' findings are in) and returns an :class:`AuditReport`, so every
``report.json`` has the same keys (``solver``, ``trials``, ``delta``, ``confidence``,
``epsilon_lower``, ``epsilon_upper``, ``claimed_epsilon``, ``verdict``, ``tightness``, ...), described
by the JSON Schema ``audits/schema/report.schema.json`` (:func:`audits.report.report_schema`), whose
version every report carries as ``schema_version``, next to the ``toolkit_version`` that wrote it.

A bound is VIOLATED when some lower bound (at its stated confidence) exceeds it; the tightness of a
lower bound is its ratio to the smallest upper bound that holds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from accountants.version import __version__
from audits.stats.bounds import WORST_CASE, LowerBound

if TYPE_CHECKING:  # attacks and the spec are imported on first use
    from attacks.base import AttackScores
    from audits.spec import Finding

__all__ = ["SCHEMA_VERSION", "AuditReport", "Section", "assemble_report", "verdicts"]

#: Version of the report's keys (audits/schema/report.schema.json): the minor number grows when keys are
#: added, the major number when a key changes its meaning or is removed.
SCHEMA_VERSION = "1.3"


class Section(TypedDict):
    """An extra report.md section of :func:`assemble_report` (``data`` goes to report.json)."""

    title: str
    markdown: str
    data: dict[str, Any]


def verdicts(lower: Mapping[str, LowerBound], upper: Mapping[str, float | None]) -> dict[str, str]:
    """ "VIOLATION" for every upper bound below some lower bound's ε, else "consistent"."""
    best = max((b.epsilon for b in lower.values()), default=0.0)
    return {k: ("VIOLATION" if v is not None and best > v else "consistent") for k, v in upper.items()}


def _ratio(numerator: float, denominator: float | None) -> float | None:
    if denominator is None or not math.isfinite(denominator) or denominator <= 0:
        return None
    return numerator / denominator


def assemble_report(
    *,
    solver: str,
    solver_object: object,
    trials: int,
    delta: float,
    confidence: float,
    seed: int,
    lower: Mapping[str, LowerBound],
    upper: Mapping[str, float | None],
    claimed: str | None,
    claim: str,
    attacks: Sequence[AttackScores],
    epsilon_meaning: str,
    canary: str,
    utility: Mapping[str, float] | None = None,
    sections: Sequence[Mapping[str, Any]] = (),
    findings: Sequence[Finding] = (),
    **extra: Any,
) -> dict[str, Any]:
    """The report of one audit.

    Args:
      solver: the registry name. solver_object: the audited solver (class and ``get_params()``).
      lower: method name → ``audits.stats.LowerBound`` (the empirical lower bounds).
      upper: bound name → ε (accountants' upper bounds and any bound a paper claims; None or ∞ if
        there is none), sorted by value in the report.
      claimed: the key of ``upper`` that the paper claims (None: no numeric claim).
      attacks: ``attacks.AttackScores``, the audited attack first.
      sections: extra report.md sections, each ``{"title", "markdown", "data"}`` (data goes to JSON).
      findings: the sections' findings, in report order: a finding adds verdicts (for keys the report
        lacks) or proves a VIOLATION with its evidence, never clears one; the verdict follows from all.
      extra: further JSON-ready keys, in report order (e.g. ``diagnostics``, ``exact_mu``).
    """
    from audits.histogram_scores import moments

    if claimed is not None and claimed not in upper:
        raise ValueError(f"claimed must be one of the upper bounds {sorted(upper)}, got {claimed!r}")
    upper = dict(sorted(upper.items(), key=lambda kv: math.inf if kv[1] is None else kv[1]))
    finite = [v for v in upper.values() if v is not None]
    smallest = min(finite, default=math.inf)
    by_bound = verdicts(lower, upper)
    violated_by = {k: [m for m, b in lower.items() if v is not None and b.epsilon > v] for k, v in upper.items()}
    for finding in findings:
        for key, verdict in finding.verdicts.items():
            if key not in by_bound or verdict == "VIOLATION":
                by_bound[key] = verdict
        for key, evidence in finding.violated_by.items():
            violated_by[key] = sorted(set(violated_by.get(key, [])) | set(evidence))
    attack, metrics = attacks[0], [a.metrics() for a in attacks]  # each attack's metrics once (the audited first)
    params = solver_object.get_params() if hasattr(solver_object, "get_params") else {}
    report: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "toolkit_version": __version__,
        "solver": solver,
        "solver_class": type(solver_object).__name__,
        "solver_params": params,
        "trials": int(trials),
        "delta": delta,
        "confidence": confidence,
        "seed": int(seed),
        "epsilon_meaning": epsilon_meaning,
        "epsilon_lower": {m: b.epsilon for m, b in lower.items()},
        "mu_lower": {m: b.mu for m, b in lower.items() if getattr(b, "mu", None) is not None},
        "lower_bounds": {
            m: {
                **b.to_dict(),
                "assumption_short": ("worst case" if b.assumption == WORST_CASE else "conditional on GDP"),
            }
            for m, b in lower.items()
        },
        "epsilon_upper": upper,
        "claimed_accountant": claimed,
        "claimed_epsilon": None if claimed is None else upper[claimed],
        "claim": claim,
        "smallest_upper": smallest,
        "verdicts": by_bound,
        "violated_by": violated_by,
        "verdict": "VIOLATION" if "VIOLATION" in by_bound.values() else "consistent",
        "tightness": {m: _ratio(b.epsilon, smallest) for m, b in lower.items()},
        "tightness_by_bound": {k: {m: _ratio(b.epsilon, v) for m, b in lower.items()} for k, v in upper.items()},
        "attack": {
            "name": attack.attack,
            "white_box": attack.white_box,
            "metadata": dict(attack.metadata),
            "metrics": dict(metrics[0]),
        },
        "attacks": {
            a.attack: {"white_box": a.white_box, "metrics": m, "metadata": dict(a.metadata)}
            for a, m in zip(attacks, metrics, strict=True)
        },
        "score_moments": moments(attack),  # exact sums: the same from the scores and from their histograms
        "canary": canary,
        "utility": dict(utility or {}),
        "sections": [dict(s) for s in sections],
    }
    report.update(extra)
    return report


@dataclass(frozen=True)
class AuditReport:
    """The outcome of one audit, whichever way it ran (:func:`audits.audit`, :func:`audits.run_spec`,
    ``python -m audits.run`` and :func:`audits.run_audit`).

    Attributes:
      report: the report (:func:`assemble_report`; report.json's keys).
      attacks: every attack's scores on the audited trials, the audited attack first.
      lower: the lower bounds that decide the verdict, by method.
      upper: every upper bound (the accountants' and the claim's), in the order they were asked.
      observations: attack name → (observations on D, on D′), one entry per chunk of trials.
    """

    report: Mapping[str, Any]
    attacks: tuple[AttackScores, ...]
    lower: Mapping[str, LowerBound]
    upper: Mapping[str, float] = field(default_factory=dict)
    observations: Mapping[str, tuple[list[Any], list[Any]]] = field(default_factory=dict, repr=False)

    @property
    def verdict(self) -> str:
        """ "VIOLATION" if a deciding lower bound exceeds the claim, else "consistent"."""
        verdict: str = self.report["verdict"]
        return verdict

    @property
    def epsilon_lower(self) -> dict[str, LowerBound]:
        """The deciding lower bounds by method; each states its confidence, δ and assumption."""
        return dict(self.lower)

    @property
    def epsilon_upper(self) -> dict[str, float]:
        """The upper bounds the lower bounds are held against, smallest first."""
        return dict(self.report["epsilon_upper"])

    def __str__(self) -> str:
        from audits.report import format_table

        return format_table(self.report)

    def __repr__(self) -> str:
        from audits.display import report_summary

        return report_summary(self.report)

    def _repr_markdown_(self) -> str:
        from audits.display import report_markdown

        return report_markdown(self.report)

    def _repr_html_(self) -> str:
        from audits.display import report_html

        return report_html(self.report)

    def to_html(self) -> str:
        """The self-contained page report.html holds (:func:`audits.report_html.report_page`), with the
        audited distinguisher's trade-off curve; the PNG figures are drawn only by :meth:`write`."""
        from audits.report_html import report_page

        return report_page(self.report, self.attacks)

    def write(self, out: str | Path, *, figures: bool = True) -> dict[str, Path]:
        """Write report.html, report.md, report.json and (unless ``figures=False``) the figures into
        ``out``, all or none (:func:`audits.report.write_audit`).

        Returns:
          name → path of what was written ("html", "md", "json", and each figure by its file name).
        """
        from audits.report import write_audit

        return write_audit(dict(self.report), list(self.attacks), Path(out).expanduser().absolute(), figures=figures)
