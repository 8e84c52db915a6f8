"""Audits: empirical lower bounds on privacy, held against the accountants' upper bounds.

Audit your own code with :func:`audit` (:mod:`audits.api`): a mechanism, two neighbouring data
sets and a :class:`Claim`; the audit finds a distinguisher itself (or takes a ``score``, such as
:func:`whitebox_replay` of an iterative algorithm) and returns an :class:`AuditReport`.

``audits.stats`` holds the statistics (usable on its own): Clopper–Pearson and Gaussian-DP lower
bounds with honest threshold selection, one-run auditing and its f-DP refinement, ROC summaries.
Every bound is a :class:`LowerBound` that names its method, confidence level, δ and correction.

An audit is declared as an :class:`AuditSpec` (:mod:`audits.spec`: solver, neighbouring problems,
attacks, :class:`Claim`, extra sections) and run by the one audit loop, :func:`run_spec`
(:mod:`audits.runner`). ``python -m audits.run NAME`` (:func:`run_audit`) runs a named target of
:mod:`audits.registry`: a built-in, an entry point of ``dp_admm_audit.audits``, or ``module:attribute``;
:mod:`audits.broken` keeps deliberately broken mechanisms that the audits must flag.
"""

from typing import TYPE_CHECKING

from accountants.version import __version__
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

if TYPE_CHECKING:  # the real imports, for type checkers; at run time each name is imported on first use
    from audits.api import AuditReport as AuditReport
    from audits.api import audit as audit
    from audits.api import audit_spec as audit_spec
    from audits.registry import TARGETS as TARGETS
    from audits.registry import get_target as get_target
    from audits.replay import whitebox_replay as whitebox_replay
    from audits.run import run_audit as run_audit
    from audits.runner import run_spec as run_spec
    from audits.single_run import OneRunReport as OneRunReport
    from audits.single_run import audit_one_run as audit_one_run
    from audits.spec import AuditSpec as AuditSpec
    from audits.spec import Claim as Claim
    from audits.spec import ScoreAttack as ScoreAttack

__all__ = [
    "__version__",
    "AuditReport",
    "AuditSpec",
    "Bonferroni",
    "OneRunReport",
    "Claim",
    "CONDITIONAL_ON_GDP",
    "Fixed",
    "LowerBound",
    "Split",
    "TARGETS",
    "WORST_CASE",
    "audit",
    "audit_one_run",
    "audit_spec",
    "auroc",
    "by_label",
    "clopper_pearson_audit",
    "get_target",
    "gdp_audit",
    "one_run_audit",
    "one_run_fdp_audit",
    "roc_curve",
    "run_audit",
    "run_spec",
    "ScoreAttack",
    "tpr_at_fpr",
    "whitebox_replay",
]


_LAZY = {
    "AuditReport": "audits.api",
    "audit": "audits.api",
    "audit_spec": "audits.api",
    "whitebox_replay": "audits.replay",
    "OneRunReport": "audits.single_run",
    "audit_one_run": "audits.single_run",
    "AuditSpec": "audits.spec",
    "Claim": "audits.spec",
    "ScoreAttack": "audits.spec",
    "TARGETS": "audits.registry",
    "get_target": "audits.registry",
    "run_audit": "audits.run",
    "run_spec": "audits.runner",
}


def __getattr__(name: str) -> object:
    # lazy, so that ``python -m audits.run`` does not import audits.run twice
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'audits' has no attribute {name!r}")
