"""The budget filter is a promise: restarts continue the budget, and neither threads sharing one
filter nor processes each with its own filter on one ledger file can overspend it."""

import multiprocessing
import os
import struct
import threading
import time
from functools import partial

import pytest
from dp_accounting import dp_event

from accountants import (
    BudgetFilter,
    ExactGaussianAccountant,
    Ledger,
    LedgerFile,
    MomentsAccountant,
    PLDAccountant,
    PrivacyBudgetExceeded,
    PureDpEvent,
    PureEpsilonAccountant,
)
from accountants.filelock import HAVE_OS_LOCKS


class SlowPureEpsilonAccountant(PureEpsilonAccountant):
    """Basic composition with a slow bound, as a PLD's: it widens any gap between check and record."""

    def epsilon_from_summary(self, summary, delta):
        time.sleep(0.0005)
        return super().epsilon_from_summary(summary, delta)


def race(calls):
    """Run the calls in threads released at once; what each returned or raised."""
    barrier, results = threading.Barrier(len(calls)), [None] * len(calls)

    def run(index):
        barrier.wait()
        try:
            results[index] = calls[index]()
        except PrivacyBudgetExceeded as refused:
            results[index] = refused

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


# ---------------------------------------------------------------------------------------------
def test_a_budget_on_an_existing_ledger_continues_from_it(tmp_path):
    path = tmp_path / "run.ledger.jsonl"
    budget = BudgetFilter(PureEpsilonAccountant(ledger_path=path), epsilon=1.0, delta=0.0)
    for _ in range(4):
        budget.register(PureDpEvent(0.25), participant="dave")
    restarted = BudgetFilter(PureEpsilonAccountant(ledger_path=path), epsilon=1.0, delta=0.0)
    assert restarted.get_epsilon(0.0, "dave") == 1.0
    assert restarted.remaining_epsilon("dave") == 0.0
    with pytest.raises(PrivacyBudgetExceeded, match="'dave' would reach epsilon=1.25"):
        restarted.register(PureDpEvent(0.25), participant="dave")
    assert Ledger.load(path).total_count("dave") == 4


def test_two_threads_with_room_for_one_release_never_overspend():
    for _ in range(40):
        budget = BudgetFilter(SlowPureEpsilonAccountant(), epsilon=1.0, delta=0.0, unproven="ignore")
        budget.register(PureDpEvent(0.5))
        results = race([partial(budget.register, PureDpEvent(0.5))] * 2)
        assert sum(isinstance(result, PrivacyBudgetExceeded) for result in results) == 1
        assert budget.get_epsilon(0.0) == 1.0 and len(budget.ledger) == 2


def test_two_threads_with_a_ledger_file_never_overspend(tmp_path):
    for attempt in range(40):
        path = tmp_path / f"{attempt}.jsonl"
        budget = BudgetFilter(SlowPureEpsilonAccountant(ledger_path=path), epsilon=1.0, delta=0.0, unproven="ignore")
        budget.register_many([PureDpEvent(0.25)] * 2, participants=["a", "b"])
        results = race(
            [
                partial(budget.register, PureDpEvent(0.75), participant="a"),
                partial(budget.register_many, [PureDpEvent(0.5), PureDpEvent(0.25)], participants=["b", "a"]),
            ]
        )
        assert sum(isinstance(result, PrivacyBudgetExceeded) for result in results) == 1
        on_disk = PureEpsilonAccountant(ledger_path=path)
        assert on_disk.get_epsilon(0.0, "a") <= 1.0 and on_disk.ledger == budget.ledger


@pytest.mark.parametrize(
    "make, attempts",
    [(lambda: MomentsAccountant(), 20), (lambda: PLDAccountant(value_discretization_interval=1e-2), 3)],
    ids=["rdp", "pld"],
)
def test_two_threads_never_overspend_with_rdp_and_pld(make, attempts):
    event, delta = dp_event.GaussianDpEvent(4.0), 1e-5
    probe = make().register(event, count=2).register(event)
    room_for_one = probe.get_epsilon(delta)  # the budget: exactly 2 releases and then 1 more
    for _ in range(attempts):
        budget = BudgetFilter(make(), epsilon=room_for_one, delta=delta, unproven="ignore")
        budget.register(event, count=2)
        results = race([partial(budget.register, event)] * 2)
        assert sum(isinstance(result, PrivacyBudgetExceeded) for result in results) == 1
        assert budget.ledger.total_count() == 3 and budget.get_epsilon(delta) <= room_for_one


