"""Audits on Ray: 2 workers against 1, the driver's memory, and a worker killed mid-audit.

Each measurement runs in a fresh driver process (``--driver``) that starts a local Ray with the given
number of CPUs, runs ``dpadmm`` (or ``--target``) with ``backend="ray"`` and prints its report (the
runtime removed), its seconds for the trials and its peak resident memory (``ru_maxrss``). The report::

  python benchmarks/bench_audit_ray.py [--trials 200000] [--memory-trials 10000000] [--target dpadmm]

- ``speed-up``: seconds with 1 Ray CPU / seconds with 2 (the chunks are independent tasks);
- ``same report``: the 1-CPU, 2-CPU and in-process reports are equal, bit for bit;
- ``killed worker``: a chunk task's worker process receives SIGKILL mid-audit, Ray runs that chunk
  again, and the report is still the same;
- ``driver memory``: the peak resident memory of a driver at ``--memory-trials`` trials per side
  (skipped with ``--memory-trials 0``).

With ``--cluster`` the speed and equality runs use real node processes started the documented way
(``ray start --head``, then ``ray start --address``; benchmarks/ray_cluster.py): ``dp-audit TARGET
--backend ray --address ADDR`` on a head of 1 CPU alone, then on the head plus a second node of 1 CPU,
against the in-process command with the same seed (the reports compared without their runtime and
command line)::

  python benchmarks/bench_audit_ray.py --cluster --trials 2000000

Exit status 0 when every report agrees, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: the repository's packages, benchmarks included
    sys.path.insert(0, str(ROOT))

from benchmarks.ray_cluster import local_cluster  # noqa: E402

#: Seconds after the chunks started before a worker is killed.
KILL_AFTER = 5.0


def _chunk_workers() -> list[int]:
    """Process ids of Ray workers running a chunk task (their title names the task)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                title = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if b"ray::run_chunk" in title:
                pids.append(int(entry.name))
    return pids


def _kill_one_worker(killed: list[int]) -> None:
    deadline = time.monotonic() + 600
    time.sleep(KILL_AFTER)
    while time.monotonic() < deadline:
        workers = _chunk_workers()
        if workers:
            os.kill(workers[0], signal.SIGKILL)
            killed.append(workers[0])
            return
        time.sleep(0.1)


def driver(target: str, trials: int, cpus: int, backend: str, kill: bool) -> None:
    """Run one audit in this process and print one JSON line: report, seconds, peak memory, kills."""
    from audits.registry import get_target
    from audits.run import build_spec
    from audits.runner import run_spec

    spec = build_spec(get_target(target), None, 1e-5, False)
    if backend == "ray":
        import ray

        ray.init(
            num_cpus=cpus,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}},
        )
    killed: list[int] = []
    if kill:
        threading.Thread(target=_kill_one_worker, args=(killed,), daemon=True).start()
    start = time.perf_counter()
    result = run_spec(spec, trials=trials, progress=False, backend=backend, workers=1)
    seconds = time.perf_counter() - start
    report = dict(result.report)
    report.pop("runtime_seconds")
    memory = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux
    line = {"report": json.dumps(report, sort_keys=True, default=str), "seconds": seconds, "gib": memory}
    print(json.dumps({**line, "killed": killed}))


def _measure(target: str, trials: int, cpus: int, backend: str = "ray", kill: bool = False) -> dict:
    command = [sys.executable, __file__, "--driver", "--target", target, "--trials", str(trials)]
    command += ["--cpus", str(cpus), "--backend", backend] + (["--kill"] if kill else [])
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return result


#: Exit status of the cluster driver when not every node has joined yet (it then runs nothing).
NOT_JOINED = 3
# A driver on the cluster at argv[1] with argv[2] CPUs: when they have all joined, runs the command and prints
# the live nodes, the cluster's CPUs and the command's seconds; otherwise exits NOT_JOINED at once.
CLUSTER_DRIVER = f"""
import sys, time, ray
from audits.run import main
ray.init(address=sys.argv[1], log_to_driver=False, configure_logging=False)
alive = [node for node in ray.nodes() if node["Alive"]]
cpus = int(ray.cluster_resources().get("CPU", 0))
if cpus != int(sys.argv[2]):
    sys.exit({NOT_JOINED})
start = time.perf_counter()
status = main(sys.argv[3:])
print(len(alive), cpus, time.perf_counter() - start, flush=True)
sys.exit(status)
"""


def _report(folder: Path) -> str:
    report = json.loads((folder / "report.json").read_text())
    report.pop("runtime_seconds")
    report.pop("command")  # as typed: --backend, --address and --out differ
    return json.dumps(report, sort_keys=True)


