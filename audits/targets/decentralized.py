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
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from audits.neighbours import label_flip_neighbours
from audits.spec import AuditContext, AuditSpec, Claim, Finding, SectionBuilder, SpecBuilder

if TYPE_CHECKING:  # solvers and attacks are imported on first use
    from audits.stats import LowerBound
    from audits.verdict import Section
    from solvers.decentralized import MRADMM, RADMM, DecentralizedProblem, PenaltyPerturbation
    from solvers.decentralized.admm import DecentralizedPlan, StepSchedule

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


def _radmm(alpha: float, delta: float) -> DecentralizedSolver:
    from solvers.decentralized import RADMM

    return RADMM(eta=1.0, gamma=0.5, alpha=alpha, n_iterations=10, delta=delta)


def _mradmm(alpha: float, delta: float) -> DecentralizedSolver:
    from solvers.decentralized import MRADMM

    return MRADMM(eta=1.0, eta_growth=1.04, gamma=0.5, alpha=alpha, n_iterations=10, delta=delta)


def _ppadmm(alpha: float, delta: float) -> DecentralizedSolver:
    from solvers.decentralized import PenaltyPerturbation

    return PenaltyPerturbation(theta=0.5, q1=1.05, alpha=alpha, q2=1.03, n_iterations=6, delta=delta)


def _dvp(alpha: float, delta: float) -> DecentralizedSolver:
    from solvers.decentralized import DVP

    return DVP(theta=0.5, alpha=alpha, q2=1.0, n_iterations=6, delta=delta)


@dataclass(frozen=True)
class Variant:
    """One audited solver: its builder at noise rate α (PP: α(1)) and δ, the names of the paper's
    bound and of its tight form in the report, the claim, and whether the KKT attack of Zhang, Khalili &
    Liu 2018 applies."""

    build: Callable[[float, float], DecentralizedSolver]
    paper: str
    tight: str
    claim: str
    kkt: bool = False
    alpha_name: str = "α"


