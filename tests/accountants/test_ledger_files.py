"""Ledger files under restarts, crashes, full disks and concurrent writers: no release is lost,
no file is left that neither loads nor accepts new releases, and every way back keeps every
complete record."""

import errno
import json
import math
import multiprocessing
import os
import random
import signal
import struct
import time
from functools import partial

import pytest
from dp_accounting import dp_event

from accountants import (
    ExactGaussianAccountant,
    Ledger,
    LedgerEntry,
    LedgerFile,
    MomentsAccountant,
    PLDAccountant,
    PureDpEvent,
    PureEpsilonAccountant,
)
from accountants import ledger as ledger_module
from accountants.filelock import HAVE_OS_LOCKS

HEADER = b'{"schema": "accountants.ledger", "version": 1}\n'
needs_fork = pytest.mark.skipif(
    not HAVE_OS_LOCKS or "fork" not in multiprocessing.get_all_start_methods(),
    reason="cross-process ledger locking is POSIX (flock); these tests fork",
)


def entry(participant=0, epsilon=0.5, iteration=None):
    return LedgerEntry(participant=participant, event=PureDpEvent(epsilon), iteration=iteration)


def line(e):
    return json.dumps(e.to_json()).encode() + b"\n"


def header_lines(path):
    return sum(1 for raw in path.read_bytes().splitlines() if b'"schema"' in raw)


# ---------------------------------------------------------------------------------------------
# 1. Restarting on an existing ledger continues it.
@pytest.mark.parametrize(
    "make, event",
    [
        (ExactGaussianAccountant, dp_event.GaussianDpEvent(2.0)),
        (MomentsAccountant, dp_event.GaussianDpEvent(2.0)),
        (partial(PLDAccountant, value_discretization_interval=1e-3), dp_event.GaussianDpEvent(2.0)),
        (PureEpsilonAccountant, PureDpEvent(0.25)),
    ],
)
def test_an_accountant_opened_on_an_existing_ledger_counts_its_releases(tmp_path, make, event):
    path = tmp_path / "run.ledger.jsonl"
    first = make(ledger_path=path)
    first.register(event, count=3, participant="dave", iteration=0)
    first.register_many([event, event], participants=["dave", "erin"], iteration=1)
    on_disk = path.read_bytes()

    restarted = make(ledger_path=path)
    assert path.read_bytes() == on_disk  # loading does not write the entries again
    assert restarted.ledger == first.ledger
    assert restarted.participants == ["dave", "erin"]
    for participant in ("dave", "erin", None):
        assert restarted.get_epsilon(1e-5, participant) == pytest.approx(first.get_epsilon(1e-5, participant), rel=1e-9)

    restarted.register(event, participant="dave", iteration=2)  # and continues the same file
    assert len(Ledger.load(path)) == 4
    assert make(ledger_path=path).get_epsilon(1e-5, "dave") == pytest.approx(restarted.get_epsilon(1e-5, "dave"))


def test_an_accountant_that_cannot_bound_the_ledger_it_opens_refuses_it(tmp_path):
    path = tmp_path / "gaussian.jsonl"
    ExactGaussianAccountant(ledger_path=path).register(dp_event.GaussianDpEvent(1.0))
    with pytest.raises(ValueError, match="cannot bound"):
        PureEpsilonAccountant(ledger_path=path)


def test_accountants_sharing_a_file_compose_each_others_releases_when_they_write(tmp_path):
    path = tmp_path / "shared.jsonl"
    alice, bob = PureEpsilonAccountant(ledger_path=path), PureEpsilonAccountant(ledger_path=path)
    alice.register(PureDpEvent(0.25), participant="x")
    bob.register(PureDpEvent(0.5), participant="x")  # composes alice's release first
    assert bob.get_epsilon(0.0, "x") == 0.75
    alice.register_many([PureDpEvent(0.125)], participants=["x"])
    assert alice.get_epsilon(0.0, "x") == 0.875
    assert [e.event.epsilon for e in alice.ledger] == [0.25, 0.5, 0.125] == [e.event.epsilon for e in Ledger.load(path)]


