"""Worker processes that never outlive the audit that forked them, and signals that stop an audit cleanly.

A forked worker calls :func:`die_with_parent` first: on Linux the kernel then sends it SIGKILL when its
parent dies, whatever kills the parent (``prctl(PR_SET_PDEATHSIG)``, prctl(2)); elsewhere a watchdog
thread polls the parent's id. The parent may die between the fork and that call, so the worker then
checks that its parent is still the process that forked it, and exits at once if it was re-parented.
Workers ignore SIGINT (a Ctrl-C reaches the whole process group; the parent decides) and take SIGTERM's
default action, so that :func:`terminate` stops them at once.

In the parent, :func:`signals_raise` turns SIGTERM and SIGHUP into a :class:`Terminated` exception
(SIGINT already raises ``KeyboardInterrupt``), so that every pool is torn down by the code that
started it (:func:`audits.chunks.run_chunks` terminates its workers on any exception) and the
command exits with ``128 +`` the signal's number.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing.process
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from types import FrameType

__all__ = ["PR_SET_PDEATHSIG", "TERMINATING", "Terminated", "die_with_parent", "signals_raise", "terminate"]

#: prctl(2) option: the signal a process receives when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1
#: Seconds between two checks of the parent's id where the kernel cannot signal the parent's death.
WATCHDOG_PERIOD = 0.5
#: The signals :func:`signals_raise` turns into :class:`Terminated` (SIGHUP exists on POSIX only).
TERMINATING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
#: Seconds a worker has to exit after SIGTERM before it is killed.
TERMINATE_GRACE = 2.0


class Terminated(BaseException):
    """The process received a termination signal (SIGTERM or SIGHUP) while :func:`signals_raise` held.

    A ``BaseException``, like ``KeyboardInterrupt``, so that ``except Exception`` blocks let it through.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum


def die_with_parent(parent: int) -> None:
    """Bind this (forked worker) process's life to its parent ``parent`` (module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in TERMINATING:
        signal.signal(signum, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    else:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the kernel was told: it cannot signal this death
        os._exit(1)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCHDOG_PERIOD)
    os._exit(1)


def terminate(processes: Iterable[multiprocessing.process.BaseProcess]) -> None:
    """Stop ``processes``: SIGTERM, then SIGKILL for any still alive after :data:`TERMINATE_GRACE` seconds;
    return when every one has exited (and been reaped)."""
    alive = [p for p in processes if p.is_alive()]
    for process in alive:
        process.terminate()
    deadline = time.monotonic() + TERMINATE_GRACE
    for process in alive:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """While held (in the main thread), SIGTERM and SIGHUP raise :class:`Terminated`; the previous
    handlers are restored on exit. Elsewhere than in the main thread it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Terminated(signum)

    previous = {s: signal.signal(s, handler) for s in TERMINATING}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
