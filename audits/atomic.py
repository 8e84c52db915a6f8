"""Files written all or none: never a half-written report next to a previous complete one.

:func:`write_files` writes a group of files (a report and its figures) into a folder: each goes to a
temporary file of its own in the same folder (hidden: ``.NAME.PID.RANDOM.tmp``), is flushed to the
disk, and only when every one is complete are they renamed over their final names (``os.replace``,
atomic within a file system on POSIX and Windows). If writing any of them fails (a full disk, a
signal), the temporary files are removed and the error propagates: the folder then holds what it
held before, a previous report included.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = ["write_files"]


def write_files(out: Path, writers: Mapping[str, Callable[[Path], object]]) -> dict[str, Path]:
    """Write the files ``writers`` names into ``out`` (created if missing), all or none (module docstring).

    Args:
      out: the folder. writers: file name → a function that writes the file's whole content at the path
        it is given (a temporary path in ``out``, whose suffix is not the final name's).

    Returns:
      file name → its final path.

    Raises:
      OSError: the folder or a file cannot be written (nothing new is left in ``out``); whatever a
        writer raises propagates the same way.
    """
    out.mkdir(parents=True, exist_ok=True)
    staged: dict[str, Path] = {}
    try:
        for name, write in writers.items():
            staged[name] = out / f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
            write(staged[name])
            with open(staged[name], "rb+") as written:  # the content is on the disk before any rename
                os.fsync(written.fileno())
        for name, temporary in staged.items():
            os.replace(temporary, out / name)
    except BaseException:
        for temporary in staged.values():
            temporary.unlink(missing_ok=True)
        raise
    return {name: out / name for name in writers}
