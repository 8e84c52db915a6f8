"""``python -m audits.run pdml``: the label guarantee of PDML's local randomization (Wang et al. 2020).

The one guarantee the paper proves is Prop. 1: each user's label, randomized locally with flip
probability p = 1/(1 + e^ε) before it leaves the user, is ε-label-LDP (Wang et al. 2020, Sec. IV-A). The
audit tests it where it is weakest, at the collecting server s_0, which sees the reported label y'
of its users (the ``y_reported`` channel):

* D and D′ differ in one user's label, +1 against −1 (the canary: user 0 of group 0, features and
  every other record fixed);
* every trial is a full PDML run (Phase 1 and T iterations of the perturbed ADMM) in one batched
  run per hypothesis, and the attacker reads the canary's reported label: the Neyman–Pearson test
  for randomized response, score 1 if y' = +1;
* the lower bound (Clopper–Pearson, worst case) is held against every accountant's bound on the
  group's label release and against the paper's ε. The randomized-response trade-off curve is not
  Gaussian, so the GDP bound is reported for information only and kept out of the verdict.

Second audit: the servers' broadcasts w̃_0(t) = w_0(t) + θ_0(t) carry the DERIVED Gaussian guarantee of
:mod:`solvers.pdml.privacy` (this toolkit's derivation, not from the paper). It is audited white-box
(:class:`attacks.pdml.BroadcastNP`):

* D and D′ differ in one record of group 0 with the same label: the canary (x_c, +1), x_c on its
  own feature column (‖x_c‖ = X_max = 1), against (−x_c, +1). For the logistic loss the debiased
  gradients then differ by −(1 + 2c(ε))·y'x_c/m at every w (φ'(u) + φ'(−u) = −1, plus twice the
  debiasing term c(ε)y'x/m), the largest change at bounded margins; the derived bound allows
  2(1 + c(ε))X_max/m (it assumes |φ'| = 1 for both records, i.e. infinite margins). The replacement
  by 0 would reach only (½ + c). The labels are randomized at :data:`BROADCAST_LABEL_EPSILON` = ¼,
  where c = 3.5 dominates, so w_0^D(t) − w_0^{D′}(t) reaches (1 + 2c)/(2 + 2c) ≈ 0.89 of Δ_0
  (a little less: the canary's own curvature φ''/m adds to μ_0).
* the attacker knows everything but the canary's features (y', η_0 white-box) and replays server
  0's solve (15) from the broadcasts under both hypotheses: the exact likelihood ratio;
* T = :data:`BROADCAST_ITERATIONS`, ρ = 0.8 and V set so that the derived μ = 0.5 (ε ≈ 2 at δ =
  1e-5); GDP (the trade-off curve is nearly Gaussian: the mean shift is the same in every trial up
  to the curvature term) and Clopper–Pearson lower bounds are held against the derived bound and
  every accountant on server 0's broadcast events. A lower bound above them is a VIOLATION of the
  derived guarantee. The joint label guarantee against other servers
  (:func:`solvers.pdml.privacy.joint_label_epsilon`) is not audited.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from attacks.base import ScoreAttack
from audits.neighbours import broadcast_neighbours, pdml_neighbours
from audits.sections.pdml import DERIVED, broadcast_section, randomized_response_section
from audits.spec import AuditSpec, Claim, SpecBuilder

if TYPE_CHECKING:  # solvers and attacks are imported on first use
    from accountants.ledger import Ledger
    from solvers.engine.transcript import Transcript
    from solvers.pdml import PDML
    from solvers.problem import HorizontalProblem

__all__ = [
    "EPSILON_RANGE",
    "MAX_DELTA",
    "broadcast_solver",
    "broadcast_spec",
    "pdml_spec",
]

#: Audit configuration: T on the small graph of :func:`audits.neighbours.pdml_neighbours` (10^5 trials
#: per hypothesis stay cheap).
ITERATIONS = 1
DEFAULT_EPSILON = 1.0
#: Broadcast audit: label ε of the users (small, see the docstring), T, ρ, the derived μ the noise V
#: is calibrated to, and trials per hypothesis as a fraction of the label audit's.
BROADCAST_LABEL_EPSILON = 0.25
BROADCAST_ITERATIONS = 3
BROADCAST_RHO = 0.8
BROADCAST_MU = 0.5
BROADCAST_TRIAL_FRACTION = 0.4
#: ``--epsilon`` (the users' label ε) lies in this interval: below it the debiasing coefficient
#: c(ε) = 1/(e^ε − 1) (Wang et al. 2020, eq. (19)) exceeds 1000 and the servers' Newton solves lose
#: convergence; above it a label flips with probability 1/(1 + e^ε) < 2·10⁻²², which no audit can observe.
EPSILON_RANGE = (1e-3, 50.0)
#: ``--delta`` lies below this: 2Φ(μ/2) − 1 for the broadcasts' derived μ (Dong, Roth & Su 2022,
#: Corollary 2.13 at ε = 0), at and above which their derived ε is 0 and the broadcast audit tests nothing.
MAX_DELTA = math.erf(BROADCAST_MU / (2.0 * math.sqrt(2.0)))


def _transcript(transcript: Transcript | None) -> Transcript:
    if transcript is None:
        raise ValueError("the audit needs the run's transcript (record_transcript=True)")
    return transcript


def broadcast_solver(problem: HorizontalProblem, delta: float, mu: float = BROADCAST_MU) -> PDML:
    """PDML with T = 3, ρ = 0.8, label ε = ¼ and V such that server 0's derived broadcast guarantee
    is μ-GDP (μ² = Σ_t Δ_0²/σ_0(t)²)."""
    from solvers.pdml import PDML
    from solvers.pdml.privacy import noise_for_mu

    unit = PDML(
        eps_label=BROADCAST_LABEL_EPSILON,
        eta_bound=1.0,
        V=1.0,
        rho_decay=BROADCAST_RHO,
        n_iterations=BROADCAST_ITERATIONS,
        delta=delta,
    )
    sensitivity = unit.plan(problem).details.sensitivity
    return dataclasses.replace(unit, V=float(noise_for_mu(sensitivity, mu, BROADCAST_RHO, BROADCAST_ITERATIONS)[0]))


def _broadcast_ledger(solver: PDML, problem: HorizontalProblem, participant: str) -> Ledger:
    """Server ``participant``'s broadcast events t = 1..T, as one participant "server"."""
    from accountants.ledger import Ledger, LedgerEntry

    events = [e.event for e in solver.ledger(problem) if e.participant == participant]
    return Ledger([LedgerEntry(participant="server", event=e, iteration=t) for t, e in enumerate(events, start=1)])


