"""Distributed (DP-)ADMM solvers: problems, topologies, solvers, results, estimators.

A solver is configured by plain parameters and run on a problem; ``run`` returns a ``Result``
with the model, per-iteration history, the transcript of released messages and the ledger, and
runs R independent trials at once::

    from solvers import DPADMM, HorizontalProblem, centralized_optimum
    problem = HorizontalProblem(partition, lam=0.17, X_test=..., y_test=..., X_public=..., y_public=...)
    problem = problem.with_optimum(centralized_optimum(problem))
    result = DPADMM(epsilon=0.05, delta=1e-3).run(problem, seed=0, trials=100)
    result.model            # (100, d) final global models w^T
    result.privacy          # {"moments_classic": 0.5009, "rdp": ..., "pld": ..., "exact_gaussian": ...}

Seed 000 (DP-ADMM, star topology): :class:`ADMM` (Algorithm 1), :class:`NaiveNoisyADMM`
(Algorithm 2), :class:`DPADMM` (Algorithm 3). Seeds 001 and 003 (decentralized, on a
:class:`GraphTopology`): :class:`DecentralizedADMM`, :class:`ObjectivePerturbationADMM`,
:class:`RADMM`, :class:`MRADMM`, :class:`PenaltyPerturbation`, :class:`MADMM`, :class:`DVP`. Seed 002:
:class:`PDML` (local label randomization + perturbed decentralized ADMM). ``DPADMMClassifier`` (scikit-learn) and
``plot_history`` (matplotlib) load those libraries only when first used. ``run(..., backend="ray")``
runs every agent as a Ray actor (:class:`RayBackend`, ``solvers.backends``; optional extra ``ray``).
"""

from accountants.version import __version__

from solvers.lazy import lazy_exports

# Public name → defining module. Everything is imported on first use, so ``import solvers`` (and
# ``import solvers.datasets``) stays light: no dp_accounting, scikit-learn or matplotlib until needed.
_EXPORTS = {
    "DEFAULT_ACCOUNTANTS": "solvers.accounting",
    "AgentFailure": "solvers.backends",
    "RayBackend": "solvers.backends",
    "RunPlan": "solvers.base",
    "Solver": "solvers.base",
    "centralized_optimum": "solvers.centralized",
    "regularized_erm": "solvers.centralized",
    "ADMM": "solvers.dpadmm",
    "DPADMM": "solvers.dpadmm",
    "NaiveNoisyADMM": "solvers.dpadmm",
    "DPADMMClassifier": "solvers.estimators",
    "HuberHingeLoss": "solvers.losses",
    "LogisticLoss": "solvers.losses",
    "MarginLoss": "solvers.losses",
    "plot_history": "solvers.plots",
    "HorizontalProblem": "solvers.problem",
    "Optimum": "solvers.problem",
    "L1Regularizer": "solvers.regularizers",
    "L2Regularizer": "solvers.regularizers",
    "Regularizer": "solvers.regularizers",
    "Result": "solvers.result",
    "dpadmm_sensitivity": "solvers.schedules",
    "estimate_dw": "solvers.schedules",
    "eta_theorem3": "solvers.schedules",
    "eta_theorem4": "solvers.schedules",
    "naive_sensitivity": "solvers.schedules",
    "StarTopology": "solvers.topology",
    "Topology": "solvers.topology",
    "Channel": "solvers.transcript",
    "Transcript": "solvers.transcript",
    "GraphTopology": "solvers.graph",
    "DecentralizedProblem": "solvers.decentralized",
    "DecentralizedADMM": "solvers.decentralized",
    "ObjectivePerturbationADMM": "solvers.decentralized",
    "RADMM": "solvers.decentralized",
    "MRADMM": "solvers.decentralized",
    "PenaltyPerturbation": "solvers.decentralized",
    "MADMM": "solvers.decentralized",
    "DVP": "solvers.decentralized",
    "ADMMSharing": "solvers.sharing",
    "VerticalProblem": "solvers.sharing",
    "VerticalSGD": "solvers.sharing",
    "VerticalLogisticRegression": "solvers.sharing",
    "partition_vertical": "solvers.sharing",
    "PDML": "solvers.pdml",
    "randomize_labels": "solvers.pdml",
    "debiased_loss": "solvers.pdml",
    "joint_label_epsilon": "solvers.pdml",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
