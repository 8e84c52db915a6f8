"""The pytest plugin of privacy assertions (registered as the ``pytest11`` entry point ``dp_audit``).

* ``--dp-effort {smoke,quick,default,thorough}`` and ``--dp-seed N``: the defaults of
  :func:`audits.testing.assert_private`'s ``effort`` and ``seed`` for the run (a call that names its
  own keeps it).
* The ``dp_audit`` fixture: :func:`audits.testing.assert_private` itself, for tests that prefer a fixture.
* At the end of the run, a summary of the privacy assertions in the terminal: one line per violation
  (with ``-v``, per assertion: mechanism, claim, verdict, the largest lower bound, effort, seed) and
  the counts.

The failure text of an assertion is plain lines whose first line names the violation, so JUnit XML
(``--junitxml``) shows it as the failure message. The plugin imports nothing of the toolkit until a
test uses it, so a run without privacy assertions pays nothing for it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import pytest

__all__ = ["EFFORT_NAMES", "dp_audit", "pytest_addoption", "pytest_configure", "pytest_terminal_summary"]

#: The choices of ``--dp-effort``: the presets of :mod:`audits.effort` (not imported here, so that loading is free).
EFFORT_NAMES = ("smoke", "quick", "default", "thorough")


def _seed(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return int(text)


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--dp-effort`` and ``--dp-seed``."""
    group = parser.getgroup("dp_audit", "privacy assertions (audits.testing)")
    group.addoption(
        "--dp-effort",
        choices=EFFORT_NAMES,
        default=None,
        help="effort of assert_private calls that name none (default: 'default')",
    )
    group.addoption(
        "--dp-seed", type=_seed, default=None, help="seed of assert_private calls that name none (default: 0)"
    )


def pytest_configure(config: pytest.Config) -> None:
    """Hand the options to :func:`audits.testing.configure` (only when given: nothing is imported otherwise)."""
    effort, seed = config.getoption("dp_effort", None), config.getoption("dp_seed", None)
    if effort is not None or seed is not None:
        from audits.testing import configure

        configure(effort=effort, seed=seed)


@pytest.fixture
def dp_audit() -> Callable[..., Any]:
    """:func:`audits.testing.assert_private`, with the run's ``--dp-effort`` and ``--dp-seed`` as defaults."""
    from audits.testing import assert_private

    return assert_private


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """One line per violation (per assertion with ``-v``) and the counts, if the run made privacy assertions."""
    testing = sys.modules.get("audits.testing")
    done = [] if testing is None else testing.records()
    if not done:
        return
    terminalreporter.section("privacy assertions")
    verbose = config.getoption("verbose", 0) > 0
    for r in done if verbose else [r for r in done if r.verdict == "VIOLATION"]:
        verdict = "FAILED (VIOLATION)" if r.verdict == "VIOLATION" else "passed"
        pairs = f", {r.pairs_examined} pairs examined" if r.pairs_examined > 1 else ""
        terminalreporter.write_line(
            f"{verdict}: {r.mechanism} vs {r.claim}: {r.method} ε ≥ {r.epsilon_lower:.4g}; effort {r.effort}, "
            f"seed {r.seed}, false alarm ≤ {1 - r.confidence:.3g}{pairs} ({r.seconds:.1f} s)"
        )
    failed = sum(r.verdict == "VIOLATION" for r in done)
    shown = "" if verbose or failed == len(done) else " (-v lists the passing ones too)"
    terminalreporter.write_line(f"{len(done)} privacy assertion(s), {failed} violation(s){shown}")
