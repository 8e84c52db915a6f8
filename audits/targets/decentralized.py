"""Audits of the Gamma-norm perturbation solvers: ``radmm``, ``mradmm`` (Zhang, Khalili & Liu 2020), ``ppadmm``,
``dvp`` (Zhang, Khalili & Liu 2018).

Each audit runs the solver on neighbouring data sets D and D′ (:func:`audits.neighbours.label_flip_neighbours`) in
batched runs, scores every trial with the exact log-likelihood ratio of its transcript
(:class:`attacks.objective_perturbation.TranscriptNP`, the Neyman–Pearson test, which is also the
transcript's **realised privacy loss** ℓ), turns the scores into empirical lower bounds (GDP and
Clopper–Pearson, :mod:`audits.stats`) and holds them, and every realised |ℓ|, against the paper's
pure β (Theorem V.1, eq. (32), of Zhang, Khalili & Liu 2020; Theorem 4.1, eq. (26), of Zhang, Khalili &
Liu 2018), its tight variant (the step before the 1.4 relaxation) and every accountant's bound on the same releases.

``epsilon`` (``--epsilon``) is the **paper's total β** for the target node (max over nodes): the
noise rate α (R-ADMM, MR-ADMM, DVP: constant; PP: α(1) of α(t) = α(1)q2^{t−1}) is set so that the
theorem's bound equals it. None → :data:`DEFAULT_BETA`.

Canary. The target node 0 holds B records; its last one is (x_c, +1) in D and (x_c, −1) in D′ with
‖x_c‖ = 1. For the logistic loss the two local gradients then differ by exactly
(C/B)·y·x_c·(L'(z) + L'(−z)) = −(C/B) y x_c at *every* point f (L'(z) + L'(−z) = −1), so every
reconstructed noise is shifted by the same vector of norm C/(sB), and the Jacobian terms are
equal (L'' is even): ℓ = Σ_t α_t(‖ε_t + Δ_t‖ − ‖ε_t‖). With d = 1 the noise is Laplace and ℓ_t
reaches its maximum α_t C/(s_t B) whenever |ε_t| ≥ C/(s_t B): a composition of Laplace mechanisms.
This is half of the theorems' sensitivity 2C/B: for the logistic loss two records' gradient
terms can only differ by ~2 if ‖f‖ → ∞ (both margins very negative with x, x̂ nearly opposite),
so the label flip is the worst case at bounded iterates, not the theorems' worst case.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from audits.neighbours import label_flip_neighbours
from audits.sections.decentralized import canary_ceiling, kkt_section, nonprivate_objective, realised_loss_section
from audits.spec import AuditSpec, Claim, SectionBuilder, SpecBuilder

if TYPE_CHECKING:  # solvers and attacks are imported on first use
    from solvers.decentralized import MRADMM, RADMM, DecentralizedProblem, PenaltyPerturbation
    from solvers.decentralized.admm import StepSchedule

    #: The audited solvers (RADMM is an MRADMM, DVP a PenaltyPerturbation).
    DecentralizedSolver = MRADMM | PenaltyPerturbation

__all__ = [
    "DEFAULT_BETA",
    "MAX_BETA",
    "VARIANTS",
    "Variant",
    "alpha_for_beta",
    "build_solver",
    "decentralized_spec",
    "under_noised_radmm",
]

#: The paper's total β each audit is calibrated to by default (``--epsilon``).
DEFAULT_BETA = 6.0
#: ``--epsilon`` (β) is at most this, ln of the largest double rounded down: a pure ε-DP guarantee bounds
#: P[S | D] by e^β P[S | D′], which for a larger β is not a double and bounds nothing.
MAX_BETA = 709.0


@dataclass(frozen=True)
class Variant:
    """One audited solver: its class in ``solvers.decentralized`` and its options but the noise rate α (PP: α(1))
    and δ, the names of the paper's bound and of its tight form in the report, the claim, and whether the KKT
    attack of Zhang, Khalili & Liu 2018 applies."""

    solver: str
    options: Mapping[str, float]
    paper: str
    tight: str
    claim: str
    kkt: bool = False
    alpha_name: str = "α"

    def build(self, alpha: float, delta: float) -> DecentralizedSolver:
        """The solver at noise rate ``alpha`` and ``delta``."""
        import solvers.decentralized

        solver: DecentralizedSolver = getattr(solvers.decentralized, self.solver)(
            alpha=alpha, delta=delta, **self.options
        )
        return solver


_THM_V1, _THM_V1_TIGHT = "paper (Thm V.1 β)", "Thm V.1 tight (eq. 56)"
_THM_41, _THM_41_TIGHT = "paper (Thm 4.1 β)", "Thm 4.1 tight (eq. 64–65)"
#: The audited solvers by name: adding one is one row.
VARIANTS = {
    "radmm": Variant(
        "RADMM",
        {"eta": 1.0, "gamma": 0.5, "n_iterations": 10},
        _THM_V1,
        _THM_V1_TIGHT,
        "Zhang, Khalili & Liu 2020 (Recycled ADMM), Theorem V.1: private R-ADMM is β-DP (pure) with "
        "β = max_i Σ_k (2C/B_i)(1.4c1/(ρ/N + 2ηV_i) + α_i(k)) over the odd iterations",
    ),
    "mradmm": Variant(
        "MRADMM",
        {"eta": 1.0, "eta_growth": 1.04, "gamma": 0.5, "n_iterations": 10},
        _THM_V1,
        _THM_V1_TIGHT,
        "Zhang, Khalili & Liu 2020 (Recycled ADMM), Theorem V.1 for MR-ADMM (η_i(2k−1) non-decreasing): "
        "β = max_i Σ_k (2C/B_i)(1.4c1/(ρ/N + 2η_i(2k−1)V_i) + α_i(k))",
    ),
    "ppadmm": Variant(
        "PenaltyPerturbation",
        {"theta": 0.5, "q1": 1.05, "q2": 1.03, "n_iterations": 6},
        _THM_41,
        _THM_41_TIGHT,
        "Zhang, Khalili & Liu 2018 (ICML), Theorem 4.1: penalty perturbation is β-DP (pure) with "
        "β = max_i Σ_t C(1.4c1 + α_i(t))/(η_i(t)V_iB_i)",
        kkt=True,
        alpha_name="α(1)",
    ),
    "dvp": Variant(
        "DVP",
        {"theta": 0.5, "q2": 1.0, "n_iterations": 6},
        _THM_41,
        _THM_41_TIGHT,
        "DVP as characterised by Zhang, Khalili & Liu 2018 (ICML): PP with η ≡ θ, Theorem 4.1's β",
        kkt=True,
    ),
}


@functools.cache
def _under_noised() -> type[RADMM]:
    from solvers.decentralized import RADMM

    @dataclass(frozen=True)
    class UnderNoisedRADMM(RADMM):
        """DELIBERATELY BROKEN R-ADMM: samples its noise with α·noise_factor but accounts (and
        claims) Theorem V.1's β for α."""

        noise_factor: float = 4.0
        name = "radmm_under_noised"

        def step_schedule(self, problem: DecentralizedProblem) -> StepSchedule:
            # MRADMM.step_schedule carries no annotations; it overrides the typed base method
            planned: Callable[[DecentralizedProblem], StepSchedule] = super().step_schedule
            schedule = planned(problem)
            if schedule.alpha is None:
                raise ValueError("the under-noised R-ADMM is a private solver: it needs alpha")
            return dataclasses.replace(schedule, alpha=schedule.alpha * float(self.noise_factor))

    return UnderNoisedRADMM


