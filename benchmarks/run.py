"""Run every benchmark and print one table of figures and ratios against the named peers.

    python -m benchmarks.run            # full sizes
    python -m benchmarks.run --quick    # small sizes, a smoke run
    python -m benchmarks.run --json out.json

Run it from the repository root: ``benchmarks`` is a folder of the source tree, not an installed
package (it measures the toolkit against peers that a user's installation does not need).

Each ``benchmarks/bench_<name>.py`` defines ``run(quick: bool = False) -> list[dict]`` whose rows
have the keys benchmark, ours_s, peer, peer_s, ratio (peer_s / ours_s) and note; ours and the
peer are timed in the same call, on the same machine, one after the other.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from pathlib import Path

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import benchmarks
from accountants.version import __version__

COLUMNS = ("benchmark", "ours_s", "peer", "peer_s", "ratio", "note")


def discover() -> list[str]:
    """Names of the benchmark modules, sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))


def markdown(rows: list[dict]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        cells = []
        for column in COLUMNS:
            value = row.get(column, "")
            if column.endswith("_s") and isinstance(value, float):
                value = f"{value:.4g}"
            elif column == "ratio" and isinstance(value, float):
                value = f"{value:.1f}×"
            cells.append(str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--only", nargs="*", help="run only these benchmark modules (e.g. bench_accountants)")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON to this file")
    args = parser.parse_args(argv)
    names = discover()
    unknown = set(args.only or []) - set(names)
    if unknown:
        parser.error(f"unknown benchmarks {sorted(unknown)}; known: {names}")
    rows: list[dict] = []
    for name in args.only or names:
        module = importlib.import_module(f"benchmarks.{name}")
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows.extend(module.run(quick=args.quick))
    print(markdown(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
