"""What every attack returns: per-trial scores plus the ground truth, and its own success metrics.

Scores are oriented so that higher means "the target record was in" (hypothesis D); the two arrays
``scores_in`` (trials run on D) and ``scores_out`` (trials run on D′) are the ground truth, so one
statistics module (:mod:`audits.stats`) serves every attack.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from attacks.metrics import check_scores, roc_curve

__all__ = ["AttackScores"]


@dataclass(frozen=True, eq=False)
class AttackScores:
    """Per-trial scores of one attack under both hypotheses.

    Attributes:
      attack: the attack's name.
      scores_in: (R_in,) scores of trials on D (target in); higher means "in".
      scores_out: (R_out,) scores of trials on D′ (target out).
      white_box: True if the attack reads anything beyond what the protocol releases (a released
        transcript counts as black-box for the transcript's recipients; private state does not).
      metadata: what the attack assumed and read (JSON-ready).
    """

    attack: str
    scores_in: np.ndarray
    scores_out: np.ndarray
    white_box: bool = False
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "scores_in", check_scores(self.scores_in, "scores_in"))
        object.__setattr__(self, "scores_out", check_scores(self.scores_out, "scores_out"))

    @property
    def labels(self) -> np.ndarray:
        """Ground truth for ``scores``: True for trials on D."""
        return np.concatenate([np.ones(self.scores_in.size, bool), np.zeros(self.scores_out.size, bool)])

    @property
    def scores(self) -> np.ndarray:
        """All scores, ``scores_in`` first (aligned with :attr:`labels`)."""
        return np.concatenate([self.scores_in, self.scores_out])

    def metrics(self) -> dict[str, float]:
        """AUROC and TPR at 0.1 % and 1 % FPR (Carlini et al. 2022), as plain floats."""
        roc = roc_curve(self.scores_in, self.scores_out)
        low, high = np.asarray(roc.tpr_at_fpr((0.001, 0.01)))  # one TPR per FPR of the sequence
        return {"auroc": roc.auroc, "tpr_at_0.1%_fpr": float(low), "tpr_at_1%_fpr": float(high)}

    @classmethod
    def concatenate(cls, parts: list[AttackScores]) -> AttackScores:
        """One result from the results of several chunks of trials (same attack)."""
        if not parts:
            raise ValueError("parts must hold at least one AttackScores")
        first = parts[0]
        return cls(
            first.attack,
            np.concatenate([p.scores_in for p in parts]),
            np.concatenate([p.scores_out for p in parts]),
            first.white_box,
            dict(first.metadata),
        )