# ---------------------------------------------------------------------------------------------
# 3. Files that used to stop loading.
def test_a_torn_last_line_is_refused_for_appending_with_the_way_back(tmp_path):
    path = tmp_path / "ledger.jsonl"
    LedgerFile(path).extend([entry(0), entry(1)])
    with open(path, "ab") as handle:
        handle.write(line(entry(2))[:25])  # a writer killed mid-line
    torn = path.read_bytes()
    for opener in (LedgerFile, lambda p: PureEpsilonAccountant(ledger_path=p)):
        with pytest.raises(ledger_module.LedgerFileError, match="line 4 is not a complete entry") as caught:
            opener(path)
        assert "dp-accountant ledger repair" in str(caught.value) and "recover=True" in str(caught.value)
    with pytest.raises(ledger_module.LedgerFileError, match=r"line 4 is not a complete entry.*ledger repair"):
        Ledger.load(path)

    recovered = Ledger.load(path, recover=True)
    assert [e.participant for e in recovered] == [0, 1]
    assert path.read_bytes() == torn  # recovering reads, it does not change the file

    path.chmod(0o640)
    report = ledger_module.repair_ledger(path)
    assert path.stat().st_mode & 0o777 == 0o640  # rewritten, with its permissions
    assert report == ledger_module.RepairReport(
        path=path, kept=2, set_aside=(line(entry(2))[:25].decode(),), fragment_path=path.with_name("ledger.jsonl.torn")
    )
    assert report.fragment_path.read_bytes() == line(entry(2))[:25] + b"\n"
    assert path.read_bytes() == HEADER + line(entry(0)) + line(entry(1))
    LedgerFile(path).append(entry(3))  # start it again
    assert [e.participant for e in Ledger.load(path)] == [0, 1, 3]
    assert ledger_module.repair_ledger(path) == ledger_module.RepairReport(path, 3, (), None)  # nothing to do


def test_an_accountant_whose_file_was_repaired_under_it_continues_on_the_repaired_file(tmp_path):
    path = tmp_path / "ledger.jsonl"
    accountant = PureEpsilonAccountant(ledger_path=path)
    accountant.register(PureDpEvent(0.25), participant="a")
    with open(path, "ab") as handle:  # another writer, killed mid-line
        handle.write(line(entry("a"))[:30])
    with pytest.raises(ledger_module.LedgerFileError, match="ledger repair"):
        accountant.register(PureDpEvent(0.25), participant="a")
    ledger_module.repair_ledger(path)  # replaces the file (a new inode)
    accountant.register(PureDpEvent(0.25), participant="a")
    assert accountant.get_epsilon(0.0, "a") == 0.5
    assert Ledger.load(path) == accountant.ledger


def test_a_ledger_file_cut_short_or_replaced_by_another_is_refused(tmp_path):
    path = tmp_path / "ledger.jsonl"
    accountant = PureEpsilonAccountant(ledger_path=path)
    accountant.register(PureDpEvent(0.25))
    accountant.register(PureDpEvent(0.25))
    with open(path, "r+b") as handle:
        handle.truncate(len(HEADER) + len(line(entry(None, 0.25))))
    with pytest.raises(ledger_module.LedgerFileError, match="shrank"):
        accountant.register(PureDpEvent(0.25))
    other = tmp_path / "other.jsonl"
    other.write_bytes(HEADER)
    os.replace(other, path)
    with pytest.raises(ledger_module.LedgerFileError, match="does not begin with the 2 releases"):
        accountant.register(PureDpEvent(0.25))
    path.unlink()
    with pytest.raises(ledger_module.LedgerFileError, match="no longer exists"):
        accountant.register(PureDpEvent(0.25))
    assert not path.exists()  # and it was not created again behind the accountant's back


