"""Third-party-style privacy bugs, written as a user would write them: plain numpy functions.

Each defect has a correct twin. The neighbouring pairs differ in one record (replace-one) of
records in the unit ball; the sum's replace-one sensitivity is 2 (1 for ``unit_pair``).
``SIGMA1`` is the classic Gaussian calibration for (8, 1e-5) at sensitivity 1 (Dwork & Roth 2014,
Theorem A.1), whose exact ε is 7.914 (below the claim of 8).
"""

import math

import numpy as np

from audits import Claim, audit_spec

EPSILON, DELTA, DIM, ROUNDS = 8.0, 1e-5, 10, 20
SIGMA1 = math.sqrt(2 * math.log(1.25 / DELTA)) / EPSILON
CLAIM = Claim(epsilon=EPSILON, delta=DELTA, noise="gaussian")


def dataset(first: float) -> np.ndarray:
    """50 records of norm 0.1 along e1, the first one replaced by ``first``·e1."""
    records = np.zeros((50, DIM))
    records[:, 0] = 0.1
    records[0, 0] = first
    return records


def unit_pair() -> tuple[np.ndarray, np.ndarray]:
    """Record e1 against record 0: the sum moves by a unit vector."""
    return dataset(1.0), dataset(0.0)


def replace_pair() -> tuple[np.ndarray, np.ndarray]:
    """Record e1 against −e1: the sum moves by 2, the replace-one sensitivity."""
    return dataset(1.0), dataset(-1.0)


def extreme_pair() -> tuple[np.ndarray, np.ndarray]:
    """A typical record (0.1·e1) against an extreme one (−e1)."""
    return dataset(0.1), dataset(-1.0)


def variance_as_std(data, rng, n):
    return data.sum(axis=0) + rng.normal(0.0, SIGMA1**2, size=(n, DIM))  # bug: σ² where σ belongs


def variance_as_std_twin(data, rng, n):
    return data.sum(axis=0) + rng.normal(0.0, SIGMA1, size=(n, DIM))


def _rounds(data, rng, n, sigma):
    """An ADMM-like iteration z ← z/2 + Σx + noise, releasing z every round."""
    z, out = np.zeros((n, DIM)), np.empty((n, ROUNDS, DIM))
    for t in range(ROUNDS):
        z = 0.5 * z + data.sum(axis=0) + rng.normal(0.0, sigma, size=(n, DIM))
        out[:, t] = z
    return out


def uncomposed(data, rng, n):
    return _rounds(data, rng, n, 2 * SIGMA1)  # bug: the total budget's σ spent in each of 20 rounds


def uncomposed_twin(data, rng, n):
    return _rounds(data, rng, n, 2 * SIGMA1 * math.sqrt(ROUNDS))  # Gaussian composition: σ·sqrt(T)


def data_scale(data, rng, n):
    sensitivity = 2 * np.linalg.norm(data, axis=1).max()  # bug: the sensitivity read off the private data
    return data.sum(axis=0) + rng.normal(0.0, sensitivity * SIGMA1, size=(n, DIM))


def half_sensitivity(data, rng, n):
    return data.sum(axis=0) + rng.normal(0.0, SIGMA1, size=(n, DIM))  # bug: Δ = 1, but replace-one moves 2


def sensitivity_two(data, rng, n):
    """The correct twin of ``data_scale`` and ``half_sensitivity``: Δ = 2, from the domain."""
    return data.sum(axis=0) + rng.normal(0.0, 2 * SIGMA1, size=(n, DIM))


def reseeded(data, rng):
    noise = np.random.default_rng(1234).normal(0.0, 2 * SIGMA1, size=DIM)  # bug: a constant seed every call
    return data.sum(axis=0) + noise


def reseeded_twin(data, rng):
    return data.sum(axis=0) + rng.normal(0.0, 2 * SIGMA1, size=DIM)


def laplace(data, rng, n):
    """The Laplace mechanism, exactly 1-DP for a sum of records in [0, 1] (sensitivity 1)."""
    return data.sum() + rng.laplace(0.0, 1.0, size=n)


#: A command-line target (``python -m audits.run bug_zoo:variance_as_std_audit``, run from this folder).
variance_as_std_audit = audit_spec(variance_as_std, *unit_pair(), claim=CLAIM, name="variance-as-std")
