"""A user's mechanism as the audit loop runs it: n releases on a data set, from the trials' seeds.

The audit loop (:func:`audits.runner.run_spec`) runs a "solver" chunk by chunk with a list of
per-trial seeds; :class:`MechanismRuns` adapts any user function to that contract:

* batched (default): ``mechanism(dataset, rng, n)`` returns ``n`` independent releases, an array
  whose leading axis has length ``n`` (any trailing shape: a vector, a transcript of T iterations ×
  agents × d). ``rng`` is one ``numpy.random.Generator`` per chunk of trials, seeded from the
  chunk's first trial seed, so a run is reproducible for a given root seed.
* ``batched=False``: ``mechanism(dataset, rng)`` returns one release; the adapter calls it once
  per trial with the trial's own generator and stacks the releases.

Every chunk is read by :func:`audits.encoding.encode_releases` before anything is computed from it:
integers, booleans, strings, mixed tuples, and (when declared with :class:`audits.encoding.ReleaseFormat`)
NaN/None/masked entries as categories and variable-length sequences padded with an abort value
become finite real arrays; anything else stops the audit with an error that names the mechanism
and what to declare (a NaN never reaches a privacy computation as a number). The trailing shape of
the first batch is remembered: a later batch of another shape is refused with both shapes named.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audits.encoding import ReleaseFormat, describe_format, encode_releases
from audits.spec import AuditContext, Finding

__all__ = ["MechanismRuns", "Releases", "describe_callable", "reproducibility_section"]


@dataclass(frozen=True)
class Releases:
    """What :meth:`MechanismRuns.run` returns for a chunk: ``values`` (R, ...) float64, one release
    per trial; ``info`` and ``details`` are empty (a user's mechanism has no plan constants)."""

    values: np.ndarray
    info: Mapping[str, Any] = field(default_factory=dict)
    details: None = None


def describe_callable(function: object) -> str:
    """``module.qualname`` of a function (its repr when it has none), for reports and errors."""
    module = getattr(function, "__module__", None)
    qualname = getattr(function, "__qualname__", None)
    return f"{module}.{qualname}" if module and qualname else repr(function)[:80]


@dataclass(frozen=True, eq=False)
class MechanismRuns:
    """The user's ``mechanism`` (module docstring) with the audit loop's ``run`` contract.

    Attributes:
      mechanism: the user's function. batched: its calling convention (module docstring).
      release: what the releases may hold beyond real arrays of one shape.
      shape: the trailing shape of the first batch, once it ran (every later batch must match).
    """

    mechanism: Callable[..., Any]
    batched: bool = True
    release: ReleaseFormat = field(default_factory=ReleaseFormat)
    shape: list[tuple[int, ...]] = field(default_factory=list, init=False, repr=False)

    @property
    def stream_layout(self) -> str:
        """Where the releases' randomness comes from, for the report."""
        if self.batched:
            return (
                "one numpy Generator (PCG64) per chunk of trials, seeded with the chunk's first trial "
                "SeedSequence, passed to mechanism(dataset, rng, n)"
            )
        return "one numpy Generator (PCG64) per trial, seeded with the trial's SeedSequence"

    def __post_init__(self) -> None:
        if not callable(self.mechanism):
            raise TypeError(f"mechanism must be callable, got {type(self.mechanism).__name__}: {self.mechanism!r:.80}")
        if not isinstance(self.batched, bool):
            raise TypeError(f"batched must be True or False, got {self.batched!r}")
        if not isinstance(self.release, ReleaseFormat):
            raise TypeError(
                "release must be an audits.encoding.ReleaseFormat, e.g. ReleaseFormat(missing='category'), "
                f"got {self.release!r:.80}"
            )

    def get_params(self) -> dict[str, Any]:
        """The mechanism and its calling convention, for the report."""
        params: dict[str, Any] = {"mechanism": describe_callable(self.mechanism), "batched": self.batched}
        if self.release != ReleaseFormat():
            params["release"] = describe_format(self.release)
        return params

    def run(
        self,
        dataset: Any,
        *,
        seeds: Sequence[np.random.SeedSequence] | None = None,
        seed: int | None = None,
        **ignored: Any,
    ) -> Releases:
        """The releases of the trials with ``seeds`` (or of one trial with ``seed``) on ``dataset``.

        ``ignored`` takes the solver options the audit loop passes (accountants, recording flags),
        which a user's mechanism has no use for.

        Raises:
          ValueError: the mechanism returned something :func:`audits.encoding.encode_releases`
            refuses, a count other than the trials', or a shape other than the first batch's.
        """
        if seeds is None:
            seeds = [np.random.SeedSequence(0 if seed is None else seed)]
        n = len(seeds)
        name = describe_callable(self.mechanism)
        if self.batched:
            releases = self.mechanism(dataset, np.random.default_rng(seeds[0]), n)
        else:
            releases = [self.mechanism(dataset, np.random.default_rng(s)) for s in seeds]
            shapes = {np.shape(r) for r in releases} if self.release.length is None else set()
            if len(shapes) > 1:
                raise ValueError(
                    f"mechanism {name} returned releases of different shapes {sorted(shapes)[:3]}: every trial "
                    "must release an array of one shape (declare release=ReleaseFormat(length=..., pad=...) for "
                    "variable-length releases)"
                )
        values = encode_releases(releases, n, self.release, name)
        if not self.shape:
            self.shape.append(values.shape[1:])  # the first batch (on D, before any worker starts) fixes it
        elif values.shape[1:] != self.shape[0]:
            raise ValueError(
                f"mechanism {name} returned releases of shape {values.shape[1:]} after releases of shape "
                f"{self.shape[0]} in an earlier call: every call must release arrays of one shape (declare "
                "release=ReleaseFormat(length=..., pad=...) for variable-length releases)"
            )
        return Releases(values)


def reproducibility_section(context: AuditContext) -> Finding:
    """Whether the mechanism honours the generator it is given: four trials on D run twice with the
    same seeds must give the same releases, and four trials must not all give one release (a
    mechanism that re-seeds its own generator adds the same noise every time)."""
    solver, problem = context.spec.solver, context.spec.problem_in
    seeds = context.streams(2).spawn(4)
    first, second = solver.run(problem, seeds=seeds).values, solver.run(problem, seeds=seeds).values
    reproducible = bool(np.array_equal(first, second))
    constant = bool((first == first[:1]).all())
    lines = [
        "Runs are reproducible: the mechanism draws its randomness from the generator the audit gives it."
        if reproducible
        else "**Runs are not reproducible**: the same seeds gave different releases, so the mechanism draws "
        "randomness that the audit does not control (its own generator or global state). The bounds still "
        "hold for the trials that ran, but the audit cannot be repeated bit for bit."
    ]
    if constant:
        lines.append(
            "**Every trial gave the same release**: the mechanism adds no fresh randomness per run (for "
            "example, a generator re-seeded with a constant before every draw)."
        )
    return Finding(
        section={"title": "Reproducibility", "markdown": "\n\n".join(lines), "data": {}},
        report={"reproducible": reproducible, "constant_releases": constant},
    )
