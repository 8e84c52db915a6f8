"""Wall-clock timing helper shared by the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_of(function: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
    """(smallest wall time in seconds over ``repeats`` calls, the last result)."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def row(benchmark: str, ours_s: float, peer: str, peer_s: float, note: str = "") -> dict:
    return {
        "benchmark": benchmark,
        "ours_s": ours_s,
        "peer": peer,
        "peer_s": peer_s,
        "ratio": peer_s / ours_s if ours_s > 0 else float("inf"),
        "note": note,
    }
