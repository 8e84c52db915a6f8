"""Attacks: adversaries that read a transcript (or a released model) and return per-trial scores.

Every attack returns an :class:`AttackScores` — scores under both hypotheses (higher means "the
target record was in") plus the ground truth — so :mod:`audits.stats` serves all of them, and
reports its own metrics (AUROC, TPR at 0.1 % and 1 % FPR; :mod:`attacks.metrics`). An audit feeds an
attack the trials chunk by chunk through the :class:`Attack` protocol (:class:`TrialScorer` is one for an
attack that scores each trial, :class:`ScoreAttack` makes one of a per-trial score function;
:mod:`attacks.base`). Attacks read only released messages (``Transcript.public()``) and the knowledge their
threat model grants, and say so in their metadata.

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

from typing import TYPE_CHECKING

from accountants.lazy import typed_lazy_exports
from accountants.logs import package_logger
from accountants.version import __version__

if TYPE_CHECKING:  # the real imports, for type checkers; at run time each name is imported on first use
    from attacks.base import Attack as Attack
    from attacks.base import AttackScores as AttackScores
    from attacks.base import ScoreAttack as ScoreAttack
    from attacks.base import TrialScorer as TrialScorer
    from attacks.blackbox import LiRA as LiRA
    from attacks.blackbox import LossThreshold as LossThreshold
    from attacks.kkt import KKTInference as KKTInference
    from attacks.kkt import KKTKnowledge as KKTKnowledge
    from attacks.objective_perturbation import TranscriptNP as TranscriptNP
    from attacks.objective_perturbation import realised_privacy_loss as realised_privacy_loss
    from attacks.pdml import BroadcastNP as BroadcastNP
    from attacks.pdml import replay_server as replay_server
    from attacks.reconstruction_bound import rero_bound as rero_bound
    from attacks.reconstruction_bound import rero_bound_fdp as rero_bound_fdp
    from attacks.reconstruction_bound import rero_bound_gdp as rero_bound_gdp
    from attacks.sharing import ColumnSpaceTest as ColumnSpaceTest
    from attacks.sharing import GramRecovery as GramRecovery
    from attacks.sharing import SharingNP as SharingNP
    from attacks.sharing import recover_gram as recover_gram
    from attacks.whitebox import WhiteBoxNP as WhiteBoxNP
    from attacks.whitebox import replay_statistics as replay_statistics

package_logger(__name__)  # silent by default: a NullHandler (accountants.logs)

# Each name is written once, in the TYPE_CHECKING block (read at import time for the lazy map).
__getattr__, __dir__, _LAZY = typed_lazy_exports(__name__, __file__, globals())
__all__ = ["__version__", *_LAZY]
