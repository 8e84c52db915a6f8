"""The audit loop: run an :class:`audits.spec.AuditSpec` and report (the only trial loop of ``audits``).

Seeds. Child 0 of ``SeedSequence(seed)`` draws the trials on D and child 1 those on D′ (trial r
gets child r of its side, whatever the chunking); children 2, 3, … are the spec's auxiliary streams
(calibration trials on D and D′, then whatever its sections draw, :attr:`AuditContext.streams`).
The trials run in chunks of :data:`CHUNK` per ``solver.run`` call, alternating D and D′, so memory
stays bounded; the attacks keep only what they need of each chunk, and the chunks run on every core
the process may use (:mod:`audits.chunks`), with the same report for any number of workers, or as
Ray tasks on a cluster (:mod:`audits.ray_backend`); a checkpoint folder records every finished chunk,
so that a stopped audit continues with the same report (:mod:`audits.checkpoint`).

Bounds. The audited attack's scores give a Clopper–Pearson bound (worst case, Jagielski et al.
2020) and a Gaussian-DP bound (Nasr et al. 2023); the claim's family decides which of them enter
the verdict (:class:`audits.spec.Claim`). Every accountant bounds the same releases on the solver's
ledger (cached: the ledger depends only on public parameters).
"""

from __future__ import annotations

import contextlib
import logging
import numbers
import time
from collections.abc import Callable, Generator, Hashable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from accountants.constraints import Integer, Positive
from audits.chunks import ChunkJob, ChunkOutcome, ChunkScores, default_workers, run_chunks, run_trials
from audits.spec import AuditContext, AuditSpec, Claim
from audits.verdict import AuditReport
from solvers.engine.seeding import TrialSeeds

if TYPE_CHECKING:  # attacks, accountants and the statistics are imported on first use
    from accountants.ledger import Ledger
    from audits.checkpoint import Checkpoint

__all__ = [
    "CALIBRATION_CHUNK",
    "CALIBRATION_TRIALS",
    "CHUNK",
    "MAX_CALIBRATION_TRIALS",
    "MAX_SEED",
    "MAX_TRIALS",
    "RESOLUTION",
    "SEED",
    "TRIALS",
    "UTILITY_TRIALS",
    "checked",
    "deciding_bounds",
    "run_spec",
    "solver_ledger",
    "stream",
]

#: The audits' records: each stage of an audit at INFO (``dp-audit -v`` shows them).
LOGGER = logging.getLogger(__name__)

#: Trials per ``solver.run`` call: bounds memory (every chunk is scored before the next runs).
CHUNK = 5_000
#: Trials per hypothesis at most: the audited attack keeps a score per trial (8 bytes × 2 hypotheses ×
#: attacks: 1.6 GB per attack at this ceiling; with histograms, 16 bytes a distinct score and a bit a
#: trial), and a run this long takes days on the reference machine.
MAX_TRIALS = 100_000_000
#: Calibration trials per hypothesis at most: the calibration keeps every release of its trials.
MAX_CALIBRATION_TRIALS = 10_000_000
#: Calibration trials per ``solver.run`` call at most (the largest default calibration, so that default
#: audits run their calibration in one call each, as before the calibration was chunked).
CALIBRATION_CHUNK = 20_000
#: Root seeds are below this: a ``SeedSequence`` takes 128 bits of entropy (numpy's recommendation),
#: and the report prints the seed.
MAX_SEED = 2**128
#: The utility (e.g. test accuracy, which can cost more than the run) is averaged over the first
#: this many trials on D: its mean and spread are then known to far better than the report prints.
UTILITY_TRIALS = 20_000
#: What the audited trials per hypothesis and the root seed must be (``accountants.constraints``): checked
#: before anything is allocated, by the command, :func:`run_spec` and :func:`audits.audit` alike.
TRIALS = Integer(10, MAX_TRIALS, f"an int in [10, {MAX_TRIALS:,}] (audited trials per hypothesis)")
SEED = Integer(0, MAX_SEED - 1, "an int in [0, 2**128)")
#: What a declared resolution of the scores must be: the grid step of :func:`audits.distinguishers.quantize`,
#: relative to the largest validation score in :func:`audits.audit`, absolute in :func:`run_spec` and the command.
RESOLUTION = Positive()
#: What the calibration trials per hypothesis must be.
CALIBRATION_TRIALS = Integer(
    10, MAX_CALIBRATION_TRIALS, f"an int in [10, {MAX_CALIBRATION_TRIALS:,}] (calibration trials per hypothesis)"
)
#: Accountants' bounds by (ledger entries, δ, participant).
_UPPER_CACHE: dict[tuple[Any, float, Hashable], dict[str, float]] = {}


