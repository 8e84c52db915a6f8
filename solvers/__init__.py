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

DP-ADMM (Huang et al. 2020; star topology): :class:`ADMM` (Algorithm 1), :class:`NaiveNoisyADMM` (Algorithm
2), :class:`DPADMM` (Algorithm 3). R-ADMM/MR-ADMM (Zhang, Khalili & Liu 2020) and penalty perturbation
(Zhang, Khalili & Liu 2018), decentralized on a :class:`GraphTopology`: :class:`DecentralizedADMM`,
:class:`ObjectivePerturbationADMM`, :class:`RADMM`, :class:`MRADMM`, :class:`PenaltyPerturbation`,
:class:`MADMM`, :class:`DVP`. Wang et al. 2020: :class:`PDML` (local label randomization + perturbed
decentralized ADMM). ``DPADMMClassifier`` (scikit-learn) and ``plot_history`` (matplotlib) load those
libraries only when first used. ``run(..., backend="ray")`` runs every agent as a Ray actor
(:class:`RayBackend`, ``solvers.engine.backends``; optional extra ``ray``).
"""

from typing import TYPE_CHECKING

from accountants.lazy import typed_lazy_exports
from accountants.logs import package_logger
from accountants.version import __version__

if TYPE_CHECKING:  # the real imports, for type checkers; at run time each name is imported on first use
    from solvers.centralized import centralized_optimum as centralized_optimum
    from solvers.centralized import regularized_erm as regularized_erm
    from solvers.decentralized import DVP as DVP
    from solvers.decentralized import MADMM as MADMM
    from solvers.decentralized import MRADMM as MRADMM
    from solvers.decentralized import RADMM as RADMM
    from solvers.decentralized import DecentralizedADMM as DecentralizedADMM
    from solvers.decentralized import DecentralizedProblem as DecentralizedProblem
    from solvers.decentralized import ObjectivePerturbationADMM as ObjectivePerturbationADMM
    from solvers.decentralized import PenaltyPerturbation as PenaltyPerturbation
    from solvers.decentralized.estimator import DecentralizedClassifier as DecentralizedClassifier
    from solvers.engine.accounting import DEFAULT_ACCOUNTANTS as DEFAULT_ACCOUNTANTS
    from solvers.engine.backends import AgentFailure as AgentFailure
    from solvers.engine.backends import RayBackend as RayBackend
    from solvers.engine.plan import RunPlan as RunPlan
    from solvers.engine.result import Result as Result
    from solvers.engine.solver import Solver as Solver
    from solvers.engine.transcript import Channel as Channel
    from solvers.engine.transcript import Transcript as Transcript
    from solvers.graph import GraphTopology as GraphTopology
    from solvers.horizontal import HorizontalSolver as HorizontalSolver
    from solvers.losses import HuberHingeLoss as HuberHingeLoss
    from solvers.losses import LogisticLoss as LogisticLoss
    from solvers.losses import MarginLoss as MarginLoss
    from solvers.pdml import PDML as PDML
    from solvers.pdml import debiased_loss as debiased_loss
    from solvers.pdml import joint_label_epsilon as joint_label_epsilon
    from solvers.pdml import randomize_labels as randomize_labels
    from solvers.pdml.estimator import PDMLClassifier as PDMLClassifier
    from solvers.plots import plot_history as plot_history
    from solvers.problem import HorizontalProblem as HorizontalProblem
    from solvers.problem import Optimum as Optimum
    from solvers.regularizers import L1Regularizer as L1Regularizer
    from solvers.regularizers import L2Regularizer as L2Regularizer
    from solvers.regularizers import Regularizer as Regularizer
    from solvers.sharing import ADMMSharing as ADMMSharing
    from solvers.sharing import VerticalLogisticRegression as VerticalLogisticRegression
    from solvers.sharing import VerticalProblem as VerticalProblem
    from solvers.sharing import VerticalSGD as VerticalSGD
    from solvers.sharing import partition_vertical as partition_vertical
    from solvers.star.admm import ADMM as ADMM
    from solvers.star.admm import DPADMM as DPADMM
    from solvers.star.admm import NaiveNoisyADMM as NaiveNoisyADMM
    from solvers.star.estimator import DPADMMClassifier as DPADMMClassifier
    from solvers.star.privacy import dpadmm_sensitivity as dpadmm_sensitivity
    from solvers.star.privacy import estimate_dw as estimate_dw
    from solvers.star.privacy import eta_theorem3 as eta_theorem3
    from solvers.star.privacy import eta_theorem4 as eta_theorem4
    from solvers.star.privacy import naive_sensitivity as naive_sensitivity
    from solvers.topology import StarTopology as StarTopology
    from solvers.topology import Topology as Topology

package_logger(__name__)  # silent by default: a NullHandler (accountants.logs)

# Each name is written once, in the TYPE_CHECKING block (read at import time for the lazy map).
__getattr__, __dir__, _LAZY = typed_lazy_exports(__name__, __file__, globals())
__all__ = ["__version__", *_LAZY]
