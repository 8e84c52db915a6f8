"""Locks for files that several threads and processes append to (the ledger files).

:func:`locked_file` opens a path and holds, until the ``with`` block ends,

- a per-path re-entrant thread lock, so threads of one process take turns; a thread that already
  holds the path gets the same descriptor back (nested use never deadlocks), and
- on POSIX, an OS lock on the open file (``fcntl.flock``: exclusive for writers, shared for
  readers), so processes take turns too. The lock belongs to the file, not the path: when a writer
  replaces the file (``os.replace``, as ledger repair does) while another waits, the waiter finds
  on waking that its descriptor is no longer the file at the path, and opens the path again.

On platforms without ``fcntl`` (Windows) only the thread lock is taken: threads of one process are
serialised, processes are **not**, so processes must not share a ledger file there.

``flock`` locks are advisory: they exclude only code that takes them (every reader and writer in
:mod:`accountants.ledger` does). On network file systems where ``flock`` is emulated with
``fcntl`` record locks the OS lock is per process, which the thread lock makes up for.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["HAVE_OS_LOCKS", "locked_file", "fsync_directory"]

#: Whether processes (not only threads) exclude each other: True on POSIX.
HAVE_OS_LOCKS = sys.platform != "win32"


@dataclass
class _PathState:
    """The thread lock of one path, and the descriptor its holder opened."""

    lock: threading.RLock = field(default_factory=threading.RLock)
    fd: int | None = None
    exclusive: bool = False


_states: dict[str, _PathState] = {}
_states_lock = threading.Lock()


def _reset_after_fork() -> None:
    # A forked child inherits the parent's locks and descriptors but none of its threads: start
    # afresh (the child opens its own descriptors, so it never shares an OS lock with the parent).
    global _states_lock
    _states.clear()
    _states_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def _state(path: str | os.PathLike[str]) -> _PathState:
    key = os.path.realpath(os.fspath(path))
    with _states_lock:
        return _states.setdefault(key, _PathState())


@contextmanager
def locked_file(path: str | os.PathLike[str], *, exclusive: bool, create: bool = False) -> Iterator[int]:
    """Open ``path`` and hold its locks; yields the file descriptor.

    ``exclusive``: open for appending (``O_RDWR | O_APPEND``) under an exclusive lock; otherwise
    read-only under a shared lock. ``create``: create a missing file (mode 0o666 less the umask);
    otherwise a missing file raises ``FileNotFoundError``. Inside the block of a thread that holds
    the path, a nested call yields the same descriptor (an exclusive one serves a shared request;
    the converse raises ``RuntimeError``, since upgrading a lock is not atomic).
    """
    state = _state(path)
    with state.lock:
        if state.fd is not None:  # this thread already holds the path
            if exclusive and not state.exclusive:
                raise RuntimeError(f"{os.fspath(path)} is locked for reading by this thread; cannot upgrade")
            yield state.fd
            return
        fd = _open_locked(path, exclusive=exclusive, create=create)
        state.fd, state.exclusive = fd, exclusive
        try:
            yield fd
        finally:
            state.fd = None
            os.close(fd)  # closing the last descriptor of the open file releases its OS lock


def _open_locked(path: str | os.PathLike[str], *, exclusive: bool, create: bool) -> int:
    flags = (os.O_RDWR | os.O_APPEND) if exclusive else os.O_RDONLY
    if create:
        flags |= os.O_CREAT
    flags |= getattr(os, "O_BINARY", 0)
    while True:
        fd = os.open(path, flags, 0o666)
        try:
            if not HAVE_OS_LOCKS:
                return fd
            _os_lock(fd, exclusive)
            if _is_file_at(fd, path):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # replaced or removed while we waited: lock the file now at the path


def _os_lock(fd: int, exclusive: bool) -> None:
    if sys.platform != "win32":
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)


def _is_file_at(fd: int, path: str | os.PathLike[str]) -> bool:
    try:
        at_path = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (at_path.st_dev, at_path.st_ino)


def fsync_directory(directory: str | os.PathLike[str]) -> None:
    """Make a new or renamed directory entry durable (POSIX; a no-op where directories cannot be
    opened, as on Windows)."""
    if sys.platform == "win32":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
