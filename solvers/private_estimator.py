"""What a published private estimator may hold, shared by the estimators of every solver family.

A fitted private estimator is something one publishes: the noise seed undoes the noise (with it, an
adversary who knows every record but one re-runs the fit on both candidates and matches the model
exactly), and most of a run's diagnostics are computed from the private data. These helpers draw a
fit's noise seed, keep only the public run constants, refuse the removed ``result_`` attribute and
run scikit-learn's checks of a binary classification task.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import validate_data

__all__ = ["RemovedResult", "noise_seed_sequence", "public_info", "validate_binary_data"]


def noise_seed_sequence(random_state: object) -> np.random.SeedSequence:
    """The root ``SeedSequence`` of a fit: from OS entropy when ``random_state`` is None (never from
    numpy's global generator, which ``np.random.seed`` makes public), else from the int or
    ``RandomState`` the user chose for reproducibility (scikit-learn's convention)."""
    if random_state is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def public_info(info: Mapping[str, object], keys: Sequence[str] = (), prefixes: Sequence[str] = ()) -> dict:
    """The entries of ``Result.info`` that are public run constants (named in ``keys`` or starting
    with one of ``prefixes``): the rest (inner-solver diagnostics, norms of iterates, ranks of the
    data) is computed from the private data."""
    return {k: v for k, v in info.items() if k in keys or any(k.startswith(p) for p in prefixes)}


class RemovedResult:
    """``result_`` is gone: it held the noise seed and the non-private training history."""

    def __get__(self, instance: object, owner: type | None = None) -> object:
        raise AttributeError(
            "result_ was removed: it held the noise seed (which undoes the noise) and the non-private training "
            "history; a fitted estimator keeps only what is safe to publish (coef_, privacy_, ledger_, info_). "
            "Fit with keep_secrets=True and read secret_result_ (never publish it)"
        )


def validate_binary_data(estimator: BaseEstimator, X, y) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's checks of (X, y) for a binary classifier; sets ``estimator.classes_``.

    Raises:
      ValueError: y is not a binary target (scikit-learn's wording, which its estimator checks expect).
    """
    X, y = validate_data(estimator, X, y, dtype=np.float64)
    check_classification_targets(y)
    target = type_of_target(y, input_name="y", raise_unknown=True)
    if target != "binary":
        raise ValueError(f"Only binary classification is supported. The type of the target is {target}.")
    estimator.classes_ = np.unique(y)
    if estimator.classes_.size != 2:
        raise ValueError(f"{type(estimator).__name__} needs 2 classes in y, got {estimator.classes_.size} class")
    return X, y
