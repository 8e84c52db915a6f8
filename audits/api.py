"""Audit anyone's code: ``audit(mechanism, D, D′, claim=...)`` and the spec it runs.

::

    from audits import Claim, audit

    def mechanism(dataset, rng, n):  # n releases of the user's code, one per row
        return dataset.sum(axis=0) + rng.normal(0.0, sigma, size=(n, dataset.shape[1]))

    report = audit(mechanism, D, D_prime, claim=Claim(epsilon=8.0, delta=1e-5, noise="gaussian"))
    report.verdict            # "consistent" or "VIOLATION"
    report.epsilon_lower      # {method: LowerBound}, each with its confidence and assumption
    report.write("out/")      # report.md, report.json and figures, as python -m audits.run writes them

What runs (:func:`audit_spec` declares it, :func:`audits.runner.run_spec` runs it):

1. Calibration trials on D and D′ (``search_trials`` per side, never used for a bound): the
   distinguisher search of :class:`audits.distinguishers.SearchedScore` fits its candidates on one
   half and keeps the one whose bound, predicted on the other half for the ``trials`` audited below,
   is largest (or uses the user's ``score``); the floating-point test of
   :mod:`audits.floating_point` fits its table.
2. ``trials`` fresh trials per side, in chunks of bounded memory: the chosen score's Clopper–Pearson
   bound (worst case) and, for a Gaussian claim, its Gaussian-DP bound, held against the claim.
3. Sections: the floating-point channel (its own finding, not the verdict) and reproducibility.

With ``neighbours`` instead of ``D_prime`` (candidates for D′, candidate pairs, or ``"patterns"``:
the input patterns of Ding et al. 2018 around D), a pilot on each pair's own trials ranks the pairs
and a larger second pilot chooses among the leaders (:mod:`audits.neighbour_search`); the final
audit runs on fresh trials, so the choice needs no multiplicity correction (a held-out pilot).
``effort`` ("quick", "default", "thorough") sizes the trials, calibration and pilots
(:mod:`audits.effort`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from accountants.constraints import (
    AnyOf,
    Boolean,
    Instance,
    Integer,
    Items,
    OneOf,
    Optional,
    validate_parameters,
)
from audits.arguments import SHARED_CONSTRAINTS
from audits.distinguishers import CANDIDATES, DEFAULT_RESOLUTION, Fit, Score, SearchedScore
from audits.effort import EFFORTS, effort_preset
from audits.encoding import ReleaseFormat
from audits.floating_point import LowBitsTest, floating_point_section
from audits.mechanism_runs import MechanismRuns, Releases, describe_callable, reproducibility_section
from audits.neighbour_search import candidate_pairs, search_neighbours
from audits.ray_backend import BACKENDS
from audits.runner import MAX_CALIBRATION_TRIALS, MAX_TRIALS, RESOLUTION, SEED, TRIALS, deciding_bounds, run_spec
from audits.spec import AuditSpec, Claim
from audits.verdict import AuditReport

__all__ = ["AUDIT_CONSTRAINTS", "audit", "audit_spec"]

#: What each argument of :func:`audit` must be (``accountants.constraints``), the ones it shares with
#: ``audits.testing.assert_private`` from ``audits.arguments``.
AUDIT_CONSTRAINTS = {
    **SHARED_CONSTRAINTS,
    "neighbours": Optional(
        AnyOf(OneOf("patterns"), Items("an iterable of candidate data sets for D′ (or of CandidatePair)"))
    ),
    "effort": OneOf(*EFFORTS),
    "trials": Optional(TRIALS),
    "seed": SEED,
    "search_trials": Optional(
        Integer(20, MAX_CALIBRATION_TRIALS, f"an int in [20, {MAX_CALIBRATION_TRIALS:,}] (calibration trials per side)")
    ),
    "pilot_trials": Optional(Integer(10, MAX_TRIALS, f"an int in [10, {MAX_TRIALS:,}] (pilot trials per side)")),
    "resolution": RESOLUTION,
    "name": Optional(Instance(str, "a string")),
    "progress": Optional(Boolean()),
    "checkpoint": Optional(Instance((str, os.PathLike), "a folder, a str or an os.PathLike")),
    "backend": OneOf(*BACKENDS),
    "address": Optional(Instance(str, "a Ray cluster's address, a string")),
    "histograms": Boolean(),
}


def _score_candidates(score: Score | None) -> Mapping[str, Fit]:
    if score is None:
        return CANDIDATES
    if not callable(score):
        raise TypeError(f"score must be None or a callable releases -> scores, got {type(score).__name__}")

    def fixed(values_in: np.ndarray, values_out: np.ndarray) -> Score:
        return score

    return {f"score {describe_callable(score)}": fixed}


def audit_spec(
    mechanism: Callable[..., Any],
    D: Any,
    D_prime: Any,
    *,
    claim: Claim,
    score: Score | None = None,
    batched: bool = True,
    release: ReleaseFormat | None = None,
    trials: int = 100_000,
    resolution: float = DEFAULT_RESOLUTION,
    name: str | None = None,
    canary: str = "",
) -> AuditSpec:
    """The :class:`audits.spec.AuditSpec` that :func:`audit` runs, for ``python -m audits.run
    module:attribute`` (a module attribute holding this spec is a command-line target).

    Args: as :func:`audit`; ``name`` is the report's name (default: the mechanism's qualified name),
    ``canary`` describes the neighbouring pair for the report.
    """
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be an audits.Claim, e.g. Claim(epsilon=1.0, delta=1e-5), got {claim!r:.80}")
    runs = MechanismRuns(mechanism, batched, ReleaseFormat() if release is None else release)
    search = SearchedScore(
        _score_candidates(score),
        delta=claim.delta,
        confidence=0.95,
        deciding=deciding_bounds(claim),
        resolution=resolution,
        trials=trials,
    )
    low_bits, rounded_bits = LowBitsTest(), LowBitsTest(rounded=True)

    def calibrate(result_in: Any, result_out: Any) -> dict[str, Any]:
        return {
            **search.calibrate(result_in, result_out),
            **low_bits.calibrate(result_in, result_out),
            **rounded_bits.calibrate(result_in, result_out),
        }

    return AuditSpec(
        name=name or describe_callable(mechanism),
        solver=runs,
        problem_in=D,
        problem_out=D_prime,
        participant=None,
        attacks=(search, low_bits, rounded_bits),
        claim=claim,
        canary=canary or "D and D′ as the caller gave them",
        epsilon_meaning=f"ε of the claim: {claim.statement}",
        trials=trials,
        calibration=calibrate,
        sections=(floating_point_section, reproducibility_section),
        accounted=False,
        merge=_join_releases,
    )


def _join_releases(parts: Sequence[Releases]) -> Releases:
    """The releases of consecutive chunks of calibration trials as one (:attr:`AuditSpec.merge`)."""
    return dataclasses.replace(parts[0], values=np.concatenate([part.values for part in parts]))


@validate_parameters(**AUDIT_CONSTRAINTS)
def audit(
    mechanism: Callable[..., Any],
    D: Any,
    D_prime: Any = None,
    *,
    claim: Claim,
    neighbours: str | Iterable[Any] | None = None,
    effort: str = "default",
    trials: int | None = None,
    seed: int = 0,
    score: Score | None = None,
    batched: bool = True,
    release: ReleaseFormat | None = None,
    confidence: float = 0.95,
    search_trials: int | None = None,
    pilot_trials: int | None = None,
    resolution: float = DEFAULT_RESOLUTION,
    name: str | None = None,
    progress: bool | None = None,
    checkpoint: str | Path | None = None,
    backend: str = "processes",
    address: str | None = None,
    histograms: bool = False,
) -> AuditReport:
    """Audit the user's ``mechanism`` against ``claim`` on the neighbouring data sets D and D′.

    Args:
      mechanism: ``mechanism(dataset, rng, n)`` returning n releases (leading axis n, any trailing
        shape); with ``batched=False``, ``mechanism(dataset, rng)`` returning one release. ``rng``
        is a ``numpy.random.Generator`` the audit seeds (:mod:`audits.mechanism_runs`).
      release: what the releases may hold beyond real arrays of one shape: NaN/None/masked
        entries as a category, variable-length sequences padded with an abort value
        (:class:`audits.encoding.ReleaseFormat`; integers, booleans, strings and mixed tuples need
        no declaration).
      D, D_prime: the neighbouring data sets, in whatever form the mechanism takes.
      claim: the claimed (ε, δ) and the noise that backs it (:class:`audits.Claim`).
      neighbours: instead of ``D_prime``, candidates for D′, a sequence of
        :class:`audits.neighbour_search.CandidatePair` (D=None: each pair names its D), or
        ``"patterns"`` (Ding et al. 2018's input patterns around the query answers D); a held-out
        pilot picks the pair (:func:`audits.neighbour_search.search_neighbours`).
      effort: "quick", "default" or "thorough" (:mod:`audits.effort`): the defaults of ``trials``,
        ``search_trials`` and ``pilot_trials``.
      trials: audited trials per hypothesis (default: the effort's, 10^5 for "default").
      seed: the root seed of every trial.
      score: releases → scores (higher: "ran on D"); None searches for a distinguisher.
      confidence: of every lower bound. search_trials: calibration trials per side (default, for
        "default": trials/10 in [2,000, 100,000]). pilot_trials: per side and candidate pair
        (default, for "default": trials/10 in [1,000, 100,000]; the second stage's contenders get
        the effort's ``contender_scale`` times as many). resolution: of the scores
        (:func:`audits.distinguishers.quantize`).
      name: the report's name. progress: a progress bar on stderr (None: when stderr is a terminal).
      checkpoint: a folder that records every finished chunk of audited trials; an audit stopped at
        any point, run again with the same arguments, continues from it with the same report (a
        folder written by another audit is refused, :mod:`audits.checkpoint`).
      backend: "processes" (this machine's cores) or "ray" (Ray tasks; the mechanism is shipped to
        the workers as Ray ships functions, :mod:`audits.ray_backend`); address: the Ray cluster's
        (None: the Ray of this process, or a local one). The report is the same for both.
      histograms: keep the scores as histograms (:mod:`audits.chunk_histograms`): the driver's memory
        grows with the distinct scores on the ``resolution`` grid, not with the trials; the same report.

    Returns:
      An :class:`audits.AuditReport`.

    Raises:
      TypeError / ValueError: a bad argument (the message names it), or a mechanism whose releases
        are not finite real arrays of the expected count.
    """
    if (D_prime is None) == (neighbours is None):
        raise ValueError("give exactly one of D_prime (the neighbour of D) and neighbours (candidates for it)")
    if claim.bound is not None and claim.bound not in claim.upper:
        raise ValueError(
            f"claim.bound must name one of the claim's upper bounds {sorted(claim.upper)}, got {claim.bound!r:.60}"
        )
    preset = effort_preset(effort)
    trials = preset.trials if trials is None else int(trials)
    seed = int(seed)
    n_search = preset.calibration_trials(trials) if search_trials is None else int(search_trials)
    search: dict[str, Any] | None = None
    if neighbours is not None:
        n_pilot = preset.pilot_trials(trials) if pilot_trials is None else pilot_trials
        chosen = search_neighbours(
            mechanism,
            candidate_pairs(D, neighbours),
            fits=_score_candidates(score),
            trials=int(n_pilot),
            seed=seed,
            delta=claim.delta,
            batched=batched,
            release=release,
            audit_trials=int(trials),
            contenders=preset.contenders,
            contender_scale=preset.contender_scale,
        )
        D, D_prime, search = chosen.pair.D, chosen.pair.D_prime, chosen.report
    spec = audit_spec(
        mechanism,
        D,
        D_prime,
        claim=claim,
        score=score,
        batched=batched,
        release=release,
        trials=trials,
        resolution=resolution,
        name=name,
    )
    return run_spec(
        spec,
        trials=trials,
        confidence=confidence,
        seed=seed,
        calibration_trials=n_search,
        progress=progress,
        checkpoint=checkpoint,
        backend=backend,
        address=address,
        histograms=histograms,
        appended=None if search is None else {"neighbour_search": search},
    )
