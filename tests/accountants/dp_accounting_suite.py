"""Run dp-accounting's own accountant tests, unchanged, against ``DpAccountingView``.

dp-accounting ships its tests inside the installed package. Each file runs as it is, after a
one-line shim makes the accountant it tests one of ours seen through the view:

- ``privacy_accountant_test.py`` (the abstract cases every accountant must pass): subclassed once per
  accountant of this package and neighbouring relation, ``_make_test_accountants`` returning the view;
- ``pld/pld_privacy_accountant_test.py``: ``PLDAccountant`` is ``DpAccountingView(PLDAccountant(...))``;
- ``rdp/rdp_privacy_accountant_test.py``: ``RdpAccountant`` is ``DpAccountingView(MomentsAccountant(...))``.

Usage: ``python tests/accountants/dp_accounting_suite.py [abstract|pld|rdp ...]`` prints one JSON
object: for every test id that did not pass, its outcome and the first line of its error, and the
numbers passed and failed per file.
"""

from __future__ import annotations

import importlib
import json
import sys
import unittest
from collections.abc import Callable
from typing import Any

import numpy as np
from absl import flags
from dp_accounting import privacy_accountant, privacy_accountant_test
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.privacy_accountant import NeighboringRelation as Relation
from dp_accounting.rdp import rdp_privacy_accountant

import accountants
from accountants import DpAccountingView

#: Every accountant of this package, as a factory of the view under a neighbouring relation.
VIEWS: dict[str, Callable[[Relation], privacy_accountant.PrivacyAccountant]] = {
    "exact_gaussian": lambda r: DpAccountingView(accountants.ExactGaussianAccountant(neighboring_relation=r)),
    "rdp": lambda r: DpAccountingView(accountants.MomentsAccountant(neighboring_relation=r)),
    "moments_classic": lambda r: DpAccountingView(
        accountants.MomentsAccountant(np.arange(2.0, 10_002.0), "classic", neighboring_relation=r)
    ),
    "pld": lambda r: DpAccountingView(accountants.PLDAccountant(neighboring_relation=r)),
    "optimal_composition": lambda r: DpAccountingView(
        accountants.AdvancedCompositionAccountant(neighboring_relation=r)
    ),
    "advanced_composition": lambda r: DpAccountingView(
        accountants.AdvancedCompositionAccountant(theorem="drv", neighboring_relation=r)
    ),
    "pure": lambda r: DpAccountingView(accountants.PureEpsilonAccountant(neighboring_relation=r)),
    "odometer": lambda r: DpAccountingView(accountants.PrivacyOdometer(neighboring_relation=r)),
}


def abstract_suite() -> unittest.TestSuite:
    """dp-accounting's abstract ``PrivacyAccountantTest`` once per accountant and relation."""
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for name, view in VIEWS.items():
        for relation in Relation:

            def make(self: Any, view: Any = view, relation: Relation = relation) -> list[Any]:
                return [view(relation)]

            bases = (privacy_accountant_test.PrivacyAccountantTest,)
            namespace = {"__module__": "privacy_accountant_test", "_make_test_accountants": make}
            suite.addTests(loader.loadTestsFromTestCase(type(f"{name}_{relation.name}", bases, namespace)))
    return suite


def view_of_pld(
    neighboring_relation: Relation = Relation.ADD_OR_REMOVE_ONE, value_discretization_interval: float = 1e-4
) -> DpAccountingView:
    """dp-accounting's ``PLDAccountant`` signature, our PLD accountant through the view."""
    return DpAccountingView(accountants.PLDAccountant(value_discretization_interval, neighboring_relation))


def view_of_rdp(orders: Any = None, neighboring_relation: Relation = Relation.ADD_OR_REMOVE_ONE) -> DpAccountingView:
    """dp-accounting's ``RdpAccountant`` signature, our RDP accountant through the view."""
    return DpAccountingView(accountants.MomentsAccountant(orders, neighboring_relation=neighboring_relation))


def pld_suite() -> unittest.TestSuite:
    pld_privacy_accountant.PLDAccountant = view_of_pld  # the one-line shim
    return unittest.TestLoader().loadTestsFromModule(
        importlib.import_module("dp_accounting.pld.pld_privacy_accountant_test")
    )


def rdp_suite() -> unittest.TestSuite:
    rdp_privacy_accountant.RdpAccountant = view_of_rdp  # the one-line shim
    return unittest.TestLoader().loadTestsFromModule(
        importlib.import_module("dp_accounting.rdp.rdp_privacy_accountant_test")
    )


SUITES = {"abstract": abstract_suite, "pld": pld_suite, "rdp": rdp_suite}


class _Outcomes(unittest.TestResult):
    """Every test's outcome with the last line of its error."""

    def __init__(self) -> None:
        super().__init__()
        self.outcomes: dict[str, tuple[str, str]] = {}

    def addSuccess(self, test: unittest.TestCase) -> None:  # noqa: N802 (unittest's name)
        self.outcomes[test.id()] = ("passed", "")

    def addFailure(self, test: unittest.TestCase, err: Any) -> None:  # noqa: N802
        self.outcomes[test.id()] = ("failed", self._last_line(err))

    def addError(self, test: unittest.TestCase, err: Any) -> None:  # noqa: N802
        self.outcomes[test.id()] = ("error", self._last_line(err))

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:  # noqa: N802
        self.outcomes[test.id()] = ("skipped", reason)

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:  # noqa: N802
        if err is not None:
            self.outcomes[subtest.id()] = ("failed", self._last_line(err))

    @staticmethod
    def _last_line(err: Any) -> str:
        kind, value, _ = err
        return f"{kind.__name__}: {str(value).strip().splitlines()[-1] if str(value).strip() else ''}"[:300]


def run(names: list[str]) -> dict[str, Any]:
    flags.FLAGS.mark_as_parsed()  # absltest reads flags (e.g. the temp dir) outside absltest.main
    report: dict[str, Any] = {}
    for name in names:
        result = _Outcomes()
        SUITES[name]().run(result)
        counts: dict[str, int] = {}
        for outcome, _ in result.outcomes.values():
            counts[outcome] = counts.get(outcome, 0) + 1
        not_passed = {test: list(o) for test, o in sorted(result.outcomes.items()) if o[0] not in ("passed", "skipped")}
        report[name] = {"counts": counts, "not_passed": not_passed}
    return report


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1:] or list(SUITES)), indent=1, ensure_ascii=False))
