"""DP-ADMM on a star topology (Huang et al. 2020): Algorithms 1, 2 and 3 and their agent protocol.

    from solvers.star import DPADMM
    result = DPADMM(epsilon=0.05, delta=1e-3).run(problem, seed=0, trials=100)

Modules: ``admm`` (the three algorithms on one vectorised iteration), ``protocol`` (the agents and
the trainer as the sequential and Ray backends run them).
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
