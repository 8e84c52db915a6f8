"""Theorem V.1 (Zhang, Khalili & Liu 2020) and Theorem 4.1 (Zhang, Khalili & Liu 2018) bounds: golden values
(computed by the project from (32) and (26)), conditions, properties."""

import numpy as np
import pytest

from solvers.decentralized.privacy import (
    check_pp_conditions,
    pp_epsilons,
    radmm_epsilons,
    total_epsilon,
)


def pp_total_geometric(
    *, C: float, B: float, V: float, eta1: float, q1: float, alpha1: float, q2: float, T: int | float, c1: float = 0.25
) -> float:
    """Closed form of Σ_{t=1}^T β_i(t) for η(t) = η1 q1^{t−1}, α(t) = α1 q2^{t−1}: eq. (26) of
    Zhang, Khalili & Liu 2018 summed as two geometric series (derived here); T = inf gives the limit (finite iff
    q1 > 1 and q2 < q1)."""

    def S(r: float) -> float:
        if np.isinf(T):
            return 1 / (1 - r) if r < 1 else np.inf
        return T if r == 1 else (1 - r**T) / (1 - r)

    return C / (V * B * eta1) * (1.4 * c1 * S(1 / q1) + alpha1 * S(q2 / q1))


V5 = np.array([3, 2, 3, 2, 2.0])  # min degree 2


def test_radmm_unit_vector():
    """(32) of Zhang, Khalili & Liu 2020 by hand: K = 3, C = 10, B = 100, rho = 1.5, triangle, eta = alpha = 1,
    c1 = 1/4, so each odd iteration costs 0.2·(0.35/4.5 + 1)."""
    kw = dict(C=10, B=[100] * 3, V=[2] * 3, eta=np.ones((3, 1)), alpha=1.0, rho=1.5, n_agents=3)
    assert total_epsilon(radmm_epsilons(**kw)) == pytest.approx(0.6466666666, abs=1e-9)
    assert total_epsilon(radmm_epsilons(**kw, bound="tight")) == pytest.approx(0.633426, abs=1e-6)


@pytest.mark.parametrize(
    "V, rows",
    [
        (1, [(0.5, 7.3416, 6.6474), (1, 12.8104, 12.1161), (2, 23.7479, 23.0536)]),
        (2, [(0.5, 6.4154, 6.0624), (1, 11.8841, 11.5311), (2, 22.8216, 22.4686)]),
        (4, [(0.5, 5.9446, 5.7667), (1, 11.4134, 11.2354), (2, 22.3509, 22.1729)]),
    ],
)
def test_radmm_and_mradmm_table(V, rows):
    degrees = np.array([V, V + 1, V + 2, V + 1, V + 3], dtype=float)
    k = np.arange(1, 26)[:, None]
    for alpha, radmm, mradmm in rows:
        kw = dict(C=1750, B=np.full(5, 8000.0), V=degrees, alpha=alpha, rho=0.22, n_agents=5)
        assert total_epsilon(radmm_epsilons(eta=np.ones((25, 1)), **kw)) == pytest.approx(radmm, abs=1e-4)
        assert total_epsilon(radmm_epsilons(eta=1.04**k, **kw)) == pytest.approx(mradmm, abs=1e-4)
        # ADMM-OP: every one of the 50 iterations costs the same as an R-ADMM odd one.
        assert total_epsilon(radmm_epsilons(eta=np.ones((50, 1)), **kw)) == pytest.approx(2 * radmm, abs=2e-4)


@pytest.mark.parametrize(
    "q1, q2, expected",
    [
        (1.0, 1.0, 38.893189),
        (1.0, 1.03, 98.71523),
        (1.05, 1.03, 22.209642),
        (1.1, 1.05, 12.729958),
    ],
)
def test_pp_anchor_values(q1, q2, expected):
    t = np.arange(60)[:, None]
    eps = pp_epsilons(
        C=1750, B=np.full(5, 9044.0), V=V5, eta=0.5 * q1**t, alpha=3 * q2**t, theta=0.5, rho=0.22, n_agents=5
    )
    assert total_epsilon(eps) == pytest.approx(expected, abs=1e-5)
    assert pp_total_geometric(C=1750, B=9044, V=2, eta1=0.5, q1=q1, alpha1=3, q2=q2, T=60) == pytest.approx(
        expected, abs=1e-5
    )


