"""Public problem builders: the problems of the papers' experiments, a problem from any (X, y), and
neighbouring problems.

Every example, experiment and audit starts from these instead of assembling a partition by hand
(each is also importable from :mod:`solvers.datasets`):

- :func:`adult_problem` is the l2 (or l1) logistic regression on the bundled Adult data used by
  Huang et al. 2020 (DP-ADMM, Sec. VI): N agents on a star, public rows for the step-size rule, a test
  set, and the centralized optimum attached;
- :func:`twonorm_problem` (and :func:`synthetic_problem` for Ringnorm) is the setting of Wang et al. 2020
  (PDML, Sec. VI): N agents on a random connected graph with ``n_edges`` edges;
- :func:`problem_from_xy` builds a problem from any binary (X, y): rows bounded as the privacy
  analyses require, a near-equal split over the agents, a test set, and public rows for D_w;
- :func:`replace_record` returns the replace-one neighbour of a problem (one record of one agent
  replaced), the neighbouring relation every audit and attack of the toolkit uses.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable
from typing import TypeVar

import numpy as np
from numpy.typing import ArrayLike

from solvers.centralized import centralized_optimum
from solvers.datasets import (
    check_dataset,
    dpadmm_adult_split,
    first_row_outside,
    near_equal_sizes,
    normalize_rows,
    partition_horizontal,
    ringnorm,
    ringnorm_delve,
    row_norms,
    scale_rows_to_unit_ball,
    twonorm,
)
from solvers.datasets.adult import DPADMM_SPLIT_SIZES
from solvers.graph import GraphTopology
from solvers.losses import MarginLoss
from solvers.problem import HorizontalProblem
from solvers.regularizers import L1Regularizer, L2Regularizer
from solvers.topology import Topology

__all__ = [
    "PUBLIC_SHARE",
    "ROW_BOUNDS",
    "adult_problem",
    "problem_from_xy",
    "random_graph",
    "replace_record",
    "synthetic_problem",
    "twonorm_problem",
]

ProblemT = TypeVar("ProblemT", bound=HorizontalProblem)

REGULARIZERS = {"l2": L2Regularizer, "l1": L1Regularizer}
SYNTHETIC = {"twonorm": twonorm, "ringnorm": ringnorm, "ringnorm-delve": ringnorm_delve}
#: Synthetic sets z-scored with their training statistics (Rätsch's benchmark files are standardised).
STANDARDISED = frozenset({"ringnorm-delve"})
#: Share of the records :func:`problem_from_xy` holds out as public by default: Huang et al. 2020's
#: 162 public pre-training records out of Adult's 30,162 (Table II).
PUBLIC_SHARE = DPADMM_SPLIT_SIZES[0] / 30_162
#: How :func:`problem_from_xy` bounds every row to ‖x‖₂ ≤ 1: each rule uses that row alone.
ROW_BOUNDS = ("clip", "normalize", "check")


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

    ``n_records`` rows are generated (``dataset`` is ``"twonorm"``, ``"ringnorm"`` (Breiman's) or
    ``"ringnorm-delve"`` (DELVE's, z-scored with the training rows' mean and standard deviation, as
    Rätsch's benchmark files are)); the first ``n_train`` are split over ``n_agents`` agents on a random
    connected graph with ``n_edges`` edges (both drawn from ``seed``), the rest are the test set. Rows are
    not normalised (the paper does not say how it normalised them).
    """
    if dataset not in SYNTHETIC:
        raise ValueError(f"dataset must be one of {sorted(SYNTHETIC)}, got {dataset!r}")
    if not 0 < n_train < n_records:
        raise ValueError(f"n_train must lie in (0, n_records = {n_records}), got {n_train!r}")
    data = SYNTHETIC[dataset](n_records, seed=seed)
    X = data.X
    if dataset in STANDARDISED:
        X = (X - X[:n_train].mean(axis=0)) / X[:n_train].std(axis=0)
    problem = HorizontalProblem(
        partition=partition_horizontal(X[:n_train], data.y[:n_train], n_agents, seed=seed),
        lam=lam,
        topology=random_graph(n_agents, n_edges, seed),
        X_test=X[n_train:],
        y_test=data.y[n_train:],
    )
    return problem.with_optimum(centralized_optimum(problem)) if with_optimum else problem


