"""Command line: the privacy of a sequence of releases under every accountant.

dp-accountant --noise-multiplier 10 --count 100 --delta 1e-5
dp-accountant --noise-multiplier 1.1 --sampling-rate 0.01 --count 1000 --delta 1e-5   # DP-SGD steps
dp-accountant --ledger run.ledger.jsonl --delta 1e-5 --json
dp-accountant --ledger run.ledger.jsonl --delta 1e-5 --odometer
dp-accountant ledger repair run.ledger.jsonl

``--sampling-rate q`` makes each release one on a Poisson sample of the records, each kept
independently with probability q (dp-accounting's ``PoissonSampledDpEvent``; the steps of DP-SGD,
Abadi et al. 2016, Sec. 3.1).

``--odometer`` reports the privacy odometer's ε instead (:class:`accountants.PrivacyOdometer`),
which holds however the releases were chosen and whenever they stopped.

(``python -m accountants`` is the same command.) Every usage error — a bad or missing argument, an
unreadable ledger file — is one line on standard error naming the argument, with exit status 2;
no input gives a traceback: an internal error is one line naming it and the file its traceback was
saved to, with exit status 3 (:mod:`accountants.crash`).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
from collections.abc import Callable, Hashable
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, NoReturn

from accountants.display import releases_of
from accountants.logs import log_to_stderr
from accountants.validation import check_count, check_delta, check_epsilon
from accountants.version import __version__

if TYPE_CHECKING:  # dp-accounting and the accountants are imported once the arguments are read
    from accountants.best import BestBound
    from accountants.ledger import Ledger

PROG = "dp-accountant"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose every error is one line (``PROG: error: ...``) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        _usage_error(message, prog=self.prog)


def _usage_error(message: str, prog: str = PROG) -> NoReturn:
    one_line = " ".join(str(message).split())
    sys.stderr.write(f"{prog}: error: {one_line}\n")
    raise SystemExit(2)


def _number(kind: str) -> Callable[[str], float]:
    """An argparse ``type`` that reads a number and checks it as a ``kind`` ("noise", "epsilon"
    or "delta"); argparse turns the ArgumentTypeError into a one-line usage error naming the option."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        try:
            if kind == "delta":
                return check_delta(value, name="δ")
            if kind == "epsilon":
                return check_epsilon(value, name="ε")
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        if math.isnan(value) or value < 0:  # ∞ is allowed: infinite noise reveals nothing (ε = 0)
            raise argparse.ArgumentTypeError(f"the noise multiplier must be a number >= 0, got {text!r}")
        return value

    parse.__name__ = kind  # argparse names the type in some messages
    return parse


