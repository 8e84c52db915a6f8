"""Killing an audit leaves no process behind: the kill test of the audit's worker processes.

Each round starts ``DP_AUDIT_WORKERS=2 python -m audits.run dpadmm --out DIR`` (Linux), waits until
its two forked chunk workers run, sends the parent SIGKILL or SIGTERM, and counts the processes of the
audit (the parent and every descendant seen before the signal) still alive 5 s later (zombies, which
run nothing, do not count). After SIGTERM the parent must also exit with 128 + 15 and print one line on
stderr. The report lists, per signal, the rounds, the processes left and the slowest exit::

  python benchmarks/bench_audit_kill.py [--rounds 10] [--trials 100000] [--target dpadmm]

Exit status 0 when no process was left in any round, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Seconds after the signal by which every process of the audit must be gone.
GRACE_SECONDS = 5.0
#: Seconds to wait for the workers to start.
START_TIMEOUT = 120.0


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent id) of process ``pid`` from /proc, or None if it does not exist."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])


def descendants(root: int) -> set[int]:
    """The living descendants of process ``root``."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None and stat[0] != "Z":
                parents[int(entry)] = stat[1]
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    """The processes of ``pids`` that still exist and are not zombies."""
    return {pid for pid in pids if (stat := _stat(pid)) is not None and stat[0] != "Z"}


def kill_round(
    signum: int, trials: int, target: str = "dpadmm", workers: int = 2
) -> tuple[int, float, int | None, str]:
    """One round (module docstring) on ``target``: (processes left after the grace period, seconds until
    the last one exited, the parent's exit status, its stderr)."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "audits.run", target, "--trials", str(trials), "--out", out, "--no-progress"]
        environment = {**os.environ, "DP_AUDIT_WORKERS": str(workers)}
        process = subprocess.Popen(
            command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + START_TIMEOUT
        family = descendants(process.pid)
        while len(family) < workers:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"the audit's {workers} workers did not start (status {process.poll()})")
            time.sleep(0.05)
            family = descendants(process.pid)
        family.add(process.pid)
        process.send_signal(signum)
        sent = time.monotonic()
        _, stderr = process.communicate(timeout=GRACE_SECONDS + 60)
        while alive(family) and time.monotonic() < sent + GRACE_SECONDS:
            time.sleep(0.02)
        return len(alive(family)), time.monotonic() - sent, process.returncode, stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="rounds per signal (default 10)")
    parser.add_argument("--trials", type=int, default=100_000, help="trials per hypothesis of each audit")
    parser.add_argument("--target", default="dpadmm", help="the audit target (default dpadmm)")
    args = parser.parse_args(argv)
    if not sys.platform.startswith("linux"):
        print("the kill test reads /proc: Linux only", file=sys.stderr)
        return 2
    failed = 0
    for signum in (signal.SIGKILL, signal.SIGTERM):
        left, slowest, bad_exits = 0, 0.0, []
        for _ in range(args.rounds):
            survivors, seconds, status, stderr = kill_round(signum, args.trials, args.target)
            left += survivors
            slowest = max(slowest, seconds)
            lines = stderr.strip().splitlines()
            if signum == signal.SIGTERM and (status != 128 + signum or len(lines) != 1 or "Traceback" in stderr):
                bad_exits.append((status, stderr.strip()[:200]))
        failed += left + len(bad_exits)
        print(
            f"{signal.Signals(signum).name}: {args.rounds} rounds, {left} processes left after {GRACE_SECONDS:g} s, "
            f"slowest exit {slowest:.2f} s" + (f", bad exits {bad_exits}" if bad_exits else "")
        )
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
