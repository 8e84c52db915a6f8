"""The attack's decision rule: a threshold with a randomised decision at the threshold.

The test with threshold t and tie probability p guesses "in" (hypothesis D) when the score s > t,
and, when s = t, guesses "in" with probability p. It is the Neyman–Pearson test with a mixed
decision at the boundary (Neyman & Pearson 1933; Lehmann & Romano 2005, Theorem 3.2.1), the
randomised threshold of DP-Sniper (Bichsel, Steffen, Bogunovic & Vechev 2021, §5). With p = 1 it is
the deterministic rule "in iff s ≥ t"; with discrete scores the tests with p < 1 fill the segments
of the ROC between the deterministic ones.

Counts that Clopper–Pearson holds for. The tie decisions are drawn from a seeded generator that never
sees the scores: on each side, of the a trials tied at t, Binomial(a, p) are called "in" (the sum of
a independent Bernoulli(p) draws, one per tied trial). Every trial's decision is then an independent
Bernoulli draw with the test's error probability, FPR = P_D′[s > t] + p·P_D′[s = t] (and FNR alike),
so FP ~ Binomial(n_out, FPR) and FN ~ Binomial(n_in, FNR) exactly, as for a deterministic test.
The expected counts, FP > t plus p times the ties, are a ranking statistic only (their spread is
smaller than a binomial's, so an exact binomial bound is not justified for them).
"""

from __future__ import annotations

import numpy as np

__all__ = ["drawn_counts", "drawn_error_counts", "expected_counts"]


def expected_counts(
    above_out: np.ndarray,
    tied_out: np.ndarray,
    below_in: np.ndarray,
    tied_in: np.ndarray,
    tie_probabilities: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`expected_error_counts` from the counts at each threshold (:func:`threshold_counts`)."""
    p = np.asarray(tie_probabilities, dtype=np.float64)
    return above_out + p * tied_out, below_in + (1.0 - p) * tied_in


def drawn_error_counts(
    scores_in: np.ndarray, scores_out: np.ndarray, threshold: float, tie_probability: float, seed: int
) -> dict[str, int]:
    """FP and FN of the randomised test (threshold, tie_probability) on these trials, the tie decisions
    drawn from ``SeedSequence(seed)`` (module docstring), with the counts behind them.

    Returns:
      {"fp", "fn", "ties_out", "ties_in", "ties_out_in", "ties_in_in"}: the error counts, the trials
      tied at the threshold on each side and how many of them the draws called "in".
    """
    # one threshold: counted by comparison, without sorted copies
    above_out, tied_out = int(np.count_nonzero(scores_out > threshold)), int(np.count_nonzero(scores_out == threshold))
    below_in, tied_in = int(np.count_nonzero(scores_in < threshold)), int(np.count_nonzero(scores_in == threshold))
    return drawn_counts(above_out, tied_out, below_in, tied_in, tie_probability, seed)


def drawn_counts(
    above_out: int, tied_out: int, below_in: int, tied_in: int, tie_probability: float, seed: int
) -> dict[str, int]:
    """:func:`drawn_error_counts` from the counts of trials above, at and below the threshold: the trials on
    D′ above it and on D below it, and those tied at it on each side."""
    if tie_probability == 1.0:
        called_out, called_in = tied_out, tied_in
    else:
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
        called_out, called_in = (int(k) for k in rng.binomial((tied_out, tied_in), tie_probability))
    return {
        "fp": above_out + called_out,
        "fn": below_in + tied_in - called_in,
        "ties_out": tied_out,
        "ties_in": tied_in,
        "ties_out_in": called_out,
        "ties_in_in": called_in,
    }
