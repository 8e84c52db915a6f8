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
    python -m audits.run mypkg.audit:target            # a target of another package (audits.registry)

``--epsilon`` sets the privacy level in the paper's own terms, per solver (``--list`` says which):
for ``dpadmm`` and ``dpadmm-naive`` the per-iteration ε of the classic Gaussian calibration (default:
the exact accountant's μ = 1, a total ε of 4.377 at δ = 1e-5); for ``radmm``, ``mradmm``, ``ppadmm``
and ``dvp`` the paper's total β (default 6); for ``sharing-*`` the per-iteration ε of Theorem 1;
for ``pdml`` the users' label ε. The report's ``epsilon_meaning`` repeats it. Several values
(``--epsilon 0.3 0.6 1``) run one audit per value, each into its own folder ``OUT/epsilon-VALUE/``, and
draw them together in ``OUT/privacy_utility.png``.
A stopped audit (a crash, a signal, SIGKILL) continues with ``--resume OUT``: every finished chunk was
recorded in ``OUT/.checkpoint/`` (removed once the audit completes), and the resumed audit gives the
same report (:mod:`audits.checkpoint`). ``--backend ray [--address ADDR]`` runs the trials as Ray tasks
on a cluster (:mod:`audits.ray_backend`), with the same report. ``--resolution R`` rounds every attack's scores
to multiples of R (:func:`audits.chunk_histograms.rounded`; the bounds stay valid); with ``--histograms`` the
driver's memory is then bounded by the grid, not the trials.
Exit status: 0 consistent, 1 VIOLATION (in any audit; no other path exits 1), 2 usage error (unknown
name, bad value, an output that cannot be written), 3 internal error (one line on stderr
naming the error and the file its traceback was saved to), 128 + N when stopped by signal N (the worker
processes are stopped first, :mod:`audits.workers`). Every path printed is absolute.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shlex
import shutil
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from accountants.constraints import PROBABILITY, Positive
from accountants.crash import internal_error
from accountants.logs import log_to_stderr
from accountants.version import __version__
from audits.registry import TARGETS, AuditTarget, as_target, get_target, installed_targets
from audits.workers import Terminated, signals_raise

if TYPE_CHECKING:  # the spec and the runner are imported on first use
    from audits.spec import AuditSpec
    from audits.verdict import AuditReport

__all__ = ["EPILOG", "EPSILON", "build_spec", "check_options", "check_output", "main", "run_audit"]


#: What ``--epsilon`` must be (each target then says which values it accepts).
EPSILON = Positive()


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
    checkpoint: Path | None = None,
    backend: str = "processes",
    address: str | None = None,
    histograms: bool = False,
    resolution: float | None = None,
) -> AuditReport:
    """Run the audit ``name``: the target resolved and its spec built once (:func:`build_spec`), then run
    (:func:`audits.runner.run_spec`); return its :class:`audits.AuditReport`.

    Args:
      name: a registry name (``python -m audits.run --list``) or ``module:attribute``
        (:func:`audits.registry.get_target`).
      epsilon: the target's privacy parameter (its description says which; None: its default).
      delta: δ of the calibration and of every bound, in (0, 1).
      trials, confidence, seed, quick, calibration_trials, progress, checkpoint, backend, address, histograms,
        resolution: as for :func:`audits.runner.run_spec`.

    Raises:
      ValueError: unknown name or a value out of range. TypeError: a value of a wrong type (the message names
        the argument and what it must be, as :func:`audits.audit`'s).
    """
    from audits.runner import run_spec

    target = get_target(name)
    check_options(trials=trials, delta=delta, confidence=confidence, seed=seed, resolution=resolution)
    return run_spec(
        build_spec(target, epsilon, delta, quick),
        trials=None if trials is None else int(trials),
        confidence=confidence,
        seed=int(seed),
        quick=quick,
        calibration_trials=calibration_trials,
        progress=progress,
        checkpoint=checkpoint,
        backend=backend,
        address=address,
        histograms=histograms,
        resolution=resolution,
    )


