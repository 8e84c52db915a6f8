"""Decentralized private ADMM over connected graphs: R-ADMM and MR-ADMM (Zhang, Khalili & Liu 2020) and
penalty perturbation (Zhang, Khalili & Liu 2018).

    from solvers.graph import GraphTopology
    from solvers.decentralized import DecentralizedProblem, RADMM, MRADMM, PenaltyPerturbation
    problem = DecentralizedProblem.create(partition, GraphTopology.ring(5), C=1750, rho=0.22)
    result = RADMM(eta=1.0, gamma=0.5, alpha=2.0, n_iterations=50).run(problem, seed=0, trials=10)
    result.transcript["f"]     # (T+1, R, N, d): every broadcast f_i(t), t = 0..T
    result.privacy["pure"]     # β of Theorem V.1 (max over nodes of the summed ε_i(k))

Modules: ``problem`` (the papers' objective scale), ``admm`` (ADMM, ADMM-OP, R-ADMM, MR-ADMM,
M-ADMM/PP, DVP written as the pieces of one round, ``solvers.engine.step``), ``steps`` (the exact
and linear local steps), ``privacy`` (Theorem V.1 / 4.1 bounds and conditions).
"""

from typing import TYPE_CHECKING

from accountants.lazy import lazy_exports
from solvers.decentralized.admm import (
    DVP,
    MADMM,
    MRADMM,
    RADMM,
    DecentralizedADMM,
    DecentralizedPlan,
    ObjectivePerturbationADMM,
    PenaltyPerturbation,
)
from solvers.decentralized.privacy import (
    check_pp_conditions,
    check_radmm_conditions,
    pp_epsilons,
    radmm_epsilons,
    total_epsilon,
)
from solvers.decentralized.problem import DecentralizedProblem

if TYPE_CHECKING:  # the estimator loads scikit-learn: imported on first use at run time
    from solvers.decentralized.estimator import DecentralizedClassifier as DecentralizedClassifier

__all__ = [
    "DVP",
    "DecentralizedADMM",
    "DecentralizedClassifier",
    "DecentralizedPlan",
    "DecentralizedProblem",
    "MADMM",
    "MRADMM",
    "ObjectivePerturbationADMM",
    "PenaltyPerturbation",
    "RADMM",
    "check_pp_conditions",
    "check_radmm_conditions",
    "pp_epsilons",
    "radmm_epsilons",
    "total_epsilon",
]


__getattr__, __dir__ = lazy_exports(__name__, {"DecentralizedClassifier": "solvers.decentralized.estimator"}, globals())
