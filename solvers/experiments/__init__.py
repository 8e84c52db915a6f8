"""Scripts that reproduce the seed papers' experiments (``python -m solvers.experiments.<name>``)."""