def test_a_file_without_a_final_newline_gets_its_line_ended_not_merged(tmp_path):
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(HEADER + line(entry(0)) + line(entry(1)).rstrip(b"\n"))  # e.g. edited by hand
    assert [e.participant for e in Ledger.load(path)] == [0, 1]
    assert PureEpsilonAccountant(ledger_path=path).get_epsilon(0.0) == 0.5
    LedgerFile(path).append(entry(2))
    assert path.read_bytes() == HEADER + line(entry(0)) + line(entry(1)) + line(entry(2))
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    accountant = PureEpsilonAccountant(ledger_path=path)
    accountant.register(PureDpEvent(0.5), participant=3)
    assert [e.participant for e in Ledger.load(path)] == [0, 1, 2, 3]


def _full_disk_after(monkeypatch, keep):
    real_write = os.write

    def write(fd, data):
        written = real_write(fd, bytes(data)[:keep])
        monkeypatch.setattr(os, "write", real_write)  # the space is freed after this failure
        raise OSError(errno.ENOSPC, f"No space left on device (after {written} bytes)")

    monkeypatch.setattr(os, "write", write)


def test_a_full_disk_leaves_no_partial_line(tmp_path, monkeypatch):
    path = tmp_path / "ledger.jsonl"
    ledger_file = LedgerFile(path)
    ledger_file.append(entry(0))
    _full_disk_after(monkeypatch, keep=40)
    with pytest.raises(OSError, match="No space left"):
        ledger_file.extend([entry(1), entry(2)])
    assert path.read_bytes() == HEADER + line(entry(0))  # cut back to the last complete line
    ledger_file.append(entry(3))
    assert [e.participant for e in Ledger.load(path)] == [0, 3]

    accountant = PureEpsilonAccountant(ledger_path=path)
    _full_disk_after(monkeypatch, keep=10)
    with pytest.raises(OSError, match="No space left"):
        accountant.register(PureDpEvent(0.5), participant=4)
    assert accountant.participants == [0, 3]  # refused: not counted, not on disk
    accountant.register(PureDpEvent(0.5), participant=5)
    assert [e.participant for e in Ledger.load(path)] == [0, 3, 5]


def _append_past_the_file_size_limit(path, limit):
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # fail the write with EFBIG instead of dying
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    try:
        LedgerFile(path).extend([entry(1), entry(2)])
    except OSError:
        os._exit(0)
    os._exit(3)


@needs_fork
def test_a_disk_that_fills_up_mid_write_leaves_no_partial_line(tmp_path):
    # A real short write: the file size limit cuts the write after 40 bytes, as a full disk would.
    path = tmp_path / "ledger.jsonl"
    LedgerFile(path).append(entry(0))
    before = path.read_bytes()
    _join([_run(multiprocessing.get_context("fork"), _append_past_the_file_size_limit, path, len(before) + 40)])
    assert path.read_bytes() == before
    LedgerFile(path).append(entry(3))  # space is back
    assert [e.participant for e in Ledger.load(path)] == [0, 3]


def test_a_partial_line_that_could_not_be_cut_back_is_never_extended(tmp_path, monkeypatch):
    path = tmp_path / "ledger.jsonl"
    ledger_file = LedgerFile(path)
    ledger_file.append(entry(0))
    _full_disk_after(monkeypatch, keep=33)

    def ftruncate(fd, length):
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(os, "ftruncate", ftruncate)
    with pytest.raises(OSError, match="No space left"):
        ledger_file.append(entry(1))
    monkeypatch.undo()
    with pytest.raises(ledger_module.LedgerFileError, match="last line is not a complete entry.*ledger repair"):
        ledger_file.append(entry(2))  # space is back, but it is not glued to the fragment
    report = ledger_module.repair_ledger(path)
    assert report.kept == 1 and report.set_aside == (line(entry(1))[:33].decode(),)
    ledger_file.append(entry(2))
    assert [e.participant for e in Ledger.load(path)] == [0, 2]