def check_options(
    *, trials: int | None, delta: float, confidence: float, seed: int, resolution: float | None = None
) -> None:
    """Check the options of :func:`run_audit` that every target shares against their declarations
    (:data:`audits.runner.TRIALS`, :data:`audits.runner.SEED`, :data:`audits.runner.RESOLUTION`,
    ``accountants.constraints.PROBABILITY``), in their message format.

    Raises:
      TypeError: the first value of a wrong type. ValueError: the first value out of range (the message names
        the argument and what it must be).
    """
    from audits.runner import RESOLUTION, SEED, TRIALS

    PROBABILITY.check(delta, "delta")
    PROBABILITY.check(confidence, "confidence")
    SEED.check(seed, "seed")
    if trials is not None:
        TRIALS.check(trials, "trials")
    if resolution is not None:
        RESOLUTION.check(resolution, "resolution")


def build_spec(target: AuditTarget, epsilon: float | None, delta: float, quick: bool) -> AuditSpec:
    """The audit spec of ``target`` (:func:`audits.registry.get_target`) at ``epsilon`` (None: the
    target's default) and ``delta``, checked by one run of its solver on D
    (:func:`audits.runner.solver_ledger`), whose ledger it carries.

    Raises:
      ValueError: a value the target refuses (the message names the target and the value).
    """
    from audits.runner import solver_ledger

    if epsilon is not None:
        EPSILON.check(epsilon, "epsilon")
    try:
        spec = target.spec(epsilon, delta, quick)
        return dataclasses.replace(spec, ledger=solver_ledger(spec))  # checks that the solver runs on D
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"{target.name}: cannot build the audit with epsilon={epsilon!r}, delta={delta!r}: {error}"
        ) from error


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error on one line (``prog: error: message``) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


#: The --help epilog: the exit statuses and what a module:attribute name does.
EPILOG = (
    "Exit status: 0 consistent, 1 VIOLATION (the only way to exit 1), 2 usage error (bad name or value, an --out "
    "that cannot be written, a report that cannot be written), 3 internal error (one line naming the error and "
    "the file its traceback was saved to), 128 + N when stopped by signal N (130 Ctrl-C, 143 SIGTERM; the "
    "worker processes are stopped first). A NAME of the form module:attribute imports that module and runs its "
    "code, from the current directory or the module path. How to read a report: the audits guide of the "
    "documentation (docs/guides/audits.md, 'Reading an audit report')."
)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="dp-audit" if Path(sys.argv[0]).name == "dp-audit" else "python -m audits.run",
        description="Audit a solver's privacy claim: neighbouring data sets with a worst-case canary, "
        "many trials, the strongest attack, empirical lower bounds on ε against every accountant's upper bound.",
        epilog=EPILOG,
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
        nargs="+",
        metavar="EPSILON",
        help="privacy level in the paper's terms, per solver (see --list); several values run one audit each "
        "into OUT/epsilon-VALUE/ and draw OUT/privacy_utility.png. dpadmm: per-iteration ε of "
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
    p.add_argument(
        "--no-progress",
        "--quiet",
        action="store_true",
        help="no progress bar (by default it shows, when standard error is a terminal, the trials done, their "
        "rate, the time left and the tightness reached so far: the best deciding lower bound of the trials "
        "read, over the claimed ε)",
    )
    p.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help=f"continue the stopped audit whose output folder is DIR from the chunks it recorded in DIR/{CHECKPOINT} "
        "(same name and options; the same report as an uninterrupted run)",
    )
    p.add_argument(
        "--backend",
        choices=("processes", "ray"),
        default="processes",
        help="where the trials run: processes of this machine (default) or Ray tasks (pip install '.[ray]')",
    )
    p.add_argument("--address", help="with --backend ray: the cluster's address (default: start a local Ray)")
    p.add_argument(
        "--histograms",
        action="store_true",
        help="keep each attack's scores as histograms: the driver's memory grows with the distinct scores, not the "
        "trials (the same report)",
    )
    p.add_argument(
        "--resolution",
        type=float,
        metavar="R",
        help="round every attack's audited scores (one number a trial) to multiples of R before any bound, metric "
        "or figure: a function of the release fixed before the trials, so every lower bound stays valid; it can "
        "only cost power (the thresholds inside a step). With --histograms the driver's memory is then bounded by "
        "the grid's points the scores reach, not the trials (what keeps a continuous score, such as dpadmm's, "
        "within bounds at 10^8 trials); without it the rounded scores are kept one per trial (the same report "
        "either way). The report states R (score_resolution); default: the scores as computed",
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="log the audit's stages (INFO records) to standard error"
    )
    return p


