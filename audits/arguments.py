"""What the arguments that :func:`audits.audit` and :func:`audits.testing.assert_private` share must be.

Declared once (``accountants.constraints``): a wrong type raises ``TypeError``, a value out of range
``ValueError``, both in the message format "{name} must be {expected}, got {value}". This module imports
only the light ``audits.spec`` and ``audits.encoding``, so that the pytest plugin loads fast.
"""

from __future__ import annotations

from accountants.constraints import PROBABILITY, Anything, Boolean, Constraint, Function, Instance, Optional
from audits.encoding import ReleaseFormat
from audits.spec import Claim

__all__ = ["SHARED_CONSTRAINTS"]

#: The declarations of the arguments both entry points take, by name.
SHARED_CONSTRAINTS: dict[str, Constraint] = {
    "mechanism": Function("a callable mechanism(dataset, rng, n) (batched=False: mechanism(dataset, rng))"),
    "D": Anything("the data set D, in whatever form the mechanism takes"),
    "D_prime": Anything("the neighbour D′ of D (None with neighbours)"),
    "claim": Instance(Claim, "an audits.Claim, e.g. Claim(epsilon=1.0, delta=1e-5)", Claim(epsilon=1.0, delta=1e-5)),
    "confidence": PROBABILITY,
    "score": Optional(Function("a callable releases -> scores")),
    "batched": Boolean(),
    "release": Optional(Instance(ReleaseFormat, "an audits.encoding.ReleaseFormat")),
}
