"""The fractional-order RDP of a Poisson-sampled Gaussian release, summed on arrays, is
dp-accounting's series to the bit (including the orders where it does not converge: ∞)."""

import logging

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.rdp import RdpAccountant

from accountants import MomentsAccountant
from accountants.rdp import DEFAULT_ORDERS
from accountants.sampled_rdp import sampled_gaussian_fractional_rdp

FRACTIONAL = DEFAULT_ORDERS[
    (DEFAULT_ORDERS > 1) & (DEFAULT_ORDERS <= 1024) & (np.floor(DEFAULT_ORDERS) != DEFAULT_ORDERS)
]


@pytest.mark.parametrize(("q", "sigma"), [(0.01, 1.0), (0.3, 0.5), (0.001, 5.0), (0.999, 0.8), (1e-9, 30.0)])
def test_the_fractional_curve_is_dp_accountings(q, sigma):
    reference = RdpAccountant(orders=FRACTIONAL)
    logging.disable(logging.WARNING)  # its warnings about the orders whose series does not converge
    try:
        reference.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)))
    finally:
        logging.disable(logging.NOTSET)
    ours = sampled_gaussian_fractional_rdp(FRACTIONAL, q, sigma)
    assert np.array_equal(ours, reference._rdp)  # dp-accounting's private curve, read only


def test_the_moments_accountant_no_longer_delegates_a_sampled_gaussian(monkeypatch):
    """Its whole curve is computed here: dp-accounting's RdpAccountant is not asked."""
    import accountants.moments as moments

    def refuse(*args, **kwargs):
        raise AssertionError("dp-accounting's RdpAccountant was asked")

    monkeypatch.setattr(moments, "RdpAccountant", refuse)
    event = dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0))
    epsilon = MomentsAccountant().register(event, 1000).get_epsilon(1e-5)
    assert epsilon == pytest.approx(2.101366525421124, rel=1e-12)  # golden: as before, delegated
