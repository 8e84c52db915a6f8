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
:func:`assert_private` (:mod:`audits.testing`) makes an audit a test that fails on a violation.
"""

from typing import TYPE_CHECKING

from accountants.lazy import typed_lazy_exports
from accountants.logs import package_logger
from accountants.version import __version__

if TYPE_CHECKING:  # the real imports, for type checkers; at run time each name is imported on first use
    from attacks.base import ScoreAttack as ScoreAttack
    from audits.api import audit as audit
    from audits.api import audit_spec as audit_spec
    from audits.encoding import ReleaseFormat as ReleaseFormat
    from audits.one_run_canaries import OneRunReport as OneRunReport
    from audits.one_run_canaries import audit_one_run as audit_one_run
    from audits.registry import TARGETS as TARGETS
    from audits.registry import get_target as get_target
    from audits.replay import whitebox_replay as whitebox_replay
    from audits.run import run_audit as run_audit
    from audits.runner import run_spec as run_spec
    from audits.spec import AuditSpec as AuditSpec
    from audits.spec import Claim as Claim
    from audits.stats import CONDITIONAL_ON_GDP as CONDITIONAL_ON_GDP
    from audits.stats import WORST_CASE as WORST_CASE
    from audits.stats import Bonferroni as Bonferroni
    from audits.stats import Fixed as Fixed
    from audits.stats import LowerBound as LowerBound
    from audits.stats import Split as Split
    from audits.stats import auroc as auroc
    from audits.stats import by_label as by_label
    from audits.stats import clopper_pearson_audit as clopper_pearson_audit
    from audits.stats import gdp_audit as gdp_audit
    from audits.stats import one_run_audit as one_run_audit
    from audits.stats import one_run_fdp_audit as one_run_fdp_audit
    from audits.stats import roc_curve as roc_curve
    from audits.stats import tpr_at_fpr as tpr_at_fpr
    from audits.testing import assert_private as assert_private
    from audits.verdict import AuditReport as AuditReport

package_logger(__name__)  # silent by default: a NullHandler (accountants.logs)

# Lazy, so that ``python -m audits.run`` does not import audits.run twice and --help starts fast; each name
# is written once, in the TYPE_CHECKING block (read at import time for the lazy map).
__getattr__, __dir__, _LAZY = typed_lazy_exports(__name__, __file__, globals())
__all__ = ["__version__", *_LAZY]
