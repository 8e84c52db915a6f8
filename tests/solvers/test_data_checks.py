"""Every route by which data enters a solver is checked, the same way.

A hand-built ``HorizontalPartition`` used to skip every check: NaN in X passed the norm check
(``NaN > 1`` is False) and DP-ADMM returned a NaN model; a label of 5 ran silently under DP-ADMM,
R-ADMM and PDML (the gradient, hence the sensitivity, scales with |y|, so the reported ε was
understated); {0, 1} labels ran and the 0-labelled records contributed nothing. Now the partitions'
constructors and the problems' constructors run one shared check (``check_records``), and the
solvers' norm checks treat NaN as outside the ball.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solvers import DPADMM, HorizontalProblem
from solvers.datasets import (
    HorizontalPartition,
    check_dataset,
    check_records,
    first_row_outside,
    partition_horizontal,
)
from solvers.decentralized import RADMM, DecentralizedProblem
from solvers.graph import GraphTopology
from solvers.pdml import PDML
from solvers.sharing import VerticalProblem, partition_vertical
from solvers.sharing.partition import VerticalPartition


def _data(n=12, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1).max()
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


def _fields(partition) -> dict[str, np.ndarray]:
    return {f.name: np.array(getattr(partition, f.name)) for f in dataclasses.fields(partition)}


def _horizontal(**changes) -> HorizontalPartition:
    """A hand-built partition of 3 agents × 4 records (agent 2 holds 3: one padded slot)."""
    X, y = _data()
    base = _fields(partition_horizontal(X[:11], y[:11], 3, seed=0, sizes=[4, 4, 3]))
    for name, (index, value) in changes.items():
        base[name][index] = value
    return HorizontalPartition(**base)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"X": ((0, 1, 2), np.nan)}, r"X must be finite: X\[0, 1, 2\] = nan \(agent 0, slot 1; 1 row"),
        ({"X": ((1, 0, 0), np.inf)}, r"X must be finite: X\[1, 0, 0\] = inf"),
        ({"y": ((0, 1), 5.0)}, r"y must contain only the labels -1 and \+1: y\[0, 1\] = 5.0 \(agent 0, slot 1"),
        ({"y": ((2, 0), 0.0)}, r"y\[2, 0\] = 0.0"),
        ({"y": ((1, 2), np.nan)}, r"y\[1, 2\] = nan"),
        ({"y": ((2, 3), 1.0)}, r"y\[2, 3\] = 1.0 is padding .* must hold x = 0 and y = 0"),
        ({"X": ((2, 3, 0), 0.5)}, r"X\[2, 3\] = row of L2 norm 0.5 is padding"),
        ({"mask": ((2, 3), True)}, r"mask must mark exactly the first sizes\[i\] slots of agent i as records: agent 2"),
        ({"sizes": ((0,), 0)}, r"sizes must be positive: sizes\[0\] = 0"),
    ],
)
def test_a_hand_built_partition_is_checked(changes, message):
    with pytest.raises(ValueError, match=message):
        _horizontal(**changes)


def test_zero_one_labels_are_refused_everywhere():
    X, _ = _data()
    labels01 = (X[:, 0] > 0).astype(float)
    with pytest.raises(ValueError, match=r"y must contain only the labels -1 and \+1: y\[\d+\] = 0.0"):
        partition_horizontal(X, labels01, 3, seed=0)
    with pytest.raises(ValueError, match=r"y must contain only the labels -1 and \+1"):
        partition_vertical(X, labels01, 2)
    with pytest.raises(ValueError, match=r"y must contain only the labels -1 and \+1: y\[0, 0\] = 0.0"):
        _horizontal(y=((0, 0), 0.0))


def test_types_and_shapes_are_named():
    X, y = _data()
    base = _fields(partition_horizontal(X, y, 3, seed=0))
    with pytest.raises(TypeError, match="mask must be a boolean array"):
        HorizontalPartition(**{**base, "mask": base["mask"].astype(int)})
    with pytest.raises(TypeError, match="X must be a real numeric array"):
        HorizontalPartition(**{**base, "X": base["X"].astype(str)})
    with pytest.raises(ValueError, match=r"y must have shape \(n_agents, m_max\) = \(3, 4\)"):
        HorizontalPartition(**{**base, "y": base["y"][:, :2]})
    with pytest.raises(ValueError, match="X must be a 3-D array"):
        HorizontalPartition(**{**base, "X": base["X"][0]})
    with pytest.raises(TypeError, match="sizes must be an integer array"):
        HorizontalPartition(**{**base, "sizes": base["sizes"].astype(float)})


def test_a_valid_hand_built_partition_is_frozen_and_unchanged():
    X, y = _data()
    reference = partition_horizontal(X, y, 3, seed=0)
    fields = _fields(reference)
    built = HorizontalPartition(**fields)
    for name, array in fields.items():
        np.testing.assert_array_equal(getattr(built, name), array)
        assert not getattr(built, name).flags.writeable
    fields["X"][0, 0, 0] = 7.0  # the caller's array: the partition holds its own copy
    assert built.X[0, 0, 0] != 7.0
    assert HorizontalPartition(**_fields(reference)).X.dtype == np.float64


def _corrupt(partition, name, index, value):
    """A partition whose field was changed after its check (as unpickling or __new__ would allow)."""
    array = np.array(getattr(partition, name))
    array[index] = value
    object.__setattr__(partition, name, array)
    return partition


@pytest.mark.parametrize("value, message", [(np.nan, r"partition.X must be finite"), (3.0, None)])
def test_every_problem_constructor_checks_its_partition(value, message):
    X, y = _data()
    graph = GraphTopology.ring(3)

    def build(kind, partition):
        if kind == "horizontal":
            return HorizontalProblem(partition, lam=0.5)
        if kind == "decentralized":
            return DecentralizedProblem.create(partition, graph, C=4.0, rho=1.0)
        return HorizontalProblem(partition, lam=1.0, topology=graph)  # PDML's problem

    for kind in ("horizontal", "decentralized", "pdml"):
        bad = _corrupt(partition_horizontal(X, y, 3, seed=0), "X", (0, 0, 0), value)
        if message is None:  # finite but outside the ball: the private solvers refuse it (below)
            build(kind, bad)
            continue
        with pytest.raises(ValueError, match=message):
            build(kind, bad)
        labels = _corrupt(partition_horizontal(X, y, 3, seed=0), "y", (1, 1), 5.0)
        with pytest.raises(ValueError, match=r"partition.y must contain only the labels -1 and \+1: .*= 5.0"):
            build(kind, labels)
    vertical = _corrupt(partition_vertical(X, y, 2), "y", (4,), 5.0)
    with pytest.raises(ValueError, match=r"partition.y must contain only the labels -1 and \+1: partition.y\[4\]"):
        VerticalProblem(vertical)
    vertical = _corrupt(partition_vertical(X, y, 2), "D", (1, 2, 0), np.nan)
    with pytest.raises(ValueError, match=r"partition.D must be finite: partition.D\[1, 2, 0\] = nan"):
        VerticalProblem(vertical)


def test_nan_is_outside_every_norm_bound():
    assert first_row_outside(np.array([0.5, np.nan, 2.0]), 1.0) == (1,)
    assert first_row_outside(np.array([[0.5, 1.0 + 1e-12]]), 1.0) is None
    assert first_row_outside(np.array([0.5, 1.5]), 2.0) is None


def test_the_private_solvers_refuse_rows_outside_their_bound():
    X, y = _data()
    X = X * 2.0
    star = HorizontalProblem(partition_horizontal(X, y, 3, seed=0), lam=0.5)
    with pytest.raises(ValueError, match=r"L2 norm .* > 1"):
        DPADMM(epsilon=0.5, n_iterations=2, dw=1.0).run(star, seed=0, accountants=())
    graph = DecentralizedProblem.create(partition_horizontal(X, y, 3, seed=0), GraphTopology.ring(3), C=4.0, rho=1.0)
    with pytest.raises(ValueError, match=r"L2 norm .* > 1"):
        RADMM(eta=1.0, alpha=5.0, n_iterations=2).run(graph, seed=0, accountants=())
    pdml = HorizontalProblem(partition_horizontal(X, y, 3, seed=0), lam=1.0, topology=GraphTopology.ring(3))
    with pytest.raises(ValueError, match=r"L2 norm .* > 1"):
        PDML(eps_label=1.0, n_iterations=2, x_max=1.0).run(pdml, seed=0, accountants=())


def test_a_hand_built_vertical_partition_is_checked():
    X, y = _data()
    base = _fields(partition_vertical(X, y, [2, 1]))
    base["feature_names"] = None
    VerticalPartition(**base)  # valid
    for name, index, value, message in [
        ("D", (0, 3, 1), np.inf, r"D must be finite: D\[0, 3, 1\] = inf \(party 0, sample 3"),
        ("y", (2,), 2.0, r"y must contain only the labels -1 and \+1: y\[2\] = 2.0"),
        ("y", (2,), 0.5, r"y\[2\] = 0.5"),
        ("D", (1, 0, 1), 0.3, r"D\[1, :, 1\] is a padded column .* but not 0"),
        ("columns", (1, 0), 0, r"columns must hold every column 0..2 of the full matrix exactly once"),
    ]:
        fields = {k: (np.array(v) if isinstance(v, np.ndarray) else v) for k, v in base.items()}
        fields[name][index] = value
        with pytest.raises(ValueError, match=message):
            VerticalPartition(**fields)


# ------------------------------------------------------------------------------------------------
# Fuzz: hand-built partitions and problems of random shapes and contents. Every outcome is a valid
# problem or a clear ValueError/TypeError naming the argument.

_VALUES = st.one_of(
    st.sampled_from([0.0, 0.3, -0.6, 1.0, 1.0 + 1e-12, 1.0 + 1e-6, np.nan, np.inf, -np.inf]),
    st.floats(-1.5, 1.5, allow_nan=False),
)
_LABELS = st.sampled_from([-1.0, 1.0, 1.0, -1.0, 0.0, 2.0, 0.5])
_NAMED = re.compile(r"\b(X|y|mask|sizes|indices|D|columns|widths|partition\.\w+)\b")


@st.composite
def horizontal_fields(draw):
    n_agents, width, d = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    sizes = np.array([draw(st.integers(1, width)) for _ in range(n_agents)], dtype=np.int64)
    mask = np.arange(width)[None, :] < sizes[:, None]
    scale = draw(st.sampled_from([0.3, 1.0, 1.3]))
    X = np.array([[[draw(_VALUES) * scale for _ in range(d)] for _ in range(width)] for _ in range(n_agents)])
    y = np.array([[draw(_LABELS) for _ in range(width)] for _ in range(n_agents)])
    if draw(st.booleans()):  # mostly honest padding, sometimes not
        X[~mask], y[~mask] = 0.0, 0.0
    indices = np.where(mask, np.arange(n_agents * width).reshape(n_agents, width), -1)
    return {"X": X, "y": y, "mask": mask, "sizes": sizes, "indices": indices}


def _outcome_is_valid_or_named(build):
    try:
        return build()
    except (ValueError, TypeError) as error:
        assert _NAMED.search(str(error)), f"the message names no argument: {error}"
        return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields=horizontal_fields(), topology=st.sampled_from(["star", "graph"]))
def test_fuzz_hand_built_horizontal_partitions_and_problems(fields, topology):
    partition = _outcome_is_valid_or_named(lambda: HorizontalPartition(**fields))
    if partition is None:
        return
    mask = partition.mask
    assert np.all(np.isfinite(partition.X)) and np.all(np.isin(partition.y[mask], (-1.0, 1.0)))
    assert np.all(partition.y[~mask] == 0) and np.all(partition.X[~mask] == 0)
    N = partition.n_agents
    if topology == "graph" and N >= 2:
        problem = DecentralizedProblem.create(partition, GraphTopology.complete(N), C=2.0, rho=1.0)
    else:
        problem = HorizontalProblem(partition, lam=0.5)
    norms = np.linalg.norm(partition.X, axis=-1)
    try:
        problem.check_feature_bound(1.0)
        assert np.all(norms <= 1.0 + 1e-8)
    except ValueError as error:
        assert "problem.partition.X" in str(error) and "L2 norm" in str(error)
        assert np.any(norms > 1.0)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 5),
    d=st.integers(1, 4),
    data=st.data(),
)
def test_fuzz_raw_data_and_vertical_partitions(n, d, data):
    X = np.array([[data.draw(_VALUES) for _ in range(d)] for _ in range(n)])
    y = np.array([data.draw(_LABELS) for _ in range(n)])
    checked = _outcome_is_valid_or_named(lambda: check_dataset(X, y, max_norm=1.0))
    if checked is not None:
        assert np.all(np.linalg.norm(checked.X, axis=1) <= 1.0 + 1e-8)
    parties = data.draw(st.integers(1, d))
    partition = _outcome_is_valid_or_named(lambda: partition_vertical(X, y, parties))
    if partition is None:
        return
    assert np.all(np.isfinite(partition.D)) and np.all(np.isin(partition.y, (-1.0, 1.0)))
    problem = VerticalProblem(partition)
    try:
        problem.check_feature_bound(1.0)
        assert np.all(partition.max_row_norms() <= 1.0 + 1e-8)
    except ValueError as error:
        assert "problem.partition" in str(error) and "L2 norm" in str(error)


def test_check_records_is_the_one_check_of_check_dataset():
    X, y = _data(n=4, d=2)
    X[1, 1] = np.nan
    with pytest.raises(ValueError, match=r"X must be finite: X\[1, 1\] = nan \(1 row\(s\) affected\)"):
        check_records(X, y)
    with pytest.raises(ValueError, match=r"X must be finite: X\[1, 1\] = nan \(1 row\(s\) affected\)"):
        check_dataset(X, y)
