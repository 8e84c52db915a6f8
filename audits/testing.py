"""Privacy as a test: :func:`assert_private` fails a test when an audit proves a mechanism breaks its claim.

::

    from audits import Claim
    from audits.testing import assert_private

    def test_noisy_sum_is_private():
        assert_private(noisy_sum, D, D_prime, claim=Claim(epsilon=1.0, delta=1e-5, noise="gaussian"))

The assertion runs :func:`audits.audit` and raises ``AssertionError`` on a VIOLATION, with a short
summary: the deciding lower bound and the claim, the pair, the distinguisher, the false-alarm rate
and the exact call (with its seed) that reproduces the failure. It is deterministic: the seed is
fixed (0 unless given, or the pytest option ``--dp-seed``), so a rerun reproduces a failure exactly
and a correct mechanism that passes once passes every time at that seed.

How often a correct mechanism fails (the false-alarm rate). Each lower bound on ε is a
(1 − α_b)-confidence bound: for an (ε, δ)-DP mechanism, the event "bound > claimed ε" has
probability at most α_b over the trials (Jagielski, Ullman & Oprea 2020, for the Clopper–Pearson
bound). The verdict is a VIOLATION if any deciding bound exceeds the claim, so the false alarms
add up (a union bound): the worst-case Clopper–Pearson bound (always), the Gaussian-DP bound of
Nasr et al. (2023) (a Gaussian claim with δ > 0; its error rate holds for a mechanism whose
trade-off curve is Gaussian, Dong, Roth & Su 2022) and the floating-point test on rounded releases
(Mironov 2012), which the audit runs at α_b/2. :func:`bound_confidence` therefore gives every bound
α_b = α / (k + ½) for k deciding bounds, and a correct mechanism fails the assertion with
probability at most α = 1 − ``confidence``. With a hypothesis strategy for the neighbours
(:func:`assert_private`'s search mode) the bound is further divided by the number of pairs
examined (Bonferroni). Each bound is conservative (Clopper–Pearson intervals are exact only in the
limit, and a mechanism meets its ε with equality for one test at most), so the measured rate is
usually far below α.

A pre-registered bound (``method=``). The union bound makes α an upper bound that no mechanism
reaches: a correct mechanism at the edge of its claim makes one bound err at most, and the others'
shares are spent for nothing. Naming the one bound that decides (``method="clopper_pearson"``, or
``"gdp"`` for a Gaussian claim with δ > 0), fixed before the trials as a pre-registered test is,
gives it the whole α: the other bounds are still computed and reported but do not decide. The
false-alarm rate of that assertion is then α up to the discreteness of the exact binomial bounds:
the Clopper–Pearson bound spends α on the test's two error rates in the shares its selection part
predicts best (:mod:`audits.stats.clopper_pearson`), so that on a mechanism whose one error rate is
certain nearly all of α goes to the other, and ``tests/audits/test_testing.py`` measures the rate on
such a mechanism against the exact probability and the stated α.

Under pytest, the plugin :mod:`audits.pytest_plugin` sets the defaults of ``effort`` and ``seed``
(``--dp-effort``, ``--dp-seed``), and every assertion is recorded (:func:`records`) for the run's
summary.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from accountants.constraints import Anything, Integer, OneOf, Optional, validate_parameters
from audits.arguments import SHARED_CONSTRAINTS
from audits.effort import EFFORTS, effort_preset

if TYPE_CHECKING:  # the audit and the statistics are imported on first use, so that the plugin loads fast
    from audits.distinguishers import Fit, Score
    from audits.encoding import ReleaseFormat
    from audits.spec import Claim
    from audits.verdict import AuditReport

__all__ = [
    "DEFAULT_SEED",
    "EXAMPLES",
    "AssertionRecord",
    "Defaults",
    "assert_private",
    "bound_confidence",
    "configure",
    "records",
]

#: The seed of an assertion that names none (and no ``--dp-seed`` is given).
DEFAULT_SEED = 0
#: Pairs hypothesis examines at most in the search mode, by effort (``max_examples``).
EXAMPLES = {"smoke": 20, "quick": 50, "default": 100, "thorough": 300}


@dataclass
class Defaults:
    """The session's defaults of :func:`assert_private` (set by :func:`configure`, e.g. by the pytest plugin)."""

    effort: str = "default"
    seed: int = DEFAULT_SEED


@dataclass(frozen=True)
class AssertionRecord:
    """One :func:`assert_private` call: what was asserted and what the audit found."""

    mechanism: str
    claim: str
    verdict: str
    epsilon_lower: float
    method: str
    effort: str
    seed: int
    confidence: float
    pairs_examined: int
    seconds: float


@dataclass
class _Session:
    defaults: Defaults = field(default_factory=Defaults)
    records: list[AssertionRecord] = field(default_factory=list)


