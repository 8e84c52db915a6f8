"""Killing an audit leaves no process behind (audits.workers, audits.chunks).

The kill test proper is ``benchmarks/bench_audit_kill.py``: it starts ``python -m audits.run`` with two
worker processes, waits for both, sends the parent SIGKILL or SIGTERM, and counts the audit's processes
still alive 5 s later. Here it runs twice per signal on a target whose runs sleep (quick), and 10 times
per signal on ``dpadmm`` (slow).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from audits.chunks import ChunkJob, run_chunks
from audits.workers import Terminated, die_with_parent, signals_raise

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_audit_kill.py"
HERE = Path(__file__).resolve().parent

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and uses prctl")


def kill_test(rounds: int, target: str, trials: int) -> str:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)])}
    command = [sys.executable, str(SCRIPT), "--rounds", str(rounds), "--target", target, "--trials", str(trials)]
    done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.slow
@linux_only
def test_sigkill_and_sigterm_of_a_running_audit_leave_no_process():
    printed = kill_test(2, "slow_target:build", 20_000)
    assert "SIGKILL: 2 rounds, 0 processes left after 5 s" in printed
    assert "SIGTERM: 2 rounds, 0 processes left after 5 s" in printed


@linux_only
@pytest.mark.slow
def test_ten_sigkills_and_ten_sigterms_of_dpadmm_audits_leave_no_process():
    printed = kill_test(10, "dpadmm", 100_000)
    assert "SIGKILL: 10 rounds, 0 processes left" in printed and "SIGTERM: 10 rounds, 0 processes left" in printed


@linux_only
def test_a_worker_whose_parent_died_before_it_was_bound_exits_at_once():
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # the worker: its "parent" is a process id it does not have
        os.close(reader)
        try:
            die_with_parent(os.getppid() + 1_000_000)
        finally:
            os.write(writer, b"survived")
            os._exit(0)
    os.close(writer)
    _, status = os.waitpid(child, 0)
    assert os.read(reader, 100) == b"" and os.waitstatus_to_exitcode(status) == 1


class _SleepySolver:
    def run(self, problem, *, seeds, **options):
        time.sleep(0.3)
        return type("Result", (), {"model": np.zeros(len(seeds)), "info": None})()


class _Spec:
    solver = _SleepySolver()
    problem_in = problem_out = None
    run_options: dict = {}
    quiet_floating_point = False
    utility = None
    attacks = ()


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="workers are forked")
def test_an_exception_in_the_parent_terminates_the_workers_before_it_propagates():
    seeds = np.random.SeedSequence(0).spawn(40)
    jobs = [ChunkJob(True, seeds[i : i + 1]) for i in range(40)]
    before = set(multiprocessing.active_children())

    def done(trials):
        raise KeyboardInterrupt  # Ctrl-C while the first chunk is reported

    with pytest.raises(KeyboardInterrupt):
        list(run_chunks(_Spec(), jobs, workers=2, done=done))
    assert set(multiprocessing.active_children()) - before == set()


def test_sigterm_raises_terminated_while_held_and_the_old_handler_comes_back():
    previous = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated) as stopped, signals_raise():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises before this ends
    assert stopped.value.signum == signal.SIGTERM and str(stopped.value) == "terminated by SIGTERM"
    assert signal.getsignal(signal.SIGTERM) is previous