def _sampling_rate(text: str) -> float:
    """An argparse ``type`` for ``--sampling-rate``: a probability q in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value <= 1.0:  # NaN fails too
        raise argparse.ArgumentTypeError(f"expected a probability q with 0 < q <= 1, got {text!r}")
    return value


def _count(text: str) -> int:
    """An argparse ``type`` for ``--count``: a whole number of releases, at least 1 (``100``, ``1e8``)."""
    expectation = "expected a whole number of releases >= 1 (e.g. 100 or 1e8)"
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{expectation}, got {text!r}") from None
    if not number.is_finite() or number != number.to_integral_value() or number < 1:
        raise argparse.ArgumentTypeError(f"{expectation}, got {text!r}")
    try:
        return check_count(int(number), name="the count")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Bound the privacy of repeated releases (or of a saved ledger) with every "
        "accountant that supports them, and name the smallest valid bound. "
        f"To repair a ledger file left with a torn last line: {PROG} ledger repair FILE.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--noise-multiplier", type=_number("noise"), help="Gaussian noise multiplier σ/Δ per release (>= 0)"
    )
    source.add_argument("--pure-epsilon", type=_number("epsilon"), help="ε of a pure ε-DP release (finite, >= 0)")
    source.add_argument("--ledger", help="a ledger file written by accountants.LedgerFile (or Ledger.dumps)")
    parser.add_argument(
        "--count", type=_count, default=None, help="number of releases, >= 1 (default 1; not with --ledger)"
    )
    parser.add_argument(
        "--sampling-rate",
        type=_sampling_rate,
        default=None,
        metavar="Q",
        help="each release is computed on a Poisson sample keeping every record independently with probability "
        "Q, 0 < Q <= 1, as a DP-SGD step (default: no sampling, every release sees every record; not with --ledger)",
    )
    parser.add_argument("--delta", type=_number("delta"), default=1e-5, help="target δ in [0, 1) (default 1e-5)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    parser.add_argument(
        "--odometer",
        action="store_true",
        help="report the privacy odometer's ε, valid for releases chosen adaptively and stopped at any time "
        "(Gaussian, (ε, δ) and Poisson-sampled releases), instead of every accountant's",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log what the accountants do (INFO records) to standard error"
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return parser


def _ledger_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=f"{PROG} ledger", description="Work on a ledger file.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    repair = commands.add_parser(
        "repair",
        help="keep every complete entry of a ledger file and set torn or partial lines aside",
        description="Make a ledger file loadable and appendable again: every complete entry is kept, "
        "torn or partial lines (an interrupted write) are moved to a sibling file.",
    )
    repair.add_argument("file", metavar="FILE", help="the ledger file")
    return parser


def _repair(path: str) -> int:
    from accountants.ledger import repair_ledger  # imported here: ledger.py provides it

    try:
        report = repair_ledger(path)
    except (ValueError, OSError) as error:
        _usage_error(f"argument FILE: cannot repair {path}: {error}", prog=f"{PROG} ledger repair")
    entries = f"{report.kept} complete entr{'y' if report.kept == 1 else 'ies'}"
    if report.set_aside:
        fragments = len(report.set_aside)
        where = f", saved in {report.fragment_path}" if report.fragment_path is not None else ""
        print(
            f"Repaired the ledger {report.path}: kept {entries} and set aside {fragments} torn or partial "
            f"fragment{'s' if fragments != 1 else ''}{where}. The file loads and accepts appends again; "
            "the fragments were never complete records, so no accepted release was lost."
        )
    else:
        print(f"The ledger {report.path} needed no repair of torn lines: {entries}, nothing set aside.")
    return 0


def _load_ledger(args: argparse.Namespace) -> Ledger:
    from dp_accounting import dp_event

    from accountants.events import PureDpEvent
    from accountants.ledger import Ledger, LedgerEntry

    if args.ledger is not None:
        if args.count is not None:
            _usage_error("argument --count: not allowed with argument --ledger (the ledger records its counts)")
        if args.sampling_rate is not None:
            _usage_error("argument --sampling-rate: not allowed with argument --ledger (the ledger records its events)")
        try:
            return Ledger.load(args.ledger)
        except (ValueError, OSError) as error:
            _usage_error(f"argument --ledger: cannot read {args.ledger}: {error}")
    event: dp_event.DpEvent
    if args.pure_epsilon is not None:
        event = PureDpEvent(args.pure_epsilon)
    else:
        event = dp_event.GaussianDpEvent(args.noise_multiplier)
    if args.sampling_rate is not None and args.sampling_rate < 1.0:  # q = 1 keeps every record: no sampling
        event = dp_event.PoissonSampledDpEvent(args.sampling_rate, event)
    return Ledger([LedgerEntry(participant=None, event=event, count=1 if args.count is None else args.count)])


def main(argv: list[str] | None = None) -> int:
    """The command's exit status: 0, 2 for a usage error, 3 for an internal error (one line naming it and
    the file its traceback was saved to, :func:`accountants.crash.internal_error`), never a traceback."""
    try:
        return _main(argv)
    except Exception as error:
        from accountants.crash import INTERNAL_ERROR, internal_error

        print(f"{PROG}: internal error: {internal_error(error, PROG)}", file=sys.stderr)
        return INTERNAL_ERROR


def _main(argv: list[str] | None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["ledger"]:
        return _repair(_ledger_parser().parse_args(arguments[1:]).file)
    args = _parser().parse_args(arguments)
    with log_to_stderr(args.verbose):
        return _answer(args)


def _answer(args: argparse.Namespace) -> int:
    ledger = _load_ledger(args)
    if args.odometer:
        return _odometer(ledger, args)
    from accountants.best import best_epsilon

    try:
        best = best_epsilon(ledger, args.delta, every_accountant=True)
    except ValueError as error:
        _usage_error(str(error))
    refused = _refusals(ledger, best)
    if args.json:
        payload = {
            "delta": best.delta,
            "best": {"epsilon": best.epsilon if math.isfinite(best.epsilon) else None, "accountant": best.accountant},
            "participant": best.participant,
            "releases": releases_of(ledger, best.participant),
            "releases_all_participants": ledger.total_count(),
            "epsilon_upper": {k: (v if math.isfinite(v) else None) for k, v in best.bounds.items()},
            "refused": refused,
            "failed": dict(best.failures),
        }
        print(json.dumps(payload, indent=2))
        return 0
    print(f"Privacy of {_releases(ledger, best.participant)} at δ = {best.delta:g}\n")
    print("| accountant | ε (upper bound) |")
    print("|---|---|")
    for name, value in sorted(best.bounds.items(), key=lambda item: item[1]):
        marker = " **(best)**" if name == best.accountant else ""
        print(f"| {name} | {value:.6f}{marker} |")
    for name, reason in {**refused, **best.failures}.items():
        verb = "refused" if name in refused else "failed"
        print(f"| {name} | {verb}: {' '.join(reason.replace('|', '/').split())} |")
    return 0


def _releases(ledger: Ledger, participant: Hashable) -> str:
    """What the table bounds, in words: the worst participant's releases, and everyone's when they differ."""
    participants = ledger.participants
    if not participants:
        return "0 releases (an empty ledger)"
    own = releases_of(ledger, participant)
    words = f"{own} release{'' if own == 1 else 's'}"
    if len(participants) == 1:
        return f"{words} (worst participant {participant!r})"
    total = ledger.total_count()
    return (
        f"{words} by the worst participant {participant!r} (the table's bounds; "
        f"{len(participants)} participants made {total} release{'' if total == 1 else 's'} in all)"
    )


def _refusals(ledger: Ledger, best: BestBound) -> dict[str, str]:
    """{accountant: why it refused the ledger} for each accountant with neither a bound nor a failure
    in ``best``: a fresh one is given the ledger again, and its refusal's message is the reason."""
    from accountants.best import ACCOUNTANTS
    from accountants.errors import UnsupportedEventError

    reasons: dict[str, str] = {}
    for name, factory in ACCOUNTANTS.items():
        if name in best.bounds or name in best.failures:
            continue
        try:
            factory().register_ledger(ledger)
        except UnsupportedEventError as error:
            reasons[name] = str(error)
        except ValueError as error:  # a refusal in other words
            reasons[name] = f"{type(error).__name__}: {error}"
        else:
            reasons[name] = "bounded no participant of this ledger"
        logging.getLogger("accountants.cli").info("%s refused the ledger: %s", name, reasons[name])
    return reasons


def _odometer(ledger: Ledger, args: argparse.Namespace) -> int:
    from accountants.errors import UnsupportedEventError
    from accountants.odometer import PrivacyOdometer

    odometer = PrivacyOdometer()
    try:
        odometer.register_ledger(ledger)
    except UnsupportedEventError as error:
        _usage_error(f"argument --odometer: {error}")
    except ValueError as error:
        _usage_error(str(error))
    by_participant = {
        participant: odometer.get_epsilon(args.delta, participant) for participant in odometer.participants
    }
    worst = max(by_participant, key=lambda participant: by_participant[participant], default=None)
    epsilon = by_participant.get(worst, 0.0)
    if args.json:
        payload = {
            "delta": args.delta,
            "odometer": {"epsilon": epsilon if math.isfinite(epsilon) else None, "participant": worst},
        }
        print(json.dumps(payload, indent=2))
        return 0
    print(
        f"Privacy odometer over {_releases(ledger, worst)} at δ = {args.delta:g}: valid however the releases "
        "were chosen and whenever they stopped\n"
    )
    print("| accountant | ε (upper bound) |")
    print("|---|---|")
    print(f"| odometer | {epsilon:.6f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
