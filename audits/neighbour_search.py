"""Which neighbouring pair (D, D′) to audit: candidate pairs, built-in input patterns, and a pilot
search that ranks them by a continuous statistic on trials the audit never reuses.

A mechanism's worst case is often at one particular pair: report noisy max releasing the maximum
leaks most when every query moves the same way, a sparse vector when the queries move in opposite
directions. :func:`input_patterns` builds the patterns of Ding, Wang, Wang, Zhang & Kifer (2018),
"Detecting violations of differential privacy" (CCS 2018, Section 5.1) around a vector of query
answers: one below, one above, one above and the rest below, one below and the rest above, half
and half, all above, all below, and the X shape (whose D is not the base vector), each also with D
and D′ swapped. The pairs are not tied to one D: a :class:`CandidatePair` names both data sets.

:func:`search_neighbours` runs a pilot on each candidate pair, on seed streams of its own (a pair and
its mirror, (D, D′) and (D′, D), are one candidate: every bound of the audit treats D and D′ alike, so
the two orientations share one pilot of twice the trials and one statistic, and the first one listed
is audited — the choice no longer flips between two orientations of the same pair): the
distinguishers are fitted on the first part of the pilot's releases and every one is scored on the
next part (half of the rest, at most :data:`SELECT_ROWS` per side), where :func:`best_threshold` picks
the distinguisher, tail and threshold with the largest log(P̂(tail | D) − δ) − log P̂(tail | D′) minus
1.645 delta-method standard errors; the chosen distinguisher alone is scored on the remaining
releases, where :func:`tail_statistic` measures it again — an approximate 95 % lower confidence bound on
ε, free of the optimism of the maximum and not clipped at 0, so pairs are ranked even when none of
them gives a positive bound yet (a 0/1 bound would tie and fall back to the first candidate). The
pair with the largest statistic is audited on fresh trials, which alone give the audit's bounds: the
choice was made on data the bounds never see, so it needs no multiplicity correction (a held-out
pilot, as in Jagielski, Ullman & Oprea 2020).

Given the audit's trial count, the pilot ranks by what the audit will answer, as the distinguisher
search does (:class:`audits.distinguishers.SearchedScore`): the Clopper–Pearson bound at 95 % that
the scores predict on the audit's evaluation part (:func:`audits.stats.selection.predicted_bound`),
both for the distinguisher on the selection part and for the pair on the measuring part. A pilot of
10^4 releases cannot bound a tail that 10^5 audited trials count, yet its rates predict that they
will; predictions within :data:`audits.distinguishers.TIE_TOLERANCE` of the best (every one 0, say)
are tied, and the tail statistic above decides among them.

A pilot's prediction is noisy (on 10^5 releases per side it moves by several hundredths of ε with the
pilot's own choice of distinguisher), so the first stage only shortlists: the leaders whose value is
within the noise of the best (:func:`contenders_of`: the delta-method standard errors of their
log-ratios; at most :data:`CONTENDERS`) get a second pilot of :data:`CONTENDER_SCALE` times the
releases, their distinguishers fitted and selected on as many times more, on seed streams of their own
(:data:`SECOND_STAGE_KEY`), and that stage alone chooses among them — the larger pilot for the few
pairs still in the race, as in the last rounds of successive halving (Karnin, Koren & Somekh 2013),
here with fresh releases. A leader alone (every other pair clearly behind) is chosen by the first stage.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from audits.distinguishers import DEFAULT_RESOLUTION, TIE_TOLERANCE, Fit, Score, evaluated_trials, quantize
from audits.encoding import ReleaseFormat
from audits.mechanism_runs import MechanismRuns
from audits.stats.clopper_pearson import bound_function
from audits.stats.selection import predicted_bound
from solvers.engine.seeding import TrialSeeds

__all__ = [
    "FIT_ROWS",
    "PILOT_STREAM",
    "PILOT_Z",
    "PREDICTION_ALPHA",
    "SELECT_ROWS",
    "CONTENDERS",
    "CONTENDER_SCALE",
    "SECOND_STAGE_KEY",
    "CandidatePair",
    "NeighbourSearch",
    "PilotResult",
    "candidate_pairs",
    "contenders_of",
    "input_patterns",
    "best_threshold",
    "mirrored_pairs",
    "pilot_statistic",
    "predicted_epsilon",
    "ranked_first",
    "same_data",
    "search_neighbours",
    "tail_estimate",
    "tail_statistic",
]

#: First element of the pilots' seed streams: pair i draws on child (PILOT_STREAM + i,) of the root
#: seed, while the audit's own trials use children 0, 1, 2, …, so the pilots never overlap them.
PILOT_STREAM = 1_000_000
#: Standard errors subtracted in :func:`pilot_statistic` (the one-sided 95 % normal quantile).
PILOT_Z = 1.645
#: Releases per side the pilot fits its distinguishers on at most (the rest are scored).
FIT_ROWS = 50_000
#: Releases per side every distinguisher is scored on at most in the pilot, to choose among them (the
#: chosen one alone is scored on the rest: scoring every candidate on every release was the pilot's cost).
SELECT_ROWS = 50_000
#: Releases per mechanism call in the pilot (bounds its memory).
PILOT_CHUNK = 20_000
#: Thresholds :func:`pilot_statistic` tries at most (quantiles of the pooled scores).
LEVELS = 512
#: Level of the Clopper–Pearson bound the pilot predicts at the audit's trial count (its default 95 %).
PREDICTION_ALPHA = 0.05
#: Leaders of the first stage that get a second, larger pilot at most (:func:`contenders_of`).
CONTENDERS = 3
#: How many times the first stage's releases per side (and its fitting and selection caps) the second
#: stage draws for each contender.
CONTENDER_SCALE = 3
#: Second element of a contender's second-stage seed stream (PILOT_STREAM + i, SECOND_STAGE_KEY): the
#: first stage draws on its children (PILOT_STREAM + i, 0) and (PILOT_STREAM + i, 1), the audit on
#: children 0, 1, 2, … of the root seed, so the three never overlap.
SECOND_STAGE_KEY = 2


@dataclass(frozen=True, eq=False)
class CandidatePair:
    """A neighbouring pair to audit: ``D`` and ``D_prime`` in whatever form the mechanism takes."""

    name: str
    D: Any
    D_prime: Any


def input_patterns(
    queries: Any, *, sensitivity: float = 1.0, all_differ: bool = True, both_orientations: bool = True
) -> tuple[CandidatePair, ...]:
    """Ding et al. (2018)'s input patterns around the query answers ``queries`` (a 1-d array).

    Args:
      queries: the base vector of query answers (StatDP uses all ones).
      sensitivity: how far one answer moves between neighbours.
      all_differ: every answer may move (the patterns with several moving answers); False: only one
        answer moves (one below and one above only).
      both_orientations: also every pair with D and D′ swapped.

    Returns:
      The distinct pairs, named by pattern ("half half", "X shape (swapped)", ...).
    """
    base = np.asarray(queries, dtype=np.float64)
    if base.ndim != 1 or base.size == 0 or not np.isfinite(base).all():
        raise ValueError(f"queries must be a non-empty 1-d array of finite query answers, got {queries!r:.80}")
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, (int, float)) or not 0 < sensitivity < math.inf:
        raise ValueError(f"sensitivity must be a positive finite number, got {sensitivity!r}")
    m, s, half = base.size, float(sensitivity), base.size // 2
    first = np.zeros(m)
    first[0] = 1.0
    moves = [("one below", -first), ("one above", first)]
    if all_differ:
        rest = 1.0 - first
        halves = np.where(np.arange(m) < half, 1.0, -1.0)
        moves += [
            ("one above rest below", first - rest),
            ("one below rest above", rest - first),
            ("half half", halves),
            ("all above", np.ones(m)),
            ("all below", -np.ones(m)),
        ]
    pairs = [(name, base, base + s * move) for name, move in moves]
    if all_differ and m > 1:
        pairs.append(("X shape", base - s * (np.arange(m) >= half), base - s * (np.arange(m) < half)))
    if both_orientations:
        pairs += [(f"{name} (swapped)", d_prime, d) for name, d, d_prime in pairs]
    distinct: list[CandidatePair] = []
    for name, d, d_prime in pairs:
        if not any(np.array_equal(d, c.D) and np.array_equal(d_prime, c.D_prime) for c in distinct):
            distinct.append(CandidatePair(name, d, d_prime))
    return tuple(distinct)


def candidate_pairs(D: Any, neighbours: str | Iterable[Any]) -> tuple[CandidatePair, ...]:
    """The pairs :func:`audits.audit`'s ``neighbours`` stands for.

    ``neighbours`` is ``"patterns"`` (:func:`input_patterns` around the query answers D), a sequence
    of :class:`CandidatePair` (then D must be None: each pair names its own D), or a sequence of
    candidates for D′ (paired with D).
    """
    if isinstance(neighbours, str):
        if neighbours != "patterns":
            raise ValueError(f"neighbours must be 'patterns' or a sequence of candidates, got {neighbours!r}")
        if D is None:
            raise ValueError("neighbours='patterns' builds the pairs around D: D must be a 1-d array of query answers")
        return input_patterns(D)
    items = list(neighbours)
    if not items:
        raise ValueError("neighbours must hold at least one candidate data set")
    pairs = [item for item in items if isinstance(item, CandidatePair)]
    if pairs and len(pairs) != len(items):
        raise ValueError("neighbours must be either all CandidatePair objects or all candidates for D′, not a mix")
    if pairs:
        if D is not None:
            raise ValueError("with CandidatePair neighbours each pair names its own D: pass D=None")
        return tuple(pairs)
    if D is None:
        raise ValueError("neighbours holds candidates for D′: D must be given")
    return tuple(CandidatePair(f"candidate {i}", D, d_prime) for i, d_prime in enumerate(items))


def _tails(a: np.ndarray, b: np.ndarray, thresholds: np.ndarray) -> list[tuple[np.ndarray, int, np.ndarray, int]]:
    """(numerator count, its n, denominator count, its n) of the four tails at each threshold, for
    the sorted scores ``a`` (on D) and ``b`` (on D′): S ≥ t with D over D′, S ≥ t with D′ over D,
    S < t with D over D′, S < t with D′ over D."""
    above_a = a.size - np.searchsorted(a, thresholds, side="left")
    above_b = b.size - np.searchsorted(b, thresholds, side="left")
    return [
        (above_a, a.size, above_b, b.size),
        (above_b, b.size, above_a, a.size),
        (a.size - above_a, a.size, b.size - above_b, b.size),
        (b.size - above_b, b.size, a.size - above_a, a.size),
    ]


def _estimate(num: np.ndarray, n_num: int, den: np.ndarray, n_den: int, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """log((p̂_num − δ)/p̂_den) (−∞ where p̂_num ≤ δ) and its delta-method standard error."""
    p_num, p_den = (num + 0.5) / (n_num + 1), (den + 0.5) / (n_den + 1)
    error = np.sqrt((1 - p_num) / ((n_num + 1) * p_num) + (1 - p_den) / ((n_den + 1) * p_den))
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.log((p_num - delta) / p_den)
    return np.where(p_num > delta, values, -np.inf), error


def _lower(num: np.ndarray, n_num: int, den: np.ndarray, n_den: int, delta: float, z: float) -> np.ndarray:
    """log((p̂_num − δ)/p̂_den) minus z delta-method standard errors (−∞ where p̂_num ≤ δ)."""
    values, error = _estimate(num, n_num, den, n_den, delta)
    return values - z * error


def best_threshold(
    scores_in: np.ndarray, scores_out: np.ndarray, *, delta: float = 0.0, z: float = PILOT_Z
) -> tuple[float, int, float]:
    """The largest tail statistic of :func:`pilot_statistic` and where it is: (value, tail, threshold).

    Tails: 0 = S ≥ t with D over D′, 1 = S ≥ t with D′ over D, 2 = S < t with D over D′, 3 = S < t
    with D′ over D (:func:`tail_statistic` evaluates one on other scores).
    """
    a, b = np.sort(np.asarray(scores_in, dtype=np.float64)), np.sort(np.asarray(scores_out, dtype=np.float64))
    if a.size == 0 or b.size == 0:
        raise ValueError("the pilot statistic needs scores on both D and D′")
    pooled = np.concatenate([a, b])
    thresholds = np.unique(pooled)
    if thresholds.size > LEVELS:
        thresholds = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, LEVELS + 1)))
    best = (-math.inf, 0, float(thresholds[0]))
    for tail, (num, n_num, den, n_den) in enumerate(_tails(a, b, thresholds)):
        values = _lower(num, n_num, den, n_den, delta, z)
        at = int(np.argmax(values))
        if values[at] > best[0]:
            best = (float(values[at]), tail, float(thresholds[at]))
    return best


def pilot_statistic(scores_in: np.ndarray, scores_out: np.ndarray, *, delta: float = 0.0, z: float = PILOT_Z) -> float:
    """How far apart the scores on D (``scores_in``) and on D′ are, continuously (module docstring).

    For each threshold t (every distinct score, or :data:`LEVELS` quantiles of the pooled scores)
    and each of the four tails (S ≥ t or S < t, D over D′ or D′ over D), with p̂ = (count + ½)/(n + 1):
    log((p̂_num − δ)/p̂_den) − z·sqrt((1 − p̂_num)/((n + 1) p̂_num) + (1 − p̂_den)/((n + 1) p̂_den)); the
    largest. Not clipped at 0; finite (the whole population is a tail).
    """
    return best_threshold(scores_in, scores_out, delta=delta, z=z)[0]


def tail_statistic(
    scores_in: np.ndarray,
    scores_out: np.ndarray,
    tail: int,
    threshold: float,
    *,
    delta: float = 0.0,
    z: float = PILOT_Z,
) -> float:
    """The statistic of :func:`pilot_statistic` at one tail and threshold (chosen on other scores)."""
    value, error = tail_estimate(scores_in, scores_out, tail, threshold, delta=delta)
    return value - z * error


def tail_estimate(
    scores_in: np.ndarray, scores_out: np.ndarray, tail: int, threshold: float, *, delta: float = 0.0
) -> tuple[float, float]:
    """The estimate log((p̂_num − δ)/p̂_den) at one tail and threshold (:func:`pilot_statistic`) and its
    delta-method standard error: :func:`tail_statistic` is the first minus z times the second."""
    a, b = np.sort(np.asarray(scores_in, dtype=np.float64)), np.sort(np.asarray(scores_out, dtype=np.float64))
    if a.size == 0 or b.size == 0:
        raise ValueError("the pilot statistic needs scores on both D and D′")
    num, n_num, den, n_den = _tails(a, b, np.array([threshold]))[tail]
    values, error = _estimate(num, n_num, den, n_den, delta)
    return float(values[0]), float(error[0])


def predicted_epsilon(scores_in: np.ndarray, scores_out: np.ndarray, *, delta: float, audit_trials: int) -> float:
    """The Clopper–Pearson bound at 95 % these pilot scores (higher meaning D) predict on the evaluation
    part of an audit of ``audit_trials`` per side (:func:`audits.stats.selection.predicted_bound`)."""
    size = evaluated_trials(audit_trials)
    levels = (PREDICTION_ALPHA, PREDICTION_ALPHA)
    return predicted_bound(scores_in, scores_out, bound_function(delta), levels=levels, evaluation_sizes=(size, size))


def ranked_first(predicted: Sequence[float] | None, statistics: Sequence[float], among: Sequence[int]) -> int:
    """The index of ``among`` ranked first: the largest ``statistics`` among those whose ``predicted``
    bound is within :data:`audits.distinguishers.TIE_TOLERANCE` of the largest (all of them when
    ``predicted`` is None); the first listed of equal ones."""
    tied = list(among)
    if predicted is not None:
        best = max(predicted[i] for i in tied)
        tied = [i for i in tied if predicted[i] >= best - TIE_TOLERANCE]
    return max(tied, key=lambda i: statistics[i])


def same_data(a: Any, b: Any) -> bool:
    """Whether the data sets ``a`` and ``b`` are equal: the same object, or equal as arrays (any
    other comparison that fails or is ambiguous counts as different)."""
    if a is b:
        return True
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except (TypeError, ValueError):
        return False


def mirrored_pairs(pairs: Sequence[CandidatePair]) -> dict[int, int]:
    """Index of each pair whose D and D′ are an earlier pair's D′ and D → that earlier pair's index
    (a pair with D = D′ mirrors nothing)."""
    mirrors: dict[int, int] = {}
    for i, pair in enumerate(pairs):
        for j in range(i):
            if j in mirrors or j in mirrors.values():
                continue
            if same_data(pair.D, pairs[j].D_prime) and same_data(pair.D_prime, pairs[j].D):
                mirrors[i] = j
                break
    return mirrors


@dataclass(frozen=True)
class NeighbourSearch:
    """What :func:`search_neighbours` chose: the pair, its index, and the report section."""

    pair: CandidatePair
    index: int
    report: dict[str, Any]


def _releases(runs: MechanismRuns, dataset: Any, seeds: TrialSeeds) -> Iterable[np.ndarray]:
    for lo in range(0, len(seeds), PILOT_CHUNK):
        yield np.asarray(runs.run(dataset, seeds=seeds[lo : lo + PILOT_CHUNK]).values)


def _finite(scores: np.ndarray, name: str) -> np.ndarray:
    values = np.asarray(scores, dtype=np.float64)
    if not np.isfinite(values).all():
        raise ValueError(f"distinguisher {name!r} returned NaN or infinite scores in the neighbour search's pilot")
    return values


def _scores(
    runs: MechanismRuns, dataset: Any, seeds: TrialSeeds, scorers: Mapping[str, Score]
) -> dict[str, np.ndarray]:
    """Each distinguisher's scores on the releases of ``dataset`` drawn with ``seeds``."""
    parts: dict[str, list[np.ndarray]] = {name: [] for name in scorers}
    for values in _releases(runs, dataset, seeds):
        for name, score in scorers.items():
            parts[name].append(_finite(score(values), name))
    return {name: np.concatenate(chunks) if chunks else np.empty(0) for name, chunks in parts.items()}


