"""Ledger recovery and strict reading: linear time on torn lines, a clear error soon on crafted files.

1. ``Ledger.load(path, recover=True)`` on a line of n ``{`` (n = 10,000 to 1,000,000), against the
   previous recovery (a parse attempted from every ``{``, each failure locating itself from the
   start of the line: quadratic) on the same line; time per byte constant (linear).
2. A torn 100 MB line (a ``ComposedDpEvent`` of 1.9 million Gaussian releases, cut short):
   ``Ledger.load`` (an error naming the line), ``Ledger.load(recover=True)`` and ``repair_ledger``
   (target: ≤ 5 s), against one plain ``json.loads`` of the line (the least any reader does).
3. Crafted ledgers (deep nesting, duplicate keys, 100 MB lines, huge numbers): ``Ledger.load``
   raises a ``LedgerFileError`` naming the file and line (target: ≤ 2 s each).

Each row gives the wall time and, in its note, the process's CPU time: on a machine shared with
other work the wall time also counts their turns.

  python benchmarks/bench_ledger_recovery.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accountants.ledger import Ledger, LedgerFileError, repair_ledger
from benchmarks.timing import row

HEADER = b'{"schema": "accountants.ledger", "version": 1}\n'
GAUSSIAN = b'{"type": "GaussianDpEvent", "noise_multiplier": 1.0}'
ENTRY = b'{"participant": 0, "iteration": null, "count": 1, "event": ' + GAUSSIAN + b"}\n"
RECOVER_TARGET_S = 5.0
LAST_CPU_S = 0.0
CRAFTED_TARGET_S = 2.0


def previous_recovery(line: bytes) -> int:
    """Records found in a torn line the previous way: a parse from every ``{`` (quadratic)."""
    text = line.decode("utf-8", "surrogateescape")
    decoder = json.JSONDecoder()
    found = position = 0
    while (brace := text.find("{", position)) >= 0:
        try:
            value, end = decoder.raw_decode(text, brace)
        except ValueError:
            position = brace + 1
            continue
        if isinstance(value, dict) and {"participant", "event"} <= value.keys():
            found += 1
            position = end
        else:
            position = brace + 1
    return found


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    """(wall seconds, the result or the LedgerFileError raised); the process's CPU seconds are kept
    in ``LAST_CPU_S`` (on a shared machine the wall time also counts other processes' turns)."""
    global LAST_CPU_S
    start, cpu = time.perf_counter(), time.process_time()
    try:
        result = function()
    except LedgerFileError as error:
        result = error
    LAST_CPU_S = time.process_time() - cpu
    return time.perf_counter() - start, result


def torn_record(megabytes: int) -> bytes:
    releases = megabytes * 1_000_000 // (len(GAUSSIAN) + 2)
    return (
        b'{"participant": 0, "count": 1, "event": {"type": "ComposedDpEvent", "events": ['
        + (GAUSSIAN + b", ") * releases
    )


def crafted(megabytes: int) -> dict[str, bytes]:
    big = megabytes * 1_000_000
    return {
        "100,000 nested arrays": HEADER + b"[" * 100_000 + b"]" * 100_000 + b"\n",
        "1,000 nested events": HEADER
        + ENTRY[:-2].replace(GAUSSIAN, b'{"type": "ComposedDpEvent", "events": [' * 1000 + GAUSSIAN + b"]}" * 1000)
        + b"}\n",
        f"{megabytes} MB of {{": HEADER + b"{" * big + b"\n",
        f"{megabytes} MB nested arrays": HEADER + b"[" * (big // 2) + b"]" * (big // 2) + b"\n",
        f"duplicate key after a {megabytes} MB participant": HEADER
        + b'{"participant": "'
        + b"a" * big
        + b'", "count": 1, "count": 1000000, "event": '
        + GAUSSIAN
        + b"}\n",
        f"{megabytes} MB torn line": HEADER + torn_record(megabytes) + b"\n",
        "5,000-digit count": HEADER + ENTRY.replace(b'"count": 1', b'"count": ' + b"9" * 5000),
        f"{megabytes} MB count": HEADER + ENTRY.replace(b'"count": 1', b'"count": ' + b"9" * big),
        "duplicate version": b'{"schema": "accountants.ledger", "version": 2, "version": 1}\n' + ENTRY,
    }


def run(quick: bool = False) -> list[dict]:
    megabytes = 10 if quick else 100
    sizes = (10_000, 40_000) if quick else (10_000, 40_000, 80_000, 1_000_000)
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "ledger.jsonl"
        for n in sizes:  # 1. a line of n {
            line = b"{" * n
            path.write_bytes(HEADER + ENTRY + line + b"\n" + ENTRY)
            ours, ledger = timed(lambda: Ledger.load(path, recover=True))
            assert len(ledger) == 2, ledger
            before, found = timed(lambda line=line: previous_recovery(line)) if n <= 80_000 else (float("nan"), 0)
            assert found == 0
            rows.append(
                row(f"recover a line of {n:,} {{", ours, "previous recovery", before, f"{ours / n * 1e9:.1f} ns/byte")
            )
        line = torn_record(megabytes)  # 2. a torn line of 100 MB
        path.write_bytes(HEADER + ENTRY + line + b"\n")
        text = line.decode()
        plain, _ = timed(lambda text=text: _plain_parse(text))
        for name, read in (
            ("load", lambda: Ledger.load(path)),
            ("recover", lambda: Ledger.load(path, recover=True)),
            ("repair", lambda: repair_ledger(path)),
        ):
            ours, result = timed(read)
            if isinstance(result, LedgerFileError):
                outcome = f"error at line {result.line}"
            elif isinstance(result, Ledger):
                outcome = f"{len(result)} complete entries"
            else:
                outcome = f"kept {result.kept}, set aside {len(result.set_aside)}"
            note = f"target ≤ {RECOVER_TARGET_S:g} s; CPU {LAST_CPU_S:.2f} s; {outcome}"
            rows.append(row(f"{name}: {megabytes} MB torn line", ours, "one json.loads of it", plain, note))
            if name == "repair":
                assert not isinstance(result, LedgerFileError)
                path.write_bytes(HEADER + ENTRY + line + b"\n")
        del line, text
        for name, content in crafted(megabytes).items():  # 3. crafted ledgers
            path.write_bytes(content)
            ours, error = timed(lambda: Ledger.load(path))
            assert isinstance(error, LedgerFileError) and error.line is not None, (name, error)
            message = str(error).replace(str(path), "FILE")
            rows.append(
                row(f"crafted: {name}", ours, "target", CRAFTED_TARGET_S, f"CPU {LAST_CPU_S:.2f} s; {message[:90]}")
            )
        os.remove(path)
    return rows


def _plain_parse(text: str) -> None:
    with contextlib.suppress(ValueError):
        json.loads(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 MB lines and n up to 40,000 (a smoke run)")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average at start: {load:.2f} on {os.cpu_count()} CPUs")
    for result in run(quick=args.quick):
        print(
            f"{result['benchmark']:<52} {result['ours_s']:8.3f} s   {result['peer']}: {result['peer_s']:8.3f} s"
            f"   ratio {result['ratio']:7.1f}   {result['note']}"
        )


if __name__ == "__main__":
    main()