_SESSION = _Session()


@validate_parameters(effort=Optional(OneOf(*EFFORTS)), seed=Optional(Integer(0)))
def configure(*, effort: str | None = None, seed: int | None = None) -> Defaults:
    """Set the defaults of :func:`assert_private`'s ``effort`` and ``seed`` for this process (None
    keeps the current one), and return them."""
    if effort is not None:
        _SESSION.defaults.effort = effort_preset(effort).name
    if seed is not None:
        _SESSION.defaults.seed = int(seed)
    return _SESSION.defaults


def records() -> list[AssertionRecord]:
    """Every :func:`assert_private` call of this process so far, in order (the list itself)."""
    return _SESSION.records


@validate_parameters(
    claim=SHARED_CONSTRAINTS["claim"],
    confidence=SHARED_CONSTRAINTS["confidence"],
    pairs=Integer(1, expected="an int >= 1 (the pairs the verdict is corrected for)"),
    method=Optional(OneOf("clopper_pearson", "gdp")),
)
def bound_confidence(claim: Claim, confidence: float, pairs: int = 1, method: str | None = None) -> float:
    """The confidence each deciding lower bound is computed at so that a correct mechanism fails
    :func:`assert_private` with probability at most α = 1 − ``confidence``: 1 − α / ((k + ½) · pairs)
    for the k bounds that decide ``claim`` (:func:`audits.runner.deciding_bounds`), the floating-point
    test on rounded releases counting half (it runs at half the error rate), and Bonferroni over
    ``pairs`` pairs; with one pre-registered ``method`` deciding alone, 1 − α / pairs (module docstring)."""
    from audits.runner import deciding_bounds

    deciding = deciding_bounds(claim)
    if method is not None and method not in deciding:
        raise ValueError(
            f"method must be one of the bounds that can decide {claim.statement}: "
            f"{', '.join(map(repr, deciding))} (or None: all of them), got {method!r:.60}"
        )
    shares = 1.0 if method is not None else len(deciding) + 0.5
    alpha = (1.0 - float(confidence)) / (shares * pairs)
    return 1.0 - alpha


def _smallest_upper(claim: Claim) -> float:
    finite = [v for v in claim.upper.values() if v is not None]
    return min(finite, default=math.inf)


def _fits(score: Score | None) -> Mapping[str, Fit]:
    from audits.distinguishers import CANDIDATES

    if score is None:
        return CANDIDATES

    def fixed(values_in: Any, values_out: Any) -> Score:
        return score

    return {"score": fixed}


def _is_strategy(value: object) -> bool:
    strategies = sys.modules.get("hypothesis.strategies")  # a strategy exists only once hypothesis is imported
    return strategies is not None and isinstance(value, strategies.SearchStrategy)


def _shown(value: Any, width: int = 160) -> str:
    import numpy as np

    text = (
        np.array2string(np.asarray(value), threshold=24, precision=6, separator=", ")
        if isinstance(value, (np.ndarray, np.generic))
        else repr(value)
    )
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _pair(D: Any, D_prime: Any) -> str:
    """The pair in a line: the rows that differ when both are arrays of one shape, else both in full (shortened)."""
    import numpy as np

    if isinstance(D, np.ndarray) and isinstance(D_prime, np.ndarray) and D.shape == D_prime.shape and D.ndim >= 1:
        differ = np.flatnonzero(np.not_equal(D, D_prime).reshape(len(D), -1).any(axis=1))
        rows = "; ".join(f"row {i}: {_shown(D[i], 60)} vs {_shown(D_prime[i], 60)}" for i in differ[:3])
        more = f" and {len(differ) - 3} more" if len(differ) > 3 else ""
        return f"D and D′ of shape {D.shape} differ in {len(differ)} row(s): {rows}{more}"
    return f"D = {_shown(D)}; D′ = {_shown(D_prime)}"


def _assumption(assumption: str) -> str:
    from audits.stats import WORST_CASE

    return "worst case" if assumption == WORST_CASE else "conditional on GDP"


def _claim_call(claim: Claim) -> str:
    if claim.bound == "claimed" and dict(claim.upper) == {"claimed": claim.epsilon}:
        return f"Claim(epsilon={claim.epsilon!r}, delta={claim.delta!r}, noise={claim.noise!r})"
    return repr(claim)


@dataclass(frozen=True)
class _Search:
    """What the hypothesis search chose: the pair, how many pairs it examined, how it chose."""

    D: Any
    D_prime: Any
    examined: int
    how: str


def _key(pair: Any) -> bytes:
    import numpy as np

    parts = [np.asarray(part) for part in pair]
    return b"|".join(f"{p.dtype}{p.shape}".encode() + p.tobytes() for p in parts)


