"""Choosing the attack's test honestly and evaluating it, for each strategy of :mod:`audits.stats.thresholds`.

Split. The candidates are the deterministic tests "in iff s ≥ t" at every distinct score of the
selection part and, on the tie blocks next to the :data:`REFINED` best of them, the randomised tests
(t, p) of :mod:`audits.stats.decision` with p in :data:`TIE_PROBABILITIES`. Each candidate is ranked
by the bound it is predicted to give on the evaluation part: its error rates on the selection part,
taken at their Clopper–Pearson upper bounds at level ``selection_alpha`` (so that a candidate whose
few errors are luck is not preferred), times the evaluation part's trial counts, through the bound at
level α. The ranking thus asks what the evaluation answers — a lower confidence bound, not the
empirical ε — at the evaluation's sample size: with more trials, tests deeper in a tail become worth
their fewer errors, and the test that was best with fewer trials is still a candidate.

When every candidate's predicted bound is 0, the choice falls back, in order, to the largest
predicted bound at the relaxed level :data:`RELAXED_LEVEL` (the rates at about their point estimates),
then to the deterministic test with the largest TPR − FPR (the membership advantage, Yeom, Giacomelli,
Fredrikson & Jha 2018), then to the median of the pooled selection scores; never to the lowest score,
which calls every trial "in" and can bound nothing. Every choice is a function of the multisets of
selection scores alone (invariant under the order of the trials), and the result names the stage
that chose it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from audits.stats.binomial import clopper_pearson_upper_limits
from audits.stats.decision import drawn_counts, expected_counts
from audits.stats.histogram import ScoreHistogram
from audits.stats.sides import (
    ScoreArray,
    ScoreCounts,
    Side,
    distinct,
    merged,
    parts,
    pooled,
    tallies,
    trials,
    whole,
)
from audits.stats.thresholds import Bonferroni, Fixed, Split, ThresholdStrategy

__all__ = [
    "BoundFunction",
    "MAX_CANDIDATES",
    "REFINED",
    "RELAXED_LEVEL",
    "Selection",
    "TIE_PROBABILITIES",
    "TestChoice",
    "choose_test",
    "predicted_bound",
    "predicted_bounds",
    "select_threshold",
]

#: bound(fp, n_out, fn, n_in, alpha) -> the lower bound at each threshold, at total level alpha.
BoundFunction = Callable[[np.ndarray, int, np.ndarray, int, float], np.ndarray]
#: Tie probabilities tried on a tie block: fine near 0 and 1 (a few of a large block's trials), even between.
TIE_PROBABILITIES = np.unique(
    np.concatenate([np.geomspace(1e-6, 0.5, 40), 1.0 - np.geomspace(1e-6, 0.5, 40), np.linspace(0.0, 1.0, 21)])
)
#: Deterministic tests whose two neighbouring tie blocks are searched for a randomised test.
REFINED = 16
#: Level of the first fallback's ranking, at selection and evaluation: about the point estimates.
RELAXED_LEVEL = 0.5
#: Deterministic candidates at most: beyond, the pooled-score tail quantiles of :class:`Bonferroni`'s grid
#: (probabilities geometric in [1/N, 1/2] in both tails), which keeps every tail depth a bound can use.
MAX_CANDIDATES = 4096


@dataclass(frozen=True)
class TestChoice:
    """A test chosen on the selection part: threshold, tie probability, its predicted bound, the stage."""

    threshold: float
    tie_probability: float
    value: float
    stage: str


def predicted_bounds(
    fp: np.ndarray,
    fn: np.ndarray,
    sizes: tuple[int, int, int, int],
    bound: BoundFunction,
    levels: tuple[float, float],
) -> np.ndarray:
    """The bound each test is predicted to give at the evaluation sizes (m_out, m_in, n_out, n_in): its
    selection counts' rates at their upper bounds at the selection level, through ``bound`` at the
    evaluation level (module docstring)."""
    m_out, m_in, n_out, n_in = sizes
    selection_level, evaluation_level = levels
    fpr = clopper_pearson_upper_limits(fp, m_out, selection_level / 2)
    fnr = clopper_pearson_upper_limits(fn, m_in, selection_level / 2)
    return bound(fpr * n_out, n_out, fnr * n_in, n_in, evaluation_level)


#: A selection part as the candidate search reads it: its counts at thresholds (an array is read as one).
Selected = ScoreArray | ScoreHistogram


def as_selected(scores: np.ndarray | Selected) -> Selected:
    """Scores as :data:`Selected` (an array wrapped, counts as they are)."""
    return scores if isinstance(scores, (ScoreArray, ScoreHistogram)) else ScoreArray(np.asarray(scores))


def _thresholds(scores_in: Selected, scores_out: Selected) -> np.ndarray:
    """The deterministic candidates' thresholds: every distinct pooled score, or the tail quantiles
    of :class:`Bonferroni`'s grid beyond :data:`MAX_CANDIDATES`."""
    thresholds = distinct(scores_in, scores_out)
    if thresholds.size <= MAX_CANDIDATES:
        return thresholds
    both = merged(scores_in, scores_out)
    return np.unique(both.quantiles(Bonferroni(MAX_CANDIDATES).levels(both.trials)))


