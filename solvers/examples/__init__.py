"""Solver families written as a user outside the toolkit would write them, on public names only.

``solvers.examples.noisy_gradient_admm``: gradient-perturbed linearised ADMM on a star, one
iteration written once as the pieces of ``solvers.engine.StepSolver``.
"""
