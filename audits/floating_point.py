"""The floating-point channel: does an implementation leak through the low-order bits of its releases?

A mechanism that is ε-DP over the reals can leak far more once its noise is sampled in floating
point: the set of doubles a textbook Laplace sampler can output depends on the value it perturbs,
so the last bits of a release identify the data (Mironov 2012). That is a property of the
implementation, not of the mechanism, so the audit reports it as its own finding, and the
mechanism's verdict is decided on scores computed at a coarser resolution
(:func:`audits.distinguishers.quantize`).

The test (:class:`LowBitsTest`): for each of the first 64 coordinates of a release, its sign, its
binary exponent (in a window of 64 around the calibration median) and the lowest 4 bits of its
float64 mantissa form a category (2 × 64 × 16). Rounding leaves its trace there: a sum rounded to
nearest-even in one binade has even last bits more often than a value drawn directly. A naive-Bayes
table of the categories' frequencies on D and on D′ (add-one smoothing) is fitted on the
calibration trials; the score of a release is its summed log frequency ratio, and the audited
trials give a worst-case Clopper–Pearson bound (:func:`floating_point_section`). Without a leak the
low bits are uniform given the binade on both sides, and the bound is 0 up to its confidence level.

When it is not floating point. The same test runs a second time on the releases rounded to a grid
per coordinate (``LowBitsTest(rounded=True)``): the lowest 4 bits of round(|x| / g) with g = 1 for
a coordinate whose calibration values are all integers (an integer or categorical release has no
floating-point artefact to round away) and otherwise g = 2^(e − 20) for a spread 2^e of the
coordinate (a quarter of its values lie farther than 2^e from its median), a million times coarser
than a double's last bit. A leak that survives this rounding is the mechanism's own: its bound
counts toward the verdict, at half the audit's error rate, since the verdict then rests on two
tests (a false VIOLATION has probability at most 1.5 × (1 − confidence)).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from attacks.base import chunk_scores
from audits.distinguishers import flat
from audits.spec import AuditContext, Finding

if TYPE_CHECKING:  # attacks is imported on first use
    from attacks.base import AttackScores

__all__ = ["LOW_BITS", "ROUNDING_BITS", "LowBitsTest", "floating_point_section", "low_bits", "rounding_grids"]

#: Mantissa bits per coordinate the test reads, the binades it tells apart, the coordinates it reads.
LOW_BITS = 4
_EXPONENTS = 64
_MAX_COORDINATES = 64
_CATEGORIES = 2 * _EXPONENTS * (1 << LOW_BITS)
#: The rounded test's grid lies this many binary digits below a coordinate's spread.
ROUNDING_BITS = 20


def low_bits(values: np.ndarray, median_exponent: int, grids: np.ndarray | None = None) -> np.ndarray:
    """Categories (sign, exponent window, :data:`LOW_BITS` lowest mantissa bits) of the first 64
    coordinates of releases (R, ...), as (R, ≤64) integers; exponents outside the window of 64
    around ``median_exponent`` share its end categories. With ``grids`` (one per coordinate), the
    low bits are those of round(|x| / grid) instead of the mantissa's."""
    x = np.ascontiguousarray(flat(values)[:, :_MAX_COORDINATES])
    words = x.view(np.uint64)
    sign = (words >> np.uint64(63)).astype(np.intp)
    exponent = ((words >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.intp)
    window = np.clip(exponent - median_exponent + _EXPONENTS // 2, 0, _EXPONENTS - 1)
    if grids is None:
        low = (words & np.uint64((1 << LOW_BITS) - 1)).astype(np.intp)
    else:
        low = np.fmod(np.round(np.abs(x) / grids), float(1 << LOW_BITS)).astype(np.intp)
    categories: np.ndarray = (sign * _EXPONENTS + window) * (1 << LOW_BITS) + low
    return categories


def median_exponent(values: np.ndarray) -> int:
    """The median binary exponent field of the releases' first 64 coordinates."""
    words = np.ascontiguousarray(flat(values)[:, :_MAX_COORDINATES]).view(np.uint64)
    return int(np.median((words >> np.uint64(52)) & np.uint64(0x7FF)))


def rounding_grids(values: np.ndarray) -> np.ndarray:
    """The rounded test's grid per coordinate of releases (R, ...) (module docstring): 1 for a
    coordinate of integers, else 2^(e − :data:`ROUNDING_BITS`) for its spread 2^e."""
    x = flat(values)[:, :_MAX_COORDINATES]
    integral = np.all(x == np.round(x), axis=0)
    spread = np.quantile(np.abs(x - np.median(x, axis=0)), 0.75, axis=0)
    spread = np.where(spread > 0, spread, np.max(np.abs(x), axis=0, initial=0.0))
    exponent = np.frexp(np.where(spread > 0, spread, 1.0))[1]
    grids: np.ndarray = np.where(integral, 1.0, np.ldexp(1.0, exponent - 1 - ROUNDING_BITS))
    return grids


def _log_frequencies(bits: np.ndarray) -> np.ndarray:
    counts = np.zeros((bits.shape[1], _CATEGORIES))
    for j in range(bits.shape[1]):  # at most 64 coordinates, once per audit
        counts[j] = np.bincount(bits[:, j], minlength=_CATEGORIES)
    return np.log((counts + 1.0) / (len(bits) + _CATEGORIES))


class LowBitsTest:
    """The floating-point channel's distinguisher (module docstring); call :meth:`calibrate` first.

    Args:
      rounded: read the releases rounded to :func:`rounding_grids` (the test whose bound counts
        toward the verdict) instead of their raw mantissa bits.
    """

    white_box = False

    def __init__(self, *, rounded: bool = False) -> None:
        self.rounded = rounded
        self.table: np.ndarray | None = None
        self.median_exponent = 1023
        self.grids: np.ndarray | None = None
        self.integer_valued = False

    @property
    def name(self) -> str:
        return "low bits after rounding" if self.rounded else "floating-point low bits"

    def calibrate(self, result_in: Any, result_out: Any) -> dict[str, Any]:
        """Fit the frequency table on the calibration releases on D and D′."""
        both = np.concatenate([result_in.values, result_out.values])
        self.median_exponent = median_exponent(both)
        first = flat(both)[:, :_MAX_COORDINATES]
        self.integer_valued = bool(np.all(first == np.round(first)))
        self.grids = rounding_grids(both) if self.rounded else None
        bits_in = low_bits(result_in.values, self.median_exponent, self.grids)
        bits_out = low_bits(result_out.values, self.median_exponent, self.grids)
        self.table = _log_frequencies(bits_in) - _log_frequencies(bits_out)
        if self.rounded:
            return {"rounding_grids": [float(g) for g in np.asarray(self.grids)]}
        return {"floating_point_coordinates": int(bits_in.shape[1]), "integer_releases": self.integer_valued}

    def observe(self, result: Any, on_d: bool) -> np.ndarray:
        if self.table is None:
            raise RuntimeError("LowBitsTest.observe before calibrate: the frequency table is not fitted")
        bits = low_bits(result.values, self.median_exponent, self.grids)
        return np.asarray(self.table[np.arange(bits.shape[1]), bits].sum(axis=1))

    def conclude(self, seen_on_d: Sequence[np.ndarray], seen_on_d_prime: Sequence[np.ndarray]) -> AttackScores:
        return chunk_scores(
            self.name,
            seen_on_d,
            seen_on_d_prime,
            white_box=False,
            metadata={
                "reads": f"sign, binade and the lowest {LOW_BITS} bits of round(|x| / grid) of the first "
                f"{_MAX_COORDINATES} coordinates (grid per coordinate: 1 for integers, 2^-{ROUNDING_BITS} of "
                "the spread otherwise)"
                if self.rounded
                else f"sign, binade and the lowest {LOW_BITS} mantissa bits of the first {_MAX_COORDINATES} "
                "coordinates",
                "model": "naive Bayes frequency ratio fitted on the calibration trials (add-one smoothing)",
            },
        )


def floating_point_section(context: AuditContext) -> Finding:
    """The floating-point finding (module docstring): the raw :class:`LowBitsTest` bound, reported
    apart from the verdict, and the rounded one, which counts toward it (at half the error rate)."""
    from audits.histogram_scores import clopper_pearson_of  # from the scores or their histograms

    claim = context.spec.claim
    raw = next(a for a in context.attacks if a.attack == LowBitsTest(rounded=False).name)
    bound = clopper_pearson_of(raw, delta=claim.delta, confidence=context.confidence)
    rounded_scores = next((a for a in context.attacks if a.attack == LowBitsTest(rounded=True).name), None)
    counting_confidence = 0.5 * (1.0 + context.confidence)
    rounded = (
        None
        if rounded_scores is None
        else clopper_pearson_of(rounded_scores, delta=claim.delta, confidence=counting_confidence)
    )
    integer = any(isinstance(a, LowBitsTest) and a.integer_valued for a in context.spec.attacks)
    claimed = None if claim.bound is None else context.upper.get(claim.bound)
    exceeds = claimed is not None and bound.epsilon > claimed
    violated = {k: v for k, v in context.upper.items() if rounded is not None and v is not None and rounded.epsilon > v}
    kind = (
        "The releases are integers (or category codes): they have no floating-point artefact, so the low bits "
        "are the mechanism's own output."
        if integer
        else f"Rounded to 2^-{ROUNDING_BITS} of each coordinate's spread, the releases keep no floating-point artefact."
    )
    if rounded is not None and violated:
        conclusion = (
            f"**The mechanism leaks: ε ≥ {rounded.epsilon:.4f}** from the low bits after rounding, above "
            f"{', '.join(f'{k} = {v:.4g}' for k, v in violated.items())}. {kind} This bound counts toward the verdict."
        )
    elif exceeds:
        conclusion = (
            f"**The implementation leaks through floating point: ε ≥ {bound.epsilon:.4f}**, above the claimed "
            f"{claimed:.4g}. The mechanism may be private over the reals; its floating-point sampler is not."
        )
    elif bound.epsilon > 0:
        conclusion = f"The low-order bits carry some information (ε ≥ {bound.epsilon:.4f}), below the claim."
    else:
        conclusion = "No leak through the low-order bits was found (ε ≥ 0)."
    rounded_line = (
        ""
        if rounded is None
        else f" After rounding (grid per coordinate: 1 for integers, 2^-{ROUNDING_BITS} of the spread otherwise) "
        f"the same test gives ε ≥ {rounded.epsilon:.4f} at {counting_confidence:.1%} confidence; that bound counts "
        "toward the verdict (a leak that survives rounding is the mechanism's, not floating point's), so the "
        f"verdict rests on two tests and a false VIOLATION has probability at most "
        f"{1.5 * (1 - context.confidence):.1%}."
    )
    markdown = (
        f"{conclusion}\n\nTest: sign, binade and lowest {LOW_BITS} mantissa bits of each release (naive Bayes on "
        f"the calibration trials), scored on the audited trials; Clopper–Pearson bound at "
        f"{context.confidence:.0%} confidence, worst case. This bound judges the implementation's floating-point "
        f"arithmetic and does not enter the verdict.{rounded_line}"
    )
    report: dict[str, Any] = {
        "epsilon_lower": bound.epsilon,
        "confidence": bound.confidence,
        "assumption": bound.assumption,
        "exceeds_claim": exceeds,
        "integer_releases": integer,
    }
    if rounded is not None:
        report["rounded"] = {**rounded.to_dict(), "counts_toward_verdict": True, "violates": sorted(violated)}
    data = bound.to_dict() if rounded is None else {**bound.to_dict(), "rounded": rounded.to_dict()}
    return Finding(
        section={"title": "Floating-point channel", "markdown": markdown, "data": data},
        report={"floating_point": report},
        verdicts=dict.fromkeys(violated, "VIOLATION"),
        violated_by={k: (LowBitsTest(rounded=True).name,) for k in violated},
    )
