"""Data sets the estimator tests share."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from solvers.datasets import twonorm


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