def check_output(out: Path) -> Path:
    """The absolute path of the output directory ``out``, checked before any work is done by creating
    (and removing) a file in it, or in its nearest existing ancestor when it does not exist yet (no
    directory is created here).

    Raises:
      ValueError: ``out`` or one of its ancestors is a file, or no file can be created there.
    """
    out = out.expanduser().absolute()
    existing = next(path for path in (out, *out.parents) if path.exists())
    if not existing.is_dir():
        raise ValueError(f"--out {out} cannot be a directory: {existing} is a file")
    try:
        descriptor, probe = tempfile.mkstemp(prefix=".dp-audit-probe-", dir=existing)
        os.close(descriptor)
        os.unlink(probe)
    except OSError as error:
        raise ValueError(f"--out {out} cannot be written: no file can be created in {existing} ({error})") from error
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """The command (module docstring): its exit status, never a traceback on the console.

    An exception that is not a usage error is an internal error: one line on stderr names it and the
    file its traceback was saved to, and the status is 3, so that a crash is never read as a verdict.
    """
    parser = _parser()
    try:
        with signals_raise():
            args = parser.parse_args(argv)
            args.command = f"{parser.prog} {shlex.join(sys.argv[1:] if argv is None else argv)}"  # report.html
            with log_to_stderr(args.verbose):
                return _main(parser, args)
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted (SIGINT): the audit was stopped, nothing more was written", file=sys.stderr)
        return 128 + signal.SIGINT
    except Terminated as stop:
        print(f"{parser.prog}: {stop}: the audit was stopped, nothing more was written", file=sys.stderr)
        return 128 + stop.signum
    except Exception as error:
        print(f"{parser.prog}: internal error: {internal_error(error, 'dp-audit')}", file=sys.stderr)
        return 3


def _main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.list:
        for target in TARGETS.values():
            print(f"{target.name}\n    {target.description}")
        for entry_name, entry in installed_targets().items():
            try:
                description = as_target(entry_name, entry.load()).description
            except Exception as error:  # another package's code: whatever it raises, the listing goes on
                description = f"[cannot load {entry.value}: {type(error).__name__}: {error}]"
            print(f"{entry_name}\n    {description} (from {entry.value})")
        return 0
    if args.name is None:
        parser.error("a solver name is required (see --list)")
    if os.getcwd() not in sys.path and "" not in sys.path:  # module:attribute names resolve as with python -m
        sys.path.insert(0, os.getcwd())
    epsilons: list[float | None] = list(args.epsilon) if args.epsilon else [None]
    try:
        target = get_target(args.name)
        if len(set(epsilons)) != len(epsilons):
            raise ValueError(f"--epsilon values must be distinct, got {' '.join(f'{e:g}' for e in args.epsilon)}")
        folder = args.name.replace(":", "-")
        default = Path("audit-results") / (f"{folder}-quick" if args.quick else folder)
        out = check_output(_output_folder(args, default))
        _check_run_options(args, out, epsilons)
        check_options(
            trials=args.trials, delta=args.delta, confidence=args.confidence, seed=args.seed, resolution=args.resolution
        )
        # every value is checked before any trial runs
        specs = [build_spec(target, epsilon, args.delta, args.quick) for epsilon in epsilons]
    except ValueError as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    reports = []
    for epsilon, spec in zip(epsilons, specs, strict=True):
        folder_out = out if len(epsilons) == 1 else out / f"epsilon-{epsilon:g}"
        report = _audit_and_write(parser.prog, args, spec, folder_out)
        if report is None:
            return 2
        reports.append(report)
    if len(reports) > 1 and not args.no_figures:
        from audits.report import write_privacy_utility

        try:
            path = write_privacy_utility(reports, out, [f"--epsilon {e:g}" for e in args.epsilon])
        except OSError as error:
            print(f"{parser.prog}: error: privacy_utility.png could not be written to {out}: {error}", file=sys.stderr)
            return 2
        print(f"wrote {path}" if path is not None else "no utility metric shared by the audits: no privacy_utility.png")
    return 1 if any(report["verdict"] == "VIOLATION" for report in reports) else 0


