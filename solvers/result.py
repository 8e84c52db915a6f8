"""The result of a solver run: models, history, transcript, ledger and privacy, for R trials."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from accountants import Ledger
from solvers.transcript import Transcript

__all__ = ["Result"]


@dataclass(frozen=True, eq=False)
class Result:
    """What ``Solver.run`` returns.

    A single run (``seed=``) has no trials axis; a batched run (``trials=`` or ``seeds=``) puts the
    trials axis first for models and second (after iterations) for history and transcript.

    Attributes:
      model: final global model w^T, (d,) or (R, d).
      model_average: ergodic average w̄^T = (1/T) Σ_{k=1}^{T} w^k (spec 000 §2.3), same shape.
      history: per-iteration metrics (``solvers.recorder`` lists the keys), each (T,) or (T, R).
      transcript: the released messages (``solvers.transcript``), or None if not recorded.
      ledger: every release of the run, once (privacy does not depend on the trial): participant
        = agent id, iteration = k.
      privacy: {accountant name: ε at ``delta``} for the worst agent; ∞ for a non-private run.
      delta: the target δ of ``privacy`` (None for a non-private solver).
      seeds: the seed of each trial (a single run: one entry); ``solver.run(problem, seed=s)``
        reproduces trial r exactly with s = ``seeds[r]``.
      solver: the solver's name and parameters.
      info: data-independent run constants (schedules η (T, N) and σ (T, N), z, D_w, ...) and
        inner-solver diagnostics.
    """

    model: np.ndarray
    model_average: np.ndarray
    history: Mapping[str, np.ndarray]
    transcript: Transcript | None
    ledger: Ledger
    privacy: Mapping[str, float]
    delta: float | None
    seeds: tuple
    solver: Mapping[str, object] = field(default_factory=dict)
    info: Mapping[str, object] = field(default_factory=dict)

    @property
    def batched(self) -> bool:
        """Whether arrays carry a trials axis."""
        return self.model.ndim == 2

    @property
    def n_trials(self) -> int:
        return self.model.shape[0] if self.batched else 1

    def trial(self, r: int) -> Result:
        """Trial ``r`` of a batched run, shaped like a single run."""
        if not self.batched:
            raise ValueError("trial() needs a batched result (run with trials= or seeds=)")
        if not 0 <= r < self.n_trials:
            raise ValueError(f"r must be in [0, {self.n_trials}), got {r!r}")
        return Result(
            model=self.model[r],
            model_average=self.model_average[r],
            history={name: values[:, r] for name, values in self.history.items()},
            transcript=None if self.transcript is None else self.transcript.trial(r),
            ledger=self.ledger,
            privacy=self.privacy,
            delta=self.delta,
            seeds=(self.seeds[r],),
            solver=self.solver,
            info=self.info,
        )

    def summary(self) -> dict[str, float]:
        """Final values of the history (mean over trials) and the privacy bounds, flat."""
        out = {name: float(np.mean(values[-1])) for name, values in self.history.items()}
        out.update({f"epsilon_{name}": value for name, value in self.privacy.items()})
        return out