def _spend_until_refused(path, barrier, report_fd):
    budget = BudgetFilter(PureEpsilonAccountant(ledger_path=path), epsilon=1.0, delta=0.0)
    barrier.wait()
    granted = 0
    while True:
        try:
            budget.register(PureDpEvent(0.0625), participant="dave")
        except PrivacyBudgetExceeded:
            break
        granted += 1
    os.write(report_fd, struct.pack("<Q", granted))


@pytest.mark.skipif(not HAVE_OS_LOCKS, reason="processes share a ledger file only where flock exists (POSIX)")
def test_two_processes_each_with_its_own_filter_on_one_ledger_never_overspend(tmp_path):
    ctx = multiprocessing.get_context("fork")
    for attempt in range(5):
        path, barrier = tmp_path / f"{attempt}.jsonl", ctx.Barrier(2, timeout=20)
        LedgerFile(path)  # (creating it concurrently is tested in test_ledger_files.py)
        read_end, write_end = os.pipe()
        processes = [ctx.Process(target=_spend_until_refused, args=(path, barrier, write_end)) for _ in range(2)]
        for process in processes:
            process.start()
        for process in processes:
            process.join(30)
            assert process.exitcode == 0
        os.close(write_end)
        granted = struct.unpack("<2Q", os.read(read_end, 16))
        os.close(read_end)
        ledger = Ledger.load(path)
        assert sum(granted) == ledger.total_count("dave") == 16  # exactly the budget: 16 × 1/16
        assert PureEpsilonAccountant(ledger_path=path).get_epsilon(0.0, "dave") == 1.0


def test_register_many_is_all_or_nothing_under_the_budget():
    budget = BudgetFilter(PureEpsilonAccountant(), epsilon=1.0, delta=0.0)
    budget.register_many([PureDpEvent(0.5), PureDpEvent(0.75), PureDpEvent(0.5)], participants=["a", "b", "a"])
    with pytest.raises(PrivacyBudgetExceeded, match="participant 'a' would reach epsilon=1.25"):
        budget.register_many([PureDpEvent(0.25), PureDpEvent(0.25)], participants=["b", "a"], iteration=1)
    assert budget.ledger.total_count() == 3 and budget.get_epsilon(0.0, "b") == 0.75
    with pytest.raises(ValueError, match="participants must have one entry per event"):
        budget.register_many([PureDpEvent(0.1)], participants=["a", "b"])
    with pytest.raises(TypeError, match="event must be a dp_accounting DpEvent"):
        budget.register_many([0.1])
    budget.register_many([PureDpEvent(0.25)], participants=["b"], iteration=[2])
    assert [e.iteration for e in budget.ledger] == [None, None, None, 2]


def test_a_whole_run_that_would_exceed_the_budget_is_refused_before_its_first_release():
    budget = BudgetFilter(ExactGaussianAccountant(), epsilon=2.0, delta=1e-5)
    run = [dp_event.GaussianDpEvent(3.0)] * 40
    assert budget.epsilon_if_registered(run[0], 1e-5, count=40) > 2.0
    with pytest.raises(PrivacyBudgetExceeded):
        budget.register_many(run, participants=[0, 1] * 20, iteration=list(range(40)))
    assert len(budget.ledger) == 0 and budget.participants == []


def test_the_filter_has_the_accountant_interface_a_solver_uses():
    accountant = MomentsAccountant()
    budget = BudgetFilter(accountant, epsilon=10.0, delta=1e-5, unproven="ignore")
    event = dp_event.GaussianDpEvent(2.0)
    assert budget.name == "budget(rdp)"
    assert budget.supports(event) and not BudgetFilter(ExactGaussianAccountant(), 1.0, 0.0).supports(PureDpEvent(1.0))
    assert budget.register(event, participant=0, iteration=0) is budget
    assert budget.register_many([event, event], participants=[0, 1], iteration=1) is budget
    assert budget.compose(event) is budget
    assert budget.get_epsilon(1e-5, 0) == accountant.get_epsilon(1e-5, 0)
    assert budget.get_delta(1.0, 1) == accountant.get_delta(1.0, 1)
    assert budget.epsilon_if_registered(event, 1e-5, 2, 1) == accountant.epsilon_if_registered(event, 1e-5, 2, 1)
    assert budget.ledger == accountant.ledger and budget.participants == [0, 1, None]
    assert "BudgetFilter(" in repr(budget)