#: The folder, inside an audit's output folder, where the command records its finished chunks.
CHECKPOINT = ".checkpoint"


def _output_folder(args: argparse.Namespace, default: Path) -> Path:
    if args.resume is None:
        return Path(args.out) if args.out is not None else default
    if args.out is not None and args.out.expanduser().absolute() != args.resume.expanduser().absolute():
        raise ValueError(f"--resume {args.resume} continues the audit written to that folder: drop --out {args.out}")
    return Path(args.resume)


def _check_run_options(args: argparse.Namespace, out: Path, epsilons: Sequence[float | None]) -> None:
    """--resume needs a stopped audit's checkpoint in ``out``, a run without it none; --address needs Ray."""
    folders = [out if len(epsilons) == 1 else out / f"epsilon-{e:g}" for e in epsilons]
    found = [folder / CHECKPOINT for folder in folders if (folder / CHECKPOINT).exists()]
    if args.resume is not None and not found:
        raise ValueError(f"--resume {out}: no stopped audit there (no {CHECKPOINT} folder in it)")
    if args.resume is None and found:
        raise ValueError(
            f"{found[0]} holds the chunks of a stopped audit: continue it with --resume {out}, or remove that folder"
        )
    if args.address is not None and args.backend != "ray":
        raise ValueError(f"--address {args.address} needs --backend ray")
    from audits.ray_backend import check_backend

    check_backend(args.backend)


def _audit_and_write(prog: str, args: argparse.Namespace, spec: AuditSpec, out: Path) -> dict[str, Any] | None:
    """Run the command line's audit ``spec``, print its table, write its report into ``out`` (all files
    or none, :func:`audits.report.write_audit`); return the report, or None after printing why it could
    not be run or written."""
    from audits.report import format_table, write_audit
    from audits.runner import run_spec

    missing = [folder for folder in (out, *out.parents) if not folder.exists()]  # the checkpoint creates them
    try:
        result = run_spec(
            spec,
            trials=args.trials,
            confidence=args.confidence,
            seed=args.seed,
            quick=args.quick,
            progress=False if args.no_progress else None,
            checkpoint=out / CHECKPOINT,
            backend=args.backend,
            address=args.address,
            histograms=args.histograms,
            resolution=args.resolution,
        )
    except ValueError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return None
    shutil.rmtree(out / CHECKPOINT)  # the audit is complete: its chunks are in the report
    for folder in missing:  # nothing is left where the report is not written
        folder.rmdir()
    report = dict(result.report)
    print(format_table(report))  # the verdict is shown before anything can fail to be written
    print(f"runtime: {report['runtime_seconds']} s")
    try:
        paths = write_audit(report, list(result.attacks), out, figures=not args.no_figures, command=args.command)
    except OSError as error:
        print(
            f"{prog}: error: the audit ran, but its report could not be written to {out} (nothing was written "
            f"there): {error}",
            file=sys.stderr,
        )
        return None
    figures = report.get("figures", [])
    written = f"wrote {paths['md']}, {paths['json']}, {paths['html']}"  # report.html: the page to open
    print(written + (f" and {len(figures)} figures in {out}" if figures else ""))
    return report


if __name__ == "__main__":
    sys.exit(main())
