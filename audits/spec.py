"""What one audit runs, declared: the solver, the neighbouring problems, the attacks, the claim.

An :class:`AuditSpec` holds everything :func:`audits.runner.run_spec` needs and nothing it does:
the runner draws the trials on D and D′, feeds every chunk of runs to the attacks, turns the
audited attack's scores into lower bounds (:mod:`audits.stats`), asks every accountant for its
upper bound on the solver's ledger, and assembles the report (:func:`audits.verdict.assemble_report`).
A target-specific analysis enters as a :data:`SectionBuilder`, which sees the finished trials and
returns a :class:`Finding` (a report section, further report keys, verdicts it can prove).

The structure follows the separation of jax_privacy's auditing code (canary scores in, bounds
out) and of DP-Auditorium (a mechanism, a neighbouring pair and a tester), with the claim kept
next to the mechanism so that the lower bounds are held against it (Jagielski et al. 2020;
Nasr et al. 2021).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from accountants.constraints import (
    PRIVACY_EPSILON,
    PROBABILITY,
    Constraint,
    Instance,
    Interval,
    OneOf,
    Optional,
    check_parameters,
)

if TYPE_CHECKING:  # attacks, solvers and the statistics are imported on first use
    from accountants.ledger import Ledger
    from attacks.base import Attack, AttackScores
    from audits.stats import LowerBound
    from audits.stats.thresholds import ThresholdChoice
    from audits.verdict import Section

__all__ = [
    "AuditContext",
    "AuditSpec",
    "CLAIMED",
    "Claim",
    "Finding",
    "NOISE_FAMILIES",
    "Noise",
    "SectionBuilder",
    "SpecBuilder",
]

#: The noise a claim's mechanism adds, which decides the lower bounds that may decide the verdict:
#: "gaussian" admits the Gaussian-DP bound (its trade-off curve is exact for Gaussian noise, Dong,
#: Roth & Su 2022, eq. (2.3)); "laplace" and "other" (any other or unknown noise) admit only the
#: Clopper–Pearson bound, which assumes nothing about the mechanism.
Noise = Literal["gaussian", "laplace", "other"]
NOISE_FAMILIES: tuple[Noise, ...] = ("gaussian", "laplace", "other")
#: The key of ``Claim.upper`` a numeric ``Claim(epsilon=...)`` is stored under.
CLAIMED = "claimed"
#: What each of ``Claim.upper``'s bounds must be: an ε >= 0 (∞: the bound proves nothing).
UPPER_BOUND = Interval(0, math.inf, what="an ε")


@dataclass(frozen=True, kw_only=True)
class Claim:
    """The privacy claim the lower bounds are held against: (ε, δ) and the noise that backs it.

    ``Claim(epsilon=8.0, delta=1e-5, noise="gaussian")`` claims (8, 1e-5)-DP for a mechanism that
    adds Gaussian noise; ``delta=0`` claims pure ε-DP (only worst-case bounds decide then, as the
    Gaussian-DP bound has no finite ε at δ = 0). :meth:`from_ledger` takes the claim from a ledger
    the user's code filled through the accountants.

    Attributes:
      delta: δ of every bound, lower and upper, in [0, 1).
      epsilon: the claimed ε (stored as ``upper["claimed"]``, the claimed bound); None: the claim is
        ``bound``, one of the accountants' upper bounds or of ``upper``.
      noise: the mechanism's noise (:data:`Noise`); it decides which lower bounds may decide the
        verdict, the others are computed for information.
      statement: the claim in words, with its source (paper, theorem, equation); default: from ε, δ
        and the noise.
      bound: the key of the claimed upper bound (None: the claim has no number).
      upper: upper bounds the claim states beyond the accountants' (e.g. a paper's β).

    Raises:
      TypeError / ValueError: an attribute breaks its declaration (:attr:`parameter_constraints`: δ in
        [0, 1), ε > 0 with ∞ allowed, a claim of no privacy; every bound of ``upper`` an ε >= 0), in the
        message format of ``accountants.constraints``.
      ValueError: both ``epsilon`` and ``bound`` given.
    """

    delta: float
    epsilon: float | None = None
    noise: Noise = "other"
    statement: str = ""
    bound: str | None = None
    upper: Mapping[str, float] = field(default_factory=dict)

    #: What each attribute must be (``accountants.constraints``), checked when the claim is made.
    parameter_constraints: ClassVar[Mapping[str, Constraint]] = {
        "delta": Interval(0, 1, closed="left", what="a probability"),
        "epsilon": Optional(PRIVACY_EPSILON),
        "noise": OneOf(*NOISE_FAMILIES),
        "statement": Instance(str, "the claim in words (a string)", ""),
        "bound": Optional(Instance(str, "the name of an upper bound (a string)")),
        "upper": Instance(Mapping, "a mapping of bound names to ε, e.g. {'paper': 1.0}", {}),
    }

    def __post_init__(self) -> None:
        check_parameters(self)
        upper = dict(self.upper)
        for key, value in upper.items():
            UPPER_BOUND.check(value, f"upper[{key!r}]")
        object.__setattr__(self, "delta", float(self.delta))
        if self.epsilon is not None:
            epsilon = self.epsilon
            if self.bound is not None:
                raise ValueError(f"Claim: give epsilon or bound, not both (epsilon={epsilon!r}, bound={self.bound!r})")
            upper[CLAIMED] = float(epsilon)
            object.__setattr__(self, "epsilon", float(epsilon))
            object.__setattr__(self, "bound", CLAIMED)
            if not self.statement:
                dp = f"{epsilon:g}-DP" if self.delta == 0 else f"({epsilon:g}, {self.delta:g})-DP"
                object.__setattr__(self, "statement", f"{dp}, {self.noise} noise")
        object.__setattr__(self, "upper", upper)

    @classmethod
    def from_ledger(
        cls, ledger: Ledger, delta: float, *, participant: Hashable = None, noise: Noise = "other"
    ) -> Claim:
        """The claim the accountants defend for ``ledger`` at ``delta``: the smallest ε of any
        accountant that supports every event (``accountants.best_epsilon``), with every accountant's
        bound reported next to it.

        Args:
          ledger: an ``accountants.Ledger`` the audited code registered its releases in.
          participant: whose privacy (None: the worst participant).
          noise: the noise of the releases (:data:`Noise`).

        Raises:
          ValueError: bad δ, or no accountant supports every event of the ledger.
        """
        from accountants import best_epsilon

        PROBABILITY.check(delta, "delta")
        best = best_epsilon(ledger, delta, participant, every_accountant=True)
        return cls(
            delta=delta,
            noise=noise,
            statement=f"the accountants' bound on the ledger ({len(ledger)} entries, participant "
            f"{best.participant!r}): ε = {best.epsilon:.6g} ({best.accountant}) at δ = {delta:g}",
            bound=best.accountant,
            upper=dict(best.bounds),
        )


@dataclass(frozen=True)
class Finding:
    """What a :data:`SectionBuilder` adds to the report.

    Attributes:
      section: a report.md section (None: none).
      report: further top-level report keys. utility: further utility entries.
      attacks: further ``AttackScores`` (appended after the spec's attacks).
      verdicts: verdicts the section proves; a key the report lacks is added, an existing one can
        only become "VIOLATION". violated_by: evidence names added to ``violated_by[key]``.
    """

    section: Section | None = None
    report: Mapping[str, Any] = field(default_factory=dict)
    utility: Mapping[str, float] = field(default_factory=dict)
    attacks: tuple[AttackScores, ...] = ()
    verdicts: Mapping[str, str] = field(default_factory=dict)
    violated_by: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class AuditContext:
    """The finished trials of one audit, as a :data:`SectionBuilder` sees them.

    Attributes:
      spec, trials (per hypothesis), confidence, seed (the root seed), quick.
      observations: attack name → (observations on D, on D′), each a list with one entry per chunk.
      attacks: the spec's attacks' ``AttackScores``, in order.
      lower: the lower bounds that decide the verdict; informational: the others (by method).
      upper: every upper bound (accountants' and the claim's). ledger: the solver's ledger (empty
        when the spec is not ``accounted``).
      utility: utility key → per-trial values on D. info: the ``info`` of the last run (its plan's
        constants and diagnostics, by name). details: the last run's ``Result.details`` (the
        plan's constants, typed: the family's frozen dataclass, or None).
      streams: auxiliary seed streams: ``streams(i)`` is child 2 + i of the root seed (children 0
        and 1 draw the trials on D and D′).
    """

    spec: AuditSpec
    trials: int
    confidence: float
    seed: int
    quick: bool
    observations: Mapping[str, tuple[list[Any], list[Any]]]
    attacks: tuple[AttackScores, ...]
    lower: Mapping[str, LowerBound]
    informational: Mapping[str, LowerBound]
    upper: Mapping[str, float]
    ledger: Ledger
    utility: Mapping[str, np.ndarray]
    info: Any
    streams: Callable[[int], np.random.SeedSequence]
    details: Any = None


#: A target-specific analysis run after the trials: context → finding.
SectionBuilder = Callable[[AuditContext], Finding]
#: Fits the attacks on disjoint calibration trials (results on D and on D′); returns diagnostics.
Calibration = Callable[[Any, Any], Mapping[str, Any]]


@dataclass(frozen=True, eq=False)
class AuditSpec:
    """One audit, declared (module docstring); run it with :func:`audits.runner.run_spec`.

    Attributes:
      name: the report's ``solver`` entry. solver: has ``run(problem, seeds=..., **options)``
        returning a batched result with ``ledger``, ``model`` and ``info``, and ``get_params()``.
      problem_in, problem_out: the neighbouring problems D and D′.
      participant: the ledger participant the upper bounds are for (the target agent).
      attacks: the distinguishers; the first is audited (its scores give the lower bounds).
      claim: the claimed bound and its noise. canary: the neighbouring pair in one line.
      epsilon_meaning: what the audit's privacy parameter means, for the report.
      trials, quick_trials: default trials per hypothesis (full run, ``--quick``).
      run_options: further keywords of every ``solver.run`` of the trials (e.g. ``transcript_agents``).
      threshold: how the audited attack's threshold is chosen (:mod:`audits.stats.thresholds`).
      calibration: fits the attacks on 2 × ``calibration_trials`` disjoint trials first (None: none).
      utility: per-trial utility of a chunk run on D, key → (R,) values (reported as means).
      sections: target-specific analyses, in report order. report: further static report keys.
      ledger: the ledger to bound (None: the solver's, from one run on D).
      accounted: the solver registers its releases in a ledger that the accountants bound (False:
        a user's mechanism without a ledger; only the claim's own bounds are upper bounds).
      quiet_floating_point: silence numpy's divide/invalid warnings during the trials.
      merge: joins the results of consecutive runs into the result of all their trials, in order, so
        that a large calibration runs in chunks of :data:`audits.runner.CALIBRATION_CHUNK` trials (None:
        the calibration runs in one call and is refused beyond that many trials).
    """

    name: str
    solver: Any
    problem_in: Any
    problem_out: Any
    participant: Hashable
    attacks: tuple[Attack, ...]
    claim: Claim
    canary: str
    epsilon_meaning: str
    trials: int = 100_000
    quick_trials: int = 2_000
    run_options: Mapping[str, Any] = field(default_factory=dict)
    threshold: ThresholdChoice = "split"
    calibration: Calibration | None = None
    utility: Callable[[Any], Mapping[str, np.ndarray]] | None = None
    sections: tuple[SectionBuilder, ...] = ()
    report: Mapping[str, Any] = field(default_factory=dict)
    ledger: Ledger | None = None
    accounted: bool = True
    quiet_floating_point: bool = False
    merge: Callable[[Sequence[Any]], Any] | None = None

    def __post_init__(self) -> None:
        if not self.attacks:
            raise ValueError(f"AuditSpec {self.name!r}: attacks must hold at least one attack")
        for index, attack in enumerate(self.attacks):
            if not (callable(getattr(attack, "observe", None)) and callable(getattr(attack, "conclude", None))):
                raise TypeError(
                    f"AuditSpec {self.name!r}: attacks[{index}] must have observe(result, on_d) and "
                    f"conclude(seen_on_d, seen_on_d_prime), got {attack!r:.80}"
                )
        for label, value in (("trials", self.trials), ("quick_trials", self.quick_trials)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 10:
                raise ValueError(f"AuditSpec {self.name!r}: {label} must be an integer >= 10, got {value!r}")
        if not isinstance(self.claim, Claim):
            raise TypeError(f"AuditSpec {self.name!r}: claim must be an audits.spec.Claim, got {self.claim!r:.80}")


#: (epsilon or None for the target's default, delta, quick) → the audit: what a registry entry holds.
SpecBuilder = Callable[[float | None, float, bool], AuditSpec]
