"""Public problem builders: the problems of the papers' experiments, and neighbouring problems.

Every example, experiment and audit starts from these instead of assembling a partition by hand:

- :func:`adult_problem` is the l2 (or l1) logistic regression on the bundled Adult data used by
  Huang et al. 2020 (DP-ADMM, Sec. VI): N agents on a star, public rows for the step-size rule, a test
  set, and the centralized optimum attached;
- :func:`synthetic_problem` is the Twonorm / Ringnorm setting of Wang et al. 2020 (PDML, Sec. VI): N agents
  on a random connected graph with ``n_edges`` edges;
- :func:`replace_record` returns the replace-one neighbour of a problem (one record of one agent
  replaced), the neighbouring relation every audit and attack of the toolkit uses.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

import numpy as np

from solvers.centralized import centralized_optimum
from solvers.datasets import dpadmm_adult_split, partition_horizontal, ringnorm, twonorm
from solvers.graph import GraphTopology
from solvers.problem import HorizontalProblem
from solvers.regularizers import L1Regularizer, L2Regularizer

__all__ = ["adult_problem", "random_graph", "replace_record", "synthetic_problem"]

ProblemT = TypeVar("ProblemT", bound=HorizontalProblem)

REGULARIZERS = {"l2": L2Regularizer, "l1": L1Regularizer}
SYNTHETIC = {"twonorm": twonorm, "ringnorm": ringnorm}


def adult_problem(
    seed: int = 0, *, n_agents: int = 100, lam: float = 0.17, regularizer: str = "l2", with_optimum: bool = True
) -> HorizontalProblem:
    """Adult logistic regression of Huang et al. 2020 (Sec. VI) for one ``seed``.

    The split (train, public rows for the step-size rule, test) is ``dpadmm_adult_split(seed)``; the
    training rows are split near-equally over ``n_agents`` agents at random (``seed``); ``lam`` is the
    regularisation weight λ of the objective (1); ``regularizer`` is ``"l2"`` or ``"l1"``. With
    ``with_optimum`` the centralized optimum w* is attached (for the relative-gap history).
    """
    if regularizer not in REGULARIZERS:
        raise ValueError(f"regularizer must be one of {sorted(REGULARIZERS)}, got {regularizer!r}")
    split = dpadmm_adult_split(seed)
    problem = HorizontalProblem(
        partition_horizontal(split.train.X, split.train.y, n_agents, seed=seed),
        regularizer=REGULARIZERS[regularizer](),
        lam=lam,
        X_test=split.test.X,
        y_test=split.test.y,
        X_public=split.public.X,
        y_public=split.public.y,
    )
    return problem.with_optimum(centralized_optimum(problem)) if with_optimum else problem


def synthetic_problem(
    dataset: str = "twonorm",
    seed: int = 0,
    *,
    n_agents: int = 10,
    n_edges: int = 13,
    n_train: int = 3500,
    n_records: int = 7400,
    lam: float = 1.0,
    with_optimum: bool = True,
) -> HorizontalProblem:
    """The Twonorm / Ringnorm setting of Wang et al. 2020 (PDML, Sec. VI) for one ``seed``.

    ``n_records`` rows are generated, the first ``n_train`` are split over ``n_agents`` agents on a
    random connected graph with ``n_edges`` edges (both drawn from ``seed``), the rest are the test set.
    """
    if dataset not in SYNTHETIC:
        raise ValueError(f"dataset must be one of {sorted(SYNTHETIC)}, got {dataset!r}")
    if not 0 < n_train < n_records:
        raise ValueError(f"n_train must lie in (0, n_records = {n_records}), got {n_train!r}")
    data = SYNTHETIC[dataset](n_records, seed=seed)
    problem = HorizontalProblem(
        partition=partition_horizontal(data.X[:n_train], data.y[:n_train], n_agents, seed=seed),
        lam=lam,
        topology=random_graph(n_agents, n_edges, seed),
        X_test=data.X[n_train:],
        y_test=data.y[n_train:],
    )
    return problem.with_optimum(centralized_optimum(problem)) if with_optimum else problem


def random_graph(n_agents: int, n_edges: int, seed: int) -> GraphTopology:
    """A uniformly random connected graph on ``n_agents`` nodes with exactly ``n_edges`` links
    (rejection sampling over edge sets drawn from ``seed``)."""
    rng = np.random.default_rng(seed)
    pairs = [(i, j) for i in range(n_agents) for j in range(i + 1, n_agents)]
    if not n_agents - 1 <= n_edges <= len(pairs):
        raise ValueError(f"n_edges must lie in [{n_agents - 1}, {len(pairs)}] for {n_agents} nodes, got {n_edges!r}")
    for _ in range(100_000):
        chosen = rng.choice(len(pairs), n_edges, replace=False)
        try:
            return GraphTopology.from_edges(n_agents, [pairs[k] for k in chosen])
        except ValueError:
            continue
    raise RuntimeError(f"no connected graph with {n_edges} links on {n_agents} nodes found")


def replace_record(problem: ProblemT, agent: int, row: int, x: np.ndarray, label: float) -> ProblemT:
    """``problem`` with record ``row`` of agent ``agent`` replaced by ``(x, label)``: its replace-one
    neighbour. Everything else (topology, constants, test data) is shared; the optimum is dropped.

    Raises:
      ValueError: ``agent`` or ``row`` out of range, ``x`` of the wrong shape, or ``label`` not ±1.
    """
    partition = problem.partition
    X, y = np.array(partition.X), np.array(partition.y)
    if not 0 <= agent < X.shape[0]:
        raise ValueError(f"agent must lie in [0, {X.shape[0]}), got {agent!r}")
    if not 0 <= row < int(partition.sizes[agent]):
        raise ValueError(f"row must lie in [0, {int(partition.sizes[agent])}) for agent {agent}, got {row!r}")
    record = np.asarray(x, dtype=np.float64)
    if record.shape != X.shape[2:]:
        raise ValueError(f"x must have shape {X.shape[2:]}, got {record.shape}")
    if label not in (-1.0, 1.0):
        raise ValueError(f"label must be -1 or +1, got {label!r}")
    X[agent, row], y[agent, row] = record, label
    for array in (X, y):
        array.setflags(write=False)
    neighbour = dataclasses.replace(problem, partition=dataclasses.replace(partition, X=X, y=y))
    return neighbour
