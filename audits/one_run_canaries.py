"""Auditing a user's mechanism in one run: random canaries in, one release out (Steinke, Nasr &
Jagielski 2023).

Each of m canaries enters the data set independently with probability 1/2; the mechanism runs
once; a score per canary (higher: "was in") ranks them, and the number of correct guesses among
the most confident ones gives a worst-case lower bound on ε (``audits.stats.one_run_audit``) and,
for Gaussian claims, the f-DP refinement for μ-GDP (Mahloujifar, Melis & Chaudhuri 2024;
``audits.stats.one_run_fdp_audit``). One run costs one training, but the bound is weak unless m is
large: use it where many trials are too expensive, and :func:`audits.audit` where they are not.

The default score is the inner product of the flattened canary with the flattened release, the
natural test for mechanisms that release sums, means or gradients (the canary's own contribution
shows up along its direction).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from audits.distinguishers import flat
from audits.mechanism_runs import MechanismRuns, describe_callable
from audits.spec import Claim

if TYPE_CHECKING:  # the statistics are imported on first use
    from audits.stats import LowerBound

__all__ = ["OneRunReport", "audit_one_run", "append_records", "projection_score"]


@dataclass(frozen=True)
class OneRunReport:
    """The outcome of :func:`audit_one_run`.

    Attributes:
      verdict: "VIOLATION" if a deciding lower bound exceeds the claimed ε, else "consistent".
      epsilon_lower: the deciding lower bounds by method ("one-run", and "one-run-fdp" for a
        Gaussian claim with δ > 0), each with its confidence and assumption.
      claimed: the claimed ε. included: (m,) which canaries entered the data set. scores: (m,).
    """

    verdict: str
    epsilon_lower: dict[str, LowerBound]
    claimed: float
    included: np.ndarray
    scores: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (bounds with their provenance; no per-canary arrays)."""
        return {
            "verdict": self.verdict,
            "claimed_epsilon": self.claimed,
            "canaries": int(self.included.size),
            "included": int(self.included.sum()),
            "lower_bounds": {m: b.to_dict() for m, b in self.epsilon_lower.items()},
        }


def append_records(dataset: Any, records: Sequence[Any]) -> Any:
    """The data set with ``records`` appended: rows of an array, or items of a list."""
    if isinstance(dataset, np.ndarray):
        if not records:
            return dataset
        return np.concatenate([dataset, np.asarray(records, dtype=dataset.dtype).reshape(-1, *dataset.shape[1:])])
    if isinstance(dataset, list):
        return [*dataset, *records]
    raise TypeError(
        f"audit_one_run cannot insert canaries into a {type(dataset).__name__}: pass insert=(dataset, records) -> "
        "dataset for your data type"
    )


def projection_score(release: np.ndarray, canaries: Sequence[Any]) -> np.ndarray:
    """Inner product of each flattened canary with the flattened release."""
    vectors = flat(np.asarray(canaries, dtype=np.float64))
    release = np.asarray(release, dtype=np.float64).ravel()
    if vectors.shape[1] != release.size:
        raise ValueError(
            f"the default score needs canaries of the release's size ({release.size} values), got canaries of "
            f"{vectors.shape[1]}: pass score=(release, canaries) -> one score per canary"
        )
    return np.asarray(vectors @ release)


def audit_one_run(
    mechanism: Callable[..., Any],
    D: Any,
    canaries: Sequence[Any],
    *,
    claim: Claim,
    score: Callable[[np.ndarray, Sequence[Any]], Any] = projection_score,
    insert: Callable[[Any, Sequence[Any]], Any] = append_records,
    batched: bool = True,
    seed: int = 0,
    confidence: float = 0.95,
) -> OneRunReport:
    """Audit ``mechanism`` in one run with random ``canaries`` (module docstring).

    Args:
      mechanism: as for :func:`audits.audit` (called for one release).
      D: the data set the canaries are added to. canaries: m ≥ 2 records.
      claim: the claimed (ε, δ) and noise; it must state a number.
      score: (release, canaries) → (m,) scores, higher meaning "was in".
      insert: (D, included canaries) → the data set the mechanism runs on.
      seed: draws the inclusion coins (child 0) and the mechanism's generator (child 1).

    Raises:
      ValueError / TypeError: bad arguments, non-finite scores, or releases the mechanism must not
        return (see :class:`audits.mechanism_runs.MechanismRuns`).
    """
    from audits.stats import one_run_audit, one_run_fdp_audit

    if not isinstance(claim, Claim) or claim.bound not in claim.upper:
        raise TypeError(
            f"claim must be an audits.Claim with a number, e.g. Claim(epsilon=1.0, delta=1e-5), got {claim!r:.80}"
        )
    canaries = list(canaries)
    if len(canaries) < 2:
        raise ValueError(f"canaries must hold at least 2 records, got {len(canaries)}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    coins, run_seed = np.random.SeedSequence(int(seed)).spawn(2)
    included = np.random.default_rng(coins).random(len(canaries)) < 0.5
    dataset = insert(D, [c for c, keep in zip(canaries, included, strict=True) if keep])
    release = MechanismRuns(mechanism, batched).run(dataset, seeds=[run_seed]).values[0]
    scores = np.asarray(score(release, canaries), dtype=np.float64)
    if scores.shape != (len(canaries),) or not np.isfinite(scores).all():
        raise ValueError(
            f"score {describe_callable(score)} must return {len(canaries)} finite scores (one per canary), "
            f"got shape {scores.shape}" + ("" if scores.shape != (len(canaries),) else " with NaN or infinite values")
        )
    bounds = {"one-run": one_run_audit(scores[included], scores[~included], delta=claim.delta, confidence=confidence)}
    if claim.noise == "gaussian" and claim.delta > 0:
        bounds["one-run-fdp"] = one_run_fdp_audit(
            scores[included], scores[~included], delta=claim.delta, confidence=confidence
        )
    claimed = float(claim.upper[claim.bound])
    verdict = "VIOLATION" if any(b.epsilon > claimed for b in bounds.values()) else "consistent"
    return OneRunReport(verdict, bounds, claimed, included, scores)
