"""ADMM sharing over vertically partitioned features (Hu, Liu, Kong & Niu 2019, arXiv 1907.07735).

M parties hold column blocks D_m of the same N samples; the server holds the labels. Each party
releases one N-vector D_m x_m per iteration::

    from solvers.sharing import ADMMSharing, VerticalProblem, adult_vertical, vertical_optimum
    data = adult_vertical(n_train=3000, n_test=1000, seed=0)        # a9a-like 53/51 attribute split
    problem = data.problem()                                         # λ = 1/N (sklearn C = 1)
    problem = problem.with_optimum(vertical_optimum(problem))
    exact = ADMMSharing(n_iterations=300).run(problem, seed=0)       # → the centralized optimum
    private = ADMMSharing(noise="output", noise_multiplier=5.0, b1=8.0).run(problem, seed=0, trials=10)
    private.privacy                                                  # per-party ε (RDP, PLD, exact GDP)

Modules: ``partition`` (vertical partitioners and their validation), ``problem`` (the objective,
metrics, the centralized reference), ``admm`` (Algorithm 1 and the two noise modes), ``sgd`` (the
FDML-style distributed SGD baseline), ``privacy`` (the paper's formulas as printed, Δ_safe, the
Lemma 1 counterexample, the whole-row sensitivities), ``row_budget`` (the estimator's releases for one
training example: labels, shares, model), ``data`` (the Adult and gisette stand-ins), ``gradient`` (noisy gradient
descent on the split, the estimator's default protocol), ``estimator`` (a scikit-learn classifier), ``base``
(the framework adapter).
"""

from typing import TYPE_CHECKING

from accountants.lazy import typed_lazy_exports

if TYPE_CHECKING:  # the real imports, for type checkers; at run time each name is imported on first use
    from solvers.sharing.admm import ADMMSharing as ADMMSharing
    from solvers.sharing.admm import CertifiedSharingPlan as CertifiedSharingPlan
    from solvers.sharing.admm import ClaimedSharingPlan as ClaimedSharingPlan
    from solvers.sharing.admm import NoisySharingPlan as NoisySharingPlan
    from solvers.sharing.admm import SharingPlan as SharingPlan
    from solvers.sharing.admm import ZeroNoiseSharingPlan as ZeroNoiseSharingPlan
    from solvers.sharing.base import VerticalRecorder as VerticalRecorder
    from solvers.sharing.base import VerticalSolver as VerticalSolver
    from solvers.sharing.data import VerticalData as VerticalData
    from solvers.sharing.data import adult_vertical as adult_vertical
    from solvers.sharing.data import gisette_like as gisette_like
    from solvers.sharing.data import gisette_vertical as gisette_vertical
    from solvers.sharing.estimator import VerticalLogisticRegression as VerticalLogisticRegression
    from solvers.sharing.partition import VerticalPartition as VerticalPartition
    from solvers.sharing.partition import contiguous_blocks as contiguous_blocks
    from solvers.sharing.partition import partition_vertical as partition_vertical
    from solvers.sharing.privacy import corollary1_epsilon as corollary1_epsilon
    from solvers.sharing.privacy import lemma1_bound as lemma1_bound
    from solvers.sharing.privacy import lemma1_counterexample as lemma1_counterexample
    from solvers.sharing.privacy import realised_sensitivity as realised_sensitivity
    from solvers.sharing.privacy import row_model_sensitivity as row_model_sensitivity
    from solvers.sharing.privacy import row_stability_sensitivity as row_stability_sensitivity
    from solvers.sharing.privacy import safe_sensitivity as safe_sensitivity
    from solvers.sharing.privacy import stability_input_bounds as stability_input_bounds
    from solvers.sharing.privacy import stability_sensitivity as stability_sensitivity
    from solvers.sharing.privacy import theorem1_epsilon as theorem1_epsilon
    from solvers.sharing.privacy import theorem1_sigma as theorem1_sigma
    from solvers.sharing.privacy import x_update_reference as x_update_reference
    from solvers.sharing.problem import BlockSVD as BlockSVD
    from solvers.sharing.problem import VerticalProblem as VerticalProblem
    from solvers.sharing.problem import vertical_optimum as vertical_optimum
    from solvers.sharing.sgd import VerticalSGD as VerticalSGD
    from solvers.sharing.sgd import VerticalSGDPlan as VerticalSGDPlan
    from solvers.sharing.steps import ball_constrained_l2_coefficients as ball_constrained_l2_coefficients
    from solvers.sharing.steps import z_update as z_update

# Each name is written once, in the TYPE_CHECKING block (read at import time for the lazy map).
__getattr__, __dir__, _LAZY = typed_lazy_exports(__name__, __file__, globals())
__all__ = [*_LAZY]