def broadcast_spec(delta: float) -> AuditSpec:
    """The white-box audit of server 0's broadcasts against the derived guarantee (module docstring)."""
    from attacks.pdml import BroadcastNP

    nb = broadcast_neighbours()
    solver = broadcast_solver(nb.problem_in, delta)
    details = solver.plan(nb.problem_in).details
    agent = nb.agent
    test = BroadcastNP(solver, nb.problem_in, nb.problem_out, agent)
    upper = {
        DERIVED: float(details.epsilon_phase2[agent]),
        "derived zCDP closed form (solvers.pdml.privacy)": float(details.epsilon_phase2_zcdp[agent]),
    }
    return AuditSpec(
        name="pdml-broadcasts",
        solver=solver,
        problem_in=nb.problem_in,
        problem_out=nb.problem_out,
        participant="server",
        attacks=(test,),
        claim=Claim(statement=details.phase2_note, delta=delta, bound=DERIVED, upper=upper, noise="gaussian"),
        canary=nb.description,
        epsilon_meaning=f"every ε is for server {agent}'s broadcasts at δ = {delta:g}",
        run_options={"record_white_box": True, "transcript_agents": None},
        ledger=_broadcast_ledger(solver, nb.problem_in, f"server-{agent}"),
    )


def pdml_spec(claimed_epsilon: float | None = None) -> SpecBuilder:
    """The spec builder of the PDML audit: the users' label ε (``epsilon``, default 1) at the
    collecting server, and the broadcast audit as a section (module docstring).

    ``claimed_epsilon`` (default: ``epsilon``) replaces the paper's ε in the claim, so that a wrong
    claim (a regression test: labels randomized at ε, ε/2 claimed) can be shown to be flagged."""

    def build(epsilon: float | None, delta: float, quick: bool) -> AuditSpec:
        from accountants.ledger import Ledger
        from solvers.pdml import PDML

        eps = DEFAULT_EPSILON if epsilon is None else float(epsilon)
        low, high = EPSILON_RANGE
        if not low <= eps <= high:
            raise ValueError(
                f"--epsilon (the users' label ε) must be in [{low:g}, {high:g}] (below, the debiased loss's "
                f"coefficient 1/(e^ε − 1) exceeds 1000; above, no label ever flips), got {eps:g}"
            )
        if not 0 < delta < MAX_DELTA:
            raise ValueError(
                f"--delta must be in (0, {MAX_DELTA:.4f}): at δ ≥ 2Φ(μ/2) − 1 the broadcasts' derived ε (μ = "
                f"{BROADCAST_MU:g}) is 0 and their audit tests nothing, got {delta:g}"
            )
        nb = pdml_neighbours()
        solver = PDML(eps_label=eps, eta_bound=1.0, V=0.1, rho_decay=0.8, n_iterations=ITERATIONS, delta=delta)
        agent, slot = nb.agent, nb.slot
        participant = f"users-{agent}"

        def reported_label(result: Any) -> np.ndarray:
            received: np.ndarray = _transcript(result.transcript)["y_reported"][0, :, 0, slot]  # s_agent's, t = 0
            return received > 0

        attack = ScoreAttack(
            "reported-label NP test (server s_0)",
            reported_label,
            white_box=False,
            metadata=lambda: {
                "reads": "y'_c, the canary's randomized label as received by its server s_0",
                "optimal": "Neyman–Pearson for randomized response",
            },
        )
        paper = "paper (Prop. 1)"
        return AuditSpec(
            name="pdml",
            solver=solver,
            problem_in=nb.problem_in,
            problem_out=nb.problem_out,
            participant=participant,
            attacks=(attack,),
            claim=Claim(
                statement="Wang et al. 2020, Prop. 1: randomized response with p = 1/(1 + e^ε) is ε-label-LDP, "
                "against every server and coalition and for any T (post-processing)",
                delta=delta,
                bound=paper,
                upper={paper: eps if claimed_epsilon is None else float(claimed_epsilon)},
            ),
            canary=nb.description + f"; graph: ring of {nb.problem_in.n_agents} servers, T = {ITERATIONS}",
            epsilon_meaning=f"--epsilon = {eps:g} is the users' label ε (Phase 1); every ε is for the canary's label "
            f"at δ = {delta:g} (the broadcast audit's, in its section, for the canary's features)",
            trials=20_000,
            quick_trials=2_000,
            # y_reported is white-box to all but s_agent
            run_options={"record_white_box": True, "transcript_agents": [agent]},
            sections=(randomized_response_section, broadcast_section(broadcast_spec, BROADCAST_TRIAL_FRACTION)),
            ledger=Ledger([e for e in solver.ledger(nb.problem_in) if e.participant == participant]),
        )

    return build
