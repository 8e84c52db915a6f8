"""The toolkit's logging: one logger per package, silent until a program turns it on.

Each package (``accountants``, ``mechanisms``, ``solvers``, ``attacks``, ``audits``) logs to the
logger of its own name, which carries a :class:`logging.NullHandler`: a library prints nothing of its
own accord (the convention of the standard library's logging guide). A program turns the records on
with ``logging.basicConfig(level=logging.INFO)``, or the commands' ``-v``/``--verbose`` with
:func:`log_to_stderr`.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["PACKAGES", "log_to_stderr", "package_logger"]

#: The packages whose loggers the commands' ``--verbose`` turns on.
PACKAGES = ("accountants", "mechanisms", "solvers", "attacks", "audits")


def package_logger(name: str) -> logging.Logger:
    """The logger of package ``name``, silent by default (one :class:`logging.NullHandler`)."""
    logger = logging.getLogger(name)
    if not any(isinstance(handler, logging.NullHandler) for handler in logger.handlers):
        logger.addHandler(logging.NullHandler())
    return logger


@contextmanager
def log_to_stderr(enabled: bool = True, level: int = logging.INFO) -> Iterator[None]:
    """While the block runs (and ``enabled``), send every package's records at ``level`` and above to
    standard error, one line each (``logger: LEVEL: message``); the loggers are as before afterwards."""
    if not enabled:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(name)s: %(levelname)s: %(message)s"))
    handler.setLevel(level)
    loggers = [package_logger(name) for name in PACKAGES]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        if logger.level == logging.NOTSET or logger.level > level:
            logger.setLevel(level)
    try:
        yield
    finally:
        for logger, previous in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(previous)
