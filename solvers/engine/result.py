"""The result of a solver run: models, history, transcript, ledger and privacy, for R trials.

What ``privacy`` covers (``Result.privacy_scope``): a single run is one deployment, and its ledger
and ε cover its releases. A batched run (``trials=R`` or ``seeds=``) simulates R independent runs
on the same data, for audits and experiments: its ledger and ε are those of *each* trial, once. The
trials are not releases of one deployment, and ε is not their composition: publishing the outputs
of k trials would spend up to k times the per-trial budget (k-fold composition), which no number
here states. ``run(..., ledger_path=f)`` says the same next to the ledger file
(``<ledger>.runs.jsonl``, :mod:`solvers.engine.ledger_runs`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accountants import Ledger
from solvers.display import result_frame, result_html, result_markdown
from solvers.engine.transcript import Transcript

__all__ = ["ONE_DEPLOYMENT", "Result", "UnreplayableSeed", "privacy_scope"]

#: ``Result.privacy_scope`` of a single run.
ONE_DEPLOYMENT = "one deployment: the ledger and privacy cover the releases of this run"


def privacy_scope(n_trials: int, batched: bool) -> str:
    """What the ledger and ε of a run cover: one deployment, or each of R simulated trials."""
    if not batched:
        return ONE_DEPLOYMENT
    return (
        f"each of {n_trials} simulated trials; the trials are not a composition: the ledger and privacy "
        f"cover one trial's releases, and the {n_trials} trials are independent simulations on the same "
        f"data (for audits), not releases of one deployment (publishing k trials' outputs spends up to "
        f"k times this ε)"
    )


@dataclass(frozen=True)
class UnreplayableSeed:
    """``Result.seeds`` entry of a trial whose noise came from a ``SecureReseedingGenerator``.

    The generator reseeds from OS entropy at every release, so no seed replays the trial, and none
    is kept; passing this to ``run(seed=...)`` is refused (TypeError) rather than silently drawing
    other noise.
    """

    reason: str = "noise drawn from a SecureReseedingGenerator (fresh OS entropy at every release)"

    def __repr__(self) -> str:
        return f"UnreplayableSeed({self.reason!r})"


@dataclass(frozen=True, eq=False)
class Result:
    """What ``Solver.run`` returns.

    A single run (``seed=``) has no trials axis; a batched run (``trials=`` or ``seeds=``) puts the
    trials axis first for models and second (after iterations) for history and transcript.

    Attributes:
      model: final global model w^T, (d,) or (R, d).
      model_average: ergodic average w̄^T = (1/T) Σ_{k=1}^{T} w^k (Huang et al. 2020, Theorems 3–4), same shape.
      history: per-iteration metrics (``solvers.horizontal_recorder`` lists the keys), each (T,) or (T, R).
      transcript: the released messages (``solvers.engine.transcript``), or None if not recorded.
      ledger: every release of the run, once (privacy does not depend on the trial): participant
        = agent id, iteration = k.
      privacy: {accountant name: ε at ``delta``} for the worst agent; ∞ for a non-private run.
      delta: the target δ of ``privacy`` (None for a non-private solver).
      seeds: the seed of each trial (a sequence; a single run: one entry); ``solver.run(problem, seed=s)``
        reproduces trial r exactly with s = ``seeds[r]``. The seeds undo the noise: keep them
        secret (a run with a ``SecureReseedingGenerator`` keeps none, ``UnreplayableSeed``).
      solver: the solver's name and parameters.
      info: the run's data-independent constants (the fields of ``details``: schedules η (T, N)
        and σ (T, N), z, D_w, ...) and inner-solver diagnostics by name, as reported in JSON.
      details: the same constants typed: the plan's frozen dataclass of the solver's family
        (e.g. ``solvers.star.DPADMMPlan``; None for a family without constants).
      privacy_scope: what ``ledger`` and ``privacy`` cover (module docstring): "one deployment" for
        a single run, "each of R simulated trials; the trials are not a composition" for a batched
        run. Filled in from the trials axis when not given.
    """

    model: np.ndarray
    model_average: np.ndarray
    history: Mapping[str, np.ndarray]
    transcript: Transcript | None
    ledger: Ledger
    privacy: Mapping[str, float]
    delta: float | None
    seeds: Sequence[Any]
    solver: Mapping[str, object] = field(default_factory=dict)
    info: Mapping[str, object] = field(default_factory=dict)
    privacy_scope: str = ""
    details: Any = None

    def __post_init__(self) -> None:
        if not self.privacy_scope:
            object.__setattr__(self, "privacy_scope", privacy_scope(self.n_trials, self.batched))

    @property
    def batched(self) -> bool:
        """Whether arrays carry a trials axis."""
        return self.model.ndim == 2

    @property
    def n_trials(self) -> int:
        """R, the number of simulated trials (1 for a single run)."""
        return self.model.shape[0] if self.batched else 1

    def __repr__(self) -> str:
        name = self.solver.get("name", "?")
        shape = "x".join(map(str, self.model.shape))
        return (
            f"Result(solver={name!r}, n_trials={self.n_trials}, model=<{shape}>, privacy={dict(self.privacy)!r}, "
            f"delta={self.delta!r}, privacy_scope={self.privacy_scope!r})"
        )

    def _repr_markdown_(self) -> str:
        return result_markdown(self)

    def _repr_html_(self) -> str:
        return result_html(self)

    def to_frame(self) -> Any:
        """The per-iteration history as a pandas DataFrame (iteration, trial for a batched run, one
        column per metric); needs pandas."""
        return result_frame(self)

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
            privacy_scope=self.privacy_scope,  # still one of the R simulations
            details=self.details,
        )

    def summary(self) -> dict[str, float]:
        """Final values of the history (mean over trials) and the privacy bounds, flat."""
        out = {name: float(np.mean(values[-1])) for name, values in self.history.items()}
        out.update({f"epsilon_{name}": value for name, value in self.privacy.items()})
        return out
