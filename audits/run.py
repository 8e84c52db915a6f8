"""``python -m audits.run NAME``: audit a solver's privacy claim by experiment.

For the named solver it builds neighbouring data sets D and D′ that differ in one worst-case canary
record of one agent (:mod:`audits.neighbours`), runs the trials on both in batched runs (a progress
bar on stderr), scores every trial with the strongest applicable attack (for DP-ADMM the
Neyman–Pearson white-box test, :mod:`attacks.whitebox`), turns the scores into empirical lower
bounds on ε (Gaussian-DP and Clopper–Pearson, :mod:`audits.stats`), asks every accountant for its
upper bound on the same releases, and reports a verdict per bound and the tightness ratio::

    python -m audits.run --list
    python -m audits.run dpadmm                       # 10^5 trials per hypothesis, δ = 1e-5
    python -m audits.run dpadmm --quick --out /tmp/a  # a small smoke run
    python -m audits.run dpadmm-naive --trials 20000 --seed 3

``--epsilon`` sets the privacy level in the paper's own terms, per solver (``--list`` says which):
for ``dpadmm`` and ``dpadmm-naive`` the per-iteration ε of the classic Gaussian calibration (default:
the exact accountant's μ = 1, a total ε of 4.377 at δ = 1e-5); for ``radmm``, ``mradmm``, ``ppadmm``
and ``dvp`` the paper's total β (default 6); for ``sharing-*`` the per-iteration ε of Theorem 1;
for ``pdml`` the users' label ε. The report's ``epsilon_meaning`` repeats it.
Exit status: 0 consistent, 1 VIOLATION, 2 usage error (unknown name, bad value, solver missing).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from accountants.version import __version__
from audits.registry import TARGETS, AuditSetup, UnavailableTarget, get_target

if TYPE_CHECKING:  # solvers and attacks are imported on first use
    from attacks.base import AttackScores
    from audits.neighbours import Neighbours
    from solvers.problem import HorizontalProblem
    from solvers.result import Result

__all__ = ["main", "run_audit"]

#: Trials per solver.run call: bounds memory (transcripts are scored chunk by chunk).
CHUNK = 5_000
#: Upper bounds by (name, solver repr, δ, agent): the ledger is fixed by the public parameters.
_UPPER_CACHE: dict[tuple[str, str, float, int], tuple[dict[str, float], float]] = {}


def _seeds(root: np.random.SeedSequence, n: int) -> list[np.random.SeedSequence]:
    return root.spawn(n)


def _run(
    setup: AuditSetup, problem: HorizontalProblem, seeds: Sequence[int | np.random.SeedSequence], agent: int
) -> Result:
    return setup.solver.run(problem, seeds=seeds, accountants=(), record_history=False, transcript_agents=[agent])


def run_audit(
    name: str,
    *,
    trials: int | None = None,
    epsilon: float | None = None,
    delta: float = 1e-5,
    confidence: float = 0.95,
    seed: int = 0,
    quick: bool = False,
    calibration_trials: int | None = None,
    progress: bool | None = None,
) -> tuple[dict[str, Any], list[AttackScores]]:
    """Run the audit ``name``; return (report, attacks): ``attacks`` is a list of
    ``attacks.AttackScores``, the audited (strongest) attack first, then the black-box ones.

    Args:
      name: a registry name (``python -m audits.run --list``).
      trials: trials per hypothesis (default: the entry's; ``quick`` uses its small default).
      epsilon: per-iteration ε of the classic calibration (default: μ = 1 after T iterations).
      delta: δ of the calibration and of every bound, in (0, 1).
      confidence: confidence of the lower bounds, in (0, 1).
      seed: root seed of all trials (non-negative int).
      calibration_trials: trials per hypothesis used only to estimate the noise level for the
        attack (disjoint from the audited trials); default trials/50 clipped to [200, 2000].
      progress: show a progress bar (None: when stderr is a terminal).

    Raises:
      ValueError: unknown name or bad value; ``UnavailableTarget`` for a missing solver.
    """
    from accountants import ExactGaussianAccountant, epsilon_by_accountant
    from audits.stats import clopper_pearson_audit, gdp_audit
    from audits.verdict import assemble_report

    target = get_target(name)
    _check(delta, "delta", 0, 1)
    _check(confidence, "confidence", 0, 1)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    n = (target.quick_trials if quick else target.trials) if trials is None else trials
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 10:
        raise ValueError(f"trials must be an integer >= 10 (per hypothesis), got {trials!r}")
    n = int(n)
    if epsilon is None and target.default_epsilon is not None:
        epsilon = target.default_epsilon(delta)
    if epsilon is not None:
        _check(epsilon, "epsilon", 0, math.inf)
    if target.run is not None:  # a target with its own neighbours, attack and bounds
        start = time.perf_counter()
        report, attacks = target.run(
            epsilon=epsilon,
            delta=delta,
            confidence=confidence,
            trials=n,
            seed=int(seed),
            quick=quick,
            progress=progress,
        )
        report["runtime_seconds"] = round(time.perf_counter() - start, 1)
        return report, attacks
    if target.build is None:  # get_target returns only entries with a build or a run
        raise UnavailableTarget(f"{name}: {target.unavailable}")
    if epsilon is None:  # every build entry has a default_epsilon
        raise ValueError(f"{name}: epsilon is required (the entry has no default)")
    start = time.perf_counter()
    try:
        setup = target.build(epsilon, delta, quick)
        nb, attack, agent = setup.neighbours, setup.attack, setup.neighbours.agent
        ledger = _run(setup, nb.problem_in, [0], agent).ledger  # validates the plan; fixes the releases
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"{name}: cannot build the audit with epsilon={epsilon!r}, delta={delta!r}: {error}"
        ) from error
    root_in, root_out, cal_in, cal_out = np.random.SeedSequence(seed).spawn(4)

    from tqdm import tqdm

    n_cal = calibration_trials if calibration_trials is not None else min(2000, max(200, n // 50))
    total = 2 * n + (2 * n_cal if setup.calibrate else 0)
    bar = tqdm(
        total=total,
        desc=f"audit {name}",
        unit="trial",
        disable=(None if progress is None else not progress),
        file=sys.stderr,
        leave=False,
    )
    diagnostics: dict[str, Any] = {}
    shadows: tuple[np.ndarray, np.ndarray] | None = None
    if setup.calibrate and getattr(attack, "noise", None) == "calibrated":
        r_in = _run(setup, nb.problem_in, _seeds(cal_in, n_cal), agent)
        bar.update(n_cal)
        r_out = _run(setup, nb.problem_out, _seeds(cal_out, n_cal), agent)
        bar.update(n_cal)
        attack.calibrate(r_in, r_out)
        shadows = (r_in.model, r_out.model)
        claimed = attack.claimed_sigma(r_in)
        mu2 = attack.statistics(r_in)[1] ** 2 / claimed[:, None] ** 2
        diagnostics["calibration_trials"] = n_cal
        diagnostics["sigma_estimate_over_claimed"] = (attack.sigma_estimate / claimed).tolist()
        diagnostics["canary_mu_squared_mean"] = float(mu2.sum(axis=0).mean())
    seeds_in, seeds_out = _seeds(root_in, n), _seeds(root_out, n)
    parts_in: list[np.ndarray] = []
    parts_out: list[np.ndarray] = []
    accuracy: list[np.ndarray] = []
    objective: list[np.ndarray] = []
    models_in: list[np.ndarray] = []
    models_out: list[np.ndarray] = []
    for lo in range(0, n, CHUNK):
        hi = min(lo + CHUNK, n)
        r_in = _run(setup, nb.problem_in, seeds_in[lo:hi], agent)
        parts_in.append(attack.score(r_in))
        models_in.append(r_in.model)
        if nb.problem_in.has_test:
            accuracy.append(nb.problem_in.accuracy(r_in.model))
        objective.append(nb.problem_in.objective(r_in.model))
        bar.update(hi - lo)
        r_out = _run(setup, nb.problem_out, seeds_out[lo:hi], agent)
        parts_out.append(attack.score(r_out))
        models_out.append(r_out.model)
        bar.update(hi - lo)
    bar.close()
    scores_in, scores_out = np.concatenate(parts_in), np.concatenate(parts_out)

    from attacks.base import AttackScores

    scores = AttackScores(
        attack.name,
        scores_in,
        scores_out,
        white_box=bool(getattr(attack, "white_box", True)),
        metadata=attack.metadata(),
    )
    all_attacks = [scores] + _black_box(nb, np.concatenate(models_in), np.concatenate(models_out), shadows)
    gdp = gdp_audit(scores_in, scores_out, delta=delta, confidence=confidence)
    cp = clopper_pearson_audit(scores_in, scores_out, delta=delta, confidence=confidence)
    lower = {"gdp": gdp, "clopper_pearson": cp}
    key = (name, repr(setup.solver), float(delta), agent)
    if key not in _UPPER_CACHE:  # the releases depend only on the solver's public parameters
        by_accountant = epsilon_by_accountant(ledger, delta, participant=agent)
        exact = ExactGaussianAccountant()
        exact.register_ledger(ledger)
        _UPPER_CACHE[key] = ({k: v[agent] for k, v in by_accountant.items()}, exact.get_mu(agent))
    upper, exact_mu = _UPPER_CACHE[key]
    params = setup.solver.get_params()
    utility: dict[str, float] = {}
    if accuracy:
        acc = np.concatenate(accuracy)
        utility["test_accuracy"] = float(acc.mean())
        utility["test_accuracy_std"] = float(acc.std())
    utility["objective"] = float(np.concatenate(objective).mean())
    reference = _non_private(setup)
    if reference is not None:
        utility.update(reference)
    report = assemble_report(
        solver=name,
        solver_object=setup.solver,
        trials=n,
        delta=delta,
        confidence=confidence,
        seed=seed,
        lower=lower,
        upper=upper,
        claimed=setup.claimed_accountant,
        claim=setup.claim,
        attacks=all_attacks,
        epsilon_meaning=(
            f"--epsilon = {epsilon:.6g} is the per-iteration ε of the paper's classic Gaussian calibration "
            f"(z = sqrt(2 ln(1.25/δ))/ε); every ε below is the total over {params.get('n_iterations')} "
            f"iterations for the target agent at δ = {delta:g}"
        ),
        canary=nb.description,
        utility=utility,
        epsilon_per_iteration=float(epsilon),
        exact_mu=exact_mu,
        diagnostics=diagnostics,
    )
    report["runtime_seconds"] = round(time.perf_counter() - start, 1)
    return report, all_attacks


def _non_private(setup: AuditSetup) -> dict[str, float] | None:
    """Test accuracy and objective of the same solver without noise (ε = ∞), one run on D."""
    import dataclasses

    try:
        solver = dataclasses.replace(setup.solver, epsilon=math.inf)
        result = solver.run(
            setup.neighbours.problem_in, seed=0, accountants=(), record_history=False, record_transcript=False
        )
    except (TypeError, ValueError):  # a solver without an ε = ∞ mode: no reference
        return None
    problem = setup.neighbours.problem_in
    out = {"objective_nonprivate": float(problem.objective(result.model))}
    if problem.has_test:
        out["test_accuracy_nonprivate"] = float(problem.accuracy(result.model))
    return out


def _black_box(
    nb: Neighbours,
    models_in: np.ndarray,
    models_out: np.ndarray,
    shadows: tuple[np.ndarray, np.ndarray] | None,
) -> list[AttackScores]:
    """Loss-threshold and LiRA scores on the released final models (LiRA needs shadow models)."""
    from attacks.blackbox import LiRA, LossThreshold

    x, loss = nb.canary, nb.problem_in.loss
    out = [LossThreshold(x, 1.0, loss).attack(models_in, models_out)]
    if shadows is not None:
        out.append(LiRA(x, 1.0).fit(*shadows).attack(models_in, models_out))
    return out


def _check(value: object, name: str, low: float, high: float) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not (low < value < high)
    ):
        interval = f"({low:g}, {'∞' if math.isinf(high) else format(high, 'g')})"
        raise ValueError(f"{name} must be a number in {interval}, got {value!r}")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dp-audit" if Path(sys.argv[0]).name == "dp-audit" else "python -m audits.run",
        description="Audit a solver's privacy claim: neighbouring data sets with a worst-case canary, "
        "many trials, the strongest attack, empirical lower bounds on ε against every accountant's upper bound.",
        epilog="Exit status: 0 consistent, 1 VIOLATION, 2 usage error. See README, 'Reading an audit report'.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("name", nargs="?", help="solver to audit (see --list)")
    p.add_argument("--list", action="store_true", help="list the solver names with a description and exit")
    p.add_argument(
        "--trials",
        type=int,
        help="trials per hypothesis (default per solver, 100000 for dpadmm; --quick: a small number)",
    )
    p.add_argument(
        "--epsilon",
        type=float,
        help="privacy level in the paper's terms, per solver (see --list): dpadmm: per-iteration ε of "
        "the classic Gaussian calibration (default: exact μ = 1, total ε = 4.377 at δ = 1e-5); "
        "radmm/mradmm/ppadmm/dvp: the paper's total β (default 6); sharing-*: per-iteration ε of "
        "Theorem 1; pdml: the users' label ε",
    )
    p.add_argument("--delta", type=float, default=1e-5, help="δ of the calibration and of every bound (default 1e-5)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence of the lower bounds (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="root seed of the trials (default 0)")
    p.add_argument(
        "--out",
        type=Path,
        help="output directory (default audit-results/NAME/, with --quick audit-results/NAME-quick/)",
    )
    p.add_argument("--quick", action="store_true", help="a small run for smoke tests")
    p.add_argument("--no-figures", action="store_true", help="skip the figures")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def check_output(out: Path) -> Path:
    """The absolute path of the output directory ``out``, checked before any work is done: it is a
    directory that can be written, or it can be created (nothing is created here).

    Raises:
      ValueError: ``out`` or one of its ancestors is a file, or the directory cannot be written.
    """
    out = out.expanduser().absolute()
    existing = next(path for path in (out, *out.parents) if path.exists())
    if not existing.is_dir():
        raise ValueError(f"--out {out} cannot be a directory: {existing} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"--out {out} cannot be written: {existing} is not writable")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list:
        for target in TARGETS.values():
            status = "" if target.available else f" [{target.unavailable}]"
            print(f"{target.name}\n    {target.description}{status}")
        return 0
    if args.name is None:
        parser.error("a solver name is required (see --list)")
    try:
        get_target(args.name)
        default = Path("audit-results") / (f"{args.name}-quick" if args.quick else args.name)
        out = check_output(args.out if args.out is not None else default)
        report, attacks = run_audit(
            args.name,
            trials=args.trials,
            epsilon=args.epsilon,
            delta=args.delta,
            confidence=args.confidence,
            seed=args.seed,
            quick=args.quick,
            progress=False if args.no_progress else None,
        )
    except (UnavailableTarget, ValueError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    from audits.report import format_table, write_figures, write_report

    print(format_table(report))  # the verdict is shown before anything can fail to be written
    print(f"runtime: {report['runtime_seconds']} s")
    try:
        if not args.no_figures:
            report["figures"] = write_figures(report, attacks, out)
        paths = write_report(report, out)
    except OSError as error:
        print(
            f"{parser.prog}: error: the audit ran, but its report could not be written to {out}: {error}",
            file=sys.stderr,
        )
        return 2
    print(
        f"wrote {paths['md']}, {paths['json']}"
        + (f" and {len(report.get('figures', []))} figures" if report.get("figures") else "")
    )
    return 1 if report["verdict"] == "VIOLATION" else 0


if __name__ == "__main__":
    sys.exit(main())
