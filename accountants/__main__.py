"""Command line: the privacy of a sequence of releases under every accountant.

python -m accountants --noise-multiplier 10 --count 100 --delta 1e-5
python -m accountants --ledger run.ledger.jsonl --delta 1e-5 --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from dp_accounting import dp_event

from accountants.best import best_epsilon
from accountants.events import PureDpEvent
from accountants.ledger import Ledger, LedgerEntry


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m accountants",
        description="Bound the privacy of repeated releases (or of a saved ledger) with every "
        "accountant that supports them, and name the smallest valid bound.",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--noise-multiplier", type=float, help="Gaussian noise multiplier σ/Δ per release")
    source.add_argument("--pure-epsilon", type=float, help="ε of a pure ε-DP release")
    source.add_argument("--ledger", help="a ledger file written by accountants.LedgerFile")
    parser.add_argument("--count", type=int, default=1, help="number of releases (default 1)")
    parser.add_argument("--delta", type=float, default=1e-5, help="target δ (default 1e-5)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.ledger:
        ledger = Ledger.load(args.ledger)
    else:
        if args.pure_epsilon is not None:
            event = PureDpEvent(args.pure_epsilon)
        else:
            event = dp_event.GaussianDpEvent(10.0 if args.noise_multiplier is None else args.noise_multiplier)
        ledger = Ledger([LedgerEntry(participant=None, event=event, count=args.count)])
    try:
        best = best_epsilon(ledger, args.delta)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.json:
        payload = {
            "delta": best.delta,
            "best": {"epsilon": best.epsilon, "accountant": best.accountant},
            "participant": best.participant,
            "epsilon_upper": {k: (v if math.isfinite(v) else None) for k, v in best.bounds.items()},
        }
        print(json.dumps(payload, indent=2))
        return 0
    print(
        f"Privacy of {ledger.total_count()} release(s) at δ = {best.delta:g} (worst participant {best.participant!r})\n"
    )
    print("| accountant | ε (upper bound) |")
    print("|---|---|")
    for name, value in sorted(best.bounds.items(), key=lambda item: item[1]):
        marker = " **(best)**" if name == best.accountant else ""
        print(f"| {name} | {value:.6f}{marker} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
