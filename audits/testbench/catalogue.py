"""The two public benchmarks of black-box DP testers as data: each algorithm, its claim, its input
pairs, its true ε where known and what the testers published.

* :data:`DPSNIPER`: the 20 mechanisms of Bichsel, Steffen, Bogunovic & Vechev (2021), "DP-Sniper:
  black-box discovery of differential privacy violations using classifiers" (IEEE S&P 2021,
  Table II), at ε = 0.1, with the input domains of their evaluation (vectors of 5 or 10 queries
  of sensitivity 1 that may all move, except the histograms, where one count moves) and their
  published lower confidence bounds on ε (DP-Sniper with its neural-network classifier, their
  Table III: 90 % confidence, δ = 0, an attack whose probability under D′ is at least c = 0.01,
  trained on 1.07×10^7 samples per input and estimated on 2×10^8 per input).
* :func:`statdp_suite`: the 11 algorithms of Ding, Wang, Wang, Zhang & Kifer (2018), "Detecting
  violations of differential privacy" (CCS 2018, Section 6), at a claimed ε₀ (they test 0.2, 0.7
  and 1.5); StatDP reports a violation (p < 0.05 at the claimed ε₀) for each of the 7 incorrect
  ones and none for the 4 correct ones. The histogram with noise of scale ε₀ is 1/ε₀-DP: incorrect
  at ε₀ < 1 only (at ε₀ = 1.5 it keeps its claim, 6 incorrect algorithms remain).

The candidate pairs are :func:`audits.neighbour_search.input_patterns` around all-ones query
answers (Ding et al.'s patterns, both orientations), or, for a mechanism of one value, that value
moved by 1 either way.

True ε (``true_epsilon``): the largest privacy loss over the benchmark's candidate pairs (what an audit
of them can approach, not the loss over all neighbouring inputs: Lyu et al. 2017's Algorithm 3 is not
ε′-DP for any ε′, yet finite here), in closed form or computed exactly; ``math.inf`` where some output
is possible under one input of a pair and not the other; None where not known.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from audits.neighbour_search import CandidatePair, input_patterns
from audits.testbench import dpsniper, statdp, svt

__all__ = ["DPSNIPER", "STATDP_EPSILONS", "Algorithm", "statdp_suite"]

#: The claimed ε₀ of StatDP's evaluation.
STATDP_EPSILONS = (0.2, 0.7, 1.5)


@dataclass(frozen=True, eq=False)
class Algorithm:
    """One benchmark algorithm.

    Attributes:
      name: as the paper names it. suite: "DP-Sniper" or "StatDP".
      mechanism: ``(data, rng, n) → releases`` (:func:`audits.audit`'s batched convention).
      claimed_epsilon: the ε it claims (pure ε-DP). correct: whether the claim holds.
      pairs: the candidate neighbouring pairs of the benchmark's input domain.
      true_epsilon: module docstring. published_epsilon: DP-Sniper's 90 % lower bound (None for StatDP).
      note: how the claim or the true ε follows from the paper.
    """

    name: str
    suite: str
    mechanism: Callable[..., np.ndarray]
    claimed_epsilon: float
    correct: bool
    pairs: tuple[CandidatePair, ...]
    true_epsilon: float | None = None
    published_epsilon: float | None = None
    note: str = ""


def _scalar_pairs(values: range | tuple[int, ...]) -> tuple[CandidatePair, ...]:
    """Every value and its successor, in both orientations."""
    pairs = []
    for v in values:
        pairs += [
            CandidatePair(f"{v} vs {v + 1}", np.array([float(v)]), np.array([float(v + 1)])),
            CandidatePair(f"{v + 1} vs {v}", np.array([float(v + 1)]), np.array([float(v)])),
        ]
    return tuple(pairs)


_EPS = 0.1
_SCALAR = input_patterns(np.zeros(1), all_differ=False)
_HIST = input_patterns(np.ones(5), all_differ=False)
_FIVE = input_patterns(np.ones(5))
_TEN = input_patterns(np.ones(10))
_GEOMETRIC = math.log1p(2.0 ** -math.ceil(math.log(2.0 / _EPS)))

#: DP-Sniper's benchmark (module docstring), in the order of its Table II.
DPSNIPER: tuple[Algorithm, ...] = (
    Algorithm(
        "LaplaceMechanism", "DP-Sniper", partial(dpsniper.laplace, epsilon=_EPS), _EPS, True, _SCALAR, _EPS, 0.0976
    ),
    Algorithm(
        "TruncatedGeometricMechanism",
        "DP-Sniper",
        partial(dpsniper.truncated_geometric, epsilon=_EPS, m=5),
        _GEOMETRIC,
        True,
        _scalar_pairs(range(5)),
        _GEOMETRIC,
        0.1155,
        "GeoSample(0.1, 5) is ln(1 + 2^-3)-DP (Balcer & Vadhan 2018, Theorem 4.7)",
    ),
    Algorithm("NoisyHist1", "DP-Sniper", partial(dpsniper.noisy_hist, scale=1 / _EPS), _EPS, True, _HIST, _EPS, 0.0977),
    Algorithm(
        "NoisyHist2",
        "DP-Sniper",
        partial(dpsniper.noisy_hist, scale=_EPS),
        _EPS,
        False,
        _HIST,
        1 / _EPS,
        4.6015,
        "Laplace scale 0.1 on a count that moves by 1: ε = 10",
    ),
    Algorithm(
        "ReportNoisyMax1",
        "DP-Sniper",
        partial(dpsniper.report_noisy_max, epsilon=_EPS, noise="laplace", release="index"),
        _EPS,
        True,
        _FIVE,
        None,
        0.0925,
    ),
    Algorithm(
        "ReportNoisyMax2",
        "DP-Sniper",
        partial(dpsniper.report_noisy_max, epsilon=_EPS, noise="exponential", release="index"),
        _EPS,
        True,
        _FIVE,
        None,
        0.0979,
    ),
    Algorithm(
        "ReportNoisyMax3",
        "DP-Sniper",
        partial(dpsniper.report_noisy_max, epsilon=_EPS, noise="laplace", release="value"),
        _EPS,
        False,
        _FIVE,
        0.25,
        0.2488,
        "the maximum of 5 Laplace(20) answers that all move by 1: its density ratio reaches e^(5/20) in the lower tail",
    ),
    Algorithm(
        "ReportNoisyMax4",
        "DP-Sniper",
        partial(dpsniper.report_noisy_max, epsilon=_EPS, noise="exponential", release="value"),
        _EPS,
        False,
        _FIVE,
        math.inf,
        0.3534,
        "a maximum below min(D′) is impossible on D′",
    ),
    Algorithm("SVT1", "DP-Sniper", partial(svt.svt1, epsilon=_EPS, c=1, t=0.5), _EPS, True, _TEN, _EPS, 0.0858),
    Algorithm("SVT2", "DP-Sniper", partial(svt.svt2, epsilon=_EPS, c=1, t=1.0), _EPS, True, _TEN, _EPS, 0.0852),
    Algorithm(
        "SVT3",
        "DP-Sniper",
        partial(svt.svt3, epsilon=_EPS, c=1, t=1.0),
        _EPS,
        False,
        _TEN,
        None,
        0.1822,
        "not ε′-DP for any ε′ over query sequences of any length (Lyu et al. 2017, Table 1); finite here",
    ),
    Algorithm(
        "SVT4",
        "DP-Sniper",
        partial(svt.svt4, epsilon=_EPS, c=1, t=1.0),
        _EPS,
        False,
        _TEN,
        1.75 * _EPS,
        0.1696,
        "((1 + 6c)/4)ε-DP with c = 1 (Lyu et al. 2017, Table 1), an upper bound on the true ε",
    ),
    Algorithm(
        "SVT5",
        "DP-Sniper",
        partial(svt.svt5, epsilon=_EPS, t=1.0),
        _EPS,
        False,
        _TEN,
        math.inf,
        1.7610,
        "no noise on the queries: some answer patterns are impossible under one input",
    ),
    Algorithm(
        "SVT6",
        "DP-Sniper",
        partial(svt.svt6, epsilon=_EPS, t=1.0),
        _EPS,
        False,
        _TEN,
        None,
        0.2698,
        "not ε′-DP for any ε′ over query sequences of any length (Lyu et al. 2017, Table 1); finite here",
    ),
    Algorithm(
        "Rappor",
        "DP-Sniper",
        partial(dpsniper.rappor, f=0.75, p=0.45, q=0.55),
        dpsniper.rappor_claim(f=0.75, p=0.45, q=0.55),
        True,
        _scalar_pairs((0,)),
        dpsniper.rappor_epsilon(0, 1, f=0.75, p=0.45, q=0.55),
        0.3008,
        "ε₁ = h ln(q*(1 − p*)/(p*(1 − q*))) with h = 4, f = 0.75, p = 0.45, q = 0.55 (Erlingsson et al. 2014)",
    ),
    Algorithm(
        "OneTimeRappor",
        "DP-Sniper",
        partial(dpsniper.one_time_rappor, f=0.95),
        dpsniper.rappor_claim(f=0.95),
        True,
        _scalar_pairs((0,)),
        dpsniper.rappor_epsilon(0, 1, f=0.95),
        0.5999,
        "ε∞ = 2h ln((1 − f/2)/(f/2)) with h = 4, f = 0.95 (Erlingsson et al. 2014)",
    ),
    Algorithm(
        "LaplaceParallel",
        "DP-Sniper",
        partial(dpsniper.laplace_parallel, epsilon=0.005, copies=20),
        _EPS,
        True,
        _SCALAR,
        _EPS,
        0.0299,
        "20 Laplace mechanisms at ε = 0.005",
    ),
    Algorithm(
        "SVT34Parallel",
        "DP-Sniper",
        partial(dpsniper.svt34_parallel, epsilon=_EPS, c=2, t=1.0),
        2 * _EPS,
        False,
        _TEN,
        0.4874,
        0.2616,
        "two mechanisms claiming 0.1 each compose to 0.2; Algorithm 3 is not private over query sequences of any "
        "length, yet every coordinate has Laplace noise: 0.4874 on half half (the halves' exact log-ratios summed, "
        "benchmarks/neyman_pearson_limits.py)",
    ),
    Algorithm(
        "PrefixSum",
        "DP-Sniper",
        partial(dpsniper.prefix_sum, epsilon=_EPS),
        _EPS,
        False,
        _TEN,
        10 * _EPS,
        0.5774,
        "ε-DP when one answer moves; in this input domain all 10 may move: 10ε",
    ),
    Algorithm(
        "NumericalSVT",
        "DP-Sniper",
        partial(svt.numerical_svt, epsilon=_EPS, c=2, t=1.0),
        _EPS,
        True,
        _TEN,
        None,
        0.0345,
    ),
)


def statdp_suite(epsilon0: float) -> tuple[Algorithm, ...]:
    """StatDP's 11 algorithms at the claimed ε₀ (module docstring): 5 queries for report noisy max
    and the histograms, 10 for the sparse vectors, with StatDP's N and T."""
    if isinstance(epsilon0, bool) or not isinstance(epsilon0, (int, float)) or not 0 < epsilon0 < math.inf:
        raise ValueError(f"epsilon0 must be a positive finite number, got {epsilon0!r}")
    e = float(epsilon0)
    return (
        Algorithm("NoisyMax (Laplace, index)", "StatDP", partial(statdp.noisy_max_v1a, epsilon=e), e, True, _FIVE),
        Algorithm(
            "NoisyMax (Laplace, value)",
            "StatDP",
            partial(statdp.noisy_max_v1b, epsilon=e),
            e,
            False,
            _FIVE,
            2.5 * e,
            note="the maximum of 5 Laplace(2/ε₀) answers that all move by 1: 5ε₀/2",
        ),
        Algorithm("NoisyMax (exponential, index)", "StatDP", partial(statdp.noisy_max_v2a, epsilon=e), e, True, _FIVE),
        Algorithm(
            "NoisyMax (exponential, value)",
            "StatDP",
            partial(statdp.noisy_max_v2b, epsilon=e),
            e,
            False,
            _FIVE,
            math.inf,
            note="a maximum below min(D′) is impossible on D′",
        ),
        Algorithm("Histogram", "StatDP", partial(statdp.histogram, epsilon=e), e, True, _HIST, e),
        Algorithm(
            "Histogram (scale ε)",
            "StatDP",
            partial(statdp.histogram_eps, epsilon=e),
            e,
            1 / e <= e,
            _HIST,
            1 / e,
            note="Laplace scale ε₀ on a count that moves by 1: 1/ε₀ (within the claim for ε₀ ≥ 1)",
        ),
        Algorithm("SVT", "StatDP", partial(statdp.svt, epsilon=e, N=1, T=0.5), e, True, _TEN),
        Algorithm(
            "iSVT1",
            "StatDP",
            partial(statdp.isvt1, epsilon=e, N=1, T=1.0),
            e,
            False,
            _TEN,
            math.inf,
            note="no noise on the queries: some answer patterns are impossible under one input",
        ),
        Algorithm("iSVT2", "StatDP", partial(statdp.isvt2, epsilon=e, N=1, T=1.0), e, False, _TEN),
        Algorithm("iSVT3", "StatDP", partial(statdp.isvt3, epsilon=e, N=1, T=1.0), e, False, _TEN),
        Algorithm("iSVT4", "StatDP", partial(statdp.isvt4, epsilon=e, N=1, T=1.0), e, False, _TEN),
    )
