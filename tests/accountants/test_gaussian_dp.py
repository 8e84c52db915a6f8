import math

import mpmath
import pytest
from dp_accounting import get_epsilon_gaussian
from hypothesis import example, given
from hypothesis import strategies as st

from accountants.gaussian_dp import gaussian_delta, gaussian_epsilon, gaussian_mu

mpmath.mp.dps = 50


def mp_delta(mu, eps):
    """δ(ε) of μ-GDP at 50 digits (Dong, Roth & Su 2022, Cor. 2.13)."""
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


@pytest.mark.parametrize("mu, eps", [(1.0, 0.0), (1.0, 4.377), (0.1, 0.3), (5.0, 20.0), (0.01, 0.05), (30.0, 500.0)])
def test_delta_matches_mpmath_at_high_precision(mu, eps):
    assert gaussian_delta(mu, eps) == pytest.approx(float(mp_delta(mu, eps)), rel=1e-12)
    assert mpmath.mpf(gaussian_delta(mu, eps)) >= mp_delta(mu, eps)  # rounded up


def test_golden_values_of_the_accountants_issue():
    assert gaussian_epsilon(1.0, 1e-5) == pytest.approx(4.377178095681137, abs=1e-9)
    assert gaussian_epsilon(math.sqrt(10.0), 1e-5) == pytest.approx(17.856586830107616, abs=1e-9)


@given(st.floats(0.05, 20.0), st.floats(1e-10, 0.1))
def test_epsilon_is_the_tight_upper_root(mu, delta):
    eps = gaussian_epsilon(mu, delta)
    assert gaussian_delta(mu, eps) <= delta  # the returned ε is safe
    if eps > 0:
        assert float(mp_delta(mu, eps * (1 - 1e-9))) > delta  # and tight
    assert eps == pytest.approx(get_epsilon_gaussian(1.0 / mu, delta), rel=1e-8, abs=1e-10)


@given(st.floats(0.0, 30.0), st.floats(1e-10, 0.5))
@example(eps=1.4551915228366852e-10, delta=1.3096723705530167e-10)  # was unsound (issue example)
def test_mu_inverts_epsilon(eps, delta):
    mu = gaussian_mu(eps, delta)
    assert gaussian_delta(mu, eps) <= delta
    assert gaussian_delta(mu * (1 + 1e-9), eps) > delta * (1 - 1e-6)


def test_degenerate_and_bad_arguments():
    assert gaussian_epsilon(0.0, 1e-5) == 0.0
    assert gaussian_epsilon(1.0, 0.0) == math.inf
    assert gaussian_delta(math.inf, 3.0) == 1.0
    with pytest.raises(ValueError, match=r"delta must be a probability in \[0, 1\)"):
        gaussian_epsilon(1.0, 1.5)
    with pytest.raises(ValueError, match="mu must not be NaN"):
        gaussian_epsilon(float("nan"), 1e-5)


def test_issue_examples_are_on_the_safe_side():
    """Each was on the wrong side of the truth before the cancellation-free evaluation."""
    mu = gaussian_mu(1.4551915228366852e-10, 1.3096723705530167e-10)
    assert mp_delta(mu, 1.4551915228366852e-10) <= 1.3096723705530167e-10
    eps = gaussian_epsilon(1.0 / 90219583.21511549, 4.3520542162789136e-13)
    assert 3.9892002971847792e-08 <= eps <= 3.9892002971847792e-08 * (1 + 1e-12)
    delta = gaussian_delta(1.0 / 774546.2823380809, 6.633754074761472e-06)
    assert delta == pytest.approx(3.26137948143e-14, rel=1e-11)
