"""Random number generators for the mechanisms: explicit, reproducible, never global.

Every sampler in this package takes a :class:`numpy.random.Generator` and touches no global random
state. :func:`make_rng` builds one: from a seed for exact reproducibility, or, with no seed, from
operating-system entropy (the library default; the seed it drew is kept in
``rng.bit_generator.seed_seq.entropy``, so a run can be replayed). :func:`spawn_rngs` makes
independent streams (one per agent, trial or worker) with ``SeedSequence.spawn``.

Security warning, read before a deployment
-------------------------------------------
numpy's generators (PCG64 by default) are statistical generators, **not cryptographically
secure**: their internal state can be reconstructed from enough outputs, after which every later
"random" value is predictable. They are right for research, simulation and auditing, where
reproducibility matters. A deployment that protects real people needs more than this library gives:

* **Floating-point noise leaks.** Adding textbook floating-point Laplace or Gaussian noise is not
  differentially private as implemented: the set of doubles a noisy value can take depends on the
  true value, so the low-order bits of a release can reveal the input exactly (Mironov 2012, "On
  significance of the least significant bits for differential privacy", CCS). Changing the
  generator does not fix this. Use a snapping mechanism (Mironov 2012) or discrete mechanisms
  (discrete Laplace / discrete Gaussian, Canonne, Kamath & Steinke 2020) on a fixed grid.
* **Use a CSPRNG** (the operating system's, e.g. ``secrets``/``os.urandom``) for any noise an
  adversary can observe, and never reuse or publish seeds.

The cheap step this module offers is :class:`SecureReseedingGenerator`: a generator that every
mechanism reseeds from fresh OS entropy (``secrets``) at the start of each release, so no seed is
ever stored or reused and state recovered from one release says nothing about the next. Within one
release the stream is still PCG64, and the floating-point leak above remains; runs with it are not
reproducible, by design.
"""

from __future__ import annotations

import secrets

import numpy as np

from accountants.constraints import Instance, Integer, Optional, Seed, validate_parameters

__all__ = ["SecureReseedingGenerator", "begin_release", "check_seed", "make_rng", "spawn_rngs"]

SeedLike = int | np.random.SeedSequence | np.random.Generator | None

_OS_ENTROPY_BITS = 128


@validate_parameters(seed=Seed())
def make_rng(seed: SeedLike = None) -> np.random.Generator:
    """A PCG64 generator from ``seed``: ``None`` draws the seed from OS entropy, an int or a
    ``SeedSequence`` seeds it reproducibly, and a ``Generator`` is returned as it is.

    Raises:
      TypeError: ``seed`` is of another type (a float, a bool, a legacy ``RandomState`` ...).
      ValueError: ``seed`` is a negative int.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.Generator(np.random.PCG64(_seed_sequence(seed)))


@validate_parameters(seed_or_rng=Seed(), n=Integer(0))
def spawn_rngs(seed_or_rng: SeedLike, n: int) -> list[np.random.Generator]:
    """``n`` statistically independent generators spawned from ``seed_or_rng``
    (``SeedSequence.spawn``); the same seed gives the same list.

    A ``Generator`` spawns from its own seed sequence, so each call gives new children.
    """
    if isinstance(seed_or_rng, np.random.Generator):
        return seed_or_rng.spawn(n)
    return [np.random.Generator(np.random.PCG64(child)) for child in _seed_sequence(seed_or_rng).spawn(n)]


class SecureReseedingGenerator(np.random.Generator):
    """A ``Generator`` that each mechanism reseeds from OS entropy at the start of a release.

    Pass it wherever a solver takes an ``rng``. Not reproducible, and not a CSPRNG within a
    release (see the module docstring for what it does and does not protect against).
    """

    @validate_parameters(bit_generator=Optional(Instance(np.random.BitGenerator, "a numpy.random.BitGenerator")))
    def __init__(self, bit_generator: np.random.BitGenerator | None = None) -> None:
        super().__init__(bit_generator if bit_generator is not None else _os_pcg64())

    def reseed(self) -> None:
        """Replace the internal state with one seeded from fresh OS entropy."""
        self.bit_generator.state = _os_pcg64().state

    def __reduce__(self) -> tuple[type[SecureReseedingGenerator], tuple[np.random.BitGenerator], None]:
        return type(self), (self.bit_generator,), None


def begin_release(rng: object) -> np.random.Generator:
    """Check that ``rng`` is a ``numpy.random.Generator`` and return it, reseeded first if it is a
    :class:`SecureReseedingGenerator`. Every mechanism calls this once per release (per sample)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (make one with mechanisms.make_rng(seed)), got {rng!r}")
    if isinstance(rng, SecureReseedingGenerator):
        rng.reseed()
    return rng


def _os_pcg64() -> np.random.PCG64:
    return np.random.PCG64(secrets.randbits(_OS_ENTROPY_BITS))


def check_seed(seed: object) -> None:
    """Check that ``seed`` is what :func:`make_rng` takes (None, a non-negative int, a
    ``SeedSequence`` or a ``Generator``) without building a generator.

    Raises:
      TypeError, ValueError: as :func:`make_rng`.
    """
    Seed().check(seed, "seed")


def _seed_sequence(seed: int | np.random.SeedSequence | None) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence(int(seed))
