"""What a run's entries in a ledger file stand for, recorded next to the ledger file.

A batched run (``trials=R``) simulates R independent runs on the same data for an audit; it
registers its releases once, because ε is per trial, and the trials are not releases of one
deployment. The ledger file (``accountants.LedgerFile``, its format owned by the accountants) holds
releases only, so a reader of the file alone would count a batched run's releases once, which is
right per trial and R times too little if all R trials' outputs were published. So every run with
``ledger_path=f`` also appends one line to ``f.runs.jsonl`` (:func:`run_record_path`), written and
synced before the run's first entry in ``f``:

    {"schema": "solvers.ledger_runs", "version": 1, "ledger": "f"}                       (header)
    {"solver": "dpadmm", "n_trials": 100, "simulated_trials": true, "epsilon_per": "trial",
     "privacy_scope": "each of 100 simulated trials; the trials are not a composition: ...",
     "releases": 500, "participants": 5, "time": "2025-01-01T00:00:00+00:00"}

``epsilon_per`` is "trial" for a batched run (its entries cover one of ``n_trials`` simulated
trials) and "deployment" for a single run. The file is JSON lines (one line per run, appended
under ``flock`` on POSIX) because several runs may append to one ledger file.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

__all__ = ["RUN_RECORD_SCHEMA", "RUN_RECORD_VERSION", "append_run_record", "read_run_records", "run_record_path"]

RUN_RECORD_SCHEMA = "solvers.ledger_runs"
RUN_RECORD_VERSION = 1

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows: appends are single writes, not locked
    fcntl = None  # type: ignore[assignment]


def run_record_path(ledger_path: str | os.PathLike[str]) -> Path:
    """The run record of the ledger file ``ledger_path``: ``<ledger_path>.runs.jsonl``."""
    path = Path(ledger_path)
    return path.with_name(path.name + ".runs.jsonl")


def append_run_record(
    ledger_path: str | os.PathLike[str],
    *,
    solver: str,
    n_trials: int,
    batched: bool,
    privacy_scope: str,
    releases: int,
    participants: int,
) -> Path:
    """Append one run's line to the run record of ``ledger_path`` (creating it with its header),
    synced to disk; returns the record's path."""
    path = run_record_path(ledger_path)
    record: dict[str, Any] = {
        "solver": solver,
        "n_trials": int(n_trials),
        "simulated_trials": bool(batched),
        "epsilon_per": "trial" if batched else "deployment",
        "privacy_scope": privacy_scope,
        "releases": int(releases),
        "participants": int(participants),
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    header = {"schema": RUN_RECORD_SCHEMA, "version": RUN_RECORD_VERSION, "ledger": Path(ledger_path).name}
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        lines = [record]
        if os.fstat(fd).st_size == 0:
            lines.insert(0, header)
        os.write(fd, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)  # releases the lock
    return path


def read_run_records(ledger_path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The run lines of the run record of ``ledger_path`` (header checked, then dropped).

    Raises:
      FileNotFoundError: no run record. ValueError: not a run record of a known version.
    """
    path = run_record_path(ledger_path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines or lines[0].get("schema") != RUN_RECORD_SCHEMA or lines[0].get("version") != RUN_RECORD_VERSION:
        raise ValueError(f"{path} is not a run record (schema {RUN_RECORD_SCHEMA!r}, version {RUN_RECORD_VERSION})")
    return lines[1:]