def test_recovery_keeps_records_glued_to_fragments_and_drops_repeated_headers(tmp_path):
    # What older versions could leave: two headers (concurrent creation), a fragment with the next
    # release glued to it (full disk), a last line without newline with the next one merged onto it.
    path = tmp_path / "old.jsonl"
    glued = line(entry(1))[:20] + line(entry(2))
    merged = line(entry(3)).rstrip(b"\n") + line(entry(4))
    path.write_bytes(HEADER + HEADER + line(entry(0)) + glued + merged + b"\n")
    with pytest.raises(ledger_module.LedgerFileError, match="line 4 is not a complete entry"):
        Ledger.load(path)
    assert [e.participant for e in Ledger.load(path, recover=True)] == [0, 2, 3, 4]
    report = ledger_module.repair_ledger(path)
    assert report.kept == 4 and report.set_aside == (line(entry(1))[:20].decode(),)
    assert path.read_bytes() == HEADER + b"".join(line(entry(p)) for p in (0, 2, 3, 4))


def test_recovery_never_drops_a_complete_line_that_is_not_a_valid_entry(tmp_path):
    path = tmp_path / "ledger.jsonl"
    bad = json.dumps({**entry(1).to_json(), "event": {"type": "EventFromTheFuture", "x": 1}}).encode()
    path.write_bytes(HEADER + line(entry(0)) + bad + b"\n")
    for read in (Ledger.load, lambda p: Ledger.load(p, recover=True), ledger_module.repair_ledger):
        with pytest.raises(ledger_module.LedgerFileError, match="line 3: .*EventFromTheFuture"):
            read(path)


def test_a_header_torn_at_creation_and_an_empty_file(tmp_path):
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(HEADER[:12])
    with pytest.raises(ledger_module.LedgerFileError, match="line 1 is not a complete entry"):
        LedgerFile(path)
    assert len(Ledger.load(path, recover=True)) == 0
    assert ledger_module.repair_ledger(path).set_aside == (HEADER[:12].decode(),)
    assert path.read_bytes() == HEADER
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(ledger_module.LedgerFileError, match="is empty"):
        Ledger.load(empty)
    assert len(Ledger.load(empty, recover=True)) == 0
    LedgerFile(empty).append(entry(0))  # an empty file is a new ledger
    assert empty.read_bytes() == HEADER + line(entry(0))


@pytest.mark.parametrize(
    "content, match",
    [
        (None, "no ledger file at"),
        (b"", "is empty"),
        (b"hello\n", "not a ledger"),
        (b"null\n", "not a ledger: line 1: expected a JSON object .* got null"),
        (b'{"schema": "accountants.ledger", "version": 2}\n', "unsupported ledger version 2"),
        (HEADER + b"null\n", "line 2: expected a JSON object .* got null"),
        (HEADER + b"[]\n", "line 2: expected a JSON object .* got an array"),
        (HEADER + b'{"participant": 0, "count": 1}\n', "line 2: .*missing 'event'"),
        (HEADER + b'{"participant": 0, "count": 1, "event": null}\n', "line 2: "),
        (HEADER + b'{"participant": 1.5, "count": 1, "event": {"type": "PureDpEvent", "epsilon": 1.0}}\n', "line 2"),
        (HEADER + b'{"participant": 0, "count": NaN, "event": {"type": "PureDpEvent", "epsilon": 1.0}}\n', "NaN"),
    ],
)
def test_files_that_are_not_ledgers_raise_a_ledger_file_error_naming_path_and_line(tmp_path, content, match):
    path = tmp_path / "x.jsonl"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ledger_module.LedgerFileError, match=match) as caught:
        Ledger.load(path)
    assert str(path) in str(caught.value) and isinstance(caught.value, ValueError)
    if content:
        with pytest.raises(ledger_module.LedgerFileError):
            ledger_module.repair_ledger(path)


def test_repairing_something_that_is_not_a_ledger_raises(tmp_path):
    with pytest.raises(ledger_module.LedgerFileError, match="no ledger file"):
        ledger_module.repair_ledger(tmp_path / "missing.jsonl")
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\nworld\n")
    with pytest.raises(ValueError, match="not a ledger"):
        ledger_module.repair_ledger(notes)
    assert notes.read_text() == "hello\nworld\n"


