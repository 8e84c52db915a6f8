"""Black-box membership inference on the released model (the final global model w^T).

Both attacks read only released models, never a transcript or private state (``white_box=False``).

* :class:`LossThreshold` — score = −ℓ(w; x, y) of the target record: a model trained with the
  record fits it better (Yeom et al. 2018).
* :class:`LiRA` — the likelihood-ratio attack of Carlini et al. (2022, "Membership inference
  attacks from first principles"), with shadow models taken from the trials axis: shadow trials run
  with and without the target (disjoint from the attacked trials) give Gaussian fits of the
  target's logit-scaled confidence, which for a margin loss is the margin z = y·wᵀx itself; the
  score is log N(z; μ_in, σ_in²) − log N(z; μ_out, σ_out²) (the online, per-example variant).

Both are :class:`attacks.base.Attack`s: an audit feeds them the batched results chunk by chunk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from attacks.base import TrialScorer

if TYPE_CHECKING:  # solvers is imported only when an attack runs
    from solvers.losses import MarginLoss

__all__ = ["LiRA", "LossThreshold"]


def _models(models) -> np.ndarray:
    array = np.asarray(getattr(models, "model", models), dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"models must be (R, d) released models or a batched Result, got shape {array.shape}")
    return array


@dataclass
class LossThreshold(TrialScorer):
    """−loss of the target record (x, y) under each released model.

    Args:
      x, y: the target record (features (d,), label ±1). loss: a ``solvers.losses.MarginLoss``.
    """

    x: np.ndarray
    y: float
    loss: MarginLoss

    name = "black-box loss threshold"

    def score(self, models) -> np.ndarray:
        margins = self.y * (_models(models) @ np.asarray(self.x, dtype=np.float64))
        return -np.asarray(self.loss.phi(margins), dtype=np.float64)

    def metadata(self) -> dict:
        """What the attack reads, for its ``AttackScores``."""
        return {"white_box": False, "reads": "the released final model w^T"}


@dataclass
class LiRA(TrialScorer):
    """Online LiRA with Gaussian fits from shadow trials (call :meth:`fit` first).

    Args:
      x, y: the target record. min_std: floor on the fitted standard deviations.
    """

    x: np.ndarray
    y: float
    min_std: float = 1e-12
    fitted: tuple[float, float, float, float] | None = field(default=None, repr=False)

    name = "black-box LiRA (shadow trials)"

    def statistic(self, models) -> np.ndarray:
        """The logit-scaled confidence of a margin model: the margin y·wᵀx."""
        return self.y * (_models(models) @ np.asarray(self.x, dtype=np.float64))

    def fit(self, shadow_in, shadow_out) -> LiRA:
        """Fit N(μ_in, σ_in²) and N(μ_out, σ_out²) on shadow models trained with / without the target."""
        s_in, s_out = self.statistic(shadow_in), self.statistic(shadow_out)
        if s_in.size < 2 or s_out.size < 2:
            raise ValueError("LiRA needs at least 2 shadow models per hypothesis")
        self.fitted = (
            float(s_in.mean()),
            max(float(s_in.std()), self.min_std),
            float(s_out.mean()),
            max(float(s_out.std()), self.min_std),
        )
        return self

    def score(self, models) -> np.ndarray:
        if self.fitted is None:
            raise ValueError("LiRA needs fit(shadow_in, shadow_out) first")
        mu_in, sd_in, mu_out, sd_out = self.fitted
        s = self.statistic(models)
        return -0.5 * ((s - mu_in) / sd_in) ** 2 - np.log(sd_in) + 0.5 * ((s - mu_out) / sd_out) ** 2 + np.log(sd_out)

    def metadata(self) -> dict:
        """What the attack reads and its fitted Gaussians, for its ``AttackScores``."""
        return {
            "white_box": False,
            "reads": "the released final model w^T",
            "shadows": "disjoint shadow trials (trials axis)",
            "fit": None if self.fitted is None else list(self.fitted),
        }
