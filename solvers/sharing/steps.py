"""The updates of ADMM sharing (Hu et al. 2019, eqs. (6)–(8)) that its step (``solvers.sharing.admm``)
and the white-box attacks compute with."""

from __future__ import annotations

import numpy as np

from solvers.losses import LogisticLoss

__all__ = ["BALL_SLACK", "ball_constrained_l2_coefficients", "loss_derivatives", "z_update"]

_SECULAR_MAX_ITER = 100
_EPS = float(np.finfo(float).eps)
_Z_MAX_ITER = 200
#: Relative slack by which a constrained iterate stays inside the ball ‖x_m‖ ≤ b1.
BALL_SLACK = 1e-12


def ball_constrained_l2_coefficients(
    c: np.ndarray, s: np.ndarray, lam: float, rho: float, b1: float | None
) -> np.ndarray:
    """(6) for R = ½‖·‖² in the SVD basis: x = V a with a = −s c/(λ + μ + ρ s²), c = Uᵀ(y + ρb).

    μ = 0 when ‖a‖ ≤ b_1 (or b_1 is None); otherwise the root of 1/‖a(μ)‖ = 1/b_1, found by Newton
    from μ = 0 (monotone: 1/‖a(μ)‖ is concave, Moré & Sorensen 1983), and a is finally scaled by
    min(1, b_1(1 − 10^{-12})/‖a‖) so that ‖x‖ ≤ b_1 holds in floating point (the mechanism relies on it).

    Shapes: c (M, R, K), s (M, K); returns a (M, R, K).
    """
    sc = s[:, None, :] * c
    base = lam + rho * (s * s)[:, None, :]
    a = -sc / base
    if b1 is None:
        return a
    outside = np.einsum("mrk,mrk->mr", a, a) > b1 * b1
    if not outside.any():
        return a
    weights = sc * sc
    mu = np.zeros(outside.shape)
    active = outside.copy()
    for _ in range(_SECULAR_MAX_ITER):
        denominator = base + mu[..., None]
        q = np.einsum("mrk->mr", weights / denominator**2)
        dq = -2.0 * np.einsum("mrk->mr", weights / denominator**3)
        phi = 1.0 / np.sqrt(q) - 1.0 / b1
        step = phi / (-0.5 * q**-1.5 * dq)
        new_mu = np.maximum(mu - step, 0.0)
        # stop at a relative step of 1e-14, or once φ is at rounding level (steps then bounce by ulps)
        converged = (np.abs(new_mu - mu) <= 1e-14 * np.maximum(mu, lam)) | (np.abs(phi) <= 8 * _EPS / b1)
        mu = np.where(active, new_mu, mu)
        active &= ~converged
        if not active.any():
            break
    a = np.where(outside[..., None], -sc / (base + mu[..., None]), a)
    norms = np.sqrt(np.einsum("mrk,mrk->mr", a, a))
    radius = b1 * (1.0 - BALL_SLACK)  # so that ‖V a‖ ≤ b_1 survives rounding in V a
    scale = np.where(norms > radius, radius / np.maximum(norms, np.finfo(float).tiny), 1.0)
    return a * scale[..., None]


def z_update(
    s: np.ndarray,
    y: np.ndarray,
    labels: np.ndarray,
    rho: float,
    loss,
    *,
    tol: float = 1e-12,
) -> tuple[np.ndarray, int]:
    """(7) per sample: argmin_z (1/N) φ(Y_i z) − y_i z + (ρ/2)(z − s_i)², for arrays (..., N).

    Safeguarded Newton (``rtsafe``, Press et al., Numerical Recipes §9.4): the root lies in
    [s + (y − S_1/N)/ρ, s + (y + S_1/N)/ρ] (|φ'| ≤ S_1; widened by 1%, since a saturated loss puts
    the root on its edge and rounding may push it past), a bracket that shrinks as the sign of the
    derivative is seen; a Newton step that leaves it, or that is not at least halving the step of
    two iterations before, is replaced by bisection (plain Newton can cycle when ρ ≪ 1/(4N), where
    the curvature ρ + φ''/N varies by a large factor). An entry stops once its Newton step is
    ≤ ``tol``·max(1, |z|) (or its bracket is that narrow) and is then frozen.

    Returns:
      (z, Newton iterations of the slowest entry).

    Raises:
      RuntimeError: an entry did not converge in 200 iterations.
    """
    n = labels.shape[-1]
    half_width = 1.01 * loss.gradient_bound / (n * rho)  # 1% wider: a saturated loss puts the root at the bound
    z = s + y / rho
    low, high = z - half_width, z + half_width
    step = step_old = high - low
    active = np.ones(z.shape, dtype=bool)
    for iteration in range(1, _Z_MAX_ITER + 1):
        first, second = loss_derivatives(loss, labels * z)
        derivative = labels * first / n - y + rho * (z - s)
        curvature = second / n + rho
        low = np.where(derivative < 0, z, low)
        high = np.where(derivative > 0, z, high)
        newton = derivative / curvature
        scale = tol * np.maximum(1.0, np.abs(z))
        done = (np.abs(newton) <= scale) | (high - low <= scale)
        candidate = z - newton
        bisect = ~done & ((candidate < low) | (candidate > high) | (2.0 * np.abs(newton) > np.abs(step_old)))
        candidate = np.where(bisect, 0.5 * (low + high), candidate)
        step_old, step = step, candidate - z
        z = np.where(active, candidate, z)
        active &= ~done
        if not active.any():
            return z, iteration
    raise RuntimeError(f"z_update: {int(active.sum())} sample(s) not converged after {_Z_MAX_ITER} Newton steps")


def loss_derivatives(loss, margin: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(φ'(m), φ''(m)); for the logistic loss from one sigmoid: −p and p(1 − p) with p = σ(−m)."""
    if type(loss) is LogisticLoss:
        with np.errstate(over="ignore"):
            p = np.exp(margin)
        p += 1.0
        np.divide(1.0, p, out=p)
        return -p, p * (1.0 - p)
    return loss.dphi(margin), loss.d2phi(margin)
