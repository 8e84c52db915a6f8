"""Deliberately broken DP-ADMM mechanisms, kept as regression tests for the audits.

Each variant runs DP-ADMM with a bug in its privacy mechanism while its ledger still claims the
correct guarantee (the events of the correct σ_k = z·Δ_k are registered unchanged), exactly as a
buggy implementation would. An audit that works must flag every one of them as a VIOLATION.

* :class:`VarianceForStd` — the noise's standard deviation is σ_k² (the variance passed where a
  standard deviation belongs); with σ_k < 1 that is far less noise.
* :class:`HalvedNoise` — σ_k/2: μ doubles.
* :class:`UnnoisedIteration` — one iteration (the last by default) releases its update without
  noise: ε = ∞.
* :class:`WrongNormSensitivity` — the feature bound that the sensitivity 2S1/(m(ρ + 1/η)) assumes
  (‖x‖₂ ≤ 1) is checked in the L∞ norm instead, so records with ‖x‖₂ up to sqrt(d) pass and the
  true sensitivity exceeds the calibrated one (a canary with ‖x‖_∞ = 1 on 4 columns has ‖x‖₂ = 2).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from solvers.star.admm import DPADMM

if TYPE_CHECKING:
    from audits.neighbours import CanaryOptions
    from solvers.engine.plan import NoiseSource, RunPlan
    from solvers.problem import HorizontalProblem

__all__ = ["BROKEN_VARIANTS", "HalvedNoise", "UnnoisedIteration", "VarianceForStd", "WrongNormSensitivity"]


class _ScaledNoise:
    """Draws the wrapped mechanism's noise and transforms it (the bug); states no event itself."""

    def __init__(self, base: NoiseSource, transform: Callable[[np.ndarray], np.ndarray]) -> None:
        self.base, self.transform = base, transform

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return self.transform(self.base.sample(rng, shape))


@dataclass(frozen=True)
class _BrokenNoise(DPADMM):
    def plan(self, problem: HorizontalProblem) -> RunPlan[Any]:
        plan = super().plan(problem)
        if plan.mechanism is None:
            return plan
        sigma = np.asarray(plan.details.sigma, dtype=np.float64)[:, :, None]  # (T, N, 1), claimed
        factor = self._actual_sigma(sigma) / sigma
        return dataclasses.replace(plan, mechanism=_ScaledNoise(plan.mechanism, lambda x: x * factor))

    def _actual_sigma(self, sigma: NDArray[np.float64]) -> NDArray[np.float64]:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class VarianceForStd(_BrokenNoise):
    """BROKEN: noise standard deviation σ_k² instead of σ_k (ledger claims σ_k)."""

    name = "dpadmm-broken-variance-for-std"

    def _actual_sigma(self, sigma: NDArray[np.float64]) -> NDArray[np.float64]:
        return sigma**2


@dataclass(frozen=True)
class HalvedNoise(_BrokenNoise):
    """BROKEN: noise σ_k/2 (ledger claims σ_k)."""

    name = "dpadmm-broken-halved-noise"

    def _actual_sigma(self, sigma: NDArray[np.float64]) -> NDArray[np.float64]:
        return sigma / 2


@dataclass(frozen=True)
class UnnoisedIteration(_BrokenNoise):
    """BROKEN: iteration ``unnoised`` (default −1, the last) is released without noise."""

    unnoised: int = -1
    name = "dpadmm-broken-unnoised-iteration"

    def _actual_sigma(self, sigma: NDArray[np.float64]) -> NDArray[np.float64]:
        actual: NDArray[np.float64] = sigma.copy()
        actual[self.unnoised] = 0.0
        return actual


@dataclass(frozen=True)
class WrongNormSensitivity(DPADMM):
    """BROKEN: the feature bound of the sensitivity is checked in the L∞ norm, not L2."""

    name = "dpadmm-broken-wrong-norm"

    def check_problem(self, problem: HorizontalProblem, private: bool) -> None:
        from solvers.problem import HorizontalProblem
        from solvers.topology import StarTopology

        if not isinstance(problem, HorizontalProblem) or not isinstance(problem.topology, StarTopology):
            raise TypeError("WrongNormSensitivity runs on a HorizontalProblem with a StarTopology")
        if private and np.abs(problem.partition.X).max() > 1.0 + 1e-12:
            raise ValueError("problem.partition.X: a feature exceeds 1 in absolute value (L∞ check)")


#: name → (class, canary keyword arguments for ``canary_neighbours``).
BROKEN_VARIANTS: dict[str, tuple[type[DPADMM], CanaryOptions]] = {
    "variance-for-std": (VarianceForStd, {}),
    "halved-noise": (HalvedNoise, {}),
    "unnoised-iteration": (UnnoisedIteration, {}),
    "wrong-norm": (WrongNormSensitivity, {"canary_width": 4, "canary_value": 1.0}),
}
