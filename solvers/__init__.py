"""Solvers: data sets, partitioners, losses and regularizers (the ADMM solvers are being added)."""
