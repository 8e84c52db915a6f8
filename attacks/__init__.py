"""Attacks: adversaries that read a transcript (or a released model) and return per-trial scores.

Every attack returns an :class:`AttackScores` — scores under both hypotheses (higher means "the
target record was in") plus the ground truth — so :mod:`audits.stats` serves all of them, and
reports its own metrics (AUROC, TPR at 0.1 % and 1 % FPR). Attacks read only released messages
(``Transcript.public()``) and the knowledge their threat model grants, and say so in their metadata.

* :class:`WhiteBoxNP` — the Neyman–Pearson test for one record of one agent in DP-ADMM and the
  paper's Algorithm 2: replays every iteration's noise-free update under D and D′ from the
  transcript and sums the Gaussian log-likelihood ratios (:mod:`attacks.whitebox`).
* :class:`LossThreshold`, :class:`LiRA` — black-box membership inference on the released final
  model; LiRA takes its shadow models from the trials axis (:mod:`attacks.blackbox`).
"""
from attacks.base import AttackScores
from attacks.blackbox import LiRA, LossThreshold
from attacks.whitebox import WhiteBoxNP, replay_statistics

__all__ = ["AttackScores", "LiRA", "LossThreshold", "WhiteBoxNP", "replay_statistics"]