@dataclass(frozen=True)
class PilotResult:
    """One pair's pilot: its :func:`tail_statistic`, the delta-method standard error of the log-ratio
    that statistic measures (its noise), the bound predicted at the audit's trial count (None
    without one), and the distinguisher that gave them."""

    statistic: float
    error: float
    predicted: float | None
    distinguisher: str


def _pilot(
    runs: MechanismRuns,
    pair: CandidatePair,
    fits: Mapping[str, Fit],
    trials: int,
    root: np.random.SeedSequence,
    delta: float,
    audit_trials: int | None,
    scale: int = 1,
) -> PilotResult:
    """One pair's pilot on ``trials`` releases per side drawn from ``root``'s two children.

    The distinguishers are fitted on the first releases of each side (at most ``scale`` ×
    :data:`FIT_ROWS`); every one of them is scored on the next part (half of the rest, at most
    ``scale`` × :data:`SELECT_ROWS`),
    where :func:`best_threshold` picks the distinguisher, tail and threshold (given ``audit_trials``,
    among those of the largest :func:`predicted_epsilon`, within the tolerance); the chosen one
    alone is scored on the remaining releases, where :func:`tail_statistic` and :func:`predicted_epsilon`
    measure it. Scores are rounded as
    the audit rounds them (:func:`audits.distinguishers.quantize`, on the grid of the selection
    part): a score that is constant in a tail must not split into atoms by its last bits.
    """
    seeds_in, seeds_out = (TrialSeeds(child, trials) for child in root.spawn(2))
    fit_rows = min(scale * FIT_ROWS, trials // 2)
    fit_in = np.concatenate(list(_releases(runs, pair.D, seeds_in[:fit_rows])))
    fit_out = np.concatenate(list(_releases(runs, pair.D_prime, seeds_out[:fit_rows])))
    scorers: dict[str, Score] = {}
    for name, fit in fits.items():
        fitted = fit(fit_in, fit_out)
        if fitted is not None:  # None: the distinguisher does not apply to these releases
            scorers[name] = fitted
    if not scorers:
        raise ValueError(f"no distinguisher applies to the releases of pair {pair.name!r} (tried {sorted(fits)})")
    cut = fit_rows + min(scale * SELECT_ROWS, (trials - fit_rows) // 2)
    select_in = _scores(runs, pair.D, seeds_in[fit_rows:cut], scorers)
    select_out = _scores(runs, pair.D_prime, seeds_out[fit_rows:cut], scorers)
    names = list(scorers)
    grids: dict[str, float] = {}
    chosen: list[tuple[float, int, float]] = []
    predicted: list[float] = []
    for name in names:
        largest = max(float(np.max(np.abs(select_in[name]))), float(np.max(np.abs(select_out[name]))), 1e-300)
        grids[name] = DEFAULT_RESOLUTION * largest
        scores_in, scores_out = quantize(select_in[name], grids[name]), quantize(select_out[name], grids[name])
        chosen.append(best_threshold(scores_in, scores_out, delta=delta))
        if audit_trials is not None:
            predicted.append(predicted_epsilon(scores_in, scores_out, delta=delta, audit_trials=audit_trials))
    first = ranked_first(predicted or None, [c[0] for c in chosen], range(len(names)))
    best_fit, (_, tail, threshold) = names[first], chosen[first]
    only = {best_fit: scorers[best_fit]}
    measure_in = quantize(_scores(runs, pair.D, seeds_in[cut:], only)[best_fit], grids[best_fit])
    measure_out = quantize(_scores(runs, pair.D_prime, seeds_out[cut:], only)[best_fit], grids[best_fit])
    estimate, error = tail_estimate(measure_in, measure_out, tail, threshold, delta=delta)
    at_audit = None
    if audit_trials is not None:
        at_audit = predicted_epsilon(measure_in, measure_out, delta=delta, audit_trials=audit_trials)
    return PilotResult(estimate - PILOT_Z * error, error, at_audit, best_fit)


def contenders_of(
    primary: Sequence[float],
    errors: Sequence[float],
    statistics: Sequence[float],
    among: Sequence[int],
    best: int,
    most: int,
) -> list[int]:
    """The pairs of ``among`` whose ``primary`` value (predicted bound, or statistic without one) is
    within the first stage's noise of the leader ``best``'s: at most PILOT_Z · sqrt(se_best² + se_i²)
    below it, with se the delta-method standard errors ``errors`` of the pilots' log-ratios (a
    one-sided 95 % test that the two differ, Casella & Berger 2002, Section 10.1), or tied with it
    (within :data:`audits.distinguishers.TIE_TOLERANCE`); the ``most`` largest (ties by
    ``statistics``), ``best`` first. One pair alone means the leader dominates."""
    noise = [max(TIE_TOLERANCE, PILOT_Z * math.hypot(errors[best], errors[i])) for i in range(len(primary))]
    close = [i for i in among if i == best or primary[i] >= primary[best] - noise[i]]
    close.sort(key=lambda i: (i != best, -primary[i], -statistics[i]))
    return close[: max(1, most)]


def _rankings(pilots: Sequence[PilotResult], audit_trials: int | None) -> tuple[list[float], list[float] | None]:
    """The pilots' statistics, and their predicted bounds (0 where a pilot has none; None without
    ``audit_trials``), indexed as ``pilots``."""
    statistics = [p.statistic for p in pilots]
    if audit_trials is None:
        return statistics, None
    return statistics, [0.0 if p.predicted is None else p.predicted for p in pilots]


def _stage_summary(
    pairs: Sequence[CandidatePair],
    statistics: Sequence[float],
    predicted: Sequence[float] | None,
    among: Sequence[int],
    audit_trials: int | None,
) -> tuple[int, float | None, str]:
    """The pair of ``among`` ranked first, its margin over the runner-up (in predicted bound, or in
    statistic without predictions; None alone) and the sentence that says so."""
    best = ranked_first(predicted, statistics, among)
    rest = [i for i in among if i != best]
    runner_up = ranked_first(predicted, statistics, rest) if rest else None
    primary = statistics if predicted is None else predicted
    margin = None if runner_up is None else primary[best] - primary[runner_up]
    summary = f"pair {pairs[best].name!r} won with pilot statistic {statistics[best]:.4g}"
    if predicted is not None:
        summary += f" and predicted ε ≥ {predicted[best]:.4g} at {audit_trials:,} audited trials per side"
    if runner_up is not None:
        summary += (
            f", {margin:.4g} above the runner-up {pairs[runner_up].name!r} "
            f"({statistics[runner_up]:.4g}{'' if predicted is None else f', predicted {predicted[runner_up]:.4g}'})"
        )
    return best, margin, summary


def search_neighbours(
    mechanism: Callable[..., Any],
    pairs: Sequence[CandidatePair],
    *,
    fits: Mapping[str, Fit],
    trials: int,
    seed: int,
    delta: float,
    batched: bool = True,
    release: ReleaseFormat | None = None,
    audit_trials: int | None = None,
    contenders: int = 0,
    contender_scale: int = CONTENDER_SCALE,
) -> NeighbourSearch:
    """The pair of ``pairs`` with the largest held-out :func:`tail_statistic` in a pilot of ``trials``
    releases per side of its own (module docstring), and the report section that says which pair
    won, by how much, and with which distinguisher.

    Args:
      mechanism, batched, release: as :func:`audits.audit`. pairs: the candidates (:func:`candidate_pairs`).
      fits: the distinguishers to fit (name → fit), e.g. :data:`audits.distinguishers.CANDIDATES`.
      trials: pilot releases per side and pair (at least 4; a pair and its mirror share one pilot of
        twice as many). seed: the audit's root seed.
      delta: δ of the claim (enters the statistic).
      audit_trials: the audited trials per side; given, pairs are ranked by the bound their pilot
        predicts at that size, ties by the statistic (module docstring). None: by the statistic.
      contenders: at most this many leaders within the first stage's noise of the best
        (:func:`contenders_of`) get a second pilot of ``contender_scale`` times the releases, fitted
        on up to ``contender_scale`` times as many, on seed streams of their own; the second stage
        chooses among them. 0 or 1: no second stage.
    """
    if not pairs:
        raise ValueError("the neighbour search needs at least one candidate pair")
    if trials < 4:
        raise ValueError(f"pilot trials must be at least 4 per side, got {trials}")
    if audit_trials is not None and (
        isinstance(audit_trials, bool) or not isinstance(audit_trials, int) or audit_trials < 2
    ):
        raise ValueError(
            f"audit_trials must be None or an integer >= 2 (audited trials per side), got {audit_trials!r}"
        )
    for name, value in (("contenders", contenders), ("contender_scale", contender_scale)):
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if name == "contenders" else 1):
            raise ValueError(f"{name} must be an integer >= {0 if name == 'contenders' else 1}, got {value!r}")
    runs = MechanismRuns(mechanism, batched, ReleaseFormat() if release is None else release)
    mirrors = mirrored_pairs(pairs)
    ranked = [i for i in range(len(pairs)) if i not in mirrors]
    pooled = {i: trials * 2 if i in mirrors.values() else trials for i in ranked}
    first: dict[int, PilotResult] = {}
    for index in ranked:
        root = np.random.SeedSequence(seed, spawn_key=(PILOT_STREAM + index,))
        first[index] = _pilot(runs, pairs[index], fits, pooled[index], root, delta, audit_trials)
    pilots = [first[mirrors.get(i, i)] for i in range(len(pairs))]  # a mirror: its earlier pair's pilot
    statistics, predicted = _rankings(pilots, audit_trials)
    best, margin, summary = _stage_summary(pairs, statistics, predicted, ranked, audit_trials)
    leaders = contenders_of(
        statistics if predicted is None else predicted, [p.error for p in pilots], statistics, ranked, best, contenders
    )
    second: dict[str, Any] | None = None
    if len(leaders) > 1:
        again: dict[int, PilotResult] = {}
        for index in leaders:
            root = np.random.SeedSequence(seed, spawn_key=(PILOT_STREAM + index, SECOND_STAGE_KEY))
            again[index] = _pilot(
                runs, pairs[index], fits, contender_scale * pooled[index], root, delta, audit_trials, contender_scale
            )
        # the leaders' second pilots in place of their first (only the leaders are ranked)
        stage_statistics, stage_predicted = _rankings([again.get(i, p) for i, p in enumerate(pilots)], audit_trials)
        best, margin, summary = _stage_summary(pairs, stage_statistics, stage_predicted, leaders, audit_trials)
        summary += f" in the second stage, among the first stage's {len(leaders)} leaders"
        second = {
            "pairs": [pairs[i].name for i in leaders],
            "trials": [contender_scale * pooled[i] for i in leaders],
            "pilot_epsilon_lower": [again[i].statistic for i in leaders],
            "pilot_predicted_epsilon": None if stage_predicted is None else [stage_predicted[i] for i in leaders],
            "distinguishers": [again[i].distinguisher for i in leaders],
            "rule": f"the pairs whose first-stage {'statistic' if predicted is None else 'predicted ε'} is within "
            f"{PILOT_Z} × sqrt(se_best² + se²) of the best's (se: the delta-method standard errors of the pilots' "
            f"log-ratios), at most {contenders}; a fresh pilot of {contender_scale}× the releases on seed "
            "streams of its own, fitted on up to as many times more, chose among them",
        }
    return NeighbourSearch(
        pairs[best],
        best,
        {
            "candidates": len(pairs),
            "pilot_trials": trials,
            "pilot_epsilon_lower": statistics,
            "pilot_predicted_epsilon": predicted,
            "pilot_standard_error": [p.error for p in pilots],
            "chosen": best,
            "pairs": [pair.name for pair in pairs],
            "chosen_pair": pairs[best].name,
            "distinguishers": [p.distinguisher for p in pilots],
            "mirror_of": {pairs[i].name: pairs[j].name for i, j in mirrors.items()},
            "second_stage": second,
            "margin": margin,
            "summary": summary,
            "statistic": "log((P(tail|D) - δ)/P(tail|D′)) minus "
            f"{PILOT_Z} delta-method standard errors at the distinguisher, tail and threshold that maximise it on "
            "one half of the pilot releases not used for fitting, measured on the other half (an approximate "
            "lower confidence bound on ε, not clipped at 0; for ranking only)",
            "correction": "none needed: the pair was chosen on pilot trials disjoint from the audited trials",
            "orientations": "a pair and its mirror (D and D′ swapped) share one pilot of twice the trials; "
            "the first listed is audited",
        },
    )
