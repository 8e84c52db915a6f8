"""Neighbouring data sets D and D′ with a worst-case canary record (replace-one DP): the canaries of
every built-in audit, public so that a user's audit can start from them.

* :func:`canary_neighbours` — horizontally partitioned records (DP-ADMM, R-ADMM, PP, PDML, ...),
  described below;
* :func:`sharing_neighbours` — vertically partitioned features (ADMM sharing, Hu et al. 2019),
  for the ``sharing-parameter`` and ``sharing-output`` audits;
* :func:`pdml_neighbours`, :func:`broadcast_neighbours` — a label flip and a feature flip of one
  PDML user (Wang et al. 2020), for the ``pdml`` audit and its broadcast audit;
* :func:`label_flip_neighbours` — a label flip on a decentralized graph, for the R-ADMM, MR-ADMM,
  PP and DVP audits;
* ``solvers.builders.replace_record`` replaces one record of any problem (e.g. a KKT inference
  target placed as one agent's first record).

The audited agent i holds m_i records; D and D′ differ only in its last record, the canary:
(x_c, +1) in D and (x_c, −1) in D′. x_c lives on ``canary_width`` extra feature columns that are 0
for every other record, so

* the canary's margin y·wᵀx_c depends only on the canary's own coordinates, which start at 0
  (w^0 = w̃^0 = 0) and stay small when the noise is small;
* with a loss whose slope is |φ'| = S1 = 1 at small margins (the Huber hinge, Chaudhuri et al.
  2011: φ'(z) = −1 for z < 1 − h), the two candidates' gradients differ by exactly
  2 S1 ‖x_c‖ / m_i, the replace-one sensitivity of the averaged gradient, in every iteration.

So the mean of the released update moves by the full sensitivity Δ_k every iteration and the
audit can be tight. (With the logistic loss |φ'| ≤ 1/2 at margin 0 and the canary would reach only
about half the sensitivity.) The other records are rows of the bundled Adult data (ordinal
encoding of the DP-ADMM paper, d = 14, ‖x‖ ≤ 1), drawn with a fixed seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypedDict

import numpy as np
from numpy.typing import NDArray

from accountants.constraints import Integer, Positive

if TYPE_CHECKING:  # solvers is imported on first use
    from solvers.datasets import HorizontalPartition
    from solvers.decentralized import DecentralizedProblem
    from solvers.losses import MarginLoss
    from solvers.problem import HorizontalProblem
    from solvers.sharing import VerticalProblem

__all__ = [
    "SHARING_SETTINGS",
    "CanaryOptions",
    "LabelFlip",
    "Neighbours",
    "SharingNeighbours",
    "SharingSetting",
    "broadcast_neighbours",
    "canary_neighbours",
    "label_flip_neighbours",
    "pdml_neighbours",
    "sharing_neighbours",
]


class CanaryOptions(TypedDict, total=False):
    """Keyword arguments of :func:`canary_neighbours` that shape the canary record."""

    canary_width: int
    canary_value: float


@dataclass(frozen=True, eq=False)
class Neighbours:
    """Two problems that differ in one record of one agent.

    Attributes:
      problem_in: the problem on D (canary (x_c, +1) at ``agent``'s slot ``slot``).
      problem_out: the problem on D′ (the same slot holds (x_c, −1)).
      agent, slot: where the canary sits.
      canary: x_c.
      description: one line for reports.
    """

    problem_in: HorizontalProblem
    problem_out: HorizontalProblem
    agent: int
    slot: int
    canary: NDArray[np.float64]
    description: str


def _unpadded(X: NDArray[np.float64], y: NDArray[np.float64]) -> HorizontalPartition:
    """The partition of N agents' records X (N, m, d) with labels y (N, m): every agent holds m, none padded."""
    from solvers.datasets import HorizontalPartition

    N, m = y.shape
    indices = np.arange(N * m, dtype=np.int64).reshape(N, m)
    return HorizontalPartition(X=X, y=y, mask=np.ones((N, m), bool), sizes=np.full(N, m, np.int64), indices=indices)


def _base_rows(n: int, seed: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    from solvers.datasets import load_adult

    data = load_adult("ordinal")
    rows = np.random.default_rng(seed).choice(data.X.shape[0], size=n, replace=False)
    return np.asarray(data.X[rows]), np.asarray(data.y[rows])


def canary_neighbours(
    *,
    n_agents: int = 2,
    records_per_agent: int = 50,
    canary_width: int = 1,
    canary_value: float = 1.0,
    loss: MarginLoss | None = None,
    lam: float = 0.1,
    n_test: int = 2000,
    agent: int = 0,
    seed: int = 0,
) -> Neighbours:
    """D and D′ as described in the module docstring.

    Args:
      n_agents: N ≥ 1. records_per_agent: m_i ≥ 2 (equal for every agent).
      canary_width: extra feature columns carrying the canary (0 for every other record).
      canary_value: each canary column's value; ‖x_c‖₂ = value·sqrt(width), ‖x_c‖_∞ = value.
      loss: the margin loss (default ``HuberHingeLoss(h=0.5)``). lam: λ.
      n_test: held-out Adult rows for test accuracy (canary columns 0).
      agent: the target agent. seed: which Adult rows are used (data-set seed, not noise seed).
    """
    from solvers import HorizontalProblem, HuberHingeLoss

    for name, value, low in (
        ("n_agents", n_agents, 1),
        ("records_per_agent", records_per_agent, 2),
        ("canary_width", canary_width, 1),
    ):
        Integer(low).check(value, name)
    Integer(0, n_agents - 1).check(agent, "agent")
    Positive().check(canary_value, "canary_value")
    loss = HuberHingeLoss(h=0.5) if loss is None else loss
    N, m = int(n_agents), int(records_per_agent)
    X, y = _base_rows(N * m + n_test, seed)
    pad = np.zeros((X.shape[0], canary_width))
    X = np.hstack([X, pad])
    X_train, y_train = X[: N * m].reshape(N, m, -1).copy(), y[: N * m].reshape(N, m).copy()
    canary = np.zeros(X.shape[1])
    canary[-canary_width:] = canary_value
    X_train[agent, m - 1] = canary

    def problem(label: float) -> HorizontalProblem:
        labels = y_train.copy()
        labels[agent, m - 1] = label
        partition = _unpadded(X_train, labels)
        return HorizontalProblem(partition=partition, loss=loss, lam=lam, X_test=X[N * m :], y_test=y[N * m :])

    norm2 = float(np.linalg.norm(canary))
    loss_name = type(loss).__name__ + (f"(h={loss.h:g})" if hasattr(loss, "h") else "")
    description = (
        f"agent {agent}'s record {m - 1} of {m}: x_c on {canary_width} extra column(s) "
        f"(‖x_c‖₂ = {norm2:g}, ‖x_c‖_∞ = {canary_value:g}), label +1 in D vs −1 in D′; "
        f"other records: {N * m - 1} Adult rows (ordinal, d = 14) over {N} agents; "
        f"loss {loss_name}, λ = {lam:g}"
    )
    return Neighbours(problem(1.0), problem(-1.0), agent, m - 1, canary, description)


@dataclass(frozen=True)
class SharingSetting:
    """The problem of one ADMM-sharing audit: N samples, the two parties' widths, T, the ball radius b_1."""

    n_samples: int
    widths: tuple[int, int]
    n_iterations: int
    b1: float


#: The setting of each ADMM-sharing audit mode (``sharing-parameter``, ``sharing-output``).
SHARING_SETTINGS = {
    "parameter": SharingSetting(n_samples=40, widths=(3, 3), n_iterations=10, b1=1.0),
    "output": SharingSetting(n_samples=9, widths=(1, 2), n_iterations=20, b1=1e-4),
}


@dataclass(frozen=True, eq=False)
class SharingNeighbours:
    """Neighbouring vertical problems D and D′ differing in party ``party``'s last row (the canary).

    Attributes:
      problem_in, problem_out: the ``solvers.sharing.VerticalProblem`` on D and on D′.
      party: the audited party. canary_in, canary_out: its last row in D and in D′.
      description: one line for reports.
    """

    problem_in: VerticalProblem
    problem_out: VerticalProblem
    party: int
    canary_in: NDArray[np.float64]
    canary_out: NDArray[np.float64]
    description: str


def _unit_rows(rng: np.random.Generator, n: int, d: int) -> NDArray[np.float64]:
    rows = rng.normal(size=(n, d))
    unit: NDArray[np.float64] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return unit


def sharing_neighbours(mode: str, *, seed: int = 0) -> SharingNeighbours:
    """D and D′ of the ADMM-sharing audit ``mode`` (Hu et al. 2019, Sec. 4; :data:`SHARING_SETTINGS`),
    fixed by ``seed``. Party 0 of two holds the canary as its last row; labels are ±1 at random.

    * ``"parameter"``: every row of every block has norm 1 (the paper's Assumption 2.3). The canary is
      a generic unit row a in D and the unit row a′ = a/2 + (√3/2)v (v ⊥ a) in D′, so ‖a − a′‖ = 1 (the
      paper's Definition 2) while col(D_0) ≠ col(D′_0).
    * ``"output"``: party 0 holds one feature, 1 for the N − 1 ordinary records (labels balanced) and,
      for the canary (label +1), −1 in D and +1 in D′: replace-one within the unit ball (‖a − a′‖ = 2).

    Raises:
      ValueError: an unknown ``mode``.
    """
    from solvers.sharing import VerticalProblem
    from solvers.sharing.partition import VerticalPartition

    if mode not in SHARING_SETTINGS:
        raise ValueError(f"mode must be one of {sorted(SHARING_SETTINGS)}, got {mode!r}")
    setting = SHARING_SETTINGS[mode]
    rng = np.random.default_rng(seed)
    n, (d0, d1) = setting.n_samples, setting.widths
    labels = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    labels[-1] = 1.0
    other = _unit_rows(rng, n, d1)
    if mode == "parameter":
        block = _unit_rows(rng, n, d0)
        a = block[-1]
        v = rng.normal(size=d0)
        v -= (v @ a) * a
        v /= np.linalg.norm(v)
        a_out = 0.5 * a + (math.sqrt(3.0) / 2.0) * v  # unit, ‖a − a′‖ = 1
        description = (
            f"party 0's last record: a generic unit row a in D, the unit row a′ = a/2 + (√3/2)v "
            f"(v ⊥ a, ‖a − a′‖ = 1) in D′; N = {n}, d_0 = {d0} (so col(D_0) ≠ col(D′_0)); every row "
            "of every block has norm 1 (Assumption 2.3)"
        )
    else:
        half = (n - 1) // 2
        labels[:-1] = np.repeat([1.0, -1.0], [n - 1 - half, half])  # balanced: the others' gradients cancel
        block = np.ones((n, d0)) / math.sqrt(d0)
        block[-1] = -block[-1]
        a_out = -block[-1]
        description = (
            f"party 0 holds d_0 = {d0} feature: 1 for the {n - 1} ordinary records (labels balanced), "
            f"and for the canary (last record, label +1) −1 in D and +1 in D′: replace-one within the "
            f"unit ball, the adjacency Δ_safe certifies (‖a − a′‖ = 2); b_1 = {setting.b1:g} keeps x_0 on "
            "the ball, so the canary flips x_0 and every other prediction with it"
        )
    block_out = block.copy()
    block_out[-1] = a_out
    problem_in = VerticalProblem(VerticalPartition.from_blocks([block, other], labels))
    problem_out = VerticalProblem(VerticalPartition.from_blocks([block_out, other], labels))
    return SharingNeighbours(problem_in, problem_out, 0, block[-1].copy(), a_out, description)


def pdml_neighbours(n_agents: int = 3, records: int = 10) -> Neighbours:
    """D and D′ of the PDML audit (Wang et al. 2020) on a ring of ``n_agents`` servers with ``records``
    users each: group 0's canary user reports label +1 (D) or −1 (D′)."""
    from solvers import GraphTopology, LogisticLoss

    nb = canary_neighbours(n_agents=n_agents, records_per_agent=records, loss=LogisticLoss(), lam=1.0)
    graph = GraphTopology.ring(n_agents)
    return replace(
        nb,
        problem_in=replace(nb.problem_in, topology=graph),
        problem_out=replace(nb.problem_out, topology=graph),
    )


def broadcast_neighbours() -> Neighbours:
    """D and D′ of the PDML broadcast audit: group 0's canary (x_c, +1) against (−x_c, +1)."""
    nb = pdml_neighbours()
    partition = nb.problem_in.partition
    X = partition.X.copy()
    X[nb.agent, nb.slot] = -nb.canary
    problem_out = replace(nb.problem_in, partition=replace(partition, X=X))
    description = nb.description.replace("label +1 in D vs −1 in D′", "(x_c, +1) in D vs (−x_c, +1) in D′")
    return replace(nb, problem_out=problem_out, description=description)


@dataclass(frozen=True, eq=False)
class LabelFlip:
    """D and D′ for node ``agent``: ``problem_in`` holds (x_c, +1), ``problem_out`` (x_c, −1)."""

    problem_in: DecentralizedProblem
    problem_out: DecentralizedProblem
    agent: int
    canary: NDArray[np.float64]
    description: str


def label_flip_neighbours(
    *,
    n_agents: int = 3,
    records: int = 20,
    features: int = 1,
    C: float | None = None,
    rho: float = 1.0,
    nonnegative: bool = False,
    seed: int = 0,
) -> LabelFlip:
    """Neighbouring ``DecentralizedProblem``s on the complete graph (a triangle by default, every degree 2)
    for the R-ADMM, MR-ADMM, PP and DVP audits (Zhang, Khalili & Liu 2018, 2020): the target node 0 holds
    B = ``records`` records, its last one (x_c, +1) in D and (x_c, −1) in D′ with x_c = e_1 (‖x_c‖ = 1).

    The other records are x ~ uniform in [−1, 1]^d (``nonnegative``: [0, 1]^d) scaled into the
    unit ball, labels from a noisy linear rule (seeded: the data set, not the noise). C defaults
    to B (the largest C Theorem 4.1 allows).
    """
    from solvers.decentralized import DecentralizedProblem
    from solvers.graph import GraphTopology

    for name, value, low in (("n_agents", n_agents, 2), ("records", records, 2), ("features", features, 1)):
        Integer(low).check(value, name)
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0 if nonnegative else -1.0, 1.0, size=(n_agents, records, features))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=-1, keepdims=True))
    w = rng.normal(size=features)
    y = np.where((X - X.mean(axis=(0, 1))) @ w + 0.3 * rng.normal(size=(n_agents, records)) > 0, 1.0, -1.0)
    canary = np.zeros(features)
    canary[0] = 1.0
    X[0, -1] = canary
    C = float(records) if C is None else float(C)

    def problem(label: float) -> DecentralizedProblem:
        labels = y.copy()
        labels[0, -1] = label
        return DecentralizedProblem.create(_unpadded(X, labels), GraphTopology.complete(n_agents), C=C, rho=rho)

    description = (
        f"node 0's record {records - 1} of {records}: x_c = e_1 (‖x_c‖ = 1), label +1 in D vs −1 in D′ "
        f"(gradients differ by exactly C/B = {C / records:g} at every f; Jacobians equal since L'' is even); "
        f"other records synthetic, d = {features}, complete graph on {n_agents} nodes (degree {n_agents - 1}), "
        f"logistic loss, C = {C:g}, ρ = {rho:g}"
    )
    return LabelFlip(problem(1.0), problem(-1.0), 0, canary, description)
