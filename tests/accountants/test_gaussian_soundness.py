"""Directed rounding of the exact Gaussian trade-off, against mpmath as the independent reference.

δ(ε) of μ-GDP is Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm. 8; Dong, Roth & Su 2022,
Cor. 2.13). The reference evaluates exactly that difference in mpmath with at least 50 significant
digits left after the cancellation, so it is some 35 orders of magnitude finer than any assertion.

Soundness (no tolerance): gaussian_delta and get_delta never fall below δ(ε); gaussian_epsilon and
get_epsilon never return an ε whose δ(ε) exceeds the target; gaussian_mu never returns a μ whose
δ(ε) exceeds the target. Tightness is asserted where the mathematics pins it down: in δ, to 1e-12
relative (the evaluation's error bound is below 2e-13, and its outward rounding doubles it), or
relative to 1 − δ when δ > 1/2 (where floats near 1 are resolved through 1 − δ), and in ε or μ, to
1e-12 relative plus the one ulp of ε or μ across which δ may jump by more than that. The
accountant stores μ in binary64 (within 4 units of 2^-53), and δ can be as sensitive to μ as
|a|·(μ/2 + ε/μ) (for μ = 3e7, a shift of 1e-15 in μ moves δ by 1e-6), so its tightness is asserted
against the exact trade-off of a μ 1e-13 larger.
"""

import math

import mpmath
import pytest
from dp_accounting import dp_event
from hypothesis import example, given
from hypothesis import strategies as st

from accountants import ExactGaussianAccountant, gaussian_delta, gaussian_epsilon, gaussian_mu

DIGITS = 50  # significant digits the reference keeps after cancellation
SUBNORMAL = 5e-324
TIGHT = 1e-12


def true_delta(mu, eps):
    """δ(ε) of μ-GDP to DIGITS significant digits, or None when it is below 1e-780 (a < −60).

    ``mu`` is a float or a function of nothing returning the exact μ at the working precision (so
    that sqrt(count)/σ is evaluated exactly enough). The working precision covers the digits of
    ε/μ and μ/2 lost in forming a, and is raised until the difference keeps DIGITS digits.
    """
    mu_of = mu if callable(mu) else (lambda: mpmath.mpf(mu))
    eps = float(eps)
    with mpmath.workdps(30):
        scale = max(1.0, float(mu_of()), eps / float(mu_of()))
    dps = DIGITS + 20 + int(math.log10(scale))
    while True:
        with mpmath.workdps(dps):
            m, e = mu_of(), mpmath.mpf(eps)
            a = m / 2 - e / m
            if a < -60:
                return None
            first = mpmath.ncdf(a)
            delta = first - mpmath.exp(e) * mpmath.ncdf(a - m)
            lost = dps if delta <= 0 else int(mpmath.log10(first / delta)) + 1
            if dps - int(math.log10(scale)) - lost >= DIGITS + 10:
                return +delta
        dps = 2 * dps + lost


def exact_mu(count, sigma):
    return lambda: mpmath.sqrt(count) / mpmath.mpf(sigma)


def perturbed(mu_of, factor):
    return lambda: mu_of() * (1 + mpmath.mpf(factor))


def below(x, relative):
    """A float at least max(relative · x, 1 ulp) below x >= 0 (0 stays 0)."""
    return min(x * (1 - relative), math.nextafter(x, 0.0))


def above(x, relative):
    return max(x * (1 + relative), math.nextafter(x, math.inf))


def slack(delta, relative=TIGHT):
    """What the evaluation's error bound may cost: a relative share of δ, or of 1 − δ near 1."""
    return relative * min(delta, 1 - delta)


def assert_upper_bound(value, truth, looser=None, relative=TIGHT):
    """value >= truth (sound) and value <= the looser truth (by default the truth) plus slack, plus
    the float spacing where that is coarser: a subnormal, or an ulp below 1 (tight)."""
    if truth is None:  # δ < 1e-780: the smallest positive float is the least float above it
        assert value == SUBNORMAL
        return
    looser = truth if looser is None else looser
    assert mpmath.mpf(value) >= truth
    assert mpmath.mpf(value) <= looser + slack(looser, relative) + 2 * SUBNORMAL + (2.0**-53 if looser > 0.5 else 0)


