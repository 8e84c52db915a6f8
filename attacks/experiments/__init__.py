"""Experiments on the attacks: ``python -m attacks.experiments.kkt_table --help``."""
