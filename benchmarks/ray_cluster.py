"""A Ray cluster of several node processes on this machine, started the documented way.

``ray start --head`` and then ``ray start --address`` for each further node, each node with its own
session, CPU count, and a temporary folder and authentication token of this cluster's own (no other Ray
on the machine is touched). On leaving the context every node receives SIGINT (``--block`` then stops
the processes it started), and its whole session is killed if it has not exited within two minutes
(Ray's shutdown has hung on two loaded cores). Shared by the two-node cluster test and
``bench_audit_ray.py --cluster``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: Seconds between the head's start and the next node's (the head's GCS listens first).
HEAD_HEAD_START = 5.0
#: Seconds a node has to exit after SIGINT before its session is killed.
STOP_TIMEOUT = 120.0


@dataclass(frozen=True)
class Cluster:
    """A running local cluster: its GCS address and the environment a driver needs to join it."""

    address: str
    environment: dict[str, str]
    logs: tuple[Path, ...]

    def tail(self, characters: int = 500) -> str:
        """The end of every node's log, for an error message."""
        return "".join(log.read_text(errors="replace")[-characters:] for log in self.logs if log.exists())


def ray_command() -> str | None:
    """The ``ray`` command of this interpreter's environment, else the one on PATH, else None."""
    return shutil.which("ray", path=os.path.dirname(sys.executable)) or shutil.which("ray")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGINT, then SIGKILL to the node's whole session if it has not exited in time."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the node leads its session (start_new_session=True)
            process.wait(timeout=10)


@contextlib.contextmanager
def local_cluster(cpus: list[int], logs: Path, pythonpath: list[str]) -> Iterator[Cluster]:
    """Nodes with ``cpus[0]`` (the head), ``cpus[1]``, … CPUs; every node stopped on exit.

    ``logs`` is a folder for the nodes' output; ``pythonpath`` is prepended to the nodes' and the
    driver's ``PYTHONPATH`` (where the audited code is importable from).
    """
    command = ray_command()
    if command is None:
        raise RuntimeError('the ray command is not installed (pip install ".[ray]")')
    environment = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [*pythonpath, os.environ.get("PYTHONPATH")])),
        OMP_NUM_THREADS="1",
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN=secrets.token_hex(32),
    )
    port = _free_port()
    address = f"127.0.0.1:{port}"
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    nodes: list[subprocess.Popen[bytes]] = []
    files = tuple(logs / f"node{k}.log" for k in range(len(cpus)))
    try:
        for k, count in enumerate(cpus):
            role = ["--head", f"--port={port}", "--include-dashboard=false"] if k == 0 else [f"--address={address}"]
            node = [command, "start", "--block", f"--num-cpus={count}", "--disable-usage-stats", f"--temp-dir={temp}"]
            with open(files[k], "w") as log:  # the child keeps its own descriptor
                nodes.append(
                    subprocess.Popen(
                        [*node, *role, "--node-ip-address=127.0.0.1"],
                        env=environment,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
            if k == 0:
                time.sleep(HEAD_HEAD_START)
        yield Cluster(address, environment, files)
    finally:
        for process in reversed(nodes):
            _stop(process)
        shutil.rmtree(temp, ignore_errors=True)
        if any(process.poll() is None for process in nodes):
            raise RuntimeError("a Ray node process is still running after the cluster was stopped")
