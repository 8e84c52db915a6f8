"""The neighbouring relation: what a noise multiplier means (dp-accounting's convention).

A ``GaussianDpEvent(z)`` or ``LaplaceDpEvent(z)`` adds noise of scale z times the sensitivity of
the query under *adding or removing* one record (L2 for Gaussian, L1 for Laplace), exactly as in
dp-accounting (e.g. DP-SGD: z = σ/C for the clipping norm C). Replacing one record is removing it
and adding another, so under ``REPLACE_ONE`` the sensitivity doubles and the release is the same
as one with multiplier z/2 under ``ADD_OR_REMOVE_ONE``: dp-accounting's ``PLDAccountant`` reads
Gaussian events so (sensitivity 2 under ``REPLACE_ONE``). dp-accounting's ``RdpAccountant`` does not
(it reads an unsampled Gaussian with sensitivity 1 under every relation, a bound on a different
quantity); our accountants follow the PLD accountant, the one whose meaning is stated.
``REPLACE_SPECIAL`` (replace one record by a special one) has sensitivity 1, as add-or-remove.

Events that state their guarantee (``PureDpEvent``, ``ApproxDpEvent``) hold under the relation of
the accountant they are registered with. Randomized response is defined under ``REPLACE_ONE`` (one
record's answer changes); under ``ADD_OR_REMOVE_ONE`` the number of answers changes, which it does
not bound, so every accountant refuses it there, as dp-accounting's PLD and RDP accountants do
(:func:`relation_refusal`); ``REPLACE_SPECIAL`` neighbours are ``REPLACE_ONE`` neighbours, so its
guarantee holds there too.
"""

from __future__ import annotations

import math

from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation

__all__ = [
    "DEFAULT_RELATION",
    "check_relation",
    "add_or_remove_equivalent",
    "relation_refusal",
    "sensitivity_factor",
]

#: dp-accounting's default, and every accountant's here.
DEFAULT_RELATION = NeighboringRelation.ADD_OR_REMOVE_ONE


def check_relation(relation: object) -> NeighboringRelation:
    """Return ``relation`` if it is a dp-accounting ``NeighboringRelation``, else raise TypeError."""
    if not isinstance(relation, NeighboringRelation):
        raise TypeError(
            "neighboring_relation must be a dp_accounting NeighboringRelation "
            f"(e.g. NeighboringRelation.ADD_OR_REMOVE_ONE), got {relation!r}"
        )
    return relation


def sensitivity_factor(relation: NeighboringRelation) -> float:
    """The sensitivity under ``relation`` in units of the add-or-remove sensitivity (2 or 1)."""
    return 2.0 if relation == NeighboringRelation.REPLACE_ONE else 1.0


def add_or_remove_equivalent(event: dp_event.DpEvent, relation: NeighboringRelation) -> dp_event.DpEvent:
    """A plain Gaussian or Laplace release under ``relation`` as the release with the same privacy
    loss under ``ADD_OR_REMOVE_ONE`` (multiplier divided by :func:`sensitivity_factor`); any other
    event unchanged."""
    factor = sensitivity_factor(relation)
    if factor == 1.0 or type(event) not in (dp_event.GaussianDpEvent, dp_event.LaplaceDpEvent):
        return event
    z = event.noise_multiplier
    return type(event)(z if math.isinf(z) else z / factor)


def relation_refusal(event: dp_event.DpEvent, relation: NeighboringRelation) -> str:
    """Why ``event`` has no guarantee under ``relation`` ("" when it has one): randomized response
    needs ``REPLACE_ONE`` or ``REPLACE_SPECIAL`` (dp-accounting's convention)."""
    if isinstance(event, dp_event.RandomizedResponseDpEvent) and relation not in (
        NeighboringRelation.REPLACE_ONE,
        NeighboringRelation.REPLACE_SPECIAL,
    ):
        return (
            "neighboring_relation must be `REPLACE_ONE` or `REPLACE_SPECIAL` for randomized response "
            f"(dp-accounting's convention); the accountant uses {relation}"
        )
    return ""