@pytest.mark.parametrize(
    "text, match",
    [
        ("garbage", "not a ledger"),
        ("", "empty"),
        ("null", "got null"),
        ("[]", "got an array"),
        ('{"schema": "accountants.ledger", "version": 1, "entries": [null]}', "entry 0: .*got null"),
        ('{"schema": "accountants.ledger", "version": 1, "entries": [{"participant": 0, "count": 1}]}', "'event'"),
        ('{"schema": "accountants.ledger", "version": 1, "entries": {}}', "list of 'entries'"),
    ],
)
def test_loads_raises_a_ledger_file_error_never_a_decoding_error(text, match):
    with pytest.raises(ledger_module.LedgerFileError, match=match) as caught:
        Ledger.loads(text)
    assert not isinstance(caught.value, (json.JSONDecodeError, TypeError, KeyError))


def test_a_saved_json_document_loads_as_its_releases(tmp_path):
    ledger = Ledger([entry(0), entry("b", 0.25, iteration=3)])
    one_line, indented = tmp_path / "doc.json", tmp_path / "indented.json"
    one_line.write_text(ledger.dumps())
    indented.write_text(json.dumps(ledger.to_json(), indent=2))
    assert (
        Ledger.load(one_line)
        == Ledger.load(indented)
        == ledger
        == Ledger.loads(HEADER.decode() + "".join(line(e).decode() for e in ledger))
    )
    assert PureEpsilonAccountant(ledger_path=one_line).get_epsilon(0.0, 0) == 0.5
    LedgerFile(one_line).append(entry(2))  # a one-line document is a header with entries
    assert len(Ledger.load(one_line)) == 3
    with pytest.raises(ledger_module.LedgerFileError, match="indented JSON document"):
        LedgerFile(indented)


# ---------------------------------------------------------------------------------------------
# Several processes on one file (fork, so each test stays well under a few seconds).
def _run(ctx, target, *args):
    process = ctx.Process(target=target, args=args)
    process.start()
    return process


def _join(processes):
    for process in processes:
        process.join(30)
        assert process.exitcode == 0, f"a writer process failed (exit code {process.exitcode})"


def _create_and_append(directory, tries, barrier, who):
    real_stat, rng = os.stat, random.Random(who)

    def slow_stat(*args, **kwargs):  # a slow file system: any look-before-write gap widens
        try:
            return real_stat(*args, **kwargs)
        finally:
            time.sleep(0.002)

    os.stat = slow_stat
    for attempt in range(tries):
        barrier.wait()
        time.sleep(rng.uniform(0.0, 0.004))
        LedgerFile(directory / f"{attempt}.jsonl").append(entry(who))


@needs_fork
def test_two_processes_creating_the_same_ledger_write_one_header(tmp_path):
    ctx = multiprocessing.get_context("fork")
    barrier, tries = ctx.Barrier(2, timeout=20), 40
    _join([_run(ctx, _create_and_append, tmp_path, tries, barrier, who) for who in (0, 1)])
    for attempt in range(tries):
        path = tmp_path / f"{attempt}.jsonl"
        assert header_lines(path) == 1, path.read_bytes()
        assert sorted(e.participant for e in Ledger.load(path)) == [0, 1]


def _register_many_times(path, who, count, barrier, report_fd):
    accountant = PureEpsilonAccountant(ledger_path=path)  # both create the file at once
    barrier.wait()
    for iteration in range(count):
        accountant.register(PureDpEvent(0.001), participant=who, iteration=iteration)
    os.write(report_fd, struct.pack("<Q", len(accountant.ledger)))