log_uniform = st.floats(-3.0, 9.0).map(lambda e: 10.0**e)  # σ in [1e-3, 1e9]
deltas = st.one_of(
    st.floats(-300.0, -0.3).map(lambda e: 10.0**e),  # δ in [1e-300, 0.5]
    st.floats(-12.0, -0.3).map(lambda e: 1.0 - 10.0**e),  # δ in [0.5, 1 − 1e-12]
)
counts = st.floats(0.0, 9.0).map(lambda e: int(round(10.0**e)))  # 1 … 1e9, log-uniform


@st.composite
def epsilons_for(draw, mu):
    """ε in [0, 1e3]: either anywhere, or where δ(ε) is between ~1e-300 and ~1 (a in [−37, 3])."""
    if draw(st.booleans()):
        return draw(st.one_of(st.just(0.0), st.floats(0.0, 1e3), st.floats(-12.0, 3.0).map(lambda e: 10.0**e)))
    a = draw(st.floats(-37.0, 3.0))
    return min(max(mu * (mu / 2 - a), 0.0), 1e3)


@given(log_uniform, st.data())
def test_gaussian_delta_is_a_tight_upper_bound(sigma, data):
    mu = 1.0 / sigma
    eps = data.draw(epsilons_for(mu))
    assert_upper_bound(gaussian_delta(mu, eps), true_delta(mu, eps))


@pytest.mark.parametrize("sigma", [1e-3, 1.0, 774546.2823380809, 1e9])
@pytest.mark.parametrize("eps", [0.0, 6.633754074761472e-06, 1.0, 1e3])
def test_gaussian_delta_at_the_ends_of_the_range(sigma, eps):
    assert_upper_bound(gaussian_delta(1.0 / sigma, eps), true_delta(1.0 / sigma, eps))


@given(log_uniform, deltas)
@example(1.0 / 90219583.21511549, 4.3520542162789136e-13)
@example(1e9, 1e-300)
@example(1e-3, 1.0 - 1e-12)
@example(1e9, 1.0 - 1e-12)
def test_gaussian_epsilon_is_safe_and_tight(sigma, delta):
    mu = 1.0 / sigma
    eps = gaussian_epsilon(mu, delta)
    assert 0.0 <= eps < math.inf
    if eps > 0:
        assert true_delta(mu, eps) <= delta
        assert true_delta(mu, below(eps, TIGHT)) > delta - slack(delta)
    else:
        assert true_delta(mu, 0.0) <= delta


@given(st.one_of(st.just(0.0), st.floats(0.0, 1e3), st.floats(-12.0, 3.0).map(lambda e: 10.0**e)), deltas)
@example(1.4551915228366852e-10, 1.3096723705530167e-10)
@example(0.0, 1e-300)
@example(1e3, 1e-300)
@example(0.0, 1.0 - 1e-12)
def test_gaussian_mu_is_safe_and_tight(eps, delta):
    mu = gaussian_mu(eps, delta)
    assert 0.0 < mu < math.inf
    assert true_delta(mu, eps) <= delta
    assert true_delta(above(mu, TIGHT), eps) > delta - slack(delta)


@given(log_uniform, counts, deltas)
@example(90219583.21511549, 1, 4.3520542162789136e-13)
@example(1e-3, 10**9, 1e-300)
@example(1e9, 1, 1.0 - 1e-12)
def test_accountant_epsilon_is_safe_and_tight(sigma, count, delta):
    eps = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(sigma), count).get_epsilon(delta)
    mu = exact_mu(count, sigma)
    assert 0.0 <= eps < math.inf
    if eps > 0:
        assert true_delta(mu, eps) <= delta
        assert true_delta(perturbed(mu, 1e-13), below(eps, TIGHT)) > delta - slack(delta)
    else:
        assert true_delta(mu, 0.0) <= delta


@given(log_uniform, counts, st.data())
def test_accountant_delta_is_a_tight_upper_bound(sigma, count, data):
    check_accountant_delta(sigma, count, data.draw(epsilons_for(math.sqrt(count) / sigma)))


@pytest.mark.parametrize("sigma, count", [(774546.2823380809, 1), (1e-3, 10**9), (1e9, 1), (1e9, 10**9)])
@pytest.mark.parametrize("eps", [0.0, 6.633754074761472e-06, 1.0, 1e3])
def test_accountant_delta_at_the_ends_of_the_range(sigma, count, eps):
    check_accountant_delta(sigma, count, eps)


def check_accountant_delta(sigma, count, eps):
    accountant = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(sigma), count)
    mu = exact_mu(count, sigma)
    value = accountant.get_delta(eps)
    truth = true_delta(mu, eps)
    looser = None if truth is None else true_delta(perturbed(mu, 1e-13), eps)
    assert_upper_bound(value, truth, looser)


