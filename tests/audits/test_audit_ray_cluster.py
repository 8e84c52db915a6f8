"""An audit on a two-node Ray cluster started the documented way on this machine: ``ray start --head``,
then a second node process with ``ray start --address``; ``dp-audit ... --backend ray --address ADDR``
writes the report of the in-process run, bit for bit (the runtime and the command line that ran it aside).

The cluster is benchmarks/ray_cluster.py's (each node in a session of its own, stopped on exit).
Skipped when Ray is not installed or the cluster cannot start here.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from audits.run import main
from benchmarks.ray_cluster import local_cluster, ray_command

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


def _report(folder: Path) -> str:
    report = json.loads((folder / "report.json").read_text())
    report.pop("runtime_seconds")
    report.pop("command")  # as typed: --resume, --backend and --out differ
    return json.dumps(report, sort_keys=True)


@pytest.mark.slow
def test_a_two_node_cluster_started_with_ray_start_gives_the_in_process_report(tmp_path):
    pytest.importorskip("ray", reason='Ray is not installed (pip install ".[ray]")')
    if ray_command() is None:
        pytest.skip("the ray command is not installed")
    command = ["tiny_target:build", "--trials", str(TRIALS), "--no-figures", "--quiet"]
    sys.path.insert(0, str(HERE))
    try:
        assert main([*command, "--out", str(tmp_path / "local")]) == 0
    finally:
        sys.path.remove(str(HERE))
    with local_cluster([1, 1], tmp_path, [str(HERE), str(ROOT)]) as cluster:
        driver = None
        started = time.monotonic()
        while time.monotonic() - started < START_TIMEOUT:
            driver = subprocess.run(
                [sys.executable, "-c", DRIVER, cluster.address, *command, "--backend", "ray"]
                + ["--address", cluster.address, "--out", str(tmp_path / "cluster")],
                cwd=ROOT,
                env=cluster.environment,
                capture_output=True,
                text=True,
                timeout=600,
            )
            if driver.stdout.startswith("2 2"):
                break
            time.sleep(5.0)  # the second node has not joined yet: ask again
        if driver is None or not driver.stdout.startswith("2 2"):
            pytest.skip(f"a two-node Ray cluster cannot start here: {cluster.tail()} {driver and driver.stderr[-500:]}")
        assert driver.returncode == 0, driver.stderr[-3000:]
    assert _report(tmp_path / "cluster") == _report(tmp_path / "local")