def _on_cluster(target: str, trials: int, cpus: list[int], folder: Path) -> float:
    """Seconds of ``dp-audit TARGET --backend ray`` on a local cluster of nodes with ``cpus`` CPUs each."""
    command = [target, "--trials", str(trials), "--no-figures", "--quiet", "--backend", "ray"]
    with local_cluster(cpus, folder, [str(ROOT)]) as cluster:
        for _ in range(24):  # the nodes join within two minutes
            done = subprocess.run(
                [sys.executable, "-c", CLUSTER_DRIVER, cluster.address, str(sum(cpus)), *command]
                + ["--address", cluster.address, "--out", str(folder / "report")],
                cwd=ROOT,
                env=cluster.environment,
                capture_output=True,
                text=True,
            )
            if done.returncode == NOT_JOINED:
                time.sleep(5.0)
                continue
            if done.returncode not in (0, 1):  # 1: a violation, still a report
                raise RuntimeError(f"the audit on the cluster failed: {done.stderr[-2000:]}")
            nodes, total, seconds = done.stdout.split()[-3:]
            if (int(nodes), int(total)) != (len(cpus), sum(cpus)):
                raise RuntimeError(f"the cluster has {nodes} nodes and {total} CPUs, expected {len(cpus)} and {cpus}")
            return float(seconds)
        raise RuntimeError(f"the cluster of {cpus} CPUs did not start: {cluster.tail()} {done.stderr[-500:]}")


def cluster_speed_up(target: str, trials: int) -> bool:
    """Print the 1-node and 2-node seconds, the speed-up and the equality with the in-process report."""
    with tempfile.TemporaryDirectory() as scratch:
        folders = {name: Path(scratch) / name for name in ("local", "one", "two")}
        for folder in folders.values():
            folder.mkdir()
        start = time.perf_counter()
        command = [sys.executable, "-m", "audits.run", target, "--trials", str(trials), "--no-figures", "--quiet"]
        subprocess.run(
            [*command, "--out", str(folders["local"] / "report")], cwd=ROOT, capture_output=True, check=False
        )
        local = time.perf_counter() - start
        one = _on_cluster(target, trials, [1], folders["one"])
        two = _on_cluster(target, trials, [1, 1], folders["two"])
        reports = [_report(folder / "report") for folder in folders.values()]
    print(f"{target}, {trials:,} trials per side, on a local cluster started with ray start")
    print(f"in process (2 worker processes): {local:.1f} s (with start-up)")
    print(f"head of 1 CPU: {one:.1f} s; head + second node, 1 CPU each: {two:.1f} s; speed-up {one / two:.2f}x")
    same = reports[0] == reports[1] == reports[2]
    print(f"same report (in process, 1 node, 2 nodes): {same}")
    return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200_000, help="trials per side of the speed runs")
    parser.add_argument("--memory-trials", type=int, default=10_000_000, help="trials per side of the memory run")
    parser.add_argument("--target", default="dpadmm")
    parser.add_argument("--cluster", action="store_true", help="speed and equality on node processes (ray start)")
    parser.add_argument("--driver", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cpus", type=int, default=2, help=argparse.SUPPRESS)
    parser.add_argument("--backend", default="ray", help=argparse.SUPPRESS)
    parser.add_argument("--kill", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.driver:
        driver(args.target, args.trials, args.cpus, args.backend, args.kill)
        return 0
    if args.cluster:
        return 0 if cluster_speed_up(args.target, args.trials) else 1
    local = _measure(args.target, args.trials, 1, backend="processes")
    one, two = (_measure(args.target, args.trials, cpus) for cpus in (1, 2))
    killed = _measure(args.target, args.trials, 2, kill=True)
    same = one["report"] == two["report"] == local["report"]
    print(f"{args.target}, {args.trials:,} trials per side")
    print(f"in process (1 core): {local['seconds']:.1f} s")
    speed_up = one["seconds"] / two["seconds"]
    print(f"Ray, 1 CPU: {one['seconds']:.1f} s; 2 CPUs: {two['seconds']:.1f} s; speed-up {speed_up:.2f}x")
    print(f"same report (1 CPU, 2 CPUs, in process): {same}")
    print(f"killed worker {killed['killed']}: same report {killed['report'] == local['report']}")
    agree = same and killed["report"] == local["report"] and bool(killed["killed"])
    if args.memory_trials:
        big = _measure(args.target, args.memory_trials, 2)
        print(f"driver memory at {args.memory_trials:,} trials per side: {big['gib']:.2f} GiB ({big['seconds']:.0f} s)")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
