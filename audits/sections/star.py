"""Report section of the star-topology Gaussian audits (``dpadmm``, ``dpadmm-naive``, the broken variants;
:mod:`audits.targets.star`): the utility's references and the exact Gaussian accountant's μ (Dong, Roth &
Su 2022) of the run.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from audits.spec import AuditContext, Finding

__all__ = ["reference_section"]


def reference_section(context: AuditContext) -> Finding:
    """The accuracy spread and the majority-class rate of the test labels (the accuracy of always
    predicting the most frequent one), exact μ, and the same solver without noise (ε = ∞), one run on D."""
    from accountants import ExactGaussianAccountant

    spec, utility = context.spec, {}
    if "test_accuracy" in context.utility:
        utility["test_accuracy_std"] = float(context.utility["test_accuracy"].std())
        _, counts = np.unique(spec.problem_in.y_test, return_counts=True)
        utility["test_accuracy_majority"] = float(counts.max() / counts.sum())
    exact = ExactGaussianAccountant()
    exact.register_ledger(context.ledger)
    try:
        result = dataclasses.replace(spec.solver, epsilon=math.inf).run(
            spec.problem_in, seed=0, accountants=(), record_history=False, record_transcript=False
        )
    except (TypeError, ValueError):  # a solver without an ε = ∞ mode: no reference
        return Finding(utility=utility, report={"exact_mu": exact.get_mu(spec.participant)})
    utility["objective_nonprivate"] = float(spec.problem_in.objective(result.model))
    if spec.problem_in.has_test:
        utility["test_accuracy_nonprivate"] = float(spec.problem_in.accuracy(result.model))
    return Finding(utility=utility, report={"exact_mu": exact.get_mu(spec.participant)})
