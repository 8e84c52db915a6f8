"""How hard :func:`audits.audit` tries: the presets of its ``effort`` argument.

An effort fixes the audited trials per side and how the calibration trials (the distinguisher
search, :mod:`audits.distinguishers`) and the neighbour search's pilot trials
(:mod:`audits.neighbour_search`) scale with them; an argument the caller gives overrides its preset.

* ``"smoke"``: 2,000 trials per side, 500 calibration and 200 pilot trials — about a second for a
  vectorised mechanism; it catches gross violations only (a bug that multiplies ε by several).
* ``"quick"``: 10^4 trials per side, 2,000 calibration and 1,000 pilot trials.
* ``"default"``: 10^5 trials per side; calibration trials/10 in [2,000, 100,000] (a weak leak in a
  mixed release needs tens of thousands of fitting releases: 10^6 trials fit on 50,000 per side),
  pilots trials/10 in [1,000, 100,000].
* ``"thorough"``: 10^7 trials per side, for violations whose tail events have probabilities near
  10^−6 (a Clopper–Pearson bound needs tens of such events on each side); calibration trials/20 in
  [2,000, 500,000], pilots trials/50 in [2,000, 200,000] (a pair and its mirror share twice that).
  The releases are drawn in chunks, so the memory stays bounded; on two cores a vectorised
  mechanism takes minutes.

Every preset but "smoke" gives the neighbour search a second stage: its first stage's leaders (at most
:data:`audits.neighbour_search.CONTENDERS` = 3, those within the pilots' noise of the best) get a
fresh pilot of :data:`audits.neighbour_search.CONTENDER_SCALE` = 3 times the releases. With StatDP's
8 distinct pairs (a pair and its mirror share one pilot of twice the trials) and 3 contenders the
search draws at most 16 + 3 · 3 · 2 = 34 times the pilot trials per side instead of 16: at 10^6 audited
trials ("default", pilots of 10^5) 3.4×10^6 releases per side instead of 1.6×10^6, next to 1.1×10^6
audited and calibration trials; at 10^7 ("thorough", pilots of 2×10^5) 6.8×10^6 instead of
3.2×10^6, next to 1.05×10^7.
"""

from __future__ import annotations

from dataclasses import dataclass

from audits.neighbour_search import CONTENDER_SCALE, CONTENDERS

__all__ = ["EFFORTS", "Effort", "effort_preset"]


@dataclass(frozen=True)
class Effort:
    """One preset: ``trials`` per side, (divisor, least, most) of the calibration and pilot trials, and
    the neighbour search's second stage: ``contenders`` at most (0: none), each on ``contender_scale``
    times the pilot trials."""

    name: str
    trials: int
    calibration: tuple[int, int, int]
    pilot: tuple[int, int, int]
    contenders: int = CONTENDERS
    contender_scale: int = CONTENDER_SCALE

    def calibration_trials(self, trials: int) -> int:
        """Calibration trials per side for ``trials`` audited trials per side."""
        divisor, least, most = self.calibration
        return min(most, max(least, trials // divisor))

    def pilot_trials(self, trials: int) -> int:
        """Pilot trials per side and candidate pair for ``trials`` audited trials per side."""
        divisor, least, most = self.pilot
        return min(most, max(least, trials // divisor))


#: The presets by name.
EFFORTS = {
    "smoke": Effort("smoke", 2_000, calibration=(10, 500, 500), pilot=(10, 200, 200), contenders=0),
    "quick": Effort("quick", 10_000, calibration=(10, 2_000, 2_000), pilot=(10, 1_000, 1_000)),
    "default": Effort("default", 100_000, calibration=(10, 2_000, 100_000), pilot=(10, 1_000, 100_000)),
    "thorough": Effort("thorough", 10_000_000, calibration=(20, 2_000, 500_000), pilot=(50, 2_000, 200_000)),
}


def effort_preset(effort: object) -> Effort:
    """The preset named ``effort`` (ValueError naming the choices otherwise)."""
    if not isinstance(effort, str) or effort not in EFFORTS:
        raise ValueError(f"effort must be one of {', '.join(map(repr, EFFORTS))}, got {effort!r}")
    return EFFORTS[effort]
