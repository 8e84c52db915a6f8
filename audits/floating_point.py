"""The floating-point channel: does an implementation leak through the low-order bits of its releases?

A mechanism that is ε-DP over the reals can leak far more once its noise is sampled in floating
point: the set of doubles a textbook Laplace sampler can output depends on the value it perturbs,
so the last bits of a release identify the data (Mironov 2012). That is a property of the
implementation, not of the mechanism, so the audit reports it as its own finding and never lets it
decide the mechanism's verdict (whose scores are computed at a coarser resolution,
:func:`audits.distinguishers.quantize`).

The test (:class:`LowBitsTest`): for each of the first 64 coordinates of a release, its sign, its
binary exponent (in a window of 64 around the calibration median) and the lowest 4 bits of its
float64 mantissa form a category (2 × 64 × 16). Rounding leaves its trace there: a sum rounded to
nearest-even in one binade has even last bits more often than a value drawn directly. A naive-Bayes
table of the categories' frequencies on D and on D′ (add-one smoothing) is fitted on the
calibration trials; the score of a release is its summed log frequency ratio, and the audited
trials give a worst-case Clopper–Pearson bound (:func:`floating_point_section`). Without a leak the
low bits are uniform given the binade on both sides, and the bound is 0 up to its confidence level.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from audits.distinguishers import flat
from audits.spec import AuditContext, Finding, chunk_scores

if TYPE_CHECKING:  # attacks is imported on first use
    from attacks.base import AttackScores

__all__ = ["LOW_BITS", "LowBitsTest", "floating_point_section", "low_bits"]

#: Mantissa bits per coordinate the test reads, the binades it tells apart, the coordinates it reads.
LOW_BITS = 4
_EXPONENTS = 64
_MAX_COORDINATES = 64
_CATEGORIES = 2 * _EXPONENTS * (1 << LOW_BITS)


def low_bits(values: np.ndarray, median_exponent: int) -> np.ndarray:
    """Categories (sign, exponent window, :data:`LOW_BITS` lowest mantissa bits) of the first 64
    coordinates of releases (R, ...), as (R, ≤64) integers; exponents outside the window of 64
    around ``median_exponent`` share its end categories."""
    words = np.ascontiguousarray(flat(values)[:, :_MAX_COORDINATES]).view(np.uint64)
    sign = (words >> np.uint64(63)).astype(np.intp)
    exponent = ((words >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.intp)
    window = np.clip(exponent - median_exponent + _EXPONENTS // 2, 0, _EXPONENTS - 1)
    low = (words & np.uint64((1 << LOW_BITS) - 1)).astype(np.intp)
    categories: np.ndarray = (sign * _EXPONENTS + window) * (1 << LOW_BITS) + low
    return categories


def median_exponent(values: np.ndarray) -> int:
    """The median binary exponent field of the releases' first 64 coordinates."""
    words = np.ascontiguousarray(flat(values)[:, :_MAX_COORDINATES]).view(np.uint64)
    return int(np.median((words >> np.uint64(52)) & np.uint64(0x7FF)))


def _log_frequencies(bits: np.ndarray) -> np.ndarray:
    counts = np.zeros((bits.shape[1], _CATEGORIES))
    for j in range(bits.shape[1]):  # at most 64 coordinates, once per audit
        counts[j] = np.bincount(bits[:, j], minlength=_CATEGORIES)
    return np.log((counts + 1.0) / (len(bits) + _CATEGORIES))


class LowBitsTest:
    """The floating-point channel's distinguisher (module docstring); call :meth:`calibrate` first."""

    name = "floating-point low bits"
    white_box = False

    def __init__(self) -> None:
        self.table: np.ndarray | None = None
        self.median_exponent = 1023

    def calibrate(self, result_in: Any, result_out: Any) -> dict[str, Any]:
        """Fit the frequency table on the calibration releases on D and D′."""
        self.median_exponent = median_exponent(np.concatenate([result_in.values, result_out.values]))
        bits_in = low_bits(result_in.values, self.median_exponent)
        bits_out = low_bits(result_out.values, self.median_exponent)
        self.table = _log_frequencies(bits_in) - _log_frequencies(bits_out)
        return {"floating_point_coordinates": int(bits_in.shape[1])}

    def observe(self, result: Any, on_d: bool) -> np.ndarray:
        if self.table is None:
            raise RuntimeError("LowBitsTest.observe before calibrate: the frequency table is not fitted")
        bits = low_bits(result.values, self.median_exponent)
        return np.asarray(self.table[np.arange(bits.shape[1]), bits].sum(axis=1))

    def conclude(self, seen_on_d: Sequence[np.ndarray], seen_on_d_prime: Sequence[np.ndarray]) -> AttackScores:
        return chunk_scores(
            self.name,
            seen_on_d,
            seen_on_d_prime,
            white_box=False,
            metadata={
                "reads": f"sign, binade and the lowest {LOW_BITS} mantissa bits of the first {_MAX_COORDINATES} "
                "coordinates",
                "model": "naive Bayes frequency ratio fitted on the calibration trials (add-one smoothing)",
            },
        )


def floating_point_section(context: AuditContext) -> Finding:
    """The floating-point finding: the :class:`LowBitsTest` scores on the audited trials, as a
    worst-case Clopper–Pearson bound held against the claim (reported apart from the verdict)."""
    from audits.stats import clopper_pearson_audit

    scores = next(a for a in context.attacks if a.attack == LowBitsTest.name)
    claim = context.spec.claim
    bound = clopper_pearson_audit(scores.scores_in, scores.scores_out, delta=claim.delta, confidence=context.confidence)
    claimed = None if claim.bound is None else context.upper.get(claim.bound)
    exceeds = claimed is not None and bound.epsilon > claimed
    if exceeds:
        conclusion = (
            f"**The implementation leaks through floating point: ε ≥ {bound.epsilon:.4f}**, above the claimed "
            f"{claimed:.4g}. The mechanism may be private over the reals; its floating-point sampler is not."
        )
    elif bound.epsilon > 0:
        conclusion = f"The low-order bits carry some information (ε ≥ {bound.epsilon:.4f}), below the claim."
    else:
        conclusion = "No leak through the low-order bits was found (ε ≥ 0)."
    markdown = (
        f"{conclusion}\n\nTest: sign, binade and lowest {LOW_BITS} mantissa bits of each release (naive Bayes on "
        f"the calibration trials), scored on the audited trials; Clopper–Pearson bound at "
        f"{context.confidence:.0%} confidence, worst case. This finding judges the implementation's "
        "floating-point arithmetic, not the mechanism, and does not enter the verdict."
    )
    return Finding(
        section={"title": "Floating-point channel", "markdown": markdown, "data": bound.to_dict()},
        report={
            "floating_point": {
                "epsilon_lower": bound.epsilon,
                "confidence": bound.confidence,
                "assumption": bound.assumption,
                "exceeds_claim": exceeds,
            }
        },
    )