_THM_V1, _THM_V1_TIGHT = "paper (Thm V.1 β)", "Thm V.1 tight (eq. 56)"
_THM_41, _THM_41_TIGHT = "paper (Thm 4.1 β)", "Thm 4.1 tight (eq. 64–65)"
#: The audited solvers by name: adding one is one row.
VARIANTS = {
    "radmm": Variant(
        _radmm,
        _THM_V1,
        _THM_V1_TIGHT,
        "Zhang, Khalili & Liu 2020 (Recycled ADMM), Theorem V.1: private R-ADMM is β-DP (pure) with "
        "β = max_i Σ_k (2C/B_i)(1.4c1/(ρ/N + 2ηV_i) + α_i(k)) over the odd iterations",
    ),
    "mradmm": Variant(
        _mradmm,
        _THM_V1,
        _THM_V1_TIGHT,
        "Zhang, Khalili & Liu 2020 (Recycled ADMM), Theorem V.1 for MR-ADMM (η_i(2k−1) non-decreasing): "
        "β = max_i Σ_k (2C/B_i)(1.4c1/(ρ/N + 2η_i(2k−1)V_i) + α_i(k))",
    ),
    "ppadmm": Variant(
        _ppadmm,
        _THM_41,
        _THM_41_TIGHT,
        "Zhang, Khalili & Liu 2018 (ICML), Theorem 4.1: penalty perturbation is β-DP (pure) with "
        "β = max_i Σ_t C(1.4c1 + α_i(t))/(η_i(t)V_iB_i)",
        kkt=True,
        alpha_name="α(1)",
    ),
    "dvp": Variant(
        _dvp,
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
        return under_noised_radmm(
            eta=1.0, gamma=0.5, alpha=alpha, n_iterations=10, delta=delta, noise_factor=noise_factor
        )
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
            _realised_loss(test.name, eps_t, _canary_ceiling(details, nb.problem_in, agent)),
            *((_kkt_section(agent),) if variant.kkt else ()),
            _nonprivate,
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


def _nonprivate(context: AuditContext) -> Finding:
    """The objective of the non-private centralized optimum on D."""
    from solvers.centralized import centralized_optimum

    return Finding(utility={"objective_nonprivate": float(centralized_optimum(context.spec.problem_in).objective)})


def _realised_loss(attack: str, eps_t: np.ndarray, ceiling: float) -> SectionBuilder:
    """The realised-loss section (:func:`_realised_section`); a transcript whose |ℓ| exceeds a pure
    bound disproves it outright (no statistics), which is a VIOLATION."""

    def build(context: AuditContext) -> Finding:
        from attacks.objective_perturbation import costly_iterations, reconstruct_noise

        seen_in, seen_out = context.observations[attack]
        ell = {
            side: np.concatenate([s["loss"] for s in seen], axis=1)
            for side, seen in (("in", seen_in), ("out", seen_out))
        }
        jacobian = max([0.0, *(s["jacobian"] for s in [*seen_in, *seen_out])])
        shift = np.concatenate([s["shift"] for s in [*seen_in, *seen_out]], axis=1)
        spec = context.spec
        # White-box check: the reconstruction from the public channel recovers the solver's noise.
        check = spec.solver.run(
            spec.problem_in,
            seeds=context.streams(0).spawn(20),
            accountants=(),
            record_history=False,
            record_white_box=True,
        )
        if check.transcript is None:
            raise ValueError("the white-box check needs the run's transcript")
        recovered = reconstruct_noise(check.transcript.public()["f"], spec.problem_in, check.details)
        error = float(np.abs(recovered - check.transcript["noise"][costly_iterations(check.details)]).max())
        gdp = context.informational["gdp"]
        paper = spec.claim.bound
        if paper is None:
            raise ValueError("the realised-loss section needs the claim's bound")
        tight = next(k for k in spec.claim.upper if k != paper)
        section, realised = _realised_section(
            ell, eps_t, context.upper, paper, tight, jacobian, shift, ceiling, error, gdp
        )
        exceeded = [key for key, count in realised["trials_exceeding"].items() if count]
        return Finding(
            section=section,
            report={"realised_loss": realised, "gdp_informational": gdp.to_dict()},
            verdicts={key: "VIOLATION" for key in exceeded},
            violated_by={key: ("realised_loss",) for key in exceeded},
        )

    return build


def _quantiles(x: np.ndarray) -> dict[str, float]:
    q = np.quantile(x, [0.5, 0.99, 0.999])
    return {
        "mean": float(x.mean()),
        "median": float(q[0]),
        "q99": float(q[1]),
        "q999": float(q[2]),
        "min": float(x.min()),
        "max": float(x.max()),
        "max_abs": float(np.abs(x).max()),
    }


def _canary_ceiling(details: DecentralizedPlan, problem: DecentralizedProblem, agent: int) -> float:
    """Σ_t α_t C/(s_t B): the label flip's largest possible ℓ (its noise shift is C/(s_t B))."""
    from attacks.objective_perturbation import costly_iterations

    t = costly_iterations(details)
    alpha_t = np.asarray(details.alpha, dtype=np.float64)[np.asarray(details.noise_slot)[t - 1], agent]
    scale_t = np.asarray(details.noise_scale, dtype=np.float64)[t - 1, agent]
    return float((alpha_t * problem.C / (scale_t * problem.sizes[agent])).sum())


def _realised_section(
    ell: Mapping[str, np.ndarray],
    eps_t: np.ndarray,
    upper: Mapping[str, float],
    paper_key: str,
    tight_key: str,
    jacobian: float,
    shift: np.ndarray,
    ceiling: float,
    reconstruction_error: float,
    gdp: LowerBound,
) -> tuple[Section, dict[str, Any]]:
    """The realised-privacy-loss section: ℓ of every transcript against the paper's β."""
    totals = {side: v.sum(axis=0) for side, v in ell.items()}
    stats = {side: _quantiles(v) for side, v in totals.items()}
    worst = max(s["max_abs"] for s in stats.values())
    beta, tight = upper[paper_key], upper[tight_key]
    exceed = {
        k: int(sum((np.abs(v) > upper[k] * (1 + 1e-9) + 1e-9).sum() for v in totals.values()))
        for k in (paper_key, tight_key, "pure")
        if k in upper
    }
    per_iteration = float(max(np.abs(v).max() for v in ell.values()))
    ratio_t = float(max((np.abs(v).max(axis=1) / eps_t).max() for v in ell.values()))
    n = sum(v.size for v in totals.values())
    data: dict[str, Any] = {
        "quantiles": stats,
        "max_abs_realised_loss": worst,
        "beta_paper": beta,
        "beta_tight": tight,
        "trials_exceeding": exceed,
        "max_per_iteration_ratio_to_epsilon_t": ratio_t,
        "max_per_iteration_loss": per_iteration,
        "max_abs_jacobian_term": jacobian,
        "canary_shift_norm": {"min": float(shift.min()), "max": float(shift.max())},
        "canary_max_loss": ceiling,
        "reconstruction_max_abs_error": reconstruction_error,
        "epsilon_t": eps_t.tolist(),
        "gdp_informational": {"epsilon": gdp.epsilon, "mu": gdp.mu},
    }
    rows = ["| realised loss ℓ (total) | trials on D | trials on D′ |", "|---|---|---|"]
    for key, label in (
        ("mean", "mean"),
        ("median", "median"),
        ("q99", "99th percentile"),
        ("q999", "99.9th percentile"),
        ("min", "min"),
        ("max", "max"),
        ("max_abs", "max |ℓ|"),
    ):
        rows.append(f"| {label} | {stats['in'][key]:.4f} | {stats['out'][key]:.4f} |")
    flag = (
        "**VIOLATION: some transcript's realised loss exceeds the claimed pure bound**"
        if exceed[paper_key]
        else "no transcript exceeds it"
    )
    markdown = "\n".join(
        rows
        + [
            "",
            "ℓ = ln p(transcript | D) − ln p(transcript | D′), reconstructed exactly from the broadcasts "
            "(noise of every costly iteration from its first-order condition, Jacobian by slogdet). "
            "A pure β-DP mechanism has |ℓ| ≤ β for every transcript.",
            "",
            f"* largest |ℓ| over all {n} transcripts: **{worst:.4f}** against the paper's β = **{beta:.4f}** "
            f"(tight form {tight:.4f}): {flag}; trials above β: {exceed[paper_key]}, above the tight form: "
            f"{exceed[tight_key]}",
            f"* per iteration: max_t max |ℓ_t| / ε_t = {ratio_t:.4f} (the theorem bounds every term by its ε_t)",
            f"* the canary's own ceiling Σ_t α_t C/(s_t B) = {ceiling:.4f} (noise shift "
            f"‖Δ_t‖ = {shift.min():.6g}…{shift.max():.6g} = C/(sB), half the theorems' 2C/(sB))",
            f"* Jacobian term ln det H(D) − ln det H(D′): max |·| = {jacobian:.3g} (0 for a label flip: L'' is even)",
            f"* reconstruction check (white-box, 20 trials): max |ε̂ − ε| = {reconstruction_error:.3g} from the "
            f"public channel alone",
            f"* not used for the verdict: the GDP bound would read ε ≥ {gdp.epsilon:.4f} (μ ≥ {gdp.mu:.4f}), but it "
            f"assumes a Gaussian trade-off curve; this loss is a sum of Laplace-like terms bounded by "
            f"{ceiling:.4f}, so the Gaussian extrapolation to δ is not a valid lower bound here",
        ]
    )
    return {"title": "Realised privacy loss of the transcripts", "markdown": markdown, "data": data}, data


#: The KKT attack's problem: the audit's graph, C/B and β, but d = 10 non-negative features and
#: B = C = 100 (a record must have a direction to reconstruct, and candidates to rank).
KKT_RECORDS, KKT_FEATURES = 100, 10


def _kkt_section(agent: int) -> SectionBuilder:
    """The KKT inference attack of Zhang, Khalili & Liu 2018 (:func:`attacks.kkt.audit_section`) on node
    ``agent``, for ppadmm and dvp, on a d = 10 problem with the same β (C/B, degrees and schedules unchanged)."""
    return functools.partial(_kkt_finding, agent)


def _kkt_finding(agent: int, context: AuditContext) -> Finding:
    try:
        from attacks.kkt import audit_section
    except ImportError:
        return Finding(
            section={
                "title": "KKT inference attack (Zhang, Khalili & Liu 2018, Sec. 6.2)",
                "markdown": "attacks.kkt is not available in this installation; the KKT attack was not run.",
                "data": {"available": False},
            }
        )
    seed = context.seed
    problem = label_flip_neighbours(records=KKT_RECORDS, features=KKT_FEATURES, nonnegative=True, seed=seed).problem_in
    section = audit_section(context.spec.solver, problem, agent=agent, trials=10 if context.quick else 50, seed=seed)
    return Finding(section=cast("Section", section))
