"""ADMM sharing over vertically partitioned features (seed 004, spec 004).

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
Lemma 1 counterexample), ``data`` (the Adult and gisette stand-ins), ``estimator`` (a scikit-learn
classifier), ``base`` (the framework adapter).
"""

from solvers.lazy import lazy_exports

_EXPORTS = {
    "ADMMSharing": "solvers.sharing.admm",
    "ball_constrained_l2_coefficients": "solvers.sharing.admm",
    "z_update": "solvers.sharing.admm",
    "VerticalRecorder": "solvers.sharing.base",
    "VerticalSolver": "solvers.sharing.base",
    "VerticalData": "solvers.sharing.data",
    "adult_vertical": "solvers.sharing.data",
    "gisette_like": "solvers.sharing.data",
    "gisette_vertical": "solvers.sharing.data",
    "VerticalLogisticRegression": "solvers.sharing.estimator",
    "VerticalPartition": "solvers.sharing.partition",
    "contiguous_blocks": "solvers.sharing.partition",
    "partition_vertical": "solvers.sharing.partition",
    "corollary1_epsilon": "solvers.sharing.privacy",
    "lemma1_bound": "solvers.sharing.privacy",
    "lemma1_counterexample": "solvers.sharing.privacy",
    "realised_sensitivity": "solvers.sharing.privacy",
    "safe_sensitivity": "solvers.sharing.privacy",
    "theorem1_epsilon": "solvers.sharing.privacy",
    "theorem1_sigma": "solvers.sharing.privacy",
    "x_update_reference": "solvers.sharing.privacy",
    "BlockSVD": "solvers.sharing.problem",
    "VerticalProblem": "solvers.sharing.problem",
    "vertical_optimum": "solvers.sharing.problem",
    "VerticalSGD": "solvers.sharing.sgd",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
