"""Audits of ADMM sharing over vertically partitioned features (Hu et al. 2019): ``sharing-parameter``,
``sharing-output``.

Hu, Liu, Kong, Niu 2019 (arXiv 1907.07735), Sec. 4. Party 0 of M = 2 holds a block D_0 whose last row is the
canary record; D and D′ differ only in that row (row adjacency, the toolkit's default reading of the paper's
Definition 2). Each audit runs the solver on D and on D′ in batched runs, scores every trial with
the strongest applicable attack (:mod:`attacks.sharing`), turns the scores into lower bounds (GDP
and Clopper–Pearson at the stated confidence) and holds them against every accountant's upper bound
and the paper's own bound (Theorem 1 per iteration, composed by Corollary 1 (11) or by basic
composition) for the same releases.

* ``sharing-parameter`` — the paper's mechanism (10): ũ_0 = D_0(x_0 + ξ), ξ ~ N(0, σ²(D_0ᵀD_0)^+),
  σ from Theorem 1 with Lemma 1's C. The canary row a (unit norm, generic) is replaced by a unit
  row a′ with ‖a − a′‖ = 1 (a 60° rotation, as in the counterexample to Lemma 1 of
  :func:`solvers.sharing.privacy.lemma1_counterexample`), so
  col(D_0) ≠ col(D′_0) while every assumption of the paper holds. Attack: the column-space
  residual test with the pre-registered threshold 1e-9 — it makes no error, so the true ε is
  infinite and the Clopper–Pearson bound (zero errors in n trials per side: about
  ln(n / ln(2/α))) is limited only by the trial count. The defaults make it exceed the claim.
* ``sharing-output`` — the certified output mode: ũ_0 = D_0 x_0 + N(0, σ²I_N) with Δ_safe = 2√N b_1 and
  ‖x_0‖ ≤ b_1 enforced, which certifies replace-one adjacency over rows in the unit ball. Party 0
  holds one feature: 1 for each of the N − 1 ordinary records (labels balanced), and for the canary
  −1 in D and +1 in D′. With b_1 small, x_0 sits on the ball (x_0 = ±b_1) with the sign of the
  larger gradient term, which is the canary's (the others' balanced labels cancel), so x_0 flips
  between D and D′ and drags all N − 1 other predictions with it: ‖D_0x_0 − D′_0x′_0‖ ≈
  2b_1√(N − 1), i.e. √((N−1)/N) = 0.94 of Δ_safe. Attack: the Neyman–Pearson replay test
  (:class:`attacks.sharing.SharingNP`); the report shows the canary's realised μ next to the
  accountants' μ. ‖a − a′‖ = 2: the pair is two steps apart under the paper's Definition 2
  (‖D_m − D′_m‖ ≤ 1), so the paper's bound is shown for reference (it is far above anyway).

``epsilon`` (``--epsilon``) is the **per-iteration ε of Theorem 1's classical calibration**
σ = sqrt(2 ln(1.25/δ_it))·Δ/ε, ε ∈ (0, 1], with Δ = Lemma 1's C (parameter mode) or Δ_safe (output
mode), and δ_it = δ′ = δ/(T + 1), so that Corollary 1's total δ, Tδ_it + δ′, is the audit's δ: every
bound in the report, lower or upper, is a total over the T iterations for party 0 at that δ.
None → :data:`DEFAULT_EPSILON`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attacks.base import Attack
from audits.neighbours import SHARING_SETTINGS as SETTINGS
from audits.neighbours import SharingNeighbours, sharing_neighbours
from audits.sections.sharing import PAPER_COROLLARY1, evidence_section, gram_section
from audits.spec import AuditSpec, Claim, SpecBuilder

if TYPE_CHECKING:  # solvers and attacks are imported on first use
    from audits.stats.thresholds import ThresholdChoice
    from solvers.sharing import ADMMSharing

__all__ = [
    "DEFAULT_EPSILON",
    "MIN_EPSILON",
    "SETTINGS",
    "SharingNeighbours",
    "build_solver",
    "canary_neighbours",
    "sharing_spec",
]

#: Per-iteration ε of Theorem 1 each audit is calibrated to by default (``--epsilon``).
DEFAULT_EPSILON = {"parameter": 0.1, "output": 1.0}
#: ``--epsilon`` is at least this: the noise grows as 1/ε, and far below it (at 10⁻³⁰⁰) the z-update's
#: Newton steps no longer converge (both audits run at 10⁻¹²).
MIN_EPSILON = 1e-6


_PAPER_BASIC = "paper (Theorem 1, basic composition)"
#: The neighbouring data sets of each mode: public in :mod:`audits.neighbours`, kept here by their old name.
canary_neighbours = sharing_neighbours


def build_solver(mode: str, epsilon: float, delta: float) -> ADMMSharing:
    """The audited ``ADMMSharing`` (module docstring): Theorem 1 calibration at δ_it = δ′ = δ/(T + 1)."""
    from solvers.sharing import ADMMSharing
    from solvers.sharing.privacy import corollary1_delta

    setting = SETTINGS[mode]
    T = setting.n_iterations
    share = corollary1_delta(delta, T)
    delta_target = delta if mode == "output" else None  # None: ADMMSharing's default
    return ADMMSharing(
        noise=mode,
        epsilon=epsilon,
        delta=share,
        delta_prime=share,
        b1=setting.b1,
        n_iterations=T,
        delta_target=delta_target,
    )


def sharing_spec(mode: str) -> SpecBuilder:
    """The spec builder of the ``sharing-{mode}`` audit (module docstring), ``mode`` "parameter" or
    "output"; ``epsilon`` is the per-iteration ε of Theorem 1 in (0, 1] (None: :data:`DEFAULT_EPSILON`)."""
    if mode not in SETTINGS:
        raise ValueError(f"mode must be one of {sorted(SETTINGS)}, got {mode!r}")

    def build(epsilon: float | None, delta: float, quick: bool) -> AuditSpec:
        from attacks.sharing import ColumnSpaceTest, SharingNP
        from solvers.sharing import corollary1_epsilon
        from solvers.sharing.privacy import corollary1_delta

        eps_it = DEFAULT_EPSILON[mode] if epsilon is None else float(epsilon)
        if not MIN_EPSILON <= eps_it <= 1:
            raise ValueError(
                f"epsilon must be a per-iteration ε in [{MIN_EPSILON:g}, 1] (Theorem 1's classical calibration, "
                f"and a z-update whose Newton steps converge under its noise), got {epsilon!r}"
            )
        T = SETTINGS[mode].n_iterations
        nb = sharing_neighbours(mode)
        party = nb.party
        solver = build_solver(mode, eps_it, delta)
        residual = ColumnSpaceTest(nb.problem_in, nb.problem_out, party)
        attacks: tuple[Attack, ...]
        threshold: ThresholdChoice
        if mode == "output":
            np_test = SharingNP(solver, nb.problem_in, nb.problem_out, party)
            attacks, threshold = (np_test, residual), "split"
        else:
            attacks, threshold = (residual,), residual.THRESHOLD  # pre-registered: no selection needed
        share = corollary1_delta(delta, T)
        sensitivity = "Lemma 1's claimed C" if mode == "parameter" else "Δ_safe = 2√N b_1"
        claim = (
            "Hu et al. 2019, Theorem 1: each iteration of (10) is (ε, δ)-DP for party m when "
            "σ = sqrt(2 ln(1.25/δ))·C/ε (Lemma 1's C); Corollary 1 (11): T iterations are "
            "(sqrt(2T ln(1/δ′))ε + Tε(e^ε − 1), Tδ + δ′)-DP"
        )
        if mode == "output":
            claim += (
                "; here applied with the certified Δ_safe and output noise, where it is a valid (loose) bound, "
                "as are the accountants' bounds on the registered Gaussian releases"
            )
        else:
            claim += (
                "; the solver registers no guarantee (claim_verified = False): the release stays in col(D_m), "
                "so the mechanism is not DP (a range leak)"
            )
        return AuditSpec(
            name=f"sharing-{mode}",
            solver=solver,
            problem_in=nb.problem_in,
            problem_out=nb.problem_out,
            participant=party,
            attacks=attacks,
            claim=Claim(
                statement=claim,
                delta=delta,
                bound=PAPER_COROLLARY1,
                upper={PAPER_COROLLARY1: corollary1_epsilon(eps_it, T, share), _PAPER_BASIC: T * eps_it},
                noise="gaussian",
            ),
            canary=nb.description,
            epsilon_meaning=(
                f"--epsilon = {eps_it:g} is not the privacy of the run: it is the ε each single iteration's "
                f"release is calibrated to by Theorem 1's classical formula σ = sqrt(2 ln(1.25/δ_it))·Δ/ε with "
                f"Δ = {sensitivity}, δ_it = δ′ = δ/(T + 1) = {share:.3g}, as if that iteration were published alone; "
                f"the run publishes T = {T} of them, and every ε below (the claim's, each accountant's and the "
                f"audit's) is the total over all {T} iterations for party {party} at δ = {delta:g} "
                f"(= Tδ_it + δ′, Corollary 1's total δ)"
            ),
            trials=20_000 if mode == "output" else 10_000,
            quick_trials=500 if mode == "output" else 200,
            run_options={"transcript_agents": [party]},
            threshold=threshold,
            utility=lambda result: {"objective": nb.problem_in.objective(result.model)},
            sections=(evidence_section(mode, residual), gram_section(party)),
            report={"epsilon_per_iteration": eps_it},
            quiet_floating_point=True,  # the ball's secular equation at unused rows
        )

    return build
