"""DP-ADMM on a star topology (Huang et al. 2020): Algorithms 1, 2 and 3 and their agent protocol.

    from solvers.star import DPADMM
    result = DPADMM(epsilon=0.05, delta=1e-3).run(problem, seed=0, trials=100)

Modules: ``admm`` (the three algorithms as the pieces of one iteration, ``solvers.engine.step``, from
which the engine derives the vectorised run, the agents and trainer of the sequential and Ray
backends, and the white-box replay), ``privacy`` (the step-size and sensitivity schedules of
Theorems 3 and 4 and Lemma 1), ``estimator`` (``DPADMMClassifier``, the scikit-learn estimator).
"""

from solvers.star.admm import (
    ADMM,
    DPADMM,
    DPADMMPlan,
    NaiveNoisyADMM,
    NaiveNoisyPlan,
    StarADMM,
    StarState,
    linearized_update,
)

__all__ = [
    "ADMM",
    "DPADMM",
    "DPADMMPlan",
    "NaiveNoisyADMM",
    "NaiveNoisyPlan",
    "StarADMM",
    "StarState",
    "linearized_update",
]
