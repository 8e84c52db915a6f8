"""The value every audit statistic returns: a lower bound on ε that carries its own provenance.

Every bound states its method, confidence level, δ, the multiplicity correction used to pick the
threshold (or number of guesses), and the assumption under which it is a lower bound.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

import numpy as np

__all__ = ["CONDITIONAL_ON_GDP", "LowerBound", "WORST_CASE"]

#: Assumption label of bounds that hold for any mechanism claiming (ε, δ)-DP.
WORST_CASE = "worst-case (ε, δ)-DP lower bound: holds whatever the mechanism's trade-off curve"
#: Assumption label of bounds read off a Gaussian trade-off curve (Nasr et al. 2023).
CONDITIONAL_ON_GDP = "conditional on a Gaussian trade-off curve (μ-GDP); not a worst-case DP lower bound"


def _plain(value: Any) -> Any:
    """numpy scalars and arrays as plain Python values, so that the bound serialises to JSON."""
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class LowerBound:
    """A (1 − α)-confidence lower bound on the ε of a mechanism at a given δ.

    Attributes:
      epsilon: the lower bound on ε (nats), ≥ 0. With probability at least ``confidence`` over the
        audit's randomness, the mechanism is not (ε', δ)-DP for any ε' < ``epsilon`` (under
        ``assumption``).
      delta: the δ at which ε is bounded.
      confidence: 1 − α, the probability that the bound holds.
      method: "clopper-pearson", "gdp", "one-run" or "one-run-fdp".
      correction: how the threshold (or number of guesses) was chosen without peeking, e.g.
        "split (50% select / 50% evaluate, seed 0)", "bonferroni over 100 thresholds" or
        "none (single pre-registered threshold)".
      threshold: the score threshold the bound was evaluated at, if any: "in" iff score > threshold,
        and with probability ``details["tie_probability"]`` when they are equal (1, i.e. "in" iff
        score ≥ threshold, unless a randomised test was chosen; :mod:`audits.stats.decision`).
      mu: the lower confidence bound on μ for the GDP-based methods, else None.
      assumption: under which hypothesis the bound is a lower bound (``WORST_CASE`` or
        ``CONDITIONAL_ON_GDP``).
      details: method-specific numbers (counts, Clopper–Pearson bounds, guesses, …), JSON-ready.
    """

    epsilon: float
    delta: float
    confidence: float
    method: str
    correction: str
    threshold: float | None = None
    mu: float | None = None
    assumption: str = WORST_CASE
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not (self.epsilon >= 0 and math.isfinite(self.epsilon)):
            raise ValueError(f"epsilon must be a finite lower bound >= 0, got {self.epsilon!r}")
        object.__setattr__(self, "epsilon", float(self.epsilon))
        object.__setattr__(self, "delta", float(self.delta))
        object.__setattr__(self, "confidence", float(self.confidence))
        if self.threshold is not None:
            object.__setattr__(self, "threshold", float(self.threshold))
        if self.mu is not None:
            object.__setattr__(self, "mu", float(self.mu))
        object.__setattr__(self, "details", MappingProxyType(_plain(dict(self.details))))

    @property
    def alpha(self) -> float:
        """The significance level 1 − confidence."""
        return 1.0 - self.confidence

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain Python values (``details`` as a dict)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    def to_json(self, **kwargs: Any) -> str:
        """The bound as a JSON object (``json.dumps`` keyword arguments pass through)."""
        return json.dumps(self.to_dict(), allow_nan=False, ensure_ascii=False, **kwargs)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LowerBound:
        return cls(**dict(data))

    @classmethod
    def from_json(cls, text: str) -> LowerBound:
        return cls.from_dict(json.loads(text))

    def __str__(self) -> str:
        mu = "" if self.mu is None else f", μ ≥ {self.mu:.4f}"
        return (
            f"ε ≥ {self.epsilon:.4f} at δ = {self.delta:g}{mu} "
            f"({self.method}, {self.confidence:.0%} confidence, threshold choice: {self.correction}; "
            f"{self.assumption})"
        )
