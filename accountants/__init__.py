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
Importing this package pulls in numpy, scipy and dp-accounting only.
"""

from accountants.approximate import AdvancedCompositionAccountant, PureEpsilonAccountant
from accountants.base import Accountant
from accountants.best import ACCOUNTANTS, BestBound, best_epsilon, epsilon_by_accountant
from accountants.budget import BudgetFilter
from accountants.calibration import calibrate_noise_multiplier
from accountants.errors import PrivacyBudgetExceeded, UnsupportedEventError
from accountants.events import ApproxDpEvent, PureDpEvent, epsilon_delta_of
from accountants.exact_gaussian import ExactGaussianAccountant
from accountants.gaussian_dp import gaussian_delta, gaussian_epsilon, gaussian_mu
from accountants.interop import DpAccountingView
from accountants.ledger import Ledger, LedgerEntry, LedgerFile
from accountants.moments import MomentsAccountant
from accountants.pld import PLDAccountant
from accountants.version import __version__

__all__ = [
    "__version__",
    "Accountant",
    "ACCOUNTANTS",
    "AdvancedCompositionAccountant",
    "ApproxDpEvent",
    "BestBound",
    "BudgetFilter",
    "DpAccountingView",
    "ExactGaussianAccountant",
    "Ledger",
    "LedgerEntry",
    "LedgerFile",
    "MomentsAccountant",
    "PLDAccountant",
    "PrivacyBudgetExceeded",
    "PureDpEvent",
    "PureEpsilonAccountant",
    "UnsupportedEventError",
    "best_epsilon",
    "calibrate_noise_multiplier",
    "epsilon_by_accountant",
    "epsilon_delta_of",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_mu",
]