@needs_fork
def test_two_processes_appending_200_releases_each_leave_all_400(tmp_path):
    ctx = multiprocessing.get_context("fork")
    path, barrier = tmp_path / "shared.jsonl", ctx.Barrier(2, timeout=20)
    read_end, write_end = os.pipe()
    _join([_run(ctx, _register_many_times, path, who, 200, barrier, write_end) for who in (0, 1)])
    os.close(write_end)
    seen = struct.unpack("<2Q", os.read(read_end, 16))
    os.close(read_end)
    ledger = Ledger.load(path)
    assert header_lines(path) == 1 and len(ledger) == 400
    for who in (0, 1):
        assert [e.iteration for e in ledger.for_participant(who)] == list(range(200))
    assert max(seen) == 400  # the last writer had composed every release of the other
    assert PureEpsilonAccountant(ledger_path=path).get_epsilon(0.0, 0) == pytest.approx(0.2)


def _append_until_killed(path, start, report_fd):
    real_write = os.write

    def short_writes(fd, data):  # a slow device: most kills land inside a write
        time.sleep(0.0002)
        return real_write(fd, bytes(data[:256]))

    os.write = short_writes
    ledger_file, rng, done = LedgerFile(path), random.Random(start), start
    while True:
        size = rng.choice((1, 1, 10, 200))
        ledger_file.extend([entry("k", 0.001, iteration) for iteration in range(done, done + size)])
        done += size
        os.write(report_fd, struct.pack("<Q", done))  # acknowledged


@pytest.mark.slow
@needs_fork
def test_a_writer_killed_at_random_moments_never_loses_an_acknowledged_release(tmp_path):
    ctx, rng = multiprocessing.get_context("fork"), random.Random(20240611)
    path = tmp_path / "killed.jsonl"
    LedgerFile(path)
    recovered = 0
    for _ in range(10):
        read_end, write_end = os.pipe()
        writer = _run(ctx, _append_until_killed, path, recovered, write_end)
        os.close(write_end)
        first = os.read(read_end, 8)
        assert len(first) == 8, "the writer failed before its first append"
        time.sleep(rng.uniform(0.0, 0.03))
        os.kill(writer.pid, signal.SIGKILL)
        writer.join(10)
        reports = first
        while chunk := os.read(read_end, 4096):
            reports += chunk
        os.close(read_end)
        acknowledged = struct.unpack_from("<Q", reports, len(reports) - len(reports) % 8 - 8)[0]

        kept = Ledger.load(path, recover=True)
        iterations = [e.iteration for e in kept]
        assert iterations == list(range(len(iterations)))  # in order, none lost, none doubled
        assert len(iterations) >= acknowledged  # (write-ahead: one unacknowledged batch may be there)
        report = ledger_module.repair_ledger(path)
        assert report.kept == len(kept) and Ledger.load(path) == kept
        recovered = len(kept)
    LedgerFile(path).append(entry("k", 0.001, recovered))
    assert [e.iteration for e in Ledger.load(path)] == list(range(recovered + 1))


def _hold_lock_then_replace(path, ready_fd):
    from accountants.filelock import locked_file

    with locked_file(path, exclusive=True):
        os.write(ready_fd, b"!")
        time.sleep(0.3)
        replacement = path.with_name("replacement.jsonl")
        replacement.write_bytes(HEADER + line(entry("repaired")))
        os.replace(replacement, path)


@needs_fork
def test_a_writer_waiting_while_the_file_is_replaced_appends_to_the_new_file(tmp_path):
    ctx = multiprocessing.get_context("fork")
    path = tmp_path / "ledger.jsonl"
    ledger_file = LedgerFile(path)
    read_end, write_end = os.pipe()
    holder = _run(ctx, _hold_lock_then_replace, path, write_end)
    os.close(write_end)
    assert os.read(read_end, 1) == b"!", "the lock holder failed"
    os.close(read_end)
    ledger_file.append(entry("waiter"))  # waits for the lock on the old file, then finds the new
    _join([holder])
    assert [e.participant for e in Ledger.load(path)] == ["repaired", "waiter"]
    assert math.isclose(PureEpsilonAccountant(ledger_path=path).get_epsilon(0.0), 0.5)
