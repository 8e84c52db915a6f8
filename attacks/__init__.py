"""Attacks: adversaries that read a transcript (or a released model) and return per-trial scores.

Every attack returns an :class:`AttackScores` — scores under both hypotheses (higher means "the
target record was in") plus the ground truth — so :mod:`audits.stats` serves all of them, and
reports its own metrics (AUROC, TPR at 0.1 % and 1 % FPR; :mod:`attacks.metrics`). Attacks read only released messages
(``Transcript.public()``) and the knowledge their threat model grants, and say so in their metadata.

* :class:`WhiteBoxNP` — the Neyman–Pearson test for one record of one agent in DP-ADMM and the
  paper's Algorithm 2: replays every iteration's noise-free update under D and D′ from the
  transcript and sums the Gaussian log-likelihood ratios (:mod:`attacks.whitebox`).
* :class:`TranscriptNP` — the Neyman–Pearson test for R-ADMM/MR-ADMM (Zhang, Khalili & Liu 2020) and
  PP/DVP (Zhang, Khalili & Liu 2018): rebuilds every costly iteration's Gamma-norm noise from the
  broadcasts alone (its first-order condition) under D and D′; the exact log-likelihood ratio is the
  transcript's realised privacy loss (:mod:`attacks.objective_perturbation`).
* :class:`BroadcastNP` — the Neyman–Pearson test on one PDML server's broadcasts (Wang et al. 2020):
  replays the server's local solve (15) under D and D′ from the public broadcasts (y' and η
  white-box) and sums the Gaussian log-likelihood ratios (:mod:`attacks.pdml`).
* :class:`LossThreshold`, :class:`LiRA` — black-box membership inference on the released final
  model; LiRA takes its shadow models from the trials axis (:mod:`attacks.blackbox`).
* :class:`KKTInference` — the KKT inference of Zhang, Khalili & Liu 2018 (App. E): rebuilds the
  duals from a decentralized transcript and averages the KKT residuals to reconstruct one record (η
  known, a guessed η, or η-free); scored by rank among candidates, with the
  reconstruction-robustness bound of Balle et al. 2022 in :mod:`attacks.reconstruction_bound`
  (:mod:`attacks.kkt`).
* :func:`recover_gram`, :class:`ColumnSpaceTest`, :class:`SharingNP` — ADMM sharing (Hu et al. 2019):
  the server's recovery of a party's Gram matrix D_m D_mᵀ from noiseless shares, the column-space
  test that tells neighbours apart with certainty in the paper's parameter-noise mode, and the
  Neyman–Pearson replay test for the certified output mode (:mod:`attacks.sharing`).
"""

from accountants.version import __version__
from attacks.base import AttackScores
from attacks.blackbox import LiRA, LossThreshold
from attacks.kkt import KKTInference, KKTKnowledge
from attacks.objective_perturbation import TranscriptNP, realised_privacy_loss
from attacks.pdml import BroadcastNP, replay_server
from attacks.reconstruction_bound import rero_bound, rero_bound_fdp, rero_bound_gdp
from attacks.sharing import ColumnSpaceTest, GramRecovery, SharingNP, recover_gram
from attacks.whitebox import WhiteBoxNP, replay_statistics

__all__ = [
    "__version__",
    "AttackScores",
    "BroadcastNP",
    "ColumnSpaceTest",
    "GramRecovery",
    "KKTInference",
    "KKTKnowledge",
    "LiRA",
    "LossThreshold",
    "SharingNP",
    "TranscriptNP",
    "WhiteBoxNP",
    "realised_privacy_loss",
    "recover_gram",
    "replay_server",
    "replay_statistics",
    "rero_bound",
    "rero_bound_fdp",
    "rero_bound_gdp",
]
