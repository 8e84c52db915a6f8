"""Noise that knows its own privacy: every noise source a solver uses, each stating its event.

* :class:`GaussianMechanism` (classic or analytic calibration, or a noise multiplier) and
  :class:`LaplaceMechanism` give ``GaussianDpEvent`` / ``LaplaceDpEvent`` per release.
* :class:`RandomizedResponse` flips ±1 labels and gives a ``RandomizedResponseDpEvent``.
* :class:`GammaNormMechanism` (density ∝ exp(−α‖ε‖₂)) exposes its parameters; its privacy is
  solver-specific, so the solver states the ``PureDpEvent``.
* :mod:`mechanisms.rng`: generators from seeds or OS entropy, and the security caveats of
  floating-point noise from a non-cryptographic generator (read them before a deployment).

Every sampler takes a ``numpy.random.Generator`` and never touches global random state; array
parameters broadcast so that one call draws the noise for all agents and trials. A time-varying
schedule is one mechanism per release. For example, one DP-ADMM iteration for 3 agents and 1000
trials, with a per-agent sensitivity broadcast over the d = 10 coordinates::

    >>> import numpy as np
    >>> from accountants import ExactGaussianAccountant
    >>> from mechanisms import GaussianMechanism, make_rng
    >>> sensitivity = np.array([[0.5], [1.0], [2.0]])
    >>> mechanism = GaussianMechanism.from_epsilon_delta(sensitivity, epsilon=0.05, delta=1e-3)
    >>> mechanism.sample(make_rng(0), (1000, 3, 10)).shape
    (1000, 3, 10)
    >>> accountant = ExactGaussianAccountant()
    >>> for agent, event in enumerate(mechanism.events()):
    ...     _ = accountant.register(event, participant=agent)
    >>> round(mechanism.event().noise_multiplier, 2)
    75.53
"""

from accountants.logs import package_logger
from accountants.version import __version__
from mechanisms.base import AccountedMechanism, Mechanism
from mechanisms.gamma_norm import GammaNormMechanism
from mechanisms.gaussian import GaussianMechanism, analytic_gaussian_sigma, classic_gaussian_sigma
from mechanisms.laplace import LaplaceMechanism
from mechanisms.randomized_response import RandomizedResponse
from mechanisms.rng import SecureReseedingGenerator, begin_release, make_rng, spawn_rngs

package_logger(__name__)  # silent by default: a NullHandler (accountants.logs)

__all__ = [
    "__version__",
    "AccountedMechanism",
    "GammaNormMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "Mechanism",
    "RandomizedResponse",
    "SecureReseedingGenerator",
    "analytic_gaussian_sigma",
    "begin_release",
    "classic_gaussian_sigma",
    "make_rng",
    "spawn_rngs",
]
