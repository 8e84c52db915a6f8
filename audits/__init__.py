"""Audits: empirical lower bounds on privacy, held against the accountants' upper bounds.

``audits.stats`` holds the statistics (usable on its own): Clopper–Pearson and Gaussian-DP lower
bounds with honest threshold selection, one-run auditing and its f-DP refinement, ROC summaries.
Every bound is a :class:`LowerBound` that names its method, confidence level, δ and correction.
"""
from audits.stats import (
    CONDITIONAL_ON_GDP,
    WORST_CASE,
    Bonferroni,
    Fixed,
    LowerBound,
    Split,
    auroc,
    by_label,
    clopper_pearson_audit,
    gdp_audit,
    one_run_audit,
    one_run_fdp_audit,
    roc_curve,
    tpr_at_fpr,
)

__all__ = [
    "Bonferroni",
    "CONDITIONAL_ON_GDP",
    "Fixed",
    "LowerBound",
    "Split",
    "WORST_CASE",
    "auroc",
    "by_label",
    "clopper_pearson_audit",
    "gdp_audit",
    "one_run_audit",
    "one_run_fdp_audit",
    "roc_curve",
    "tpr_at_fpr",
]
