"""The driver's peak memory of an audit of many trials, measured where it is spent: after the trials.

A fresh process runs an audit whose trials cost next to nothing (a Gaussian mean drawn from one
generator per chunk) with three score attacks, as ``dpadmm`` has, so that the measurement shows what the
driver holds and computes from the scores (the attacks' scores, the lower bounds' threshold selection,
the attack metrics) rather than the solver. The scores are continuous, as dpadmm's white-box
log-likelihood ratio is: as many distinct values as trials. The trials run in worker processes as the
command's do (``--workers``, default the command's), and the driver reads their finished chunks. It prints
the trials per hypothesis, the driver's peak resident memory (``ru_maxrss``) in MiB, and the seconds::

  python benchmarks/bench_audit_memory.py [--trials 10000000] [--figures] [--histograms] [--grid 0.001] [--workers 1]
  python benchmarks/bench_audit_memory.py --command [--trials 100000000] [--histograms] [--grid 0.001]

``--histograms`` keeps each attack's scores as histograms (``run_spec(histograms=True)``,
``audits.chunk_histograms``), whose memory is in the distinct scores: ``--grid G`` rounds every score to a
multiple of G (``run_spec(resolution=G)``, ``audits.chunk_histograms.rounded``), in both modes, so that the
two measure the same scores. It then also prints the distinct scores each histogram holds.

``--command`` runs the audit as a user does, through the command in this process (``python -m audits.run
benchmarks.bench_audit_memory:target``, run from the repository's root, ``--grid`` given as its
``--resolution``): its checkpoint files (written beside the report, removed at the end) and its report
included; the workers are the command's.

Measured with ``--command`` (``nice -n 5`` on the shared 2-core machine): at 10^7 trials per hypothesis the
driver's peak is 162 MiB with ``--histograms --grid 0.001``, 768 MiB with ``--grid 0.001`` alone, 766 MiB with
neither and 3,345 MiB with ``--histograms`` alone (a histogram of continuous scores holds a value per trial); at
10^8 with ``--histograms --grid 0.001``, 602 MiB in 17 minutes (ε ≥ 4.0930 Clopper–Pearson, 4.3731 GDP).

``--figures`` also writes the report and its figures (the ROC figure computes each attack's curve once, in
bounded memory, and draws a few thousand of its vertices: ``audits.figure_roc``).
Exit status 0 when the peak is at most ``--limit-mib`` (default 1024), 1 otherwise.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

#: Attacks of the audit: as many as dpadmm's (white-box NP, loss threshold, LiRA).
ATTACKS = 3


class ChunkMean:
    """A Gaussian mean, one generator per chunk: trials that cost next to nothing."""

    def run(self, problem: float, *, seeds: Any = None, seed: int = 0, **options: Any) -> SimpleNamespace:
        seeds = [np.random.SeedSequence(seed)] if seeds is None else seeds
        return SimpleNamespace(model=np.random.default_rng(seeds[0]).normal(problem, 1.0, len(seeds)), info={})


def _scaled(factor: float) -> Any:
    return lambda result: factor * result.model


def target(epsilon: float | None = None, delta: float = 1e-5, quick: bool = False) -> Any:
    """The audited Gaussian mean with its three attacks (a command-line target: ``--command``)."""
    from audits import AuditSpec, Claim, ScoreAttack

    return AuditSpec(
        name="chunk-mean",
        solver=ChunkMean(),
        problem_in=1.0,
        problem_out=0.0,
        participant="user",
        attacks=tuple(ScoreAttack(f"scaled by {k + 1}", _scaled(k + 1.0)) for k in range(ATTACKS)),
        claim=Claim(statement="1-GDP, claimed as ε = 5", delta=delta, epsilon=5.0, noise="gaussian"),
        canary="the mean moves by 1",
        epsilon_meaning="no privacy parameter",
        accounted=False,
    )


def _command(args: argparse.Namespace) -> dict[str, Any]:
    """The report of the command's audit of :func:`target` with the benchmark's options."""
    import json

    from audits.run import main

    with tempfile.TemporaryDirectory() as folder:
        argv = ["benchmarks.bench_audit_memory:target", "--out", folder]
        argv += ["--trials", str(args.trials), "--no-progress", *([] if args.figures else ["--no-figures"])]
        argv += [
            *(["--histograms"] if args.histograms else []),
            *(["--resolution", str(args.grid)] if args.grid else []),
        ]
        if main(argv) not in (0, 1):
            raise SystemExit(f"the command failed: python -m audits.run {' '.join(argv)}")
        report: dict[str, Any] = json.loads((Path(folder) / "report.json").read_text(encoding="utf-8"))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10_000_000, help="trials per hypothesis")
    parser.add_argument("--figures", action="store_true", help="also write the report and its figures")
    parser.add_argument("--limit-mib", type=float, default=1024.0, help="the peak the driver must stay within")
    parser.add_argument("--histograms", action="store_true", help="keep the scores as histograms")
    parser.add_argument(
        "--grid", type=float, default=None, help="round every score to a multiple of this (the audit's resolution)"
    )
    parser.add_argument(
        "--workers", type=int, default=None, help="worker processes of the trials (default: the command's, 2 here)"
    )
    parser.add_argument("--command", action="store_true", help="run the audit through python -m audits.run")
    args = parser.parse_args(argv)
    if args.command and args.workers is not None:
        parser.error("--workers is the command's with --command (DP_AUDIT_WORKERS sets it)")
    from audits.histogram_scores import HistogramScores
    from audits.runner import run_spec

    start = time.perf_counter()
    kept: list[HistogramScores] = []
    if args.command:
        lower = _command(args)["epsilon_lower"]
    else:
        result = run_spec(
            target(),
            trials=args.trials,
            workers=args.workers,
            progress=False,
            histograms=args.histograms,
            resolution=args.grid,
        )
        if args.figures:
            from audits.report import write_audit

            with tempfile.TemporaryDirectory() as folder:
                write_audit(dict(result.report), list(result.attacks), Path(folder), figures=True)
        kept = [a for a in result.attacks if isinstance(a, HistogramScores)]
        lower = result.report["epsilon_lower"]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    seconds = time.perf_counter() - start
    mode = ("command, " if args.command else "") + ("histograms" if args.histograms else "scores")
    print(
        f"trials per hypothesis {args.trials:,} ({mode}, grid {args.grid}); driver peak RSS {peak:.0f} MiB "
        f"(limit {args.limit_mib:.0f}); {seconds:.0f} s; lower bounds {lower}"
    )
    if kept:
        sizes = [(h.values.size, h.counts.size) for a in kept for h in (a.histogram_in, a.histogram_out)]
        print(f"distinct scores per histogram (D, D′ per attack): {[v for v, _ in sizes]}")
    return 0 if peak <= args.limit_mib else 1


if __name__ == "__main__":
    sys.exit(main())
