"""Data files bundled with :mod:`solvers.datasets` (see README.md for sources and licences)."""
