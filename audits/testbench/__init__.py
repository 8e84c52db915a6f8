"""The benchmarks black-box DP testers are judged by, as plain numpy mechanisms for :func:`audits.audit`.

* :mod:`audits.testbench.svt` — the sparse vector variants of Lyu, Su & Li (2017) and the numerical
  sparse vector of Wang et al. (2019);
* :mod:`audits.testbench.dpsniper` — the other mechanisms of Bichsel et al. (2021)'s DP-Sniper benchmark;
* :mod:`audits.testbench.statdp` — the algorithms of Ding et al. (2018)'s StatDP evaluation;
* :mod:`audits.testbench.catalogue` — both benchmarks as data (:data:`DPSNIPER`, :func:`statdp_suite`):
  the claims, input pairs, true ε and published results.

Every mechanism is batched (``mechanism(data, rng, n)`` returns n releases, one per row) and
vectorised over the releases::

    from audits import Claim, audit
    from audits.testbench import DPSNIPER

    svt4 = next(a for a in DPSNIPER if a.name == "SVT4")
    report = audit(svt4.mechanism, None, neighbours=svt4.pairs, claim=Claim(epsilon=svt4.claimed_epsilon, delta=0.0))
"""

from audits.testbench.catalogue import DPSNIPER, STATDP_EPSILONS, Algorithm, statdp_suite

__all__ = ["DPSNIPER", "STATDP_EPSILONS", "Algorithm", "statdp_suite"]