def twonorm_problem(
    seed: int = 0,
    *,
    n_agents: int = 10,
    n_edges: int = 13,
    n_train: int = 3500,
    n_records: int = 7400,
    lam: float = 1.0,
    with_optimum: bool = True,
) -> HorizontalProblem:
    """Twonorm as in Wang et al. 2020 (PDML, Sec. VI, Table I) for one ``seed``: 7,400 records of
    Breiman's generator, 3,500 training records over 10 agents on a random connected graph with 13 links,
    3,900 test records, a = 1 (``lam``). Every seed draws new data, a new split and a new graph.
    The same as ``synthetic_problem("twonorm", seed, ...)``."""
    return synthetic_problem(
        "twonorm",
        seed,
        n_agents=n_agents,
        n_edges=n_edges,
        n_train=n_train,
        n_records=n_records,
        lam=lam,
        with_optimum=with_optimum,
    )


def problem_from_xy(
    X: ArrayLike,
    y: ArrayLike,
    *,
    n_agents: int,
    seed: int = 0,
    test_size: float = 0.2,
    n_public: int | None = None,
    X_public: ArrayLike | None = None,
    y_public: ArrayLike | None = None,
    rows: str = "clip",
    lam: float | None = None,
    loss: MarginLoss | None = None,
    regularizer: str = "l2",
    topology: Topology | None = None,
    with_optimum: bool = False,
) -> HorizontalProblem:
    """A :class:`~solvers.problem.HorizontalProblem` from any binary-labelled (X, y).

    What it does, in order:

    1. **Labels**: the two distinct values of ``y`` become −1 (the smaller) and +1 (the larger).
    2. **Rows**: every privacy analysis of the toolkit assumes ‖x‖₂ ≤ 1 (S1 = 1 in Huang et al. 2020,
       Sec. VI; Theorem V.1 of Zhang, Khalili & Liu 2020; Theorem 4.1 of Zhang, Khalili & Liu 2018).
       ``rows="clip"`` (default) maps x to x / max(1, ‖x‖) (rows inside the ball are unchanged),
       ``"normalize"`` to x / ‖x‖, ``"check"`` raises if some row is outside the ball. Each rule uses
       its row alone, so it spends no privacy. Scaling columns by statistics of the data (max-abs,
       z-scores) would itself use every record: do it beforehand with public bounds if you need it.
    3. **Public rows**: DP-ADMM's step sizes need D_w, a bound on the model's norm that must not depend
       on the agents' records; ``DPADMM(dw=None)`` estimates it on the problem's public rows
       (``solvers.estimate_dw``). By default ⌈:data:`PUBLIC_SHARE` · n⌉ rows (at least 2; the share of
       Huang et al. 2020, Table II: 162 of 30,162) are drawn at random and held out as **public**: they
       leave the agents' data, serve only for D_w, and get no privacy protection. Pass your own
       ``X_public``, ``y_public`` to keep every row of (X, y) private, or ``n_public=0`` and give the
       solver ``dw=`` instead.
    4. **Test rows**: a random ``test_size`` share of the rest (0 for none), for the accuracy history.
    5. **Split**: the remaining training rows go at random to ``n_agents`` agents, as equally as
       possible (``near_equal_sizes``: the first n mod N agents hold one record more).
    6. **Objective**: ``lam`` = λ of F(w) = Σ_i (1/m_i) Σ_j ℓ(x_ij, y_ij, w) + λ R(w); None is the weight
       of scikit-learn's ``LogisticRegression(C=1.0)``, λ = N / n_train (its objective is
       Σ_j ℓ + ½‖w‖², that is n_train / N times F with equal shards). ``loss`` defaults to logistic,
       ``regularizer`` is ``"l2"`` (½‖w‖²) or ``"l1"``; ``topology`` defaults to a star.

    Every random choice (public, test and training rows, the agents' shards) is drawn from ``seed``;
    ``with_optimum`` attaches the centralized optimum w* (for the relative-gap history).

    Raises:
      ValueError: a bad argument (the message names it): labels that are not exactly two classes,
        ``rows="check"`` with a row outside the unit ball, too few training rows for ``n_agents``, ...
    """
    features, labels, classes = _binary_data(X, y, "X", "y")
    bound = _row_rule(rows)
    features = bound(features, "X")
    n = features.shape[0]
    if isinstance(test_size, bool) or not isinstance(test_size, numbers.Real) or not 0 <= test_size < 1:
        raise ValueError(f"test_size must be a number in [0, 1), got {test_size!r}")
    if X_public is not None or y_public is not None:
        if X_public is None or y_public is None:
            raise ValueError("X_public and y_public must be given together")
        if n_public not in (None, 0):
            raise ValueError(f"give either X_public/y_public or n_public, not both (n_public={n_public!r})")
        public_X, public_y, _ = _binary_data(X_public, y_public, "X_public", "y_public", classes)
        public: tuple[np.ndarray, np.ndarray] | None = (bound(public_X, "X_public"), public_y)
        n_public = 0
    else:
        public = None
        n_public = max(2, math.ceil(PUBLIC_SHARE * n)) if n_public is None else n_public
        if isinstance(n_public, bool) or not isinstance(n_public, numbers.Integral) or n_public < 0:
            raise ValueError(f"n_public must be a non-negative integer or None, got {n_public!r}")
    n_test = round(test_size * n)
    n_train = n - int(n_public) - n_test
    if isinstance(n_agents, bool) or not isinstance(n_agents, numbers.Integral) or not 1 <= n_agents <= n_train:
        raise ValueError(
            f"n_agents must be an integer in [1, {n_train}] (the training rows left after {n_public} public "
            f"and {n_test} test rows of {n}), got {n_agents!r}"
        )
    if regularizer not in REGULARIZERS:
        raise ValueError(f"regularizer must be one of {sorted(REGULARIZERS)}, got {regularizer!r}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    held, test, train = np.split(order, [int(n_public), int(n_public) + n_test])
    if public is None and n_public > 0:
        public = (features[held], labels[held])
    extra = {} if loss is None else {"loss": loss}
    problem = HorizontalProblem(
        partition_horizontal(
            features[train], labels[train], int(n_agents), seed=rng, sizes=near_equal_sizes(n_train, int(n_agents))
        ),
        regularizer=REGULARIZERS[regularizer](),
        lam=int(n_agents) / n_train if lam is None else lam,
        X_test=features[test] if n_test else None,
        y_test=labels[test] if n_test else None,
        X_public=None if public is None else public[0],
        y_public=None if public is None else public[1],
        topology=topology,
        **extra,
    )
    return problem.with_optimum(centralized_optimum(problem)) if with_optimum else problem


def _binary_data(
    X: ArrayLike, y: ArrayLike, X_name: str, y_name: str, classes: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X as float64 (n, d), labels ±1, the two classes): the smaller class is −1."""
    values = np.asarray(y)
    if values.ndim != 1:
        raise ValueError(f"{y_name} must be 1-D (one label per row), got shape {values.shape}")
    found = np.unique(values)
    if classes is None:
        if found.size != 2:
            raise ValueError(f"{y_name} must hold exactly two classes, got {found.size}: {found[:5].tolist()}")
        classes = found
    elif not np.isin(found, classes).all():
        raise ValueError(f"{y_name} must hold labels from the classes of y, {classes.tolist()}, got {found.tolist()}")
    signs = np.where(values == classes[1], 1.0, -1.0)
    features = np.asarray(X, dtype=np.float64)
    if features.ndim != 2 or features.shape[0] != values.shape[0]:
        raise ValueError(f"{X_name} must have shape ({values.shape[0]}, d) like {y_name}, got {features.shape}")
    checked = check_dataset(features, signs, max_norm=None)  # finite, non-empty
    return checked.X, checked.y, classes


def _row_rule(rows: str) -> Callable[[np.ndarray, str], np.ndarray]:
    """The row bound of ``rows`` (:data:`ROW_BOUNDS`): (X, name) → X with every ‖x‖₂ ≤ 1."""
    if rows not in ROW_BOUNDS:
        raise ValueError(f"rows must be one of {list(ROW_BOUNDS)}, got {rows!r}")

    def bound(X: np.ndarray, name: str) -> np.ndarray:
        if rows == "clip":
            return scale_rows_to_unit_ball(X)
        if rows == "normalize":
            return normalize_rows(X)
        norms = row_norms(X)
        if first_row_outside(norms, 1.0) is not None:  # the slack of every norm check of the toolkit
            row = int(np.argmax(norms))
            raise ValueError(
                f"{name} row {row} has L2 norm {norms[row]:.6g} > 1 (rows='check'): pass rows='clip' or "
                "rows='normalize', or scale the data with public bounds first"
            )
        return X

    return bound


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
