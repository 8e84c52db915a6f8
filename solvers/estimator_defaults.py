"""The number of simulated data holders of an estimator's fit, chosen from public quantities.

A scikit-learn estimator receives every training row in one ``fit`` call, so unless the user says how
many holders the deployment being simulated has, the rows have one holder, and splitting them over N
simulated agents only costs accuracy: in every family of the toolkit a record's influence on its
agent's release scales as 1/m_i with m_i = n/N rows per agent, so the privacy noise grows with N at a
fixed n. For DP-ADMM, the noise term of Huang et al. 2020, Theorem 4,

    Σ_i 4 D_w S1 sqrt(ln(1.25/δ)) / (m_i ε sqrt(t)) = 4 N² D_w S1 sqrt(ln(1.25/δ)) / (n ε sqrt(t)),

grows like N²/n; for the decentralized ADMMs the noise rate α_i of Zhang, Khalili & Liu 2020,
eq. (32) (and 2018, eq. (26)) is proportional to B_i = n/N, the noise 1/α_i to N/n; for PDML the
sensitivity of a server's broadcast (``solvers.pdml.privacy.broadcast_sensitivity``) falls as 1/B_i.
``n_agents="auto"`` therefore takes the fewest agents the family's protocol allows (one for the star
and for PDML, two for the decentralized graph, whose nodes need a neighbour): the N whose noise term
is smallest for every n. It depends on no row; an explicit count simulates that many holders.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["AUTO_AGENTS", "agent_count"]

#: The value of ``n_agents`` that asks for the fewest agents the protocol allows.
AUTO_AGENTS = "auto"


def agent_count(value: object, n_rows: int, fewest: int = 1) -> int:
    """N of a fit on ``n_rows`` rows: ``fewest`` for ``"auto"`` (module docstring), else ``value``.

    Raises:
      ValueError: ``value`` is neither "auto" nor an integer ≥ ``fewest``, or it exceeds the number of
        rows (each agent needs one); the message names ``n_agents``.
    """
    if isinstance(value, str) and value == AUTO_AGENTS:
        count = fewest
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < fewest:
        raise ValueError(f"n_agents must be 'auto' or an integer >= {fewest}, got {value!r}")
    else:
        count = int(value)
    if count > n_rows:
        raise ValueError(f"n_agents={count} exceeds the number of rows ({n_rows})")
    return count
