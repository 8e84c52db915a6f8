"""An audit on a two-node Ray cluster started the documented way on this machine: ``ray start --head``,
then a second node process with ``ray start --address``; ``dp-audit ... --backend ray --address ADDR``
writes the report of the in-process run, bit for bit (the runtime and the command line that ran it aside).

Both nodes run ``ray start --block`` in sessions of their own, with a temporary folder and an
authentication token of this test's own (no other Ray on the machine is touched); each is stopped by
SIGINT (``--block`` then stops the processes it started), and its whole session is killed if it has
not exited in time (Ray's shutdown has hung on two loaded cores). Skipped when Ray is not installed or
the cluster cannot start here.
"""

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from audits.run import main

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TRIALS = 12_000
#: Seconds for the cluster to show both nodes.
START_TIMEOUT = 120.0

# The driver: checks that it reached the two-node cluster at argv[1], then runs the command there.
DRIVER = """
import sys, ray
from audits.run import main
ray.init(address=sys.argv[1], log_to_driver=False, configure_logging=False)
alive = [node for node in ray.nodes() if node["Alive"]]
print(len(alive), int(ray.cluster_resources().get("CPU", 0)), flush=True)
sys.exit(main(sys.argv[2:]))
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _stop(process: subprocess.Popen) -> None:
    """SIGINT, then SIGKILL to the node's whole session if it has not exited within 120 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the node leads its session (start_new_session=True)
            process.wait(timeout=10)


def _report(folder: Path) -> str:
    report = json.loads((folder / "report.json").read_text())
    report.pop("runtime_seconds")
    report.pop("command")  # as typed: --resume, --backend and --out differ
    return json.dumps(report, sort_keys=True)


@pytest.mark.slow
def test_a_two_node_cluster_started_with_ray_start_gives_the_in_process_report(tmp_path):
    pytest.importorskip("ray", reason='Ray is not installed (pip install ".[ray]")')
    ray_command = shutil.which("ray", path=os.path.dirname(sys.executable)) or shutil.which("ray")
    if ray_command is None:
        pytest.skip("the ray command is not installed")
    environment = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), str(ROOT), os.environ.get("PYTHONPATH")])),
        OMP_NUM_THREADS="1",
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN=secrets.token_hex(32),
    )
    command = ["tiny_target:build", "--trials", str(TRIALS), "--no-figures", "--quiet"]
    sys.path.insert(0, str(HERE))
    try:
        assert main([*command, "--out", str(tmp_path / "local")]) == 0
    finally:
        sys.path.remove(str(HERE))
    port = _free_port()
    address = f"127.0.0.1:{port}"
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    node = [ray_command, "start", "--block", "--num-cpus=1", "--disable-usage-stats", f"--temp-dir={temp}"]
    nodes = []
    try:
        for extra in (
            ["--head", f"--port={port}", "--node-ip-address=127.0.0.1", "--include-dashboard=false"],
            [f"--address={address}", "--node-ip-address=127.0.0.1"],
        ):
            with open(tmp_path / f"node{len(nodes)}.log", "w") as log:  # the child keeps its own descriptor
                nodes.append(
                    subprocess.Popen(
                        [*node, *extra], env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
                    )
                )
            if len(nodes) == 1:
                time.sleep(5.0)  # the head's GCS listens before the second node joins
        driver = None
        started = time.monotonic()
        while time.monotonic() - started < START_TIMEOUT and all(n.poll() is None for n in nodes):
            driver = subprocess.run(
                [sys.executable, "-c", DRIVER, address, *command, "--backend", "ray", "--address", address]
                + ["--out", str(tmp_path / "cluster")],
                cwd=ROOT,
                env=environment,
                capture_output=True,
                text=True,
                timeout=600,
            )
            if driver.stdout.startswith("2 2"):
                break
            time.sleep(5.0)  # the second node has not joined yet: ask again
        logs = "".join((tmp_path / f"node{k}.log").read_text()[-500:] for k in range(len(nodes)))
        if driver is None or not driver.stdout.startswith("2 2"):
            pytest.skip(f"a two-node Ray cluster cannot start here: {logs} {driver and driver.stderr[-500:]}")
        assert driver.returncode == 0, driver.stderr[-3000:]
    finally:
        for process in reversed(nodes):
            _stop(process)
        shutil.rmtree(temp, ignore_errors=True)
    assert all(process.poll() is not None for process in nodes)
    assert _report(tmp_path / "cluster") == _report(tmp_path / "local")
