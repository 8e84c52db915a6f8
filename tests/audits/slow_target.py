"""A slow audit target for the kill tests: every batched run sleeps, so that an audit of a few chunks
is still running its forked workers when the test signals it (tests/audits/test_workers.py,
tests/audits/test_checkpoint.py). With ``CHUNK_LOG`` set, a chunk appends a line to that file when it
starts, so a test can count the chunks that ran."""

import os
import time
from types import SimpleNamespace

import numpy as np

from attacks.base import ScoreAttack
from audits.spec import AuditSpec, Claim

#: Seconds every batched run sleeps.
SLEEP = 0.5


class SleepyMean:
    """Releases the problem plus N(0, 1) per trial seed, after sleeping :data:`SLEEP` seconds."""

    def run(self, problem, *, seeds=None, seed=None, accountants=(), record_history=False, **options):
        if seeds is not None and "CHUNK_LOG" in os.environ:
            with open(os.environ["CHUNK_LOG"], "a") as log:
                log.write(f"{problem} {len(seeds)}\n")
        time.sleep(SLEEP)
        seeds = [np.random.SeedSequence(seed or 0)] if seeds is None else seeds
        return SimpleNamespace(model=np.array([np.random.default_rng(s).normal(problem, 1.0) for s in seeds]), info={})

    def get_params(self):
        return {"sleep": SLEEP}


def build(epsilon, delta, quick):
    """A Gaussian mean that sleeps in every run (tests/audits/slow_target.py)."""
    return AuditSpec(
        name="sleepy-mean",
        solver=SleepyMean(),
        problem_in=1.0,
        problem_out=0.0,
        participant="user",
        attacks=(ScoreAttack("identity", lambda result: result.model),),
        claim=Claim(statement="1-GDP", delta=delta, epsilon=10.0, noise="gaussian"),
        canary="the mean moves by 1",
        epsilon_meaning="no privacy parameter",
        trials=100_000,
        quick_trials=100,
        accounted=False,
    )
