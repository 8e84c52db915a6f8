"""Shared fixtures of the accountant tests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pytest
from dp_accounting import dp_event
from dp_accounting.pld import privacy_loss_distribution as pld_lib


@dataclass(frozen=True)
class MixedLedger:
    """Releases of three kinds a PLD accountant composes differently (Laplace, plain Gaussian, whose part
    is kept exact, and Poisson-sampled Gaussian), and the independent reference for any counts of such
    releases: dp-accounting's PLD composed from scratch."""

    laplace: dp_event.DpEvent = dp_event.LaplaceDpEvent(20.0)
    gaussian: dp_event.DpEvent = dp_event.GaussianDpEvent(10.0)
    sampled: dp_event.DpEvent = dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0))

    @property
    def events(self) -> tuple[dp_event.DpEvent, ...]:
        """(Laplace, Gaussian, sampled Gaussian)."""
        return self.laplace, self.gaussian, self.sampled

    @staticmethod
    def dp_accounting_pld(
        counts: Mapping[dp_event.DpEvent, int], grid: float, pessimistic: bool
    ) -> pld_lib.PrivacyLossDistribution:
        """dp-accounting's PLD of the releases (event: count, each Laplace, Gaussian or Poisson-sampled
        Gaussian), composed from scratch on ``grid``."""
        options = {"pessimistic_estimate": pessimistic, "value_discretization_interval": grid}
        gaussian = {"use_connect_dots": pessimistic, **options}
        composed = None
        for event, count in counts.items():
            if isinstance(event, dp_event.LaplaceDpEvent):
                single = pld_lib.from_laplace_mechanism(event.noise_multiplier, **options)
            elif isinstance(event, dp_event.GaussianDpEvent):
                single = pld_lib.from_gaussian_mechanism(
                    event.noise_multiplier, use_connect_dots=pessimistic, **options
                )
            else:
                single = pld_lib.from_gaussian_mechanism(
                    event.event.noise_multiplier, sampling_prob=event.sampling_probability, **gaussian
                )
            piece = single.self_compose(count)
            composed = piece if composed is None else composed.compose(piece)
        return composed


@pytest.fixture(scope="session")
def mixed() -> MixedLedger:
    """The mixed releases and their from-scratch PLD (:class:`MixedLedger`)."""
    return MixedLedger()