def _hypothesis_search(
    mechanism: Callable[..., Any],
    strategy: Any,
    *,
    claim: Claim,
    fits: Mapping[str, Fit],
    pilot_trials: int,
    max_examples: int,
    seed: int,
    batched: bool,
) -> _Search:
    """Let hypothesis explore pairs on pilot trials (streams the audit never uses) and shrink the first
    pair whose pilot statistic exceeds the claim to a minimal one; without such a pair, the pair with
    the largest pilot statistic."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    from audits.neighbour_search import CandidatePair, search_neighbours

    claimed = _smallest_upper(claim)
    pilots: dict[bytes, tuple[Any, float]] = {}

    def leaks(pair: Any) -> bool:
        D, D_prime = pair
        key = _key(pair)
        if key not in pilots:
            found = search_neighbours(
                mechanism,
                [CandidatePair("hypothesis example", D, D_prime)],
                fits=fits,
                trials=pilot_trials,
                seed=seed,
                delta=claim.delta,
                batched=batched,
            )
            pilots[key] = (pair, float(found.report["pilot_epsilon_lower"][0]))
        return pilots[key][1] > claimed

    budget = settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
    )
    try:
        D, D_prime = find(strategy, leaks, settings=budget, random=random.Random(seed))
        how = "the minimal pair hypothesis shrank to among those whose pilot statistic exceeded the claim"
    except NoSuchExample:
        if not pilots:
            raise ValueError("neighbours: the hypothesis strategy generated no pair") from None
        (D, D_prime), _ = max(pilots.values(), key=lambda item: item[1])
        how = "no pilot exceeded the claim; the pair with the largest pilot statistic"
    return _Search(D, D_prime, len(pilots), how)


def _call(
    name: str,
    D: Any,
    D_prime: Any,
    neighbours: Any,
    claim: Claim,
    effort: str,
    seed: int,
    confidence: float,
    method: str | None,
) -> str:
    data = (
        "D, D_prime" if neighbours is None else "D, neighbours=neighbours" if D is not None else "neighbours=neighbours"
    )
    options = f"effort={effort!r}, seed={seed}, confidence={confidence}" + (
        "" if method is None else f", method={method!r}"
    )
    return f"assert_private({name}, {data}, claim={_claim_call(claim)}, {options})"


@validate_parameters(
    **SHARED_CONSTRAINTS,
    neighbours=Anything("None, 'patterns', candidates for D′ or a hypothesis strategy of pairs (D, D′)"),
    effort=Optional(OneOf(*EFFORTS)),
    seed=Optional(Integer(0)),
    method=Optional(OneOf("clopper_pearson", "gdp")),
    max_examples=Optional(Integer(1)),
)
def assert_private(
    mechanism: Callable[..., Any],
    D: Any = None,
    D_prime: Any = None,
    *,
    claim: Claim,
    neighbours: str | Iterable[Any] | Any | None = None,
    effort: str | None = None,
    seed: int | None = None,
    confidence: float = 0.95,
    method: str | None = None,
    score: Score | None = None,
    batched: bool = True,
    release: ReleaseFormat | None = None,
    max_examples: int | None = None,
) -> AuditReport:
    """Assert that an audit of ``mechanism`` finds no violation of ``claim``; raise ``AssertionError`` if it does.

    Args:
      mechanism: ``mechanism(dataset, rng, n)`` returning n releases (``batched=False``:
        ``mechanism(dataset, rng)``), as for :func:`audits.audit`.
      D, D_prime: the neighbouring data sets. Instead of ``D_prime``, ``neighbours``: candidates for
        D′ or ``"patterns"`` (:func:`audits.audit` picks one on a held-out pilot), or a hypothesis
        strategy of pairs (D, D′), e.g. :func:`audits.strategies.neighbouring_datasets`: hypothesis
        explores pairs on pilot trials and shrinks a leaking one to a minimal pair, and the verdict
        is decided on fresh trials at a Bonferroni-corrected confidence over the pairs examined.
      claim: the claimed (ε, δ) (:class:`audits.Claim`).
      effort: "smoke", "quick", "default" or "thorough" (:mod:`audits.effort`); None: the
        session's (``--dp-effort``, else "default").
      seed: the root seed of every trial (None: the session's, ``--dp-seed``, else 0).
      confidence: the probability that a correct mechanism passes; a false alarm has probability at
        most 1 − confidence (the module docstring says how the bounds share it).
      method: None (every bound that can decide the claim does, sharing 1 − confidence), or the one
        pre-registered bound that decides alone with the whole of it: "clopper_pearson" (worst case)
        or "gdp" (a Gaussian claim with δ > 0; it assumes a Gaussian trade-off curve).
      score, batched, release: as for :func:`audits.audit`.
      max_examples: pairs hypothesis generates at most in the search mode (default by effort,
        :data:`EXAMPLES`).

    Returns:
      The :class:`audits.AuditReport` of a passing assertion.

    Raises:
      AssertionError: the audit proved a VIOLATION (the message says how to reproduce it).
      TypeError / ValueError: a bad argument, named.
    """
    __tracebackhide__ = True  # pytest shows the failing test's line, not this function's source
    import time

    from audits.api import audit
    from audits.mechanism_runs import describe_callable

    chosen_effort = effort_preset(_SESSION.defaults.effort if effort is None else effort)
    seed = _SESSION.defaults.seed if seed is None else int(seed)
    per_bound = bound_confidence(claim, confidence, method=method)
    start = time.perf_counter()
    name = describe_callable(mechanism)
    search: _Search | None = None
    if _is_strategy(neighbours):
        if D is not None or D_prime is not None:
            raise ValueError(
                "with a hypothesis strategy for neighbours, the strategy draws both D and D′: omit D and D_prime"
            )
        search = _hypothesis_search(
            mechanism,
            neighbours,
            claim=claim,
            fits=_fits(score),
            pilot_trials=chosen_effort.pilot_trials(chosen_effort.trials),
            max_examples=EXAMPLES[chosen_effort.name] if max_examples is None else int(max_examples),
            seed=seed,
            batched=batched,
        )
        per_bound = bound_confidence(claim, confidence, search.examined, method)
    run_D, run_D_prime, run_neighbours = (
        (D, D_prime, neighbours) if search is None else (search.D, search.D_prime, None)
    )
    report = audit(
        mechanism, run_D, run_D_prime, claim=claim, neighbours=run_neighbours, effort=chosen_effort.name, seed=seed,
        score=score, batched=batched, release=release, confidence=per_bound, progress=False,
    )  # fmt: skip
    if method is None:
        decided_by, deciding = max(report.lower.items(), key=lambda item: item[1].epsilon)
        verdict = report.verdict
    else:
        decided_by, deciding = method, report.lower[method]
        verdict = "VIOLATION" if deciding.epsilon > _smallest_upper(claim) else "consistent"
    _SESSION.records.append(
        AssertionRecord(
            mechanism=name,
            claim=claim.statement,
            verdict=verdict,
            epsilon_lower=deciding.epsilon,
            method=decided_by,
            effort=chosen_effort.name,
            seed=seed,
            confidence=float(confidence),
            pairs_examined=1 if search is None else search.examined,
            seconds=round(time.perf_counter() - start, 2),
        )
    )
    if verdict == "VIOLATION":
        raise AssertionError(
            _failure(report, name, claim, D, D_prime, neighbours, search, chosen_effort.name, seed, confidence, method)
        )
    return report


def _failure(
    report: AuditReport,
    name: str,
    claim: Claim,
    D: Any,
    D_prime: Any,
    neighbours: Any,
    search: _Search | None,
    effort: str,
    seed: int,
    confidence: float,
    method: str | None,
) -> str:
    """The failure text: plain lines, no colour, the first a one-line summary (JUnit shows it as the message)."""
    r = report.report
    bounds = ", ".join(
        f"{m} ε ≥ {b.epsilon:.4g} ({b.confidence:.4%} confidence, {_assumption(b.assumption)})"
        for m, b in report.lower.items()
    )
    if method is None:
        violated = sorted({m for methods in r["violated_by"].values() for m in methods})
    else:
        violated = [f"{method} (pre-registered: it alone decides)"]
    lines = [
        f"privacy VIOLATION: {name} is not {claim.statement}",
        f"  claim: {claim.statement}; upper bounds {r['epsilon_upper']}",
        f"  lower bounds: {bounds}",
        f"  violated by: {', '.join(violated) if violated else 'a section of the report'}",
    ]
    if search is not None:
        lines += [
            f"  pair: D = {_shown(search.D)}; D′ = {_shown(search.D_prime)}",
            f"        {search.how}; hypothesis examined {search.examined} pairs on pilot trials, the verdict is "
            f"decided on fresh trials, Bonferroni-corrected over the {search.examined} pairs",
        ]
    elif "neighbour_search" in r:
        lines.append(f"  pair: {r['neighbour_search']['summary']} (held-out pilot, fresh trials)")
    else:
        lines.append(f"  pair: {_pair(D, D_prime)}")
    reproduce = _call(name.rsplit(".", 1)[-1], D, D_prime, neighbours, claim, effort, seed, confidence, method)
    lines += [
        f"  distinguisher: {r['attack']['name']}",
        f"  trials: {r['trials']:,} per side, effort {effort!r}, seed {seed}",
        f"  false alarm: a mechanism that meets the claim fails this assertion with probability ≤ {1 - confidence:.3g}",
        f"  reproduce: {reproduce}",
    ]
    return "\n".join(lines)