def stream(seed: int, key: tuple[int, ...]) -> np.random.SeedSequence:
    """Descendant ``key`` of ``SeedSequence(seed)`` (equal to spawning along ``key``)."""
    return np.random.SeedSequence(seed, spawn_key=key)


def solver_ledger(spec: AuditSpec) -> Ledger | None:
    """The ledger the upper bounds are computed on: ``spec.ledger``, else the solver's from one run on D
    (which also checks that the solver runs on D); None for a spec that is not ``accounted``."""
    if spec.ledger is not None:
        return spec.ledger
    result = spec.solver.run(spec.problem_in, seed=0, accountants=(), record_history=False, record_transcript=False)
    if not spec.accounted:
        return None
    ledger: Ledger = result.ledger
    return ledger


def _accountant_bounds(ledger: Ledger, delta: float, participant: Hashable) -> dict[str, float]:
    from accountants import epsilon_by_accountant

    key = (tuple(ledger), float(delta), participant)
    if key not in _UPPER_CACHE:
        by_accountant = epsilon_by_accountant(ledger, delta, participant=participant)
        _UPPER_CACHE[key] = {name: values[participant] for name, values in by_accountant.items()}
    return dict(_UPPER_CACHE[key])


def checked(constraint: Integer, value: object, name: str) -> int:
    """``value`` as an int, checked against ``constraint`` (its error names ``name``).

    Raises:
      TypeError: not an int. ValueError: out of the constraint's range.
    """
    constraint.check(value, name)
    return int(cast(numbers.Integral, value))


def deciding_bounds(claim: Claim) -> tuple[str, ...]:
    """The lower-bound methods that may decide the verdict on ``claim``: the Gaussian-DP bound only
    for a Gaussian claim with δ > 0 (Dong, Roth & Su 2022), the worst-case Clopper–Pearson always."""
    return ("gdp", "clopper_pearson") if claim.noise == "gaussian" and claim.delta > 0 else ("clopper_pearson",)


