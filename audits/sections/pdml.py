"""Report sections of the PDML audit (Wang et al. 2020; :mod:`audits.targets.pdml`).

* :func:`randomized_response_section` — the canary's flip rates at the collecting server against
  randomized response's 1/(1 + e^ε) (Prop. 1);
* :func:`broadcast_section` — the companion white-box audit of the servers' broadcasts against the
  derived Gaussian guarantee of :mod:`solvers.pdml.privacy`, with its own verdicts.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from audits.neighbours import broadcast_neighbours
from audits.spec import AuditContext, AuditSpec, Finding, SectionBuilder

if TYPE_CHECKING:  # the statistics are imported on first use
    from audits.stats import LowerBound
    from audits.verdict import Section

__all__ = ["DERIVED", "broadcast_section", "randomized_response_section"]

#: The key of the broadcasts' claimed bound: the derived exact Gaussian-DP guarantee.
DERIVED = "derived (solvers.pdml.privacy, exact GDP)"


def broadcast_section(companion: Callable[[float], AuditSpec], fraction: float) -> SectionBuilder:
    """The audit of the servers' broadcasts ``companion(δ)``, run on the label audit's first auxiliary
    stream with ``fraction`` of its trials: its section, verdicts and attack."""
    return functools.partial(_broadcast_finding, companion, fraction)


def _broadcast_finding(companion: Callable[[float], AuditSpec], fraction: float, context: AuditContext) -> Finding:
    from audits.runner import run_spec
    from audits.verdict import verdicts

    spec = companion(context.spec.claim.delta)
    trials = max(10, int(context.trials * fraction))
    result = run_spec(
        spec, trials=trials, confidence=context.confidence, seed=context.seed, stream_key=context.streams(0).spawn_key
    )
    solver, agent, attack, upper = spec.solver, broadcast_neighbours().agent, result.attacks[0], result.upper
    details = solver.plan(spec.problem_in).details
    lower = {f"broadcast {m}": b for m, b in result.lower.items()}
    by_bound = verdicts(lower, upper)
    seen_in, seen_out = result.observations[spec.attacks[0].name]
    seen = [s for pair in zip(seen_in, seen_out, strict=True) for s in pair]  # in the order the chunks ran
    mu_sq = np.concatenate([s[1] for s in seen])
    replay_error = max(s[2] for s in seen)
    mu_derived = math.sqrt(float(np.sum(details.sensitivity[agent] ** 2 / details.sigma[:, agent] ** 2)))
    mu_replayed = math.sqrt(float(mu_sq.mean()))
    rows = "\n".join(
        f"| {name} | {value:.4f} | {by_bound[name]} | "
        + ", ".join(_ratio(b.epsilon, value) for b in lower.values())
        + " |"
        for name, value in sorted(upper.items(), key=lambda kv: kv[1])
    )
    markdown = (
        f"{details.phase2_note}. Server {agent}, T = {solver.n_iterations}, ρ = {solver.rho_decay:g}, "
        f"V = {solver.V:.4g}, label ε = {solver.eps_label:g}: derived sensitivity Δ = "
        f"{details.sensitivity[agent]:.4g}, derived μ = {mu_derived:.4f}. Canary: {spec.canary}. "
        f"Replayed mean shift: μ = sqrt(mean Σ_t ‖w^D(t) − w^D′(t)‖²/σ(t)²) = {mu_replayed:.4f} "
        f"({mu_replayed / mu_derived:.3f} of the derived μ; range of μ² over trials "
        f"[{mu_sq.min():.4g}, {mu_sq.max():.4g}]); replay of the true hypothesis vs the white-box w: max error "
        f"{replay_error:.2e}. Score means {attack.scores_in.mean():.4f} (D) and {attack.scores_out.mean():.4f} (D′) "
        f"against ±μ²/2 = ±{mu_sq.mean() / 2:.4f}; {trials} trials per hypothesis.\n\n"
        f"| lower bound | ε ≥ | μ ≥ |\n|---|---|---|\n"
        + "\n".join(f"| {m} | {b.epsilon:.4f} | {_mu(b)} |" for m, b in lower.items())
        + f"\n\n| upper bound (server {agent}'s broadcasts) | ε ≤ | verdict | lower / upper "
        f"({', '.join(lower)}) |\n|---|---|---|---|\n{rows}\n\n"
        "A lower bound above an upper bound is a VIOLATION of the derived guarantee (the broadcasts' ε, "
        "conditional on η and y', which have the same law under D and D′). The guarantee grows without "
        "bound in T when ρ < 1 (σ_i(t)² = ρ^{t−1}V_i²); the joint label guarantee against other servers "
        "(derived in solvers.pdml.privacy) is not audited."
    )
    section: Section = {
        "title": "Servers' broadcasts: white-box audit of the derived guarantee",
        "markdown": markdown,
        "data": {
            "agent": agent,
            "trials": trials,
            "V": solver.V,
            "rho_decay": solver.rho_decay,
            "n_iterations": solver.n_iterations,
            "eps_label": solver.eps_label,
            "sensitivity": float(details.sensitivity[agent]),
            "mu_derived": mu_derived,
            "mu_replayed": mu_replayed,
            "mu_sq_range": [float(mu_sq.min()), float(mu_sq.max())],
            "replay_error": replay_error,
            "score_mean_in": float(attack.scores_in.mean()),
            "score_mean_out": float(attack.scores_out.mean()),
            "epsilon_lower": {m: b.epsilon for m, b in lower.items()},
            "lower_bounds": {m: b.to_dict() for m, b in lower.items()},
            "epsilon_upper": upper,
            "claimed": DERIVED,
            "verdicts": by_bound,
            "tightness": {m: b.epsilon / upper[DERIVED] if upper[DERIVED] > 0 else None for m, b in lower.items()},
        },
    }
    # The broadcast audit is a different mechanism: its bounds are held against its own upper bounds.
    return Finding(
        section=section, attacks=(attack,), verdicts={f"broadcasts: {name}": v for name, v in by_bound.items()}
    )


def _ratio(lower: float, upper: float) -> str:
    """lower / upper for the broadcast table; "–" where the upper bound is 0 (no ratio)."""
    return f"{lower / upper:.3f}" if upper > 0 else "–"


def _mu(bound: LowerBound) -> str:
    mu = getattr(bound, "mu", None)
    return "" if mu is None else f"{mu:.4f}"


def randomized_response_section(context: AuditContext) -> Finding:
    """The flip rates of the canary's reported label against 1/(1 + e^ε)."""
    attack, gdp = context.attacks[0], context.informational["gdp"]
    eps = float(context.spec.solver.eps_label)
    flip_in = 1.0 - attack.scores_in.mean()
    flip_out = attack.scores_out.mean()
    return Finding(
        section={
            "title": "Randomized response at the collecting server",
            "markdown": (
                f"Empirical flip rates: {flip_in:.5f} (D) and {flip_out:.5f} (D′) against 1/(1 + e^ε) = "
                f"{1.0 / (1.0 + math.exp(eps)):.5f}; the best possible audit of ε-randomized response with "
                f"{context.trials} trials per hypothesis is limited by sampling error alone. GDP lower bound (for "
                f"information; the trade-off curve is not Gaussian): ε ≥ {gdp.epsilon:.4f}."
            ),
            "data": {
                "flip_rate_in": flip_in,
                "flip_rate_out": flip_out,
                "flip_probability": 1.0 / (1.0 + math.exp(eps)),
                "gdp_information_only": gdp.to_dict(),
            },
        }
    )