def _ranked_tests(
    scores_in: Selected,
    scores_out: Selected,
    thresholds: np.ndarray,
    bound: BoundFunction,
    sizes: tuple[int, int, int, int],
    levels: tuple[float, float],
    randomise: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The candidate tests (thresholds, tie probabilities), their selection error counts (fp, fn) and
    their predicted bounds at ``levels`` (module docstring), the deterministic ones first."""
    t, p = thresholds, np.ones(thresholds.size)
    fp, fn = expected_counts(*tallies(scores_in, scores_out, t), p)
    values = predicted_bounds(fp, fn, sizes, bound, levels)
    if randomise:
        best = np.argsort(-values, kind="stable")[:REFINED]
        blocks = np.unique(np.concatenate([best, best - 1]))
        blocks = blocks[blocks >= 0]
        _, tied_out, _, tied_in = tallies(scores_in, scores_out, thresholds[blocks])
        blocks = blocks[tied_out + tied_in >= 2]
        t_mixed = np.repeat(thresholds[blocks], TIE_PROBABILITIES.size)
        p_mixed = np.tile(TIE_PROBABILITIES, blocks.size)
        fp_mixed, fn_mixed = expected_counts(*tallies(scores_in, scores_out, t_mixed), p_mixed)
        t, p = np.concatenate([t, t_mixed]), np.concatenate([p, p_mixed])
        fp, fn = np.concatenate([fp, fp_mixed]), np.concatenate([fn, fn_mixed])
        values = np.concatenate([values, predicted_bounds(fp_mixed, fn_mixed, sizes, bound, levels)])
    return t, p, fp, fn, values


def choose_test(
    scores_in: np.ndarray | Selected,
    scores_out: np.ndarray | Selected,
    bound: BoundFunction,
    *,
    alpha: float,
    selection_alpha: float,
    evaluation_sizes: tuple[int, int],
    randomise: bool = True,
) -> TestChoice:
    """The test (threshold, tie probability) the selection scores predict to bound best (module docstring).

    Args:
      scores_in, scores_out: the selection part's scores on D and on D′ (arrays, or their counts:
        :data:`Selected`, a histogram read without expanding it).
      bound: the vectorised bound of the statistic (it accepts non-integer expected counts).
      alpha: the evaluation's level. selection_alpha: the level of the selection rates' upper bounds.
      evaluation_sizes: (n_out, n_in), the evaluation part's trials on D′ and on D.
      randomise: also consider randomised tests on tie blocks (else only "in iff s ≥ t").
    """
    scores_in, scores_out = as_selected(scores_in), as_selected(scores_out)
    m_out, m_in = scores_out.trials, scores_in.trials
    sizes = (m_out, m_in, *evaluation_sizes)
    thresholds = _thresholds(scores_in, scores_out)
    for stage, levels in (("none", (selection_alpha, alpha)), ("relaxed level", (RELAXED_LEVEL, RELAXED_LEVEL))):
        t, p, fp, fn, values = _ranked_tests(scores_in, scores_out, thresholds, bound, sizes, levels, randomise)
        chosen = int(np.argmax(values))  # the first (lowest threshold, deterministic first) on ties
        if values[chosen] > 0:
            return TestChoice(float(t[chosen]), float(p[chosen]), float(values[chosen]), stage)
    fp, fn = fp[: thresholds.size], fn[: thresholds.size]  # the deterministic tests
    advantage = (m_in - fn) * m_out - fp * m_in  # (TPR − FPR)·m_in·m_out, exact in integers
    chosen = int(np.argmax(advantage))
    if advantage[chosen] > 0:
        return TestChoice(float(thresholds[chosen]), 1.0, 0.0, "largest TPR − FPR")
    median = merged(scores_in, scores_out).quantiles(np.array([0.5]))[0]
    return TestChoice(float(median), 1.0, 0.0, "pooled median")


def predicted_bound(
    scores_in: np.ndarray | Selected,
    scores_out: np.ndarray | Selected,
    bound: BoundFunction,
    *,
    levels: tuple[float, float],
    evaluation_sizes: tuple[int, int],
    alternatives: Sequence[BoundFunction] = (),
    randomise: bool = True,
) -> float:
    """The largest bound any candidate test is predicted to give on an evaluation part of
    ``evaluation_sizes`` (n_out, n_in) trials, from these selection scores (module docstring): the
    value :func:`choose_test` ranks by, at ``levels`` (selection, evaluation). With ``alternatives``
    (the same statistic with its level shared otherwise), the largest of their predictions at the
    best test. Compares score functions at the sample size they will be audited at, on selection
    data alone."""
    scores_in, scores_out = as_selected(scores_in), as_selected(scores_out)
    sizes = (scores_out.trials, scores_in.trials, *evaluation_sizes)
    thresholds = _thresholds(scores_in, scores_out)
    _, _, fp, fn, values = _ranked_tests(scores_in, scores_out, thresholds, bound, sizes, levels, randomise)
    best = int(np.argmax(values))
    at_best = [float(values[best])]
    at_best += [
        float(predicted_bounds(fp[best : best + 1], fn[best : best + 1], sizes, b, levels)[0]) for b in alternatives
    ]
    return max(at_best)


@dataclass(frozen=True)
class Selection:
    """The test a strategy chose and the bound there (on the evaluation trials)."""

    threshold: float | None  # None: a test known by its counts alone
    value: float
    fp: int
    n_out: int
    fn: int
    n_in: int
    alpha: float  # the level the reported value was computed at (α, or α/K under Bonferroni)
    correction: str
    details: dict[str, float | str] = field(default_factory=dict)
    tie_probability: float = 1.0


def _evaluate(
    scores_in: ScoreCounts,
    scores_out: ScoreCounts,
    threshold: float,
    tie_probability: float,
    seed: int,
    bound: BoundFunction,
    alpha: float,
) -> tuple[float, dict[str, int], dict[str, float | str]]:
    """The bound of one test on these trials, its counts, and what the result states about its draws."""
    above_out, tied_out, below_in, tied_in = (int(c[0]) for c in tallies(scores_in, scores_out, np.array([threshold])))
    counts = drawn_counts(above_out, tied_out, below_in, tied_in, tie_probability, seed)
    n_out, n_in = scores_out.trials, scores_in.trials
    value = float(bound(np.array([counts["fp"]]), n_out, np.array([counts["fn"]]), n_in, alpha)[0])
    stated: dict[str, float | str] = {"tie_probability": tie_probability}
    if tie_probability != 1.0:
        stated |= {k: v for k, v in counts.items() if k.startswith("ties")}
        stated["tie_draws"] = f"Binomial(ties, p) per side from child 1 of SeedSequence({seed})"
    return value, counts, stated


def _bonferroni_grid(strategy: Bonferroni, scores_in: Side, scores_out: Side) -> np.ndarray:
    """:meth:`Bonferroni.grid` of the pooled scores of both sides."""
    if not isinstance(strategy.thresholds, int):  # pre-registered
        return np.asarray(strategy.thresholds, dtype=np.float64)
    both = pooled(scores_in, scores_out)
    return np.unique(both.quantiles(strategy.levels(both.trials)))


def select_threshold(
    scores_in: Side,
    scores_out: Side,
    strategy: ThresholdStrategy,
    alpha: float,
    bound: BoundFunction,
    selection_alpha: float | None = None,
) -> Selection:
    """Pick a test honestly by ``strategy`` and evaluate ``bound`` there.

    Args:
      scores_in, scores_out: hypotheses D and D′: validated 1-D score arrays, or their histograms
        (:class:`audits.stats.sides.SplitHistograms` for a :class:`Split`); the same result either way.
      strategy: :class:`Split`, :class:`Bonferroni` or :class:`Fixed`.
      alpha: total significance level 1 − confidence.
      bound: vectorised lower bound at each test, given its counts and a level.
      selection_alpha: the level of the selection rates' upper bounds when a :class:`Split` ranks
        its candidates (default ``alpha``, :func:`choose_test`). It never affects validity, which
        rests on the evaluation part alone.

    Raises:
      ValueError: a :class:`Split` of histograms not gathered in its two parts.
    """
    level, tie_probability = alpha, 1.0
    details: dict[str, float | str]
    e_in: ScoreCounts
    e_out: ScoreCounts
    if isinstance(strategy, Fixed):
        e_in, e_out = whole(scores_in), whole(scores_out)
        threshold, tie_probability, correction = strategy.threshold, strategy.tie_probability, strategy.describe()
        value, counts, details = _evaluate(e_in, e_out, threshold, tie_probability, strategy.seed, bound, alpha)
    elif isinstance(strategy, Bonferroni):
        e_in, e_out = whole(scores_in), whole(scores_out)
        grid = _bonferroni_grid(strategy, scores_in, scores_out)
        k = grid.size
        fp, fn = e_out.trials - e_out.below(grid), e_in.below(grid)
        level, correction, details = alpha / k, strategy.describe(k), {"n_thresholds": k}
        values = bound(fp, e_out.trials, fn, e_in.trials, level)
        best = int(np.argmax(values))
        threshold, value, counts = float(grid[best]), float(values[best]), {"fp": int(fp[best]), "fn": int(fn[best])}
    elif isinstance(strategy, Split):
        s_in, s_out = parts(strategy, scores_in, scores_out, "select")
        n_select_in, n_select_out = s_in.trials, s_out.trials
        ranking = alpha if selection_alpha is None else selection_alpha
        choice = choose_test(
            s_in,
            s_out,
            bound,
            alpha=alpha,
            selection_alpha=ranking,
            evaluation_sizes=(trials(scores_out) - n_select_out, trials(scores_in) - n_select_in),
            randomise=strategy.randomise,
        )
        del s_in, s_out  # the evaluation parts are copied once the selection parts are freed: the peak memory
        e_in, e_out = parts(strategy, scores_in, scores_out, "evaluate")
        threshold, tie_probability, correction = choice.threshold, choice.tie_probability, strategy.describe()
        value, counts, stated = _evaluate(e_in, e_out, threshold, tie_probability, strategy.seed, bound, alpha)
        details = {
            "n_select_in": n_select_in,
            "n_select_out": n_select_out,
            "selection_alpha": ranking,
            "selection_value": choice.value,
            "selection_fallback": choice.stage,
            **stated,
        }
    else:
        raise TypeError(f"unknown threshold strategy {strategy!r}")
    return Selection(
        threshold,
        value,
        counts["fp"],
        e_out.trials,
        counts["fn"],
        e_in.trials,
        level,
        correction,
        details,
        tie_probability,
    )
