"""Abstract bases: a :class:`Mechanism` samples noise; an :class:`AccountedMechanism` also states
the privacy event each release causes, so a solver never computes privacy by hand.

Parameters may be arrays (one value per agent, per trial, ...). They broadcast together to the
mechanism's ``parameter_shape``, and against the sample shape by numpy's rules, so one ``sample``
call draws the noise for all agents and trials at once.
"""

from __future__ import annotations

import abc

import numpy as np
from dp_accounting import dp_event

from mechanisms._validation import FloatArray, Shape, as_shape, check_broadcast
from mechanisms.rng import begin_release

__all__ = ["Mechanism", "AccountedMechanism"]


class Mechanism(abc.ABC):
    """A noise source with (possibly array-valued) parameters of shape ``parameter_shape``."""

    @property
    @abc.abstractmethod
    def parameter_shape(self) -> Shape:
        """The broadcast shape of the mechanism's parameters (``()`` when all are scalars)."""

    def sample(self, rng: np.random.Generator, shape: int | tuple[int, ...] | None = None) -> FloatArray:
        """One release of noise: a float64 array, independent across entries.

        Args:
          rng: the generator to draw from (see :mod:`mechanisms.rng`); global state is untouched.
          shape: the sample shape; the parameters broadcast against it by numpy's rules.
            ``None`` means ``parameter_shape``.

        Raises:
          TypeError: ``rng`` is not a ``numpy.random.Generator``, or ``shape`` is not a shape.
          ValueError: the parameters do not broadcast to ``shape``.
        """
        sample_shape = self.parameter_shape if shape is None else check_broadcast(self.parameter_shape, as_shape(shape))
        return np.asarray(self._draw(begin_release(rng), sample_shape))

    @abc.abstractmethod
    def _draw(self, rng: np.random.Generator, shape: Shape) -> FloatArray:
        """Draw noise of ``shape`` (which the parameters broadcast to) from ``rng``."""


class AccountedMechanism(Mechanism):
    """A mechanism whose every release is described by one ``DpEvent`` per parameter element."""

    @property
    @abc.abstractmethod
    def _event_parameters(self) -> FloatArray:
        """The value that fixes the event, broadcast to ``parameter_shape``."""

    @abc.abstractmethod
    def _event_of(self, value: float) -> dp_event.DpEvent:
        """The event of one release with event parameter ``value``."""

    def events(self) -> list[dp_event.DpEvent]:
        """One event per element of the broadcast parameter array, in C order (e.g. per agent)."""
        return [self._event_of(float(value)) for value in self._event_parameters.ravel()]

    def event(self) -> dp_event.DpEvent:
        """The event of one release, when every parameter element gives the same event.

        Raises:
          ValueError: the parameter elements differ; use :meth:`events` for one event each.
        """
        distinct = np.unique(self._event_parameters)
        if distinct.size != 1:
            raise ValueError(
                f"{type(self).__name__} has {distinct.size} distinct privacy parameters over "
                f"parameter_shape {self.parameter_shape}, so no single event describes a release; "
                "use events() for one event per element"
            )
        return self._event_of(float(distinct[0]))
