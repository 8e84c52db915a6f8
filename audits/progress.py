"""An audit's progress on standard error: trials done, rate, time left, and the tightness reached so far.

The bar (tqdm) counts every trial of the audit, calibration included, and shows the rate and the time
left. While the audited trials run, it also shows the best deciding lower bound on ε that the trials
read so far give, over the claimed upper bound (the tightness an audit of that many trials would
report, Jagielski, Ullman & Oprea 2020): the bounds are recomputed from the chunks read so far, at most
once per :data:`PREVIEW_SECONDS` and never for more than 1/:data:`PREVIEW_SHARE` of the time spent,
so that the preview costs at most that share of the audit. The preview is shown only: the report is
computed from every trial, as without a bar.

The bar is silent when standard error is not a terminal, or when asked (``progress=False``,
``dp-audit --quiet``); then no preview is computed.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from audits.chunk_histograms import ChunkHistograms
    from audits.spec import AuditSpec

__all__ = ["PREVIEW_SECONDS", "PREVIEW_SHARE", "AuditProgress", "lower_so_far", "tightness_text"]

#: Seconds between two previews of the lower bound at least.
PREVIEW_SECONDS = 30.0
#: A preview waits for this many times its own cost since the last one (so it costs ≤ 1/this of the run).
PREVIEW_SHARE = 10.0


def tightness_text(lower: float, claimed: float | None) -> str:
    """The bar's postfix for a lower bound ``lower`` on ε against the claimed upper bound ``claimed``."""
    text = f"ε ≥ {lower:.3g}"
    if claimed is not None and math.isfinite(claimed) and claimed > 0:
        text += f", {lower / claimed:.2f} of claimed {claimed:.3g}"
    return text


def lower_so_far(
    spec: AuditSpec,
    observations: dict[str, tuple[list[Any], list[Any]]],
    counted: ChunkHistograms | None = None,
    *,
    methods: tuple[str, ...],
    confidence: float,
) -> float | None:
    """The largest of the lower bounds ``methods`` ("gdp", "clopper_pearson") on ε that the audited
    attack's observations read so far give (or its histograms, when ``counted`` holds them), as the report
    computes them on every trial (same δ, confidence and threshold strategy); None before two trials per
    hypothesis are read."""
    from audits.stats import lower_bounds

    audited = spec.attacks[0]
    if counted is not None and counted.holds(audited.name):
        try:
            sides: tuple[Any, Any] = counted.sides(audited.name)
        except ValueError:  # a side or part holds no score yet
            return None
    else:
        seen_in, seen_out = observations[audited.name]
        if not seen_in or not seen_out:
            return None
        scores = audited.conclude(list(seen_in), list(seen_out))  # copies of the lists: the audit's stay as they are
        if min(scores.scores_in.size, scores.scores_out.size) < 2:
            return None
        sides = (scores.scores_in, scores.scores_out)
    bounds = lower_bounds(methods, *sides, delta=spec.claim.delta, confidence=confidence, threshold=spec.threshold)
    return max(bound.epsilon for bound in bounds.values())


class AuditProgress:
    """The progress bar of one audit (module docstring).

    Args:
      total: trials the audit runs (both hypotheses, calibration included). description: the bar's label.
      enabled: show it (None: when standard error is a terminal).
      claimed: the claimed upper bound on ε the tightness is relative to (None: no claim's number).
      clock: seconds, monotonic (a test passes its own).
    """

    def __init__(
        self,
        total: int,
        description: str,
        *,
        enabled: bool | None,
        claimed: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from tqdm import tqdm

        self.bar: Any = tqdm(
            total=total,
            desc=description,
            unit="trial",
            disable=None if enabled is None else not enabled,
            file=sys.stderr,
            leave=False,
        )
        self.claimed, self.clock = claimed, clock
        self.previewed_at = clock()
        self.preview_cost = 0.0
        self.latest: float | None = None

    @property
    def shown(self) -> bool:
        """Whether the bar is drawn (previews are computed only then)."""
        return not self.bar.disable

    def update(self, trials: int) -> None:
        """``trials`` more trials are done."""
        self.bar.update(trials)

    def chunk_read(self, lower: Callable[[], float | None]) -> None:
        """A chunk of the audited trials was read; ``lower()`` gives the best deciding lower bound of the
        chunks read so far (None: too few trials), called only when a preview is due."""
        if not self.shown:
            return
        now = self.clock()
        if now - self.previewed_at < max(PREVIEW_SECONDS, PREVIEW_SHARE * self.preview_cost):
            return
        value = lower()
        self.previewed_at = self.clock()
        self.preview_cost = self.previewed_at - now
        if value is not None:
            self.latest = value
            self.bar.set_postfix_str(tightness_text(value, self.claimed), refresh=True)

    def close(self) -> None:
        """Remove the bar."""
        self.bar.close()