def under_noised_radmm(**kwargs: Any) -> RADMM:
    """The deliberately broken R-ADMM (noise drawn at α·noise_factor, Theorem V.1's β claimed for
    α); keywords as ``RADMM`` plus ``noise_factor``. The class is built on first use so that
    importing this module does not import the solvers."""
    return _under_noised()(**kwargs)


def build_solver(name: str, alpha: float, delta: float, *, noise_factor: float | None = None) -> DecentralizedSolver:
    """The audited solver ``name`` at noise rate ``alpha`` (its α(1) for PP)."""
    if noise_factor is not None:
        if name != "radmm":
            raise ValueError(f"the broken (under-noised) variant exists for radmm only, got {name!r}")
        return under_noised_radmm(alpha=alpha, delta=delta, noise_factor=noise_factor, **VARIANTS["radmm"].options)
    if name not in VARIANTS:
        raise ValueError(f"name must be one of {sorted(VARIANTS)}, got {name!r}")
    return VARIANTS[name].build(alpha, delta)


def alpha_for_beta(name: str, beta: float, problem: DecentralizedProblem, delta: float = 1e-5) -> float:
    """The α (PP: α(1)) of the audited solver ``name`` at which the paper's bound max_i β_i equals ``beta``
    (:func:`solvers.decentralized.privacy.alpha_for_beta`).

    Raises:
      ValueError: beta does not exceed the bound's α-free (Jacobian) part, or exceeds :data:`MAX_BETA`.
    """
    from solvers.decentralized.privacy import alpha_for_beta as calibrated

    if not beta <= MAX_BETA:
        raise ValueError(
            f"epsilon (the paper's total β) must be at most {MAX_BETA:g}: e^β is then beyond double precision "
            f"and the guarantee says nothing, got {beta!r}"
        )
    try:
        return calibrated(lambda alpha: build_solver(name, alpha, delta), beta, problem)
    except ValueError as error:
        raise ValueError(f"epsilon (the paper's total β) for {name}: {error}") from error


