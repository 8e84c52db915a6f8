"""Honest threshold selection for threshold-based lower bounds (Clopper–Pearson, GDP).

A lower bound evaluated at the threshold that looks best on the same data it is evaluated on is
biased upwards, and its stated confidence is false. Three honest choices, each named in the result:

* :class:`Split` (the default, 20 % select / 80 % evaluate): choose the threshold on a seeded
  random part of the trials of each hypothesis, evaluate the bound on the disjoint rest
  (held-out threshold selection; jax_privacy's auditing library offers the same strategy).
* :class:`Bonferroni`: evaluate a grid of K thresholds, each at level α/K, and report the maximum
  (a union bound: all K bounds hold simultaneously with probability ≥ 1 − α).
* :class:`Fixed`: one threshold fixed before seeing the scores; no correction needed.

Decision rule everywhere: guess "in" (hypothesis D) iff score ≥ threshold, so
FP = #{out-scores ≥ t} and FN = #{in-scores < t}.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from attacks.metrics import check_scores
from audits.stats._validation import check_fraction, check_seed

__all__ = [
    "Bonferroni",
    "Fixed",
    "Selection",
    "Split",
    "ThresholdChoice",
    "ThresholdStrategy",
    "as_strategy",
    "error_counts",
    "select_threshold",
]

#: bound(fp, n_out, fn, n_in, alpha) -> the lower bound at each threshold, at total level alpha.
BoundFunction = Callable[[np.ndarray, int, np.ndarray, int, float], np.ndarray]


@dataclass(frozen=True)
class Split:
    """Choose the threshold on ``fraction`` of each side's trials, evaluate on the rest.

    The parts come from a seeded permutation of each side (trials may arrive in any order, even
    sorted), so the same seed gives the same parts on every machine.

    The default gives 20 % to selection: locating the good region of the ROC needs few trials,
    while the bound's width is set by the evaluation part. Measured on N(0, 1) vs N(1, 1) with
    10^5 random trials per side and 12 seeds (δ = 1e-5, 95 %), the Clopper–Pearson bound reached
    0.633× the true ε on average (worst 0.58×) with 20 % against 0.597× (worst 0.51×) with 50 %,
    and the GDP bound (ranked at α/100) 0.973× (worst 0.946×) against 0.968× (worst 0.944×).
    """

    fraction: float = 0.2
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "fraction", check_fraction(self.fraction, "fraction"))
        object.__setattr__(self, "seed", check_seed(self.seed, "seed"))

    def describe(self) -> str:
        select = 100.0 * self.fraction
        return f"split ({select:g}% select / {100.0 - select:g}% evaluate, seed {self.seed})"

    def partition(self, n_in: int, n_out: int) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """((select_in, evaluate_in), (select_out, evaluate_out)): disjoint index sets per side.

        Raises:
          ValueError: a side has fewer than 2 trials (both parts must be non-empty).
        """
        rng = np.random.default_rng(self.seed)
        parts = []
        for n, name in ((n_in, "scores_in"), (n_out, "scores_out")):
            if n < 2:
                raise ValueError(f"{name} needs at least 2 trials to split, got {n}")
            k = min(max(int(round(self.fraction * n)), 1), n - 1)
            order = rng.permutation(n)
            parts.append((np.sort(order[:k]), np.sort(order[k:])))
        return parts[0], parts[1]


@dataclass(frozen=True)
class Bonferroni:
    """Evaluate K thresholds at level α/K each and report the best.

    ``thresholds`` is either an explicit grid fixed before the audit (strictly valid) or an int K:
    K thresholds at quantiles of the pooled scores of both hypotheses, with tail probabilities
    spaced geometrically in [1/N, 1/2] in both tails (N pooled trials). The pooled
    grid never looks at the labels but does depend on the scores; this is the common practice
    (e.g. jax_privacy's Bonferroni strategy uses every pooled score) and the result names it.
    """

    thresholds: int | tuple[float, ...] = 100

    def __post_init__(self) -> None:
        if isinstance(self.thresholds, numbers.Integral) and not isinstance(self.thresholds, bool):
            if self.thresholds < 1:
                raise ValueError(f"thresholds must be >= 1 (number of grid points), got {self.thresholds!r}")
            object.__setattr__(self, "thresholds", int(self.thresholds))
        else:
            grid = check_scores(np.asarray(self.thresholds, dtype=float).ravel(), "thresholds")
            object.__setattr__(self, "thresholds", tuple(float(t) for t in np.unique(grid)))

    @property
    def preregistered(self) -> bool:
        return not isinstance(self.thresholds, int)

    def grid(self, pooled: np.ndarray) -> np.ndarray:
        count = self.thresholds
        if not isinstance(count, int):  # preregistered
            return np.asarray(count, dtype=float)
        # Tail probabilities geometric in [1/N, 1/2] on both sides: the strongest ε bounds come
        # from thresholds deep in a tail (FP or FN in the tens out of 10^5), which an evenly spaced
        # grid would never reach.
        n = pooled.size
        upper = np.geomspace(1.0 / n, 0.5, (count + 1) // 2)
        lower = np.geomspace(1.0 / n, 0.5, count // 2)
        levels = np.concatenate([1.0 - upper, lower])
        return np.unique(np.quantile(pooled, levels, method="inverted_cdf"))

    def describe(self, k: int) -> str:
        kind = "pre-registered grid" if self.preregistered else "grid: pooled-score tail quantiles, label-blind"
        return f"bonferroni over {k} thresholds ({kind}; each at α/{k})"


@dataclass(frozen=True)
class Fixed:
    """A single threshold fixed before the scores were seen: no multiplicity correction."""

    threshold: float

    def __post_init__(self) -> None:
        value = check_scores(np.array([self.threshold], dtype=float), "threshold")[0]
        object.__setattr__(self, "threshold", float(value))

    def describe(self) -> str:
        return "none (single pre-registered threshold)"


ThresholdStrategy = Split | Bonferroni | Fixed
#: What the audits accept as ``threshold``: a strategy, "split", "bonferroni" or a fixed number.
ThresholdChoice = str | float | ThresholdStrategy


def as_strategy(value: ThresholdChoice) -> ThresholdStrategy:
    """A strategy from a strategy, "split", "bonferroni", or a number (a fixed threshold)."""
    if isinstance(value, (Split, Bonferroni, Fixed)):
        return value
    if isinstance(value, str):
        key = value.strip().lower()
        if key == "split":
            return Split()
        if key == "bonferroni":
            return Bonferroni()
        raise ValueError(f"threshold must be 'split', 'bonferroni', a number or a strategy, got {value!r}")
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return Fixed(float(value))
    raise TypeError(f"threshold must be 'split', 'bonferroni', a number or a Split/Bonferroni/Fixed, got {value!r}")


def error_counts(
    scores_in: np.ndarray, scores_out: np.ndarray, thresholds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(FP, FN) at each threshold under "in iff score ≥ t", vectorised (sort + searchsorted)."""
    in_sorted = np.sort(scores_in)
    out_sorted = np.sort(scores_out)
    fp = out_sorted.size - np.searchsorted(out_sorted, thresholds, side="left")
    fn = np.searchsorted(in_sorted, thresholds, side="left")
    return fp, fn


@dataclass(frozen=True)
class Selection:
    """The threshold a strategy chose and the bound there (on the evaluation trials)."""

    threshold: float
    value: float
    fp: int
    n_out: int
    fn: int
    n_in: int
    alpha: float  # the level the reported value was computed at (α, or α/K under Bonferroni)
    correction: str
    details: dict[str, float] = field(default_factory=dict)


def select_threshold(
    scores_in: np.ndarray,
    scores_out: np.ndarray,
    strategy: ThresholdStrategy,
    alpha: float,
    bound: BoundFunction,
    selection_alpha: float | None = None,
) -> Selection:
    """Pick a threshold honestly by ``strategy`` and evaluate ``bound`` there.

    Args:
      scores_in, scores_out: validated 1-D score arrays (hypotheses D and D′).
      strategy: :class:`Split`, :class:`Bonferroni` or :class:`Fixed`.
      alpha: total significance level 1 − confidence.
      bound: vectorised lower bound at each threshold, given its counts and a level.
      selection_alpha: the level of ``bound`` used to *rank* thresholds on the selection part of a
        :class:`Split` (default ``alpha``). A smaller level penalises thresholds with few errors,
        whose selection-part counts are the noisiest; it never affects validity, which rests on
        the evaluation part alone.
    """
    if isinstance(strategy, Fixed):
        t = np.array([strategy.threshold])
        fp, fn = error_counts(scores_in, scores_out, t)
        value = bound(fp, scores_out.size, fn, scores_in.size, alpha)[0]
        return Selection(
            strategy.threshold,
            float(value),
            int(fp[0]),
            scores_out.size,
            int(fn[0]),
            scores_in.size,
            alpha,
            strategy.describe(),
        )
    if isinstance(strategy, Bonferroni):
        grid = strategy.grid(np.concatenate([scores_in, scores_out]))
        k = grid.size
        fp, fn = error_counts(scores_in, scores_out, grid)
        values = bound(fp, scores_out.size, fn, scores_in.size, alpha / k)
        best = int(np.argmax(values))
        return Selection(
            float(grid[best]),
            float(values[best]),
            int(fp[best]),
            scores_out.size,
            int(fn[best]),
            scores_in.size,
            alpha / k,
            strategy.describe(k),
            {"n_thresholds": k},
        )
    if isinstance(strategy, Split):
        (sel_in, ev_in), (sel_out, ev_out) = strategy.partition(scores_in.size, scores_out.size)
        s_in, s_out = scores_in[sel_in], scores_out[sel_out]
        candidates = np.unique(np.concatenate([s_in, s_out]))
        fp, fn = error_counts(s_in, s_out, candidates)
        level = alpha if selection_alpha is None else selection_alpha
        values = bound(fp, s_out.size, fn, s_in.size, level)
        best = int(np.argmax(values))
        t = candidates[best : best + 1]
        e_in, e_out = scores_in[ev_in], scores_out[ev_out]
        fp_e, fn_e = error_counts(e_in, e_out, t)
        value = bound(fp_e, e_out.size, fn_e, e_in.size, alpha)[0]
        return Selection(
            float(t[0]),
            float(value),
            int(fp_e[0]),
            e_out.size,
            int(fn_e[0]),
            e_in.size,
            alpha,
            strategy.describe(),
            {
                "n_select_in": int(s_in.size),
                "n_select_out": int(s_out.size),
                "selection_alpha": level,
                "selection_value": float(values[best]),
            },
        )
    raise TypeError(f"unknown threshold strategy {strategy!r}")
