"""A fitted private estimator holds only what is safe to publish ("a privacy number is a promise").

The noise seed undoes the noise: with it, an adversary who knows every record but one re-runs the
fit on both candidates and matches ``coef_`` exactly, whatever ``privacy_`` says. The training
history is not private. So neither may be in a fitted estimator unless asked for (``keep_secrets``),
and ``random_state=None`` must not come from numpy's global generator (``np.random.seed(42)``
would make it public).
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Mapping

import numpy as np
import pytest

from solvers import DPADMMClassifier
from solvers.sharing import VerticalLogisticRegression

#: An odd number of rows, equal to no other dimension, so a per-record array is recognisable.
N_ROWS = 137
#: Names that mark secret or non-private content, wherever they appear in the object graph.
FORBIDDEN_NAMES = ("seed", "history", "transcript", "result", "loss", "objective", "white", "secret", "rank")
FORBIDDEN_TYPES = (np.random.SeedSequence, np.random.Generator, np.random.BitGenerator, np.random.RandomState)
FORBIDDEN_BYTES = (b"SeedSequence", b"PCG64", b"Generator", b"RandomState", b"Result", b"Transcript")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N_ROWS, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ rng.normal(size=6) + 0.3 * rng.normal(size=N_ROWS) > 0, 1, 0)
    return X, y


def private_vertical(**kwargs):
    return VerticalLogisticRegression(
        blocks=[2, 4], protocol="admm_sharing", noise="output", noise_multiplier=2.0, b1=1.0, n_iterations=20, **kwargs
    )


ESTIMATORS = {
    "dpadmm-defaults": lambda **kw: DPADMMClassifier(**kw),
    "dpadmm-paper-preset": lambda **kw: DPADMMClassifier.paper_preset(**kw),
    "dpadmm-small": lambda **kw: DPADMMClassifier.paper_preset(n_agents=4, n_iterations=8, epsilon=0.5, dw=1.0, **kw),
    "vertical-defaults": lambda **kw: VerticalLogisticRegression(n_iterations=30, **kw),
    "vertical-private": private_vertical,
    "vertical-gradient": lambda **kw: VerticalLogisticRegression(blocks=[2, 4], n_iterations=20, **kw),
}


class _Walker:
    """Walks an object graph (``__dict__``, slots, dataclass fields, containers, NamedTuples)."""

    def __init__(self, skip: frozenset) -> None:
        self.skip = skip
        self.seen: set[int] = set()
        self.found: list[str] = []

    def walk(self, obj: object, path: str) -> None:
        if id(obj) in self.seen or obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, type)):
            return
        self.seen.add(id(obj))
        if isinstance(obj, FORBIDDEN_TYPES):
            self.found.append(f"{path}: {type(obj).__name__}")
        elif isinstance(obj, np.ndarray):
            self.array(obj, path)
        elif isinstance(obj, Mapping):
            for key, value in obj.items():
                if key not in self.skip:
                    self.walk(key, f"{path}[key]")
                    self.named(key, value, f"{path}[{key!r}]")
        elif isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a NamedTuple (LedgerEntry)
            for name in obj._fields:
                self.named(name, getattr(obj, name), f"{path}.{name}")
        elif isinstance(obj, (list, tuple, set, frozenset)):
            for i, item in enumerate(obj):
                self.walk(item, f"{path}[{i}]")
        elif not isinstance(obj, np.generic):
            self.attributes(obj, path)

    def array(self, obj: np.ndarray, path: str) -> None:
        if N_ROWS in obj.shape:
            self.found.append(f"{path}: per-record array of shape {obj.shape}")
        if obj.dtype == object:
            for i, item in enumerate(obj.flat):
                self.walk(item, f"{path}.flat[{i}]")

    def attributes(self, obj: object, path: str) -> None:
        fields = [f.name for f in dataclasses.fields(obj)] if dataclasses.is_dataclass(obj) else []
        fields += [name for name in getattr(obj, "__dict__", {}) if name not in self.skip]
        fields += [slot for slot in getattr(type(obj), "__slots__", ()) if hasattr(obj, slot)]
        for name in dict.fromkeys(fields):
            self.named(name, getattr(obj, name), f"{path}.{name}")

    def named(self, name: object, value: object, where: str) -> None:
        if isinstance(name, str) and any(word in name.lower() for word in FORBIDDEN_NAMES):
            self.found.append(f"{where}: name {name!r}")
        self.walk(value, where)


def violations(obj: object, skip: frozenset = frozenset()) -> list[str]:
    """Every place in the object graph of ``obj`` that holds a seed, a generator, a secret or
    non-private name, or a per-record array (an axis of length ``N_ROWS``); ``skip``: top-level
    attribute names not to look at."""
    walker = _Walker(skip)
    walker.walk(obj, "estimator")
    return walker.found


def published(model) -> tuple[object, bytes]:
    """The estimator as someone it was given to sees it: unpickled from its pickle."""
    blob = pickle.dumps(model)
    return pickle.loads(blob), blob


@pytest.mark.parametrize("random_state", [None, 7])
@pytest.mark.parametrize("kind", list(ESTIMATORS))
def test_a_fitted_estimator_holds_no_seed_no_generator_and_nothing_non_private(data, kind, random_state):
    X, y = data
    model, blob = published(ESTIMATORS[kind](random_state=random_state).fit(X, y))
    # The constructor parameters are the user's own inputs, kept by scikit-learn's convention (an
    # int random_state is the user's explicit choice of reproducibility); everything fit added
    # must be safe to publish.
    params = frozenset(model.get_params(deep=False))
    assert violations(model, skip=params) == []
    for word in FORBIDDEN_BYTES:
        assert word not in blob, word
    assert model.coef_.shape == (1, 6) and np.all(np.isfinite(model.coef_))
    assert set(model.privacy_) and model.ledger_ is not None
    assert not hasattr(model, "result_") and not hasattr(model, "secret_result_")
    with pytest.raises(AttributeError, match="keep_secrets=True"):
        model.result_  # noqa: B018


@pytest.mark.parametrize("kind", ["dpadmm-small", "vertical-private", "vertical-gradient"])
def test_secrets_only_on_request_under_a_secret_name(data, kind):
    X, y = data
    model = ESTIMATORS[kind](random_state=3, keep_secrets=True).fit(X, y)
    found = violations(model, skip=frozenset(model.get_params(deep=False)))
    assert any(".secret_result_" in v for v in found) and any("SeedSequence" in v for v in found)
    assert isinstance(model.secret_seed_, np.random.SeedSequence)
    assert model.secret_result_.history  # the training history, on request
    # the secret replays the fit: same seed, same coefficients
    again = ESTIMATORS[kind](random_state=3, keep_secrets=True).fit(X, y)
    np.testing.assert_array_equal(again.coef_, model.coef_)
    # a refit without keep_secrets drops them
    model.set_params(keep_secrets=False).fit(X, y)
    assert not hasattr(model, "secret_result_") and not hasattr(model, "secret_seed_")


@pytest.mark.parametrize("kind", ["dpadmm-small", "vertical-private", "vertical-gradient"])
def test_random_state_none_never_comes_from_numpy_global_generator(data, kind):
    X, y = data
    np.random.seed(42)
    first = ESTIMATORS[kind]().fit(X, y).coef_
    np.random.seed(42)
    second = ESTIMATORS[kind]().fit(X, y).coef_
    assert not np.array_equal(first, second)
    # an int random_state is the user's explicit choice: the fit is reproducible
    a = ESTIMATORS[kind](random_state=11).fit(X, y).coef_
    b = ESTIMATORS[kind](random_state=11).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)


def test_keep_secrets_must_be_a_bool(data):
    X, y = data
    with pytest.raises(TypeError, match="^keep_secrets must be True or False, got 'yes'$"):
        DPADMMClassifier(n_agents=2, n_iterations=2, keep_secrets="yes").fit(X, y)
    with pytest.raises(TypeError, match="^keep_secrets must be True or False, got 1$"):
        VerticalLogisticRegression(n_iterations=2, keep_secrets=1).fit(X, y)


@pytest.mark.parametrize("kind", ["dpadmm-small", "vertical-private", "vertical-gradient"])
def test_a_one_vs_rest_fit_publishes_no_secret_and_keeps_each_class_s_on_request(data, kind):
    X, y = data
    labels = np.where(X[:, 0] > 0.5, 2, y)  # three classes
    model, blob = published(ESTIMATORS[kind](random_state=7).fit(X, labels))
    assert violations(model, skip=frozenset(model.get_params(deep=False))) == []
    for word in FORBIDDEN_BYTES:
        assert word not in blob, word
    assert model.coef_.shape == (3, 6) and not hasattr(model, "secret_seed_")
    secret = ESTIMATORS[kind](random_state=7, keep_secrets=True).fit(X, labels)
    assert [type(seed) for seed in secret.secret_seed_] == [np.random.SeedSequence] * 3
    np.testing.assert_array_equal(secret.coef_, model.coef_)  # the same fit, its secrets kept on request
