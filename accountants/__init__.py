"""Privacy accountants for differentially private distributed learning.

One interface for every accountant::

    acc.register(event, count=1, participant=None)   # record a release; returns acc
    acc.get_epsilon(delta, participant=None)          # None: the worst participant
    acc.get_delta(epsilon, participant=None)
    acc.ledger                                        # who released what, when

Events are ``dp_accounting`` ``DpEvent`` values as they are, plus :class:`PureDpEvent` and
:class:`ApproxDpEvent`. An accountant that cannot bound an event raises
:class:`UnsupportedEventError` naming both.

The neighbouring relation (the one convention, as dp-accounting's): every accountant takes
``neighboring_relation`` (default ``ADD_OR_REMOVE_ONE``). A Gaussian or Laplace noise multiplier
is relative to the sensitivity under adding or removing one record; under ``REPLACE_ONE`` that
sensitivity doubles (dp-accounting's PLD accountant reads Gaussian events so), stated (ε, δ)
guarantees hold under the accountant's relation, and randomized response is a ``REPLACE_ONE``
mechanism. Details: :mod:`accountants.relations`. :class:`DpAccountingView` makes any accountant a
dp-accounting ``PrivacyAccountant`` (``calibrate_dp_mechanism``, DP-SGD loops run unchanged).

Every ε and δ an accountant publishes is an upper bound rounded outward (see each module).
Importing this package is light: each name is imported on first use (dp-accounting and scipy
then), so ``import accountants`` and the command-line ``--help`` start in well under a second.
"""

from typing import TYPE_CHECKING

from accountants.lazy import typed_lazy_exports
from accountants.logs import package_logger
from accountants.version import __version__

if TYPE_CHECKING:  # the real imports, for type checkers; at run time each name is imported on first use
    from accountants.approximate import AdvancedCompositionAccountant as AdvancedCompositionAccountant
    from accountants.approximate import PureEpsilonAccountant as PureEpsilonAccountant
    from accountants.base import Accountant as Accountant
    from accountants.best import ACCOUNTANTS as ACCOUNTANTS
    from accountants.best import BestBound as BestBound
    from accountants.best import best_epsilon as best_epsilon
    from accountants.best import epsilon_by_accountant as epsilon_by_accountant
    from accountants.budget import BudgetFilter as BudgetFilter
    from accountants.calibration import calibrate_noise_multiplier as calibrate_noise_multiplier
    from accountants.errors import PrivacyBudgetExceeded as PrivacyBudgetExceeded
    from accountants.errors import UnsupportedEventError as UnsupportedEventError
    from accountants.events import ApproxDpEvent as ApproxDpEvent
    from accountants.events import PureDpEvent as PureDpEvent
    from accountants.events import epsilon_delta_of as epsilon_delta_of
    from accountants.exact_gaussian import ExactGaussianAccountant as ExactGaussianAccountant
    from accountants.gaussian_dp import gaussian_delta as gaussian_delta
    from accountants.gaussian_dp import gaussian_epsilon as gaussian_epsilon
    from accountants.gaussian_dp import gaussian_mu as gaussian_mu
    from accountants.interop import DpAccountingView as DpAccountingView
    from accountants.ledger import Ledger as Ledger
    from accountants.ledger import LedgerEntry as LedgerEntry
    from accountants.ledger import LedgerFile as LedgerFile
    from accountants.moments import MomentsAccountant as MomentsAccountant
    from accountants.odometer import PrivacyOdometer as PrivacyOdometer
    from accountants.pld import PLDAccountant as PLDAccountant

package_logger(__name__)  # silent by default: a NullHandler (accountants.logs)

# Each name is written once, in the TYPE_CHECKING block above (read at import time for the lazy map).
__getattr__, __dir__, _LAZY = typed_lazy_exports(__name__, __file__, globals())
__all__ = ["__version__", *_LAZY]
