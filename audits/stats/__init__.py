"""Statistics for privacy auditing: lower bounds on ε from attack scores, usable on their own.

Every audit takes the per-trial scores of an attack under the two hypotheses — ``scores_in``
(trials on D, the target record in) and ``scores_out`` (trials on D′) — with higher scores meaning
"in" (use :func:`by_label` for one array of scores plus ground-truth labels), and returns a
:class:`LowerBound` that names its method, confidence level, δ, threshold-selection correction and
the assumption under which it holds::

    from audits.stats import clopper_pearson_audit, gdp_audit
    cp = clopper_pearson_audit(scores_in, scores_out, delta=1e-5, confidence=0.95)  # worst case
    g = gdp_audit(scores_in, scores_out, delta=1e-5)             # conditional on a Gaussian curve
    g.mu, g.epsilon, g.correction, g.to_json()

Methods:

* :func:`lower_bounds` — both by name ("clopper_pearson", "gdp"), as an audit's report names them.
* :func:`clopper_pearson_audit` — exact binomial bounds on FPR and FNR at an honestly chosen
  threshold (Jagielski et al. 2020; Nasr et al. 2021). Worst-case (ε, δ) lower bound.
* :func:`gdp_audit` — lower confidence bound on μ from the ROC, ε = gaussian_epsilon(μ, δ)
  (Nasr et al. 2023). Conditional on a Gaussian trade-off curve.
* :func:`one_run_audit` — one training run with m random canaries (Steinke, Nasr & Jagielski 2023).
* :func:`one_run_fdp_audit` — its f-DP refinement for μ-GDP (Mahloujifar, Melis & Chaudhuri 2024).
* :func:`roc_curve`, :func:`auroc`, :func:`tpr_at_fpr` — attack metrics.

Threshold choice: :class:`Split` (default: 20 % select / 80 % evaluate, seed 0; the test whose bound
predicted on the evaluation part is largest, randomised tests on tied scores among the candidates),
:class:`Bonferroni` (K thresholds at α/K) or :class:`Fixed` (pre-registered, optionally randomised:
``Fixed(t, tie_probability=p)`` guesses "in" with probability p on a score equal to t, the draws
seeded so that the counts stay binomial; :mod:`audits.stats.decision`).
"""

from collections.abc import Sequence

from numpy.typing import ArrayLike

from attacks.metrics import ROC, auroc, roc_curve, tpr_at_fpr
from audits.stats._validation import by_label
from audits.stats.bounds import CONDITIONAL_ON_GDP, WORST_CASE, LowerBound
from audits.stats.clopper_pearson import (
    clopper_pearson_audit,
    clopper_pearson_from_counts,
    clopper_pearson_upper,
    epsilon_from_rates,
)
from audits.stats.gdp import gdp_audit, gdp_from_counts, mu_from_rates
from audits.stats.histogram import ScoreHistogram
from audits.stats.one_run_bounds import (
    default_guess_counts,
    one_run_audit,
    one_run_epsilon,
    one_run_guesses,
    one_run_p_value,
)
from audits.stats.one_run_fdp import (
    fdp_one_run_rejects,
    gdp_blow_up_inverse,
    one_run_fdp_audit,
    one_run_fdp_mu,
)
from audits.stats.sides import SplitHistograms
from audits.stats.thresholds import Bonferroni, Fixed, Split, ThresholdChoice, as_strategy, error_counts

__all__ = [
    "AUDITS",
    "Bonferroni",
    "CONDITIONAL_ON_GDP",
    "Fixed",
    "LowerBound",
    "ROC",
    "Split",
    "WORST_CASE",
    "as_strategy",
    "auroc",
    "by_label",
    "clopper_pearson_audit",
    "clopper_pearson_from_counts",
    "clopper_pearson_upper",
    "default_guess_counts",
    "epsilon_from_rates",
    "error_counts",
    "fdp_one_run_rejects",
    "gdp_audit",
    "gdp_blow_up_inverse",
    "gdp_from_counts",
    "lower_bounds",
    "mu_from_rates",
    "one_run_audit",
    "one_run_epsilon",
    "one_run_fdp_audit",
    "one_run_fdp_mu",
    "one_run_guesses",
    "one_run_p_value",
    "roc_curve",
    "tpr_at_fpr",
]

#: The lower bounds of :func:`lower_bounds`, by the name an audit's report gives them.
AUDITS = {"gdp": gdp_audit, "clopper_pearson": clopper_pearson_audit}


def lower_bounds(
    methods: Sequence[str],
    scores_in: ArrayLike | ScoreHistogram | SplitHistograms,
    scores_out: ArrayLike | ScoreHistogram | SplitHistograms,
    *,
    delta: float,
    confidence: float,
    threshold: ThresholdChoice = "split",
) -> dict[str, LowerBound]:
    """The lower bounds ``methods`` (of :data:`AUDITS`) of one attack's scores, or of their histograms, by method."""
    return {
        m: AUDITS[m](scores_in, scores_out, delta=delta, confidence=confidence, threshold=threshold) for m in methods
    }
