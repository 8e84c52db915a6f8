"""Data sets the estimator tests share."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from solvers import HorizontalProblem
from solvers.datasets import partition_horizontal, twonorm


@pytest.fixture(scope="session")
def unit_rows():
    """200 Twonorm rows (5 features) scaled into the unit ball, with string labels "yes"/"no"."""
    dataset = twonorm(200, seed=0, dim=5)
    return dataset.X / np.linalg.norm(dataset.X, axis=1).max(), np.where(dataset.y > 0, "yes", "no")


@pytest.fixture(scope="session")
def cancer():
    """Breast cancer, standardised on a stratified 70 % training split: (X_train, y_train, X_test, y_test)."""
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), y_train, scaler.transform(X_test), y_test


@pytest.fixture(scope="session")
def star_problem():
    """60 rows of 4 features scaled into the unit ball, labels ±1, over 3 agents of a star with λ = 0.5."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    X /= np.linalg.norm(X, axis=1).max()
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    return HorizontalProblem(partition_horizontal(X, y, 3, seed=0), lam=0.5)
