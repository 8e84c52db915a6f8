"""Audit targets with their own pipeline (``AuditTarget(run=...)`` in :mod:`audits.registry`).

* :mod:`audits.targets.decentralized` — R-ADMM, MR-ADMM (seed 001), PP and DVP (seed 003):
  Gamma-norm objective/penalty perturbation, audited with the transcript's exact log-likelihood
  ratio (its realised privacy loss) against the papers' pure β.
* :mod:`audits.targets.sharing` — ADMM sharing (seed 004): the paper's parameter-noise mode
  (column-space test, flagged against Theorem 1 + Corollary 1) and the certified output mode
  (Neyman–Pearson replay against every accountant).
"""
