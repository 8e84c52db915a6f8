"""PDML (Wang et al. 2020): local label randomization + perturbed decentralized ADMM.

    from solvers.pdml import PDML
    problem = HorizontalProblem(partition, lam=1.0, topology=GraphTopology.from_edges(10, edges))
    result = PDML(eps_label=0.4, eta_bound=9.0, V=0.1, rho_decay=0.8, n_iterations=100).run(problem, seed=0)
    result.transcript["w_tilde"]        # (T+1, N, d): every broadcast w̃_i(t)
    result.ledger.participants          # "users-0".."users-9" (labels), "server-0".."server-9" (broadcasts)
    result.details.guarantees[3]       # group 3: label/features against its collector and other servers

Modules: ``randomization`` (Phase 1: randomized response, the debiased loss), ``admm`` (Phase 2:
the perturbed ADMM solver, written as the pieces of one round, ``solvers.engine.step``), ``privacy``
(the DERIVED broadcast sensitivity, composition and joint label guarantee; the paper gives no number
for these).
"""

from typing import TYPE_CHECKING

from accountants.lazy import lazy_exports
from solvers.pdml.admm import PDML, PDMLPlan, sample_eta
from solvers.pdml.privacy import (
    DERIVED_NOTE,
    broadcast_sensitivity,
    broadcast_sigmas,
    gdp_epsilon,
    joint_label_epsilon,
    loss_slope_bound,
    strong_convexity,
    zcdp_epsilon,
    zcdp_total,
)
from solvers.pdml.randomization import (
    check_label_symmetric,
    debias_coefficient,
    debias_linear_term,
    debiased_loss,
    label_flips,
    randomize_labels,
)

if TYPE_CHECKING:  # the estimator loads scikit-learn: imported on first use at run time
    from solvers.pdml.estimator import PDMLClassifier as PDMLClassifier

__all__ = [
    "DERIVED_NOTE",
    "PDML",
    "PDMLClassifier",
    "PDMLPlan",
    "broadcast_sensitivity",
    "broadcast_sigmas",
    "check_label_symmetric",
    "debias_coefficient",
    "debias_linear_term",
    "debiased_loss",
    "gdp_epsilon",
    "joint_label_epsilon",
    "label_flips",
    "loss_slope_bound",
    "randomize_labels",
    "sample_eta",
    "strong_convexity",
    "zcdp_epsilon",
    "zcdp_total",
]


__getattr__, __dir__ = lazy_exports(__name__, {"PDMLClassifier": "solvers.pdml.estimator"}, globals())
