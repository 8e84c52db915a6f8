"""``RayBackend(address=...)``: a run on an existing Ray cluster, reached by its address, equals the
in-process run; an address where no cluster listens fails fast with an error naming it.

Process A starts a Ray cluster on this machine (2 CPUs) and prints its GCS address; process B, a
separate driver, runs DP-ADMM and R-ADMM with ``RayBackend(address=<A's address>)`` and saves model,
history, transcript and ledger; the test compares them with the same runs in process. Neither
relies on a Ray initialised in the pytest process. A is stopped by SIGINT (its ``ray.shutdown()``
ends the cluster's processes), killed only if it does not exit in time. Skipped, with the reason,
when Ray is not importable or A cannot start a cluster here.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TOLERANCE = 1e-12
START_TIMEOUT = 60.0  # seconds for A to print its address

# A: start a cluster on this machine, print its address, keep it up until SIGINT.
HEAD = """
import sys, time, ray
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
print(ray.get_runtime_context().gcs_address, flush=True)
try:
    while True:
        time.sleep(60)
except KeyboardInterrupt:
    pass
finally:
    ray.shutdown()
"""

# B: a second driver that runs this module's cases on the cluster at argv[1], saving to argv[2].
DRIVER = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("cluster_cases", sys.argv[3])
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)
cases.save_runs(sys.argv[1], sys.argv[2])
"""


def _problems():
    from solvers import HorizontalProblem
    from solvers.datasets import partition_horizontal
    from solvers.decentralized import DecentralizedProblem
    from solvers.graph import GraphTopology

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    X /= np.linalg.norm(X, axis=1).max()
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    parts = partition_horizontal(X[:45], y[:45], 3, seed=0)
    return {
        "star": HorizontalProblem(parts, lam=0.5, X_public=X[45:], y_public=y[45:]),
        "graph": DecentralizedProblem.create(parts, GraphTopology.ring(3), C=10.0, rho=1.0),
    }


def _runs(backend, directory: Path) -> dict:
    """DP-ADMM (star) and R-ADMM (ring) on ``backend``; ledgers written to ``directory``."""
    from solvers import DPADMM
    from solvers.decentralized import RADMM

    problems = _problems()
    cases = {
        "dpadmm": (DPADMM(epsilon=0.5, n_iterations=6), problems["star"], ("exact_gaussian",)),
        "radmm": (RADMM(eta=1.0, alpha=5.0, n_iterations=4), problems["graph"], ("pure",)),
    }
    return {
        name: solver.run(
            problem,
            seed=3,
            trials=2,
            record_white_box=True,
            accountants=accountants,
            backend=backend,
            ledger_path=directory / f"{name}.jsonl",
        )
        for name, (solver, problem, accountants) in cases.items()
    }


def _arrays(result) -> dict[str, np.ndarray]:
    arrays = {"model": result.model, "model_average": result.model_average}
    arrays.update({f"transcript/{c.name}": result.transcript[c.name] for c in result.transcript.channels})
    arrays.update({f"history/{k}": np.asarray(v) for k, v in result.history.items()})
    return arrays


def save_runs(address: str, directory: str) -> None:
    """Process B: the runs on the cluster at ``address``, saved to ``directory`` (npz + ledgers)."""
    import ray

    from solvers.engine.backends import RayBackend

    out = Path(directory)
    results = _runs(RayBackend(address=address, timeout=60.0), out)
    arrays = {f"{name}/{key}": value for name, result in results.items() for key, value in _arrays(result).items()}
    np.savez(out / "runs.npz", **arrays)
    (out / "gcs_address.txt").write_text(ray.get_runtime_context().gcs_address)
    ray.shutdown()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def environment():
    pytest.importorskip("ray", reason='Ray is not installed (pip install ".[ray]")')
    # A token of this test's own, so A and B authenticate to each other and to nobody else.
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        OMP_NUM_THREADS="1",
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN=secrets.token_hex(32),
    )


def _stop(process: subprocess.Popen) -> None:
    """SIGINT (A's ``ray.shutdown()`` ends the cluster), then, if A has not exited within 120 s (Ray's
    shutdown has hung on two loaded cores), SIGKILL to A's whole session: the cluster's processes too."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # A leads its session (start_new_session=True)
            process.wait(timeout=10)


@pytest.mark.slow
def test_a_run_on_a_cluster_given_by_address_equals_the_in_process_run(environment, tmp_path):
    from accountants import Ledger

    with open(tmp_path / "head.err", "w") as head_errors:  # the child keeps its own descriptor
        head = subprocess.Popen(
            [sys.executable, "-c", HEAD],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=head_errors,
            text=True,
            start_new_session=True,
        )
    try:
        ready, started = [], time.monotonic()
        while not ready and time.monotonic() - started < START_TIMEOUT and head.poll() is None:
            ready = head.stdout.readline().split()
        if not ready:
            pytest.skip(f"a Ray cluster cannot start here: {(tmp_path / 'head.err').read_text()[-500:]}")
        address = ready[0]
        (tmp_path / "ray").mkdir()
        driver = subprocess.run(
            [sys.executable, "-c", DRIVER, address, str(tmp_path / "ray"), __file__],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert driver.returncode == 0, driver.stderr[-3000:]
        assert head.poll() is None  # the cluster outlived its client
    finally:
        _stop(head)  # Ray's own shutdown of the cluster is not what this test is about
    # B drove the cluster A started, not one of its own
    assert (tmp_path / "ray" / "gcs_address.txt").read_text() == address
    (tmp_path / "local").mkdir()
    local = _runs("inprocess", tmp_path / "local")
    remote = np.load(tmp_path / "ray" / "runs.npz")
    for name, result in local.items():
        arrays = _arrays(result)
        assert {key for key in remote.files if key.startswith(f"{name}/")} == {f"{name}/{k}" for k in arrays}
        for key, value in arrays.items():
            assert np.max(np.abs(remote[f"{name}/{key}"] - value)) <= TOLERANCE, (name, key)
        on_cluster = Ledger.load(tmp_path / "ray" / f"{name}.jsonl")
        assert list(on_cluster) == list(result.ledger) == list(Ledger.load(tmp_path / "local" / f"{name}.jsonl"))
        assert len(result.ledger) > 0


@pytest.mark.slow
def test_an_address_without_a_cluster_fails_fast_naming_it(environment):
    address = f"127.0.0.1:{_free_port()}"  # nothing listens there
    code = (
        "from solvers.engine.backends import RayBackend\n"
        f"try:\n    RayBackend(address={address!r}).connect()\n"
        "except ConnectionError as error:\n    print(error)\n"
    )
    started = time.monotonic()
    probe = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )
    assert time.monotonic() - started < 30  # ray.init alone retries such an address for minutes
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert f"address='{address}'" in probe.stdout and "ray start --head" in probe.stdout