def decentralized_spec(name: str, *, noise_factor: float | None = None) -> SpecBuilder:
    """The spec builder of the ``name`` audit (module docstring). ``epsilon``: the paper's total β to
    calibrate α to (None: :data:`DEFAULT_BETA`). ``noise_factor``: audit the deliberately broken
    R-ADMM instead (noise drawn at α·noise_factor, β claimed for α)."""
    if name not in VARIANTS:
        raise ValueError(f"name must be one of {sorted(VARIANTS)}, got {name!r}")
    variant = VARIANTS[name]

    def build(epsilon: float | None, delta: float, quick: bool) -> AuditSpec:
        from attacks.objective_perturbation import TranscriptNP, costly_iterations
        from solvers.decentralized.privacy import beta_per_node

        nb = label_flip_neighbours()
        agent = nb.agent
        beta_target = DEFAULT_BETA if epsilon is None else float(epsilon)
        alpha = alpha_for_beta(name, beta_target, nb.problem_in, delta)
        solver = build_solver(name, alpha, delta, noise_factor=noise_factor)
        run = solver.run(nb.problem_in, seed=0, accountants=(), record_history=False, record_transcript=False)
        details = run.details
        eps_t = np.asarray(details.epsilons, dtype=np.float64)[costly_iterations(details) - 1, agent]
        upper = {
            variant.paper: float(eps_t.sum()),
            variant.tight: float(beta_per_node(solver, nb.problem_in, bound="tight")[agent]),
        }
        test = TranscriptNP(nb.problem_in, nb.problem_out, agent)
        meaning = (
            f"--epsilon = {beta_target:g} is the paper's total β for the target node ({variant.paper}); the "
            f"noise rate was set to {variant.alpha_name} = {alpha:.6g}"
            f"{f' (DELIBERATELY BROKEN: noise drawn at {noise_factor:g}·α)' if noise_factor else ''}; "
            f"every ε below is the total over T = {solver.get_params().get('n_iterations')} iterations for node "
            f"{agent} at δ = {delta:g} (the papers' bounds are pure, δ = 0)"
        )
        sections: tuple[SectionBuilder, ...] = (
            realised_loss_section(test.name, eps_t, canary_ceiling(details, nb.problem_in, agent)),
            *((kkt_section(agent),) if variant.kkt else ()),
            nonprivate_objective,
        )
        return AuditSpec(
            name=name if noise_factor is None else f"{name}-broken-under-noised",
            solver=solver,
            problem_in=nb.problem_in,
            problem_out=nb.problem_out,
            participant=agent,
            attacks=(test,),
            claim=Claim(statement=variant.claim, delta=delta, bound=variant.paper, upper=upper),
            canary=nb.description,
            epsilon_meaning=meaning,
            trials=25_000,
            quick_trials=1_000,
            utility=lambda result: {"objective": nb.problem_in.objective(result.model)},
            sections=sections,
            report={"alpha": alpha, "beta_target": beta_target},
        )

    return build
