"""The audit of a solver written outside the toolkit (``solvers.examples.noisy_gradient_admm``)::

    python -m audits.run noisy_gradient_admm:audit_target      (this folder on PYTHONPATH)

The solver module writes its plan and one iteration; the white-box attack is the toolkit's
``attacks.WhiteBoxNP``, which replays the solver's own step on the released transcript.
"""

from __future__ import annotations

import numpy as np

from attacks import WhiteBoxNP
from audits import AuditSpec, Claim
from solvers.examples.noisy_gradient_admm import T_DEFAULT, NoisyGradientADMM

__all__ = ["NoisyGradientADMM", "audit_target"]


def audit_target(epsilon: float | None, delta: float, quick: bool) -> AuditSpec:
    """The audit: a canary record's label flipped at agent 0; ``epsilon`` (None: μ = 1) is the total
    ε at ``delta`` the noise multiplier is calibrated to (μ-GDP, Dong, Roth & Su 2022)."""
    from accountants import gaussian_mu
    from audits.neighbours import canary_neighbours

    mu = 1.0 if epsilon is None else gaussian_mu(epsilon, delta)
    solver = NoisyGradientADMM(noise_multiplier=float(np.sqrt(T_DEFAULT) / mu), delta=delta)
    nb = canary_neighbours(n_agents=2, records_per_agent=20)
    white = WhiteBoxNP(solver, nb.problem_in, nb.problem_out, nb.agent)
    return AuditSpec(
        name="noisy-gradient-admm",
        solver=solver,
        problem_in=nb.problem_in,
        problem_out=nb.problem_out,
        participant=nb.agent,
        attacks=(white,),
        claim=Claim(
            statement=f"Gaussian gradient perturbation, {T_DEFAULT} releases: μ = sqrt(T)/z",
            delta=delta,
            bound="exact_gaussian",
            noise="gaussian",
        ),
        canary=nb.description,
        epsilon_meaning="--epsilon is the total ε at δ the noise is calibrated to (default: μ = 1)",
        trials=20_000,
        quick_trials=2_000,
        run_options={"transcript_agents": [nb.agent]},
    )
