"""Every auditable solver by name: how to build its neighbouring runs, attack and claimed bound.

One entry per solver and private mode. Adding a solver later is one :class:`AuditTarget` in
:data:`TARGETS` with a ``build`` function; names whose solver is not in the toolkit yet are listed
with the reason and fail with a clear error.

The privacy parameter ``epsilon`` of an entry is the **per-iteration ε of the paper's classic
Gaussian calibration** (z = sqrt(2 ln(1.25/δ))/ε, Theorem 1 of DP-ADMM), the solver's own
parameter; the audit reports the totals after T iterations from every accountant. The default
makes the exact accountant's μ equal 1 for the target agent (ε = sqrt(2 ln(1.25/δ)/T)), i.e. a
total ε of 4.377 at δ = 1e-5.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from audits.targets import decentralized
from audits.targets import pdml as pdml_targets
from audits.targets import sharing as sharing_targets

if TYPE_CHECKING:  # solvers and attacks are imported on first use
    from attacks.base import AttackScores
    from attacks.whitebox import WhiteBoxNP
    from audits.neighbours import CanaryOptions, Neighbours
    from solvers.dpadmm import DPADMM, NaiveNoisyADMM

__all__ = ["AuditBuild", "AuditRun", "AuditSetup", "AuditTarget", "TARGETS", "UnavailableTarget", "get_target"]


class UnavailableTarget(ValueError):
    """The name is known but its solver is not in the toolkit yet."""


@dataclass(frozen=True)
class AuditSetup:
    """What one audit runs: a solver, neighbouring problems, the target agent, and the attack."""

    solver: DPADMM | NaiveNoisyADMM
    neighbours: Neighbours
    attack: WhiteBoxNP
    claimed_accountant: str
    claim: str
    calibrate: bool = True


#: build(epsilon, delta, quick) of a registry entry.
AuditBuild = Callable[[float, float, bool], AuditSetup]


class AuditRun(Protocol):
    """``run`` of a registry entry with its own pipeline: (report, attacks)."""

    def __call__(
        self,
        *,
        epsilon: float | None,
        delta: float,
        confidence: float,
        trials: int,
        seed: int,
        quick: bool,
        progress: bool | None,
    ) -> tuple[dict[str, Any], list[AttackScores]]: ...


@dataclass(frozen=True)
class AuditTarget:
    """A registry entry.

    Attributes:
      name: the CLI name. description: one line for ``--list``.
      build: (epsilon, delta, quick) → AuditSetup, for the Gaussian-noise star solvers that
        :func:`audits.run.run_audit` runs itself; None while the solver is missing.
      unavailable: why the target cannot run yet.
      run: a target with its own pipeline instead of ``build``, called with keywords
        ``epsilon`` (None: the target's default), ``delta``, ``confidence``, ``trials`` (per
        hypothesis), ``seed``, ``quick``, ``progress``; returns (report, attacks) where report
        comes from :func:`audits.verdict.assemble_report` and attacks are ``AttackScores``.
      trials, quick_trials: default trials per hypothesis.
      default_epsilon: delta → default per-iteration ε.
    """

    name: str
    description: str
    build: AuditBuild | None = None
    unavailable: str = ""
    run: AuditRun | None = None
    trials: int = 100_000
    quick_trials: int = 2_000
    default_epsilon: Callable[[float], float] | None = None
    hidden: bool = False

    @property
    def available(self) -> bool:
        return self.build is not None or self.run is not None


#: DP-ADMM audit configuration: small so that 10^5 trials per hypothesis take about a minute.
DPADMM_ITERATIONS = 25
DPADMM_AGENTS = 2
DPADMM_RECORDS = 50
HUBER_H = 0.1


def unit_mu_epsilon(delta: float, iterations: int = DPADMM_ITERATIONS) -> float:
    """Per-iteration ε of the classic calibration giving μ = sqrt(T)/z = 1 after T iterations."""
    return math.sqrt(2.0 * math.log(1.25 / delta) / iterations)


def _dpadmm(
    solver_class: type[DPADMM] | None = None, canary: CanaryOptions | None = None, noise: str = "calibrated"
) -> AuditBuild:
    def build(epsilon: float, delta: float, quick: bool = False) -> AuditSetup:
        from attacks.whitebox import WhiteBoxNP
        from audits.neighbours import canary_neighbours
        from solvers import DPADMM, HuberHingeLoss

        cls = DPADMM if solver_class is None else solver_class
        solver = cls(epsilon=epsilon, delta=delta, n_iterations=DPADMM_ITERATIONS, dw=1.0)
        nb = canary_neighbours(
            n_agents=DPADMM_AGENTS, records_per_agent=DPADMM_RECORDS, loss=HuberHingeLoss(h=HUBER_H), **(canary or {})
        )
        attack = WhiteBoxNP(solver, nb.problem_in, nb.problem_out, nb.agent, noise=noise)
        claim = (
            "DP-ADMM Theorem 2: per-iteration (ε, δ) Gaussian mechanism composed by the moments "
            "accountant (integer τ), ε̄ at the same δ"
        )
        return AuditSetup(solver, nb, attack, "moments_classic", claim)

    return build


def _naive(epsilon: float, delta: float, quick: bool = False) -> AuditSetup:
    from attacks.whitebox import WhiteBoxNP
    from audits.neighbours import canary_neighbours
    from solvers import HuberHingeLoss, NaiveNoisyADMM

    solver = NaiveNoisyADMM(epsilon=epsilon, delta=delta, n_iterations=DPADMM_ITERATIONS, tol=1e-9)
    nb = canary_neighbours(n_agents=DPADMM_AGENTS, records_per_agent=DPADMM_RECORDS, loss=HuberHingeLoss(h=HUBER_H))
    attack = WhiteBoxNP(solver, nb.problem_in, nb.problem_out, nb.agent, noise="calibrated")
    lam, N, rho = nb.problem_in.lam, nb.problem_in.n_agents, solver.rho
    claim = (
        "DP-ADMM paper, Algorithm 2 baseline: σ_i from the paper's sensitivity 2S1N/(m_i λ), "
        "claimed to have the same ε̄ as DP-ADMM (moments accountant). That sensitivity is "
        f"{(lam + N * rho) / lam:.1f}× the tight 2S1/(m_i(λ/N + ρ)) here (spec 000 §3), so the "
        "run is over-noised and a lower bound near 0 is expected"
    )
    return AuditSetup(solver, nb, attack, "moments_classic", claim)


class _TrialCounts(TypedDict):
    trials: int
    quick_trials: int


#: The decentralized audits (audits.targets.decentralized): trials per hypothesis.
_DECENTRALIZED_TRIALS: _TrialCounts = {"trials": 25_000, "quick_trials": 1_000}

TARGETS: dict[str, AuditTarget] = {
    t.name: t
    for t in [
        AuditTarget(
            "dpadmm",
            "DP-ADMM (Huang et al., Algorithm 3): linearised ADMM with Gaussian output noise, star topology",
            _dpadmm(),
            default_epsilon=unit_mu_epsilon,
        ),
        AuditTarget(
            "dpadmm-naive",
            "DP-ADMM paper's Algorithm 2: exact local argmin plus constant Gaussian noise (paper's sensitivity)",
            _naive,
            trials=5_000,
            quick_trials=300,
            default_epsilon=unit_mu_epsilon,
        ),
        AuditTarget(
            "radmm",
            "R-ADMM (Zhang, Khalili & Liu, Recycled ADMM): decentralized ADMM "
            "with Gamma-norm objective perturbation on odd iterations only; --epsilon = the paper's "
            "total β (Thm V.1), default 6",
            run=decentralized.run_radmm,
            **_DECENTRALIZED_TRIALS,
        ),
        AuditTarget(
            "mradmm",
            "MR-ADMM (Zhang, Khalili & Liu): R-ADMM with non-decreasing penalties "
            "η(2k−1) = 1.04^k; --epsilon = the paper's total β (Thm V.1), default 6",
            run=decentralized.run_mradmm,
            **_DECENTRALIZED_TRIALS,
        ),
        AuditTarget(
            "ppadmm",
            "M-ADMM with penalty perturbation (Zhang, Khalili & Liu, ICML 2018); "
            "--epsilon = the paper's total β (Thm 4.1), default 6",
            run=decentralized.run_ppadmm,
            **_DECENTRALIZED_TRIALS,
        ),
        AuditTarget(
            "dvp",
            "ADMM with dual-variable perturbation (Zhang & Zhu), as PP with a "
            "constant penalty; --epsilon = the paper's total β (Thm 4.1), default 6",
            run=decentralized.run_dvp,
            **_DECENTRALIZED_TRIALS,
        ),
        AuditTarget(
            "pdml",
            "PDML (Wang et al.): local label randomization + perturbed decentralized ADMM; "
            "the label guarantee at the collecting server, and a white-box audit of the derived "
            "broadcast guarantee; --epsilon = the users' label ε, default 1",
            run=pdml_targets.run_pdml,
            trials=20_000,
            quick_trials=2_000,
        ),
        AuditTarget(
            "sharing-output",
            "ADMM sharing over vertically partitioned features (Hu et "
            "al.), certified output perturbation (Δ_safe); --epsilon = per-iteration ε of Theorem 1, "
            "default 1",
            run=sharing_targets.run_sharing_output,
            trials=20_000,
            quick_trials=500,
        ),
        AuditTarget(
            "sharing-parameter",
            "ADMM sharing over vertically partitioned features (Hu "
            "et al.), the paper's parameter perturbation (10); --epsilon = per-iteration ε of "
            "Theorem 1, default 0.1",
            run=sharing_targets.run_sharing_parameter,
            trials=10_000,
            quick_trials=200,
        ),
    ]
}


def _summary(cls: type) -> str:
    """The first line of ``cls``'s docstring."""
    if not cls.__doc__:
        raise ValueError(f"{cls.__name__} needs a docstring: its first line describes the target")
    return cls.__doc__.splitlines()[0]


def _broken_targets() -> dict[str, AuditTarget]:
    from audits.broken import BROKEN_VARIANTS

    return {
        f"dpadmm-broken-{key}": AuditTarget(
            f"dpadmm-broken-{key}",
            f"DELIBERATELY BROKEN DP-ADMM ({_summary(cls)})",
            _dpadmm(cls, canary),
            default_epsilon=unit_mu_epsilon,
            hidden=True,
        )
        for key, (cls, canary) in BROKEN_VARIANTS.items()
    }


def get_target(name: str) -> AuditTarget:
    """The entry ``name`` (the broken variants are reachable by name but not listed).

    Raises:
      ValueError: unknown name (the message lists the known ones).
      UnavailableTarget: known name whose solver is missing.
    """
    targets = {**TARGETS, **_broken_targets()}
    if name not in targets:
        raise ValueError(
            f"unknown solver name {name!r}; choose one of: {', '.join(TARGETS)} (see python -m audits.run --list)"
        )
    target = targets[name]
    if not target.available:
        raise UnavailableTarget(f"{name}: {target.unavailable}")
    return target
