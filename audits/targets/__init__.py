"""The built-in audit targets: each module turns (epsilon, delta, quick) into an :class:`audits.spec.AuditSpec`
that :func:`audits.runner.run_spec` runs (:mod:`audits.registry` names them), as a short assembly of the
solver (calibrated by its family's ``privacy`` module), the claim, the neighbours (:mod:`audits.neighbours`),
the attacks (:mod:`attacks`) and the report sections (:mod:`audits.sections`).

* :mod:`audits.targets.star` — DP-ADMM and its Algorithm 2 baseline (Huang et al. 2020), and the
  deliberately broken variants of :mod:`audits.broken`: white-box Neyman–Pearson replay.
* :mod:`audits.targets.pdml` — PDML (Wang et al. 2020): the label guarantee at the collecting server, and
  the servers' broadcasts as a companion audit run by the same runner.
* :mod:`audits.targets.decentralized` — R-ADMM, MR-ADMM (Zhang, Khalili & Liu 2020), PP and DVP
  (Zhang, Khalili & Liu 2018):
  Gamma-norm objective/penalty perturbation, audited with the transcript's exact log-likelihood
  ratio (its realised privacy loss) against the papers' pure β.
* :mod:`audits.targets.sharing` — ADMM sharing (Hu et al. 2019): the paper's parameter-noise mode
  (column-space test, flagged against Theorem 1 + Corollary 1) and the certified output mode
  (Neyman–Pearson replay against every accountant).
"""
