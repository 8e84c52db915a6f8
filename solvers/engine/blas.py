"""How many BLAS threads the batched kernels use.

A chunk of trials is many small products ((N, m, d) by (N, d, R) for a few dozen trials), where a
BLAS thread pool only adds synchronisation, and on a loaded machine it oversubscribes the cores:
DP-ADMM's iterations on 2×10^4 trials took 17 s with OpenBLAS's default threads against 4.5 s with
one, on two busy cores. Runs therefore use :data:`BLAS_THREADS` threads (the engine's default
``Solver.run_context``), and parallelism comes from processes, one chunk of trials each
(``audits.chunks``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["BLAS_THREADS", "blas_threads"]

#: BLAS threads of a run (None: the library's default).
BLAS_THREADS: int | None = 1


@contextlib.contextmanager
def blas_threads(limit: int | None) -> Iterator[None]:
    """Limit the BLAS thread pools to ``limit`` threads inside the block (threadpoolctl, a
    scikit-learn dependency), then restore them; None leaves them as they are."""
    if limit is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=limit, user_api="blas"):
        yield