def test_pp_unit_and_limit_and_tight():
    eps = pp_epsilons(C=10, B=[100] * 3, V=[2] * 3, eta=np.ones((3, 1)), alpha=1.0, theta=1.0, rho=1.0, n_agents=3)
    assert total_epsilon(eps) == pytest.approx(0.2025, abs=1e-12)
    assert pp_total_geometric(C=1750, B=9044, V=2, eta1=0.5, q1=1.1, alpha1=3, q2=1.05, T=np.inf) == pytest.approx(
        13.515867, abs=1e-6
    )
    assert pp_total_geometric(C=1750, B=9044, V=2, eta1=0.5, q1=1.0, alpha1=3, q2=1.0, T=np.inf) == np.inf
    kw = dict(
        C=1750,
        B=np.full(5, 9044.0),
        V=np.full(5, 2.0),
        eta=np.full((1, 1), 0.5),
        alpha=3.0,
        theta=0.5,
        rho=0.22,
        n_agents=5,
    )
    assert pp_epsilons(**kw)[0, 0] == pytest.approx(0.64822, abs=1e-5)
    assert pp_epsilons(**kw, bound="tight")[0, 0] == pytest.approx(0.62840, abs=1e-5)


def test_monotonicity_and_tight_below_paper():
    base = dict(C=100.0, B=np.full(3, 500.0), V=np.full(3, 2.0), eta=np.ones((4, 1)), alpha=1.0, rho=0.5, n_agents=3)
    e = radmm_epsilons(**base)[0, 0]
    assert radmm_epsilons(**{**base, "eta": 2 * np.ones((4, 1))})[0, 0] < e
    assert radmm_epsilons(**{**base, "B": np.full(3, 900.0)})[0, 0] < e
    assert radmm_epsilons(**{**base, "alpha": 2.0})[0, 0] > e
    assert np.all(radmm_epsilons(**base, bound="tight") <= radmm_epsilons(**base))


def test_conditions_raise():
    with pytest.raises(ValueError, match="eta must be non-decreasing"):
        radmm_epsilons(C=10, B=[100] * 2, V=[1] * 2, eta=[[1.0], [0.5]], alpha=1.0, rho=1.0, n_agents=2)
    with pytest.raises(ValueError, match="precondition"):
        radmm_epsilons(C=100, B=[100] * 2, V=[1] * 2, eta=[[0.01]], alpha=1.0, rho=0.1, n_agents=2)
    with pytest.raises(
        ValueError, match=r"^alpha must be finite and > 0 \(a real number or an array of them\), got -1.0"
    ):
        radmm_epsilons(C=10, B=[100] * 2, V=[1] * 2, eta=[[1.0]], alpha=-1.0, rho=1.0, n_agents=2)
    with pytest.raises(ValueError, match="bound"):
        radmm_epsilons(C=10, B=[100] * 2, V=[1] * 2, eta=[[1.0]], alpha=1.0, rho=1.0, n_agents=2, bound="x")
    with pytest.raises(ValueError, match="theta-condition"):
        check_pp_conditions(C=100, B=[100] * 2, V=[1] * 2, eta=[[0.1]], theta=0.1, rho=0.1, n_agents=2)
    with pytest.raises(ValueError, match="C <= B_i"):
        check_pp_conditions(C=200, B=[100] * 2, V=[1] * 2, eta=[[1.0]], theta=1.0, rho=0.1, n_agents=2)
    with pytest.raises(ValueError, match="eta_i\\(t\\) >= theta"):
        check_pp_conditions(C=10, B=[100] * 2, V=[1] * 2, eta=[[0.5]], theta=1.0, rho=0.1, n_agents=2)