def run_spec(
    spec: AuditSpec,
    *,
    trials: int | None = None,
    confidence: float = 0.95,
    seed: int = 0,
    stream_key: tuple[int, ...] = (),
    quick: bool = False,
    calibration_trials: int | None = None,
    progress: bool | None = None,
    workers: int | None = None,
    checkpoint: str | Path | None = None,
    backend: str = "processes",
    address: str | None = None,
    histograms: bool = False,
    resolution: float | None = None,
    appended: Mapping[str, Any] | None = None,
) -> AuditReport:
    """Run the audit ``spec``: the trials, the attacks, the bounds, the sections, then the report,
    built once (:func:`audits.verdict.assemble_report`) with the verdict of every finding.

    Args:
      trials: trials per hypothesis (None: the spec's, ``quick_trials`` if ``quick``).
      confidence: of the lower bounds. seed: the root seed (reported).
      stream_key: run on descendant ``stream_key`` of the root seed instead of the root (a
        companion audit of a section draws on one of its parent's auxiliary streams).
      calibration_trials: per hypothesis, for ``spec.calibration`` (default trials/50 in [200, 2000]).
      progress: show a progress bar on stderr (None: when stderr is a terminal).
      workers: processes that run the audited trials' chunks (None: :func:`audits.chunks.default_workers`;
        the report is the same for every count).
      checkpoint: a folder that records every finished chunk (:mod:`audits.checkpoint`); an audit
        with the same spec and options continues from the chunks it holds, with the same report.
      backend: "processes" (this machine's cores, :mod:`audits.chunks`) or "ray" (Ray tasks,
        :mod:`audits.ray_backend`); the report is the same for both. address: the Ray cluster's.
      histograms: keep each attack's scores as histograms (:mod:`audits.chunk_histograms`): memory in
        the distinct scores rather than the trials, the same report, bit for bit.
      resolution: round every attack's audited scores (one float64 a trial) to multiples of this step as
        they are read, with or without ``histograms`` (:func:`audits.chunk_histograms.rounded`: the bounds stay
        valid, power can only drop; with histograms, the driver's memory is bounded by the grid, not the
        trials); the report states it (``score_resolution``). None: the scores as the attacks computed them.
      appended: further report keys, after every other (e.g. the neighbour search that chose D′).
    """
    from accountants.ledger import Ledger
    from audits.chunk_histograms import ChunkHistograms, rounded
    from audits.progress import AuditProgress, lower_so_far
    from audits.stats import lower_bounds
    from audits.stats.thresholds import as_strategy
    from audits.verdict import assemble_report

    start = time.perf_counter()
    if not isinstance(histograms, bool):
        raise TypeError(f"histograms must be True or False, got {histograms!r:.60}")
    if resolution is not None:
        RESOLUTION.check(resolution, "resolution")
    n = checked(TRIALS, (spec.quick_trials if quick else spec.trials) if trials is None else trials, "trials")
    seed = checked(SEED, seed, "seed")
    n_cal = checked(
        CALIBRATION_TRIALS,
        min(2000, max(200, n // 50)) if calibration_trials is None else calibration_trials,
        "calibration_trials",
    )
    if spec.calibration is not None and spec.merge is None and n_cal > CALIBRATION_CHUNK:
        raise ValueError(
            f"calibration_trials must be at most {CALIBRATION_CHUNK:,} for {spec.name!r}, whose spec cannot join "
            f"the results of several runs (AuditSpec.merge), got {n_cal:,}"
        )
    _check_claimed_bound(spec)
    from audits.ray_backend import check_backend

    backend = check_backend(backend)
    ledger = solver_ledger(spec)
    saved: Checkpoint | None = None
    if checkpoint is not None:  # refused if another audit wrote it (a declared resolution is part of the audit)
        from audits.checkpoint import Checkpoint, fingerprint

        options: dict[str, object] = {"trials": n, "calibration_trials": n_cal, "confidence": confidence, "seed": seed}
        options |= {"stream_key": stream_key, "quick": quick, "chunk": CHUNK}
        if resolution is not None:
            options["resolution"] = float(resolution)
        saved = Checkpoint(Path(checkpoint), fingerprint(spec, **options))
    root = stream(seed, stream_key)
    seeds_in, seeds_out = (TrialSeeds(child, n) for child in root.spawn(2))
    chosen = default_workers() if workers is None else workers
    LOGGER.info(
        "audit %s: %d trials per hypothesis%s, seed %d, %s worker process(es), backend %s",
        spec.name,
        n,
        f" after {n_cal} calibration trials each" if spec.calibration is not None else "",
        seed,
        chosen,
        backend,
    )
    claim = spec.claim
    accounted = {} if ledger is None else _accountant_bounds(ledger, claim.delta, spec.participant)
    upper = {**accounted, **claim.upper}
    bar = AuditProgress(
        2 * n + (2 * n_cal if spec.calibration is not None else 0),
        f"audit {spec.name}",
        enabled=progress,
        claimed=None if claim.bound is None else upper.get(claim.bound),
    )

    def run(problem: Any, seeds: Sequence[np.random.SeedSequence]) -> Any:
        result = run_trials(spec, problem, seeds)
        bar.update(len(seeds))
        return result

    def streams(index: int) -> np.random.SeedSequence:
        return stream(seed, (*stream_key, 2 + index))

    def calibration_run(problem: Any, seeds: Sequence[np.random.SeedSequence]) -> Any:
        if len(seeds) <= CALIBRATION_CHUNK or spec.merge is None:
            return run(problem, seeds)
        n_seeds = len(seeds)
        bounds = [(lo, min(lo + CALIBRATION_CHUNK, n_seeds)) for lo in range(0, n_seeds, CALIBRATION_CHUNK)]
        return spec.merge([run(problem, seeds[lo:hi]) for lo, hi in bounds])

    report_extra: dict[str, Any] = {}
    if spec.calibration is not None:
        calibrated = spec.calibration(
            calibration_run(spec.problem_in, TrialSeeds(streams(0), n_cal)),
            calibration_run(spec.problem_out, TrialSeeds(streams(1), n_cal)),
        )
        report_extra["diagnostics"] = {"calibration_trials": n_cal, **calibrated}
        LOGGER.info("audit %s: calibrated on %d trials per hypothesis", spec.name, n_cal)
    observations: dict[str, tuple[list[Any], list[Any]]] = {a.name: ([], []) for a in spec.attacks}
    utility: dict[str, list[np.ndarray]] = {}
    info: Any = None
    details: Any = None
    kept = ChunkScores(n)  # the score arrays, held once (bounded driver memory)
    counted = None if not histograms else ChunkHistograms(n, as_strategy(spec.threshold))
    jobs = [
        ChunkJob(
            on_d, seeds[lo : min(lo + CHUNK, n)], utility=on_d and lo < UTILITY_TRIALS, index=2 * (lo // CHUNK) + k
        )
        for lo in range(0, n, CHUNK)
        for k, (on_d, seeds) in enumerate(((True, seeds_in), (False, seeds_out)))
    ]
    with contextlib.closing(_outcomes(spec, jobs, saved, backend, address, chosen, bar.update)) as outcomes:
        for outcome in outcomes:
            info, details = outcome.info, outcome.details
            for attack, observed in zip(spec.attacks, outcome.observations, strict=True):
                seen = rounded(observed, resolution)
                if counted is None or not counted.keep(attack.name, outcome.on_d, seen):
                    observations[attack.name][0 if outcome.on_d else 1].append(
                        kept.keep(attack.name, outcome.on_d, seen)
                    )
            for key, values in outcome.utility.items():
                utility.setdefault(key, []).append(values)
            bar.chunk_read(
                lambda: lower_so_far(spec, observations, counted, methods=deciding_bounds(claim), confidence=confidence)
            )
    del kept  # its arrays live on in the chunks' views only, and are freed as the attacks join them
    bar.close()
    LOGGER.info("audit %s: %d trials per hypothesis run; scoring with %d attack(s)", spec.name, n, len(spec.attacks))
    attacks = tuple(
        counted.concluded(a) if counted is not None and counted.holds(a.name) else a.conclude(*observations[a.name])
        for a in spec.attacks
    )
    LOGGER.info("audit %s: the attacks concluded", spec.name)
    audited = attacks[0]
    sides: tuple[Any, Any] = (
        counted.sides(audited.attack)
        if counted is not None and counted.holds(audited.attack)
        else (audited.scores_in, audited.scores_out)
    )  # score arrays or their histograms: the same bounds (audits.stats.sides)
    methods = ("gdp", "clopper_pearson") if claim.delta > 0 else ("clopper_pearson",)  # μ-GDP: no finite ε at δ = 0
    bounds = lower_bounds(methods, *sides, delta=claim.delta, confidence=confidence, threshold=spec.threshold)
    lower = {k: b for k, b in bounds.items() if k in deciding_bounds(claim)}
    informational = {k: b for k, b in bounds.items() if k not in lower}
    LOGGER.info(
        "audit %s: lower bounds %s; upper bounds %s",
        spec.name,
        ", ".join(f"{k} ε ≥ {b.epsilon:.4g}" for k, b in bounds.items()),
        ", ".join(f"{k} ε ≤ {v:.4g}" for k, v in upper.items()),
    )
    per_trial = {key: np.concatenate(parts) for key, parts in utility.items()}
    context = AuditContext(
        spec=spec,
        trials=n,
        confidence=confidence,
        seed=seed,
        quick=quick,
        observations=observations,
        attacks=attacks,
        lower=lower,
        informational=informational,
        upper=upper,
        ledger=Ledger() if ledger is None else ledger,
        utility=per_trial,
        info=info,
        streams=streams,
        details=details,
    )
    findings = [build(context) for build in spec.sections]
    LOGGER.info("audit %s: %d report section(s) built", spec.name, len(findings))
    all_attacks = [*attacks, *(a for f in findings for a in f.attacks)]
    report = assemble_report(
        solver=spec.name,
        solver_object=spec.solver,
        trials=n,
        delta=claim.delta,
        confidence=confidence,
        seed=seed,
        lower=lower,
        upper=upper,
        claimed=claim.bound,
        claim=claim.statement,
        attacks=all_attacks,
        epsilon_meaning=spec.epsilon_meaning,
        canary=spec.canary,
        utility={
            **{key: float(values.mean()) for key, values in per_trial.items()},
            **{k: v for f in findings for k, v in f.utility.items()},
        },
        sections=[f.section for f in findings if f.section is not None],
        findings=findings,
        **spec.report,
        **report_extra,
        **{k: v for f in findings for k, v in f.report.items()},
        **({"utility_trials": min(n, UTILITY_TRIALS)} if per_trial else {}),
        **({} if resolution is None else {"score_resolution": float(resolution)}),
        random_streams={
            "trials": f"trial r on D is child (0, r) of SeedSequence({seed}) (below stream key {list(stream_key)}), "
            "on D′ child (1, r); calibration and sections use children 2, 3, …; chunks of "
            f"{CHUNK} trials, in any number of worker processes, give the same report",
            "within a trial": getattr(spec.solver, "stream_layout", "the solver's own"),
        },
        **({"informational_lower_bounds": {m: b.to_dict() for m, b in informational.items()}} if informational else {}),
        runtime_seconds=round(time.perf_counter() - start, 1),
        **(appended or {}),
    )
    LOGGER.info("audit %s: %s in %.1f s", spec.name, report["verdict"], report["runtime_seconds"])
    return AuditReport(report, tuple(all_attacks), lower, upper, observations)


def _outcomes(
    spec: AuditSpec,
    jobs: Sequence[ChunkJob],
    saved: Checkpoint | None,
    backend: str,
    address: str | None,
    workers: int,
    done: Callable[[int], object],
) -> Generator[ChunkOutcome, None, None]:
    """Every chunk's outcome, in order: read from ``saved`` if it holds it, else run on ``backend`` (and
    recorded in ``saved``)."""
    recorded = frozenset() if saved is None else saved.done
    pending = [job for job in jobs if job.index not in recorded]
    record = None if saved is None else saved.save
    if backend == "ray":
        from audits.ray_backend import ray_chunks

        computed = ray_chunks(spec, pending, address=address, done=done, record=record)
    else:
        computed = run_chunks(spec, pending, workers=workers, done=done, record=record)
    with contextlib.closing(computed):  # an error here stops the workers before it propagates
        for job in jobs:
            if saved is not None and job.index in recorded:
                outcome = saved.load(job.index)
                done(outcome.trials)
                yield outcome
            else:
                yield next(computed)


def _check_claimed_bound(spec: AuditSpec) -> None:
    """A spec without a ledger can only claim one of its claim's own bounds (checked before any trial)."""
    bound = spec.claim.bound
    if not spec.accounted and bound is not None and bound not in spec.claim.upper:
        raise ValueError(
            f"claim.bound must name one of the claim's upper bounds {sorted(spec.claim.upper)} (no accountant bounds "
            f"{spec.name!r}: it has no ledger), got {bound!r:.60}"
        )
