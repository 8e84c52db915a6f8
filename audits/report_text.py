"""What an audit report says in words: whose claim the claimed bound is, and how to read the report.

A built-in target's claim is its paper's and is labelled with the paper's citation; a claim made with
:class:`audits.Claim` on a user's own mechanism (``audits.audit``, a ``module:attribute`` target) is
the user's. The reading notes name DP-ADMM or a paper only when the report's claim is that paper's.
The terminal table, report.md, report.html and the notebook displays all take their labels from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from audits.spec import CLAIMED

__all__ = ["PAPERS", "claim_label", "claim_owner", "paper_of", "reading_notes"]

#: The paper whose claim each built-in target audits (registry name → citation). The deliberately
#: broken DP-ADMM variants (``dpadmm-broken-*``) are held against DP-ADMM's claim.
PAPERS = {
    "dpadmm": "Huang et al. 2020, Theorem 2",
    "dpadmm-naive": "Huang et al. 2020, Algorithm 2",
    "radmm": "Zhang, Khalili & Liu 2020, Theorem V.1",
    "mradmm": "Zhang, Khalili & Liu 2020, Theorem V.1",
    "ppadmm": "Zhang, Khalili & Liu 2018, Theorem 4.1",
    "dvp": "Zhang, Khalili & Liu 2018, Theorem 4.1",
    "pdml": "Wang et al. 2020",
    "sharing-output": "Hu et al. 2019, Theorem 1",
    "sharing-parameter": "Hu et al. 2019, Theorem 1",
}

#: Built-in names that extend a paper target's name (``dpadmm-broken-halved-noise``, ``radmm-broken-under-noised``).
_VARIANT_MARK = "-broken-"


def paper_of(solver: str) -> str | None:
    """The citation of the paper whose claim the built-in target ``solver`` audits, or None for a user's target."""
    base = solver.split(_VARIANT_MARK)[0]
    return PAPERS.get(solver, PAPERS.get(base))


def claim_owner(report: Mapping[str, Any]) -> str | None:
    """Whose claim the report's claimed bound is: "the paper's (CITATION)", "the user's", or None when
    the report claims no bound."""
    claimed = report.get("claimed_accountant")
    if claimed is None:
        return None
    paper = None if claimed == CLAIMED else paper_of(str(report["solver"]))
    return "the user's" if paper is None else f"the paper's ({paper})"


def claim_label(name: str, report: Mapping[str, Any]) -> str:
    """The suffix of upper bound ``name`` in tables and figures: " (the user's claim)" or " (the paper's
    claim, CITATION)" for the claimed bound, "" for the others."""
    if name != report.get("claimed_accountant"):
        return ""
    paper = None if name == CLAIMED else paper_of(str(report["solver"]))
    return " (the user's claim)" if paper is None else f" (the paper's claim, {paper})"


def reading_notes(report: Mapping[str, Any]) -> list[str]:
    """The "How to read this report" bullets (Markdown) for this report: the lower bounds, the upper bounds
    (a paper's claim only when the claim is a paper's; DP-ADMM's moments accountant only for DP-ADMM), the
    verdict and the tightness."""
    methods = set(report.get("lower_bounds", {}))
    lower = (
        "**Lower bounds** are measured: the attack's scores on trials with D and with D′ show that the "
        "mechanism cannot be (ε′, δ)-DP for any ε′ below the bound, with the stated confidence."
    )
    if "clopper_pearson" in methods:
        lower += " *Clopper–Pearson* holds for any mechanism (worst case)."
    if "gdp" in methods:
        lower += (
            " *GDP* assumes the trade-off curve is Gaussian (true for mechanisms that add Gaussian noise) and is "
            "much tighter."
        )
    lower += " Thresholds are chosen on 20 % of the trials and evaluated on the other 80 %."
    owner, solver = claim_owner(report), str(report["solver"])
    if set(report.get("epsilon_upper", {})) <= {report.get("claimed_accountant")}:
        upper = "**Upper bound**: the claim, held against the lower bounds; no accountant saw the releases"
    else:
        upper = "**Upper bounds** are what each accountant proves for the same releases"
    if owner == "the user's":
        upper += "; the *claim* is the bound the user states"
    elif owner is not None:
        upper += f"; the *paper's claim* is the bound the paper states ({paper_of(solver)})"
        if solver.split(_VARIANT_MARK)[0] == "dpadmm":
            upper += ": DP-ADMM's moments accountant"
    notes = [
        lower,
        upper + ".",
        "**Verdict** per upper bound: *consistent* if no lower bound exceeds it, *VIOLATION* if one does (the "
        "bound is false at the stated confidence). The overall verdict is VIOLATION if any upper bound is violated.",
        "**Tightness** = lower bound / smallest valid upper bound; 1 means the audit proves the bound exact, values "
        "near 0 mean the attack (or the neighbouring pair) is weak or the bound loose.",
    ]
    return notes
