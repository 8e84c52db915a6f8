"""DP-ADMM on a star topology (Huang et al. 2020): Algorithms 1, 2 and 3 and their agent protocol.

    from solvers.star import DPADMM
    result = DPADMM(epsilon=0.05, delta=1e-3).run(problem, seed=0, trials=100)

Modules: ``admm`` (the three algorithms on one vectorised iteration), ``privacy`` (the step-size and
sensitivity schedules of Theorems 3 and 4 and Lemma 1), ``protocol`` (the agents and the trainer as
the sequential and Ray backends run them), ``estimator`` (``DPADMMClassifier``, the scikit-learn
estimator).
"""

from solvers.star.admm import (
    ADMM,
    DPADMM,
    DPADMMPlan,
    NaiveNoisyADMM,
    NaiveNoisyPlan,
    StarADMM,
    linearized_update,
)

__all__ = ["ADMM", "DPADMM", "DPADMMPlan", "NaiveNoisyADMM", "NaiveNoisyPlan", "StarADMM", "linearized_update"]
