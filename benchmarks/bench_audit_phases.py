"""The driver's peak memory in each phase of a real audit command, to say which phase holds what (Linux).

It runs ``dp-audit`` in this process (``audits.run.main``, the same arguments) and, at each stage the audit
logs (``audits`` INFO records: trials started, calibrated, trials read, attacks concluded, lower bounds,
report sections, report assembled) and once the report and figures are written, prints the peak resident
memory since the previous stage (``VmHWM`` of ``/proc/self/status``, reset after each stage by writing 5 to
``/proc/self/clear_refs``) and the resident memory then; last, the overall peak (the largest of the
phases')::

  python benchmarks/bench_audit_phases.py dpadmm --trials 1000000 --out /tmp/audit --quiet

Resetting ``VmHWM`` resets the peak that ``/usr/bin/time -v`` reports too: read the overall peak printed
here. The exit status is the command's.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")


class PhasePeaks(logging.Handler):
    """Prints each phase's peak and the resident memory at its end (module docstring)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.start = time.perf_counter()
        self.peaks: list[float] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.phase(f"until: {record.getMessage()[:100]}")

    def phase(self, label: str) -> None:
        """Print the peak since the previous phase and the memory now, then reset the peak."""
        fields = dict(line.split(":", 1) for line in STATUS.read_text().splitlines())
        peak, now = (int(fields[key].split()[0]) / 1024 for key in ("VmHWM", "VmRSS"))
        self.peaks.append(peak)
        seconds = time.perf_counter() - self.start
        print(f"[{seconds:8.1f} s] peak {peak:7.1f} MiB, then {now:7.1f} MiB  {label}", file=sys.stderr, flush=True)
        CLEAR_REFS.write_text("5")


def main(argv: list[str]) -> int:
    from audits.run import main as command

    peaks = PhasePeaks()
    logger = logging.getLogger("audits")
    logger.addHandler(peaks)
    logger.setLevel(logging.INFO)
    status = command(argv)
    peaks.phase("until: the report and figures written")
    print(f"driver peak {max(peaks.peaks):.0f} MiB (the largest phase)", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
