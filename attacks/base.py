"""What every attack is and returns: the :class:`Attack` protocol an audit feeds chunk by chunk, and
:class:`AttackScores`, per-trial scores plus the ground truth and the attack's own success metrics.

Scores are oriented so that higher means "the target record was in" (hypothesis D); the two arrays
``scores_in`` (trials run on D) and ``scores_out`` (trials run on D′) are the ground truth, so one
statistics module (:mod:`audits.stats`) serves every attack.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from attacks.metrics import check_scores, roc_metrics

__all__ = ["Attack", "AttackScores", "ScoreAttack", "TrialScorer", "chunk_scores"]


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

    def metrics(self) -> dict[str, float]:
        """AUROC and TPR at 0.1 % and 1 % FPR (Carlini et al. 2022), as plain floats."""
        area, (low, high) = roc_metrics(self.scores_in, self.scores_out, (0.001, 0.01))  # the ROC's, without it
        return {"auroc": area, "tpr_at_0.1%_fpr": float(low), "tpr_at_1%_fpr": float(high)}


class Attack(Protocol):
    """A distinguisher between D and D′, fed chunk by chunk (bounded memory).

    ``observe(result, on_d)`` keeps what the attack needs of one batched ``solver.run`` result
    (``on_d``: the chunk ran on D); it must not change the attack, as chunks may run in other
    processes. ``conclude(seen_on_d, seen_on_d_prime)`` turns the kept
    observations, in trial order, into :class:`AttackScores` (higher: more likely D).
    """

    @property
    def name(self) -> str: ...

    def observe(self, result: Any, on_d: bool) -> Any: ...

    def conclude(self, seen_on_d: Sequence[Any], seen_on_d_prime: Sequence[Any]) -> AttackScores: ...


class TrialScorer:
    """An attack that scores every trial of a batched run: ``score(result)`` is an (R,) array, higher meaning
    "ran on D" (the Neyman–Pearson orientation, Neyman & Pearson 1933), and ``metadata()`` says what it read.
    It is an :class:`Attack` (an audit keeps each chunk's scores, joined in trial order), and :meth:`attack`
    scores runs on D and on D′ at once."""

    name: str
    score: Callable[[Any], np.ndarray]
    metadata: Callable[[], Mapping[str, Any]]
    white_box: bool = False

    def observe(self, result: Any, on_d: bool) -> Any:  # a subclass may keep more than its scores
        return np.asarray(self.score(result))

    def conclude(self, seen_on_d: Sequence[Any], seen_on_d_prime: Sequence[Any]) -> AttackScores:
        return chunk_scores(self.name, seen_on_d, seen_on_d_prime, white_box=self.white_box, metadata=self.metadata())

    def attack(self, result_in: Any, result_out: Any) -> AttackScores:
        """Scores of the trials run on D (``result_in``) and on D′ (``result_out``)."""
        return AttackScores(
            self.name, self.score(result_in), self.score(result_out), white_box=self.white_box, metadata=self.metadata()
        )


@dataclass(frozen=True)
class ScoreAttack(TrialScorer):
    """A :class:`TrialScorer` of a given score function."""

    name: str
    score: Callable[[Any], np.ndarray]
    white_box: bool = True
    metadata: Callable[[], Mapping[str, Any]] = dict


def chunk_scores(
    name: str,
    seen_on_d: Sequence[np.ndarray],
    seen_on_d_prime: Sequence[np.ndarray],
    *,
    white_box: bool,
    metadata: Mapping[str, Any],
) -> AttackScores:
    """An attack's :class:`AttackScores` from the score arrays it kept chunk by chunk, in trial order.

    The scores are held once: the chunks' float64 arrays of a list become views of the joined scores.
    """
    return AttackScores(
        name, _joined(seen_on_d), _joined(seen_on_d_prime), white_box=white_box, metadata=dict(metadata)
    )


def _joined(seen: Sequence[np.ndarray]) -> np.ndarray:
    """The chunks' scores in one float64 array; the list's 1-D float64 chunks replaced by views of it."""
    joined = np.concatenate(seen).astype(float, copy=False)
    if isinstance(seen, list) and all(isinstance(part, np.ndarray) and part.dtype == joined.dtype for part in seen):
        seen[:] = np.split(joined, np.cumsum([part.size for part in seen])[:-1])
    return joined
