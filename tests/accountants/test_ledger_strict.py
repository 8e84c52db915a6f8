"""Ledgers that can always be read back, read strictly, and recovered in linear time.

1. Events nested deeper than ``MAX_EVENT_DEPTH`` are refused where they enter (registration,
   encoding, a ledger file) before anything is written; at the limit they register, are written,
   load back and give every accountant the same ε as in memory, even from a deep call stack.
2. Crafted ledger files (deep nesting, duplicate keys, huge numbers, the abstract ``DpEvent``,
   headers and entries with keys they do not have) are refused by ``Ledger.load``, recovery,
   ``repair_ledger`` and the ``dp-accountant`` command with the file and line, never a traceback.
3. Recovery parses each byte of a torn line a bounded number of times (counted, not timed), and
   finds exactly the records that an independent, quadratic reference finds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from dp_accounting import dp_event
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import (
    ExactGaussianAccountant,
    Ledger,
    LedgerEntry,
    LedgerFile,
    MomentsAccountant,
    PLDAccountant,
    PureDpEvent,
    PureEpsilonAccountant,
    best_epsilon,
    strictjson,
)
from accountants import ledger as ledger_module
from accountants.__main__ import main
from accountants.events import MAX_EVENT_DEPTH, check_event, flatten
from accountants.ledger import LedgerFileError, repair_ledger
from accountants.serialization import event_from_json, event_to_json

HEADER = b'{"schema": "accountants.ledger", "version": 1}\n'
GAUSSIAN = b'{"type": "GaussianDpEvent", "noise_multiplier": 1.0}'


def nested(depth: int, leaf: dp_event.DpEvent | None = None) -> dp_event.DpEvent:
    """An event of nesting ``depth``, alternating self-composition (x2) and composition."""
    event = dp_event.GaussianDpEvent(30.0) if leaf is None else leaf
    for level in range(depth - 1):
        event = dp_event.ComposedDpEvent([event]) if level % 2 else dp_event.SelfComposedDpEvent(event, 2)
    return event


def entry_line(participant: object = 0, count: object = 1, event: bytes = GAUSSIAN) -> bytes:
    return b'{"participant": %s, "iteration": null, "count": %s, "event": %s}' % (
        json.dumps(participant).encode(),
        str(count).encode(),
        event,
    )


def on_a_deep_stack(frames: int, call):  # the callers of an accountant may already be deep
    return call() if frames == 0 else on_a_deep_stack(frames - 1, call)


# ---------------------------------------------------------------------------------------------
# 1. The depth limit.
@pytest.mark.parametrize(
    "make, leaf",
    [
        (PLDAccountant, dp_event.GaussianDpEvent(30.0)),
        (MomentsAccountant, dp_event.GaussianDpEvent(30.0)),
        (ExactGaussianAccountant, dp_event.GaussianDpEvent(30.0)),
        (PureEpsilonAccountant, PureDpEvent(0.001)),
    ],
)
def test_an_event_at_the_depth_limit_is_written_and_read_back_with_the_same_epsilon(tmp_path, make, leaf):
    path = tmp_path / "ledger.jsonl"
    event = nested(MAX_EVENT_DEPTH, leaf)
    accountant = on_a_deep_stack(300, lambda: make(ledger_path=path).register(event, participant=1))
    epsilon = accountant.get_epsilon(1e-5)
    assert Ledger.load(path) == accountant.ledger
    assert on_a_deep_stack(300, lambda: make(ledger_path=path).get_epsilon(1e-5)) == epsilon
    assert on_a_deep_stack(300, lambda: best_epsilon(Ledger.load(path), 1e-5, every_accountant=True)).epsilon <= epsilon
    assert 0 < epsilon < float("inf")


def test_an_event_over_the_depth_limit_is_refused_before_anything_is_written(tmp_path):
    path = tmp_path / "ledger.jsonl"
    accountant = PLDAccountant(ledger_path=path)
    accountant.register(dp_event.GaussianDpEvent(3.0))
    before = path.read_bytes()
    wrapped = dp_event.GaussianDpEvent(1.0)
    for _ in range(198):  # the GaussianDpEvent wrapped 198 times in ComposedDpEvent
        wrapped = dp_event.ComposedDpEvent([wrapped])
    for event in (nested(MAX_EVENT_DEPTH + 1), wrapped):
        for register in (
            lambda e: accountant.register(e),
            lambda e: accountant.register_many([dp_event.GaussianDpEvent(2.0), e]),
            lambda e: accountant.register_ledger(Ledger([LedgerEntry(0, e)])),
            lambda e: LedgerFile(path).append(LedgerEntry(0, e)),
        ):
            with pytest.raises(ValueError, match=f"MAX_EVENT_DEPTH = {MAX_EVENT_DEPTH}"):
                register(event)
            assert path.read_bytes() == before
        for refuse in (check_event, flatten, event_to_json, lambda e: Ledger([LedgerEntry(0, e)]).dumps()):
            with pytest.raises(ValueError, match=f"MAX_EVENT_DEPTH = {MAX_EVENT_DEPTH}"):
                refuse(event)
    assert len(Ledger.load(path)) == 1 and len(accountant.ledger) == 1


def test_decoding_refuses_deep_events_lists_of_lists_and_the_abstract_base():
    encoded: object = {"type": "GaussianDpEvent", "noise_multiplier": 1.0}
    for _ in range(MAX_EVENT_DEPTH):
        encoded = {"type": "ComposedDpEvent", "events": [encoded]}
    with pytest.raises(ValueError, match=f"MAX_EVENT_DEPTH = {MAX_EVENT_DEPTH}"):
        event_from_json(encoded)
    assert event_from_json(encoded["events"][0]) == nested_composed(MAX_EVENT_DEPTH)  # type: ignore[index]
    deep_list: object = [1.0]
    for _ in range(5000):
        deep_list = [deep_list]
    with pytest.raises(ValueError, match="a list inside a list"):
        event_from_json(
            {
                "type": "MixtureOfGaussiansDpEvent",
                "standard_deviation": 1.0,
                "sensitivities": deep_list,
                "sampling_probs": [1],
            }
        )
    for name in ("DpEvent", "dp_event.DpEvent"):
        with pytest.raises(ValueError, match="not a concrete event"):
            event_from_json({"type": name})


def nested_composed(depth: int) -> dp_event.DpEvent:
    event: dp_event.DpEvent = dp_event.GaussianDpEvent(1.0)
    for _ in range(depth - 1):
        event = dp_event.ComposedDpEvent([event])
    return event


def test_participants_and_counts_beyond_ten_to_the_300_are_refused_where_they_enter():
    with pytest.raises(ValueError, match="participant must be an int of magnitude at most 10\\*\\*300"):
        PLDAccountant().register(dp_event.GaussianDpEvent(1.0), participant=-(10**301))
    with pytest.raises(ValueError, match="count must be at most 10\\*\\*300"):
        LedgerEntry(0, dp_event.GaussianDpEvent(1.0), count=10**301)
    assert LedgerEntry(10**300, dp_event.GaussianDpEvent(1.0), count=10**300).participant == 10**300


def encoded_composed(depth: int) -> bytes:
    """A GaussianDpEvent in ComposedDpEvents, ``depth`` events in all, as JSON (nesting 2·depth - 1)."""
    encoded: object = {"type": "GaussianDpEvent", "noise_multiplier": 1.0}
    for _ in range(depth - 1):
        encoded = {"type": "ComposedDpEvent", "events": [encoded]}
    return json.dumps(encoded).encode()


# ---------------------------------------------------------------------------------------------
# 2. Crafted files: a clear error with the file and line, in every reader.
DEEP = 100_000
CRAFTED = {
    "complete deep arrays": (HEADER + b"[" * DEEP + b"]" * DEEP + b"\n", 2, "nested deeper than 67 levels"),
    "deep records": (HEADER + b'{"participant":' * 2000 + b"1" + b"}" * 2000 + b"\n", 2, "nested deeper"),
    "deep events": (
        HEADER + entry_line(event=b'{"type": "ComposedDpEvent", "events": [' * 1000 + GAUSSIAN + b"]}" * 1000) + b"\n",
        2,
        "nested deeper",
    ),
    "deep events at the limit plus one": (
        HEADER + entry_line(event=encoded_composed(MAX_EVENT_DEPTH + 1)) + b"\n",
        2,
        f"MAX_EVENT_DEPTH = {MAX_EVENT_DEPTH}",
    ),
    "duplicate count": (
        HEADER + b'{"participant": 0, "count": 1, "count": 1000000, "event": ' + GAUSSIAN + b"}\n",
        2,
        "the key 'count' appears twice",
    ),
    "duplicate key in an event": (
        HEADER
        + entry_line(event=b'{"type": "GaussianDpEvent", "noise_multiplier": 9.0, "noise_multiplier": 0.1}')
        + b"\n",
        2,
        "the key 'noise_multiplier' appears twice",
    ),
    "duplicate version": (
        b'{"schema": "accountants.ledger", "version": 2, "version": 1}\n' + entry_line() + b"\n",
        1,
        "the key 'version' appears twice",
    ),
    "version 1.0": (b'{"schema": "accountants.ledger", "version": 1.0}\n', 1, "unsupported ledger version 1.0"),
    "version true": (b'{"schema": "accountants.ledger", "version": true}\n', 1, "unsupported ledger version True"),
    "header with another key": (
        b'{"schema": "accountants.ledger", "version": 1, "budget": 3}\n',
        1,
        "unknown 'budget'",
    ),
    "entry with another key": (HEADER + entry_line()[:-1] + b', "cuont": 5}\n', 2, "unknown 'cuont'"),
    "5,000-digit count": (HEADER + entry_line(count="9" * 5000) + b"\n", 2, "an integer of 5,000 digits"),
    "count over 10**300": (HEADER + entry_line(count=2 * 10**300) + b"\n", 2, "count must be at most 10\\*\\*300"),
    "participant over 10**300": (HEADER + entry_line(participant=-2 * 10**300) + b"\n", 2, "magnitude at most 10"),
    "overflowing float": (
        HEADER + entry_line(event=b'{"type": "GaussianDpEvent", "noise_multiplier": 1e999}') + b"\n",
        2,
        "1e999 overflows a float",
    ),
    "Infinity": (HEADER + entry_line(event=b'{"type": "PureDpEvent", "epsilon": Infinity}') + b"\n", 2, "Infinity"),
    "abstract DpEvent": (HEADER + entry_line(event=b'{"type": "DpEvent"}') + b"\n", 2, "'DpEvent' \\(not a concrete"),
}


@pytest.mark.parametrize("name", list(CRAFTED))
def test_a_crafted_ledger_is_refused_with_its_file_and_line_by_every_reader(tmp_path, name, capsys):
    content, line, match = CRAFTED[name]
    path = tmp_path / "crafted.jsonl"
    path.write_bytes(content)
    readers = [
        Ledger.load,
        lambda p: Ledger.load(p, recover=True),
        repair_ledger,
        lambda p: PLDAccountant(ledger_path=p),
    ]
    for read in readers:
        with pytest.raises(LedgerFileError, match=match) as caught:
            read(path)
        assert caught.value.path == path and caught.value.line == line
        assert f"line {line}" in str(caught.value) and str(path) in str(caught.value)
    assert path.read_bytes() == content  # nothing rewritten, nothing set aside
    assert not path.with_name(path.name + ".torn").exists()
    for argv in (["--ledger", str(path), "--delta", "1e-5"], ["ledger", "repair", str(path)]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        captured = capsys.readouterr()
        assert exit_info.value.code == 2 and "Traceback" not in captured.err
        assert len(captured.err.splitlines()) == 1 and f"line {line}" in captured.err


@pytest.mark.slow
def test_the_command_on_a_deeply_nested_file_prints_one_line_in_a_fresh_process(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_bytes(HEADER + b'{"participant": 0, "count": 1, "event": ' + b"[" * 5000 + b"]" * 5000 + b"}\n")
    for argv in (["--ledger", str(path), "--delta", "1e-5"], ["ledger", "repair", str(path)]):
        done = subprocess.run([sys.executable, "-m", "accountants", *argv], capture_output=True, text=True)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.splitlines()) == 1 and "line 2" in done.stderr


def test_a_duplicate_key_in_an_indented_document_is_located_by_line(tmp_path):
    ledger = Ledger([LedgerEntry(0, dp_event.GaussianDpEvent(1.0)), LedgerEntry(1, dp_event.GaussianDpEvent(2.0))])
    text = json.dumps(ledger.to_json(), indent=2)
    lines = text.splitlines()
    second_count = [number for number, line in enumerate(lines, start=1) if '"count"' in line][1]
    lines.insert(second_count, '      "count": 7,')  # the second entry's count, twice
    path = tmp_path / "indented.json"
    path.write_text("\n".join(lines))
    closing = next(n for n in range(second_count + 1, len(lines) + 1) if lines[n - 1].strip().startswith("}"))
    closing = next(n for n in range(closing + 1, len(lines) + 1) if lines[n - 1].strip().startswith("}"))
    with pytest.raises(LedgerFileError, match=f"line {closing}: the key 'count' appears twice") as caught:
        Ledger.load(path)
    assert caught.value.line == closing
    with pytest.raises(LedgerFileError, match="the key 'count' appears twice"):
        Ledger.loads(path.read_text())


def test_strict_json_errors_name_the_byte():
    for text, position in [(b'{"a": 1, "a": 2}', 15), (b"[1,\n NaN]", 5), (b"[0, " + b"7" * 400 + b"]", 4)]:
        with pytest.raises(strictjson.StrictJSONError) as caught:
            strictjson.loads(text, 10, locate=True)
        assert caught.value.position == position
    assert strictjson.depth_exceeded(b'["' + b"[" * 100 + b'"]', 5) is None  # brackets in a string
    assert strictjson.depth_exceeded(b'["\\\\"' + b"[" * 10 + b"]" * 10 + b"]", 5) == 9  # the quote ends it
    assert strictjson.depth_exceeded(b'["\\"' + b"[" * 10 + b'"]', 5) is None  # an escaped quote does not


# ---------------------------------------------------------------------------------------------
# 3. Recovery: linear, and the same records as an independent reference.
class ParseCounter:
    """Counts the bytes recovery hands to the JSON parser."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = self.bytes = 0
        real = strictjson.loads

        def counting(data: bytes, *args: object, **kwargs: object) -> object:
            self.calls += 1
            self.bytes += len(data)
            return real(data, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(ledger_module.strictjson, "loads", counting)


@pytest.mark.parametrize("n", [10_000, 80_000])
def test_a_line_of_opening_braces_is_set_aside_without_parsing(tmp_path, monkeypatch, n):
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(HEADER + entry_line(0) + b"\n" + b"{" * n + b"\n" + entry_line(1) + b"\n")
    counter = ParseCounter(monkeypatch)
    assert [e.participant for e in Ledger.load(path, recover=True)] == [0, 1]
    assert counter.bytes <= 2 * len(entry_line()) + len(HEADER)  # the two entries and the header only
    assert repair_ledger(path).set_aside == ("{" * n,)


def adversarial_line(levels: int, width: int) -> bytes:
    """Records opened inside records ``levels`` deep, each holding ``width`` numbers, broken at the
    innermost point and torn before the last brace: a reader that parses from every record start
    parses about levels/2 times the line."""
    opening = b'{"participant": [' + b"1, " * width
    return (opening * levels + b"x" + b"]}" * levels)[:-1]


@pytest.mark.parametrize("levels", [30, 60])
def test_recovery_parses_each_byte_a_bounded_number_of_times(tmp_path, monkeypatch, levels):
    line = adversarial_line(levels, 2000)
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(HEADER + line + b"\n" + entry_line(5) + line + entry_line(6) + b"\n")
    counter = ParseCounter(monkeypatch)
    assert [e.participant for e in Ledger.load(path, recover=True)] == [5, 6]
    # Each torn line is parsed at most twice: whole, by the strict reading (unless its brackets
    # show that it cannot be complete), and from its outermost record start within the depth limit
    # (the record starts that parse entered fail where it failed, and are not parsed again). The
    # quadratic reference parses it about levels/2 times.
    assert counter.bytes <= 2 * (2 * len(line)) + 4 * len(entry_line()) + len(HEADER)


def reference_salvage(line: bytes) -> list[dict]:
    """The records of a torn line, found the slow way: a parse from every ``{`` (quadratic)."""
    text = line.decode("utf-8", "surrogateescape")
    decoder = json.JSONDecoder()
    found, position = [], 0
    while (brace := text.find("{", position)) >= 0:
        try:
            value, end = decoder.raw_decode(text, brace)
        except ValueError:
            position = brace + 1
            continue
        if isinstance(value, dict) and {"participant", "event"} <= value.keys():
            found.append(value)
            position = end
        else:
            position = brace + 1 if not isinstance(value, dict) else end
    return found


records = st.builds(
    lambda p, noise, count: entry_line(p, count, b'{"type": "GaussianDpEvent", "noise_multiplier": %r}' % noise),
    st.one_of(st.integers(-5, 5), st.text('ab{}[]"\\: ', max_size=6)),
    st.floats(0.5, 50.0),
    st.integers(1, 3),
)


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(st.tuples(records, st.one_of(st.none(), st.floats(0, 1))), min_size=1, max_size=6))
def test_recovery_finds_the_records_a_quadratic_reference_finds(tmp_path_factory, pieces):
    # Each record is written whole or cut at a random point (a write killed there), all on one line.
    line = b"".join(record if cut is None else record[: int(cut * len(record))] for record, cut in pieces)
    if not line.strip() or line.count(b"\n"):
        return
    path = tmp_path_factory.mktemp("r") / "ledger.jsonl"
    path.write_bytes(HEADER + line + b"\n")
    expected = [LedgerEntry.from_json(value) for value in reference_salvage(line)]
    assert list(Ledger.load(path, recover=True)) == expected
    report = repair_ledger(path)
    assert list(Ledger.load(path)) == expected and report.kept == len(expected)
    for fragment in report.set_aside:  # what is set aside holds no record
        assert reference_salvage(fragment.encode("utf-8", "surrogateescape")) == []
    os.remove(path)


def test_a_deep_document_is_refused_by_line_and_an_unclosed_one_is_not_a_document(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"schema": "accountants.ledger", "version": 1, "entries": [\n' + "[" * 100 + "]" * 100 + "\n]}")
    with pytest.raises(LedgerFileError, match="line 2: nested deeper than 67 levels") as caught:
        Ledger.load(path)
    assert caught.value.line == 2
    with pytest.raises(LedgerFileError, match="line 2: nested deeper than 67 levels"):
        Ledger.loads(path.read_text())
    path.write_text('{"schema": "accountants.ledger", "version": 1, "entries": [\n' + "[" * 100)
    with pytest.raises(LedgerFileError, match="is not a ledger: line 1 is not complete JSON"):
        Ledger.load(path)