# The cases of the report: each was on the wrong side of the truth before.
def test_golden_regressions():
    eps = (
        ExactGaussianAccountant()
        .register(dp_event.GaussianDpEvent(90219583.21511549))
        .get_epsilon(4.3520542162789136e-13)
    )
    assert 3.9892002971847792e-08 <= eps <= 3.9892002971847792e-08 * (1 + 1e-12)
    delta = (
        ExactGaussianAccountant().register(dp_event.GaussianDpEvent(774546.2823380809)).get_delta(6.633754074761472e-06)
    )
    assert 3.26137948143e-14 * (1 - 1e-11) <= delta <= 3.26137948143e-14 * (1 + 1e-11)
    assert mpmath.mpf(delta) >= true_delta(exact_mu(1, 774546.2823380809), 6.633754074761472e-06)
    mu = gaussian_mu(1.4551915228366852e-10, 1.3096723705530167e-10)
    assert true_delta(mu, 1.4551915228366852e-10) <= 1.3096723705530167e-10


@pytest.mark.parametrize("mu", [5e-324, 1e-300, 1e-160, 1e-9, 1.0, 3e7, 1e154, 1e300, 1.7e308])
def test_degenerate_parameters_give_bounds_not_errors(mu):
    assert 0.0 < gaussian_delta(mu, 0.0) <= 1.0
    assert gaussian_delta(mu, 1e300) == (SUBNORMAL if mu < 1e100 else 1.0)  # 0 < δ < 5e-324, or 1 − δ < 5e-324
    for delta in (1e-300, 1e-5, 1.0 - 1e-12):
        eps = gaussian_epsilon(mu, delta)
        assert eps == math.inf if mu > 1e154 else gaussian_delta(mu, eps) <= delta
    for eps in (0.0, 1.0, 1e300):
        mu_max = gaussian_mu(eps, 1e-5)
        assert mu_max == 0.0 or gaussian_delta(mu_max, eps) <= 1e-5


def test_degenerate_noise_multipliers():
    loud = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(1e-300))  # μ = 1e300
    assert loud.get_epsilon(1e-5) == math.inf and loud.get_epsilon(1.0 - 1e-12) == math.inf
    assert loud.get_delta(1e300) == 1.0 and loud.get_mu() == pytest.approx(1e300, rel=1e-15)
    quiet = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(1e300))  # μ = 1e-300
    assert quiet.get_mu() == pytest.approx(1e-300, rel=1e-15)
    assert quiet.get_epsilon(1e-300) == 0.0  # δ(0) = 2Φ(μ/2) − 1 ≈ 4e-301
    assert_upper_bound(quiet.get_delta(0.0), true_delta(1e-300, 0.0), relative=1e-13)
    assert quiet.get_delta(1.0) == SUBNORMAL
    tiny = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(1e300), 100)
    assert tiny.get_mu() == pytest.approx(1e-299, rel=1e-15)
    assert ExactGaussianAccountant().register(dp_event.GaussianDpEvent(5e-324)).get_epsilon(0.5) == math.inf


def test_extreme_multipliers_compose_the_same_in_batches():
    events = [dp_event.GaussianDpEvent(z) for z in (1e300, 2e300, 1e-200, 3.0, 1e200)]
    batch = ExactGaussianAccountant().register_many(events)
    single = ExactGaussianAccountant()
    for event in events:
        single.register(event)
    assert batch.get_mu() == single.get_mu() == pytest.approx(1e200, rel=1e-15)
    plain = ExactGaussianAccountant().register_many([dp_event.GaussianDpEvent(z) for z in (1e150, 1e150)])
    assert plain.get_mu() == pytest.approx(math.sqrt(2) * 1e-150, rel=1e-15)


def test_extreme_targets():
    assert gaussian_epsilon(1.0, 1e-300) == pytest.approx(37.448847912, rel=1e-9)
    assert true_delta(1.0, gaussian_epsilon(1.0, 1e-300)) <= 1e-300
    assert gaussian_epsilon(30.0, 1.0 - 1e-12) > 0
    assert gaussian_mu(0.0, 1e-300) == pytest.approx(1e-300 * math.sqrt(2 * math.pi), rel=1e-12)
    assert gaussian_mu(0.0, SUBNORMAL) in (SUBNORMAL, 0.0)
    assert gaussian_mu(1e300, 0.5) == pytest.approx(math.sqrt(2e300), rel=1e-9)
