"""An internal error of a command in one line: its class and message, and the file its traceback was saved to.

The commands (``dp-accountant``, ``dp-audit``) exit with status 3 after an exception that is not a usage
error, printing this line instead of a traceback, so that a crash is never mistaken for a result.
"""

from __future__ import annotations

import os
import tempfile
import traceback

__all__ = ["INTERNAL_ERROR", "internal_error"]

#: The exit status of a command after an internal error.
INTERNAL_ERROR = 3


def internal_error(error: BaseException, command: str) -> str:
    """``error`` in one line (its class and message) with the path of a new file in the temporary folder
    (``COMMAND-*.traceback.txt``) holding its traceback."""
    message = " ".join(str(error).split())
    try:
        descriptor, path = tempfile.mkstemp(prefix=f"{command}-", suffix=".traceback.txt")
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write("".join(traceback.format_exception(error)))
        saved = f"traceback saved to {path}"
    except OSError as failure:
        saved = f"its traceback could not be saved ({failure})"
    return f"{type(error).__name__}: {message[:500]} ({saved}; please report it)"
