"""The maths of Local Projection Kernels (Gönen & Alpaydın 2010; paper 002) as small functions: the
gating of eq. 5, the projected kernels of §2, the local projection kernel of eq. 8, the dual
objective ``J`` and its gradients of §2 and §4, the SVM solve of Algorithm 2 (line 4) and Armijo's
rule (§5). :class:`locproj.methods.LocalProjectionKernelSVC` alternates them.

Every sum of products here is :func:`fixed_dot`, not BLAS, and every exponential
:func:`fixed_exp`, not ``np.exp``: the fit feeds libsvm kernel matrices and compares objectives in
Armijo's rule and the stopping rule, where a last-bit difference (BLAS kernels and numpy's vector
code are chosen by CPU) becomes another working set, other support vectors, another step.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

KERNELS = ("linear", "poly", "rbf")

# SVC's stopping tolerance (libsvm's bound on the KKT violation of the gradient Q alpha - 1, in
# units of the margin, so J comes out to about this relative accuracy).  Tighter than SVC's 1e-3:
# J and its gradient are read from the dual solution, and the stopping rule compares J to 1e-3.
_SVM_TOL = 1e-4
# Armijo's rule (Bertsekas, Nonlinear Programming, 1999, §1.2.1): accept the first step
# Delta = s beta^k, k = 0, 1, ..., with J(theta - Delta g) <= J(theta) - sigma Delta ||g||^2.
_ARMIJO_SIGMA = 1e-4
_ARMIJO_BETA = 0.5
_MAX_TRIALS = 20
# libsvm iterations allowed to a trial solve, per training sample.  A trial step can make K_eta
# badly conditioned (the scale of W is free; poly kernels raise it to the power q) and libsvm then
# needs up to 1e8 iterations; such a trial is rejected instead (Armijo halves the step).  Normal
# solves need far fewer (Waveform, n = 500, C = 100: median 4e4, at most 8e5).
SVM_ITER_PER_SAMPLE = 10_000
# Gating logits are clipped to +-this before the softmax: subtracting the row maximum then stays
# finite, and a logit that overflowed to +-inf (X far beyond the training data) still gates.
_LOGIT_LIMIT = np.finfo(np.float64).max / 4
# ln 2 in two parts (fdlibm's): the high part has 32 significant bits, so k * _LN2_HI is exact for
# the |k| <= 1100 of exp's range; 1/j! for the Taylor series of exp on |r| <= ln(2)/2, whose
# remainder after r^13/13! is below 1e-17.
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_TAYLOR = tuple(1.0 / math.factorial(j) for j in range(14))


def fixed_dot(A, B):
    """``A @ B`` for 1-D or 2-D operands, summed by numpy's ``einsum`` instead of BLAS.

    BLAS libraries pick their kernels by CPU (OpenBLAS: SkylakeX, Haswell, ...), and each kernel
    sums in an order of its own, so a BLAS product's last bits depend on the machine.  Here each
    entry is the dot product of a row of ``A`` and a column of ``B``, both made contiguous, summed
    by ``einsum``'s own loop (without ``optimize``, never BLAS), which numpy compiles for the
    baseline instruction set and does not dispatch by CPU: the same numpy gives the same bits on
    every x86-64 machine, whatever the arrays' alignment, and ``fixed_dot(F, F.T)`` is exactly
    symmetric (entries ``ij`` and ``ji`` sum the same products in the same order).

    Parameters
    ----------
    A : array_like of shape (n, k) or (k,)
    B : array_like of shape (k, m) or (k,)

    Returns
    -------
    ndarray of shape (n, m), (n,) or (m,), or a float for two vectors.
    """
    A, B = np.asarray(A, dtype=np.float64), np.asarray(B, dtype=np.float64)
    rows = np.ascontiguousarray(np.atleast_2d(A))
    columns = np.ascontiguousarray(B.T if B.ndim == 2 else B[None, :])
    product = np.einsum("ik,jk->ij", rows, columns)
    if A.ndim == 1:
        product = product[0]
    if B.ndim == 1:
        product = product[..., 0]
    return float(product) if product.ndim == 0 else product


def fixed_exp(x):
    """``exp(x)`` for ``x <= 0`` from additions, multiplications and ``ldexp`` only.

    ``np.exp`` dispatches by CPU (numpy has its own AVX-512 code), and its last bits differ
    between machines with and without AVX-512; these elementwise IEEE-754 operations give the same
    bits everywhere, within one unit in the last place of ``math.exp`` on ``[-745, 0]``, as
    ``np.exp`` is.  ``x = k ln 2 + r`` with ``|r| <= ln(2) / 2``, ``exp(r)`` by its Taylor series
    in Horner's form, times ``2^k``.
    """
    x = np.maximum(x, -746.0)  # exp(-746) rounds to 0; NaN stays NaN
    k = np.rint(x / _LN2_HI)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    series = np.full_like(r, _TAYLOR[-1])
    for coefficient in _TAYLOR[-2::-1]:
        series = series * r + coefficient
    return np.ldexp(series, np.where(np.isnan(k), 0.0, k).astype(np.int64))


def integer_power(base, exponent):
    """``base ** exponent`` for an integer ``exponent >= 0`` by repeated multiplication (the same
    bits on every machine, unlike ``np.power``, which dispatches by CPU)."""
    result = np.ones_like(base)
    for _ in range(exponent):
        result = result * base
    return result


def _softmax(logits):
    """Rows of ``logits`` to positive rows summing to one (see :func:`gating`)."""
    np.clip(logits, -_LOGIT_LIMIT, _LOGIT_LIMIT, out=logits)
    logits -= logits.max(axis=1, keepdims=True)
    eta = fixed_exp(logits)
    eta /= eta.sum(axis=1, keepdims=True)
    return eta


def gating(X, V):
    """Softmax gating ``eta_m(x | V)`` with the linear gating model ``Phi_G(x) = x`` (002 eq. 5).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    V : ndarray of shape (n_regions, n_features + 1)
        Row ``m`` is ``(v_m0, v_m)``: the bias first, then the weights.

    Returns
    -------
    eta : ndarray of shape (n_samples, n_regions)
        Positive rows that sum to one (all ones when ``n_regions = 1``).  Logits beyond
        ``+-max(float64) / 4`` (or that overflowed) are clipped there, so a row stays a softmax.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # overflow: +-inf, clipped by _softmax
        logits = fixed_dot(X, V[:, 1:].T) + V[:, 0]
    return _softmax(logits)


def projections(X, W):
    """The projections ``Z_m = X W_m`` of every region: shape ``(n_samples, n_regions, n_components)``."""
    p, d, r = W.shape
    return fixed_dot(X, W.transpose(1, 0, 2).reshape(d, p * r)).reshape(len(X), p, r)


class ProjectionCache:
    """:func:`gating` and :func:`projections` of fixed data ``X``, each kept for the last ``V`` and
    ``W`` it was computed for (by identity: the fit never changes its arrays in place).

    An Armijo search moves one block at a time, so its trials recompute only that block's
    products, and the gradients that follow read the support vectors' rows.  Each entry of
    :func:`fixed_dot` depends on its row and column alone, so these are the bits a direct
    computation gives.
    """

    def __init__(self, X):
        self.X = X
        self._V = self._W = self._eta = self._Z = None

    def __call__(self, W, V):
        """``(eta, Z)`` of ``X`` for ``(W, V)``."""
        if V is not self._V:
            self._V, self._eta = V, gating(self.X, V)
        if W is not self._W:
            self._W, self._Z = W, projections(self.X, W)
        return self._eta, self._Z


def projected_kernel(Za, Zb, kernel="linear", degree=2, s=1.0):
    """``K(z_i, z_j)`` between projected points ``z = W^T x`` (002 §2).

    ``'linear'``: ``<z_i, z_j>``; ``'poly'``: ``(<z_i, z_j> + 1)^q`` with ``q = degree``;
    ``'rbf'``: ``exp(-||z_i - z_j||^2 / s^2)``, the squared distance summed from the differences
    themselves (never negative, zero from a point to itself, symmetric) rather than expanded as
    ``||z_i||^2 + ||z_j||^2 - 2 <z_i, z_j>``, whose cancellation leaves rounding noise.
    """
    if kernel == "linear":
        return fixed_dot(Za, Zb.T)
    if kernel == "poly":
        return integer_power(fixed_dot(Za, Zb.T) + 1.0, degree)
    if kernel == "rbf":
        sq = np.zeros((len(Za), len(Zb)))
        for za, zb in zip(Za.T, Zb.T):  # one projected dimension after the other
            sq += (za[:, None] - zb[None, :]) ** 2
        return fixed_exp(-sq / s**2)
    raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}.")


def gated_projections(X, W, V):
    """The features ``(eta_1(x) W_1^T x, ..., eta_p(x) W_p^T x)`` of 002 §4 (after eq. 8).

    Returns an ndarray of shape ``(n_samples, n_regions * n_components)``, region by region.
    With the linear kernel ``K_eta`` is their dot product.
    """
    return _gated(gating(X, V), projections(X, W))


def _gated(eta, Z):
    return (eta[:, :, None] * Z).reshape(len(Z), -1)


def kernel_of_projections(eta_a, Z_a, eta_b=None, Z_b=None, kernel="linear", degree=2, s=1.0):
    """``K_eta`` (:func:`local_projection_kernel`) from the gating and the projections of both sides
    (``eta_b, Z_b`` None: the training Gram matrix, exactly symmetric)."""
    if eta_b is None:
        eta_b, Z_b = eta_a, Z_a
    if kernel == "linear":  # the dot product of the gated projections
        Fa = _gated(eta_a, Z_a)
        Fb = Fa if Z_b is Z_a and eta_b is eta_a else _gated(eta_b, Z_b)
        return fixed_dot(Fa, Fb.T)
    K = np.zeros((len(Z_a), len(Z_b)))
    for m in range(Z_a.shape[1]):  # a loop over the p regions, not over pairs
        Km = projected_kernel(Z_a[:, m], Z_b[:, m], kernel, degree, s)
        K += Km * (eta_a[:, m, None] * eta_b[None, :, m])  # eta_i eta_j first: K stays symmetric
    return K


def local_projection_kernel(Xa, W, V, kernel="linear", degree=2, s=1.0, Xb=None):
    """The local projection kernel ``K_eta`` (002, eq. 8 and the definition after it).

    ``K_eta(x_i, x_j) = sum_m eta_m(x_i) K(W_m^T x_i, W_m^T x_j) eta_m(x_j)``.

    Parameters
    ----------
    Xa : ndarray of shape (n_a, n_features)
    W : ndarray of shape (n_regions, n_features, n_components)
        The local projections ``W_1 .. W_p``.
    V : ndarray of shape (n_regions, n_features + 1)
        Gating parameters, see :func:`gating`.
    kernel, degree, s : see :func:`projected_kernel`.
    Xb : ndarray of shape (n_b, n_features) or None
        None: ``Xb = Xa`` (the training Gram matrix).

    Returns
    -------
    K : ndarray of shape (n_a, n_b)
    """
    a = gating(Xa, V), projections(Xa, W)
    b = (None, None) if Xb is None else (gating(Xb, V), projections(Xb, W))
    return kernel_of_projections(*a, *b, kernel=kernel, degree=degree, s=s)


def dual_objective(alpha_y, K):
    """``J = sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j K_ij``, the objective of eq. 8.

    ``alpha_y`` holds ``alpha_i y_i`` (SVC's ``dual_coef_``), so ``alpha_i = |alpha_y_i|``.
    """
    return float(np.abs(alpha_y).sum() - 0.5 * fixed_dot(alpha_y, fixed_dot(K, alpha_y)))


def dual_objective_gradients(X, alpha_y, W, V, kernel="linear", degree=2, s=1.0, projected=None):
    """``J`` of eq. 8 and its gradients in ``W_1..W_p`` and ``V`` for fixed dual variables (002 §2, §4).

    With ``b_m = alpha y * eta_m`` (so ``Upsilon_ij eta_m(x_i) eta_m(x_j) = b_mi b_mj``) the §4
    gradient ``dJ/dW_mkl = -1/2 sum_ij b_mi b_mj dK(z_im, z_jm)/dW_mkl`` with the §2 kernel
    derivatives is, in matrix form (``Z_m = X W_m``, ``G = Z_m Z_m^T``; the sums over ``i, j``
    are symmetric, so the two terms of each §2 derivative contribute equally):

    * linear: ``-(X^T b_m)(b_m^T Z_m)``;
    * poly:   ``-X^T M Z_m`` with ``M = b_m b_m^T * q (G + 1)^(q-1)`` (elementwise);
    * rbf:    ``2/s^2 X^T (diag(M 1) - M) Z_m`` with ``M = b_m b_m^T * K_m``.

    The §4 gating gradients are the chain rule through the softmax, which is what the double
    sum with ``delta_m^k - eta_m`` of §4 expands: ``dJ/d eta_im = -alpha_y_i (K_m b_m)_i``,
    ``dJ/d logit_im = eta_im (c_im - sum_k c_ik eta_ik)`` with ``c = dJ/d eta``, then
    ``dJ/dv_m = sum_i x_i dJ/dlogit_im`` and ``dJ/dv_m0 = sum_i dJ/dlogit_im``.

    Only support vectors (``alpha_i > 0``) enter (§5): every other term is zero.  All sums over
    pairs are matrix products (:func:`fixed_dot`) on the support vectors.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    alpha_y : ndarray of shape (n_samples,)
        ``alpha_i y_i``, zero for non-support vectors.
    W, V, kernel, degree, s : see :func:`local_projection_kernel`.
    projected : tuple (eta, Z) or None
        :func:`gating` and :func:`projections` of all of ``X`` for ``(W, V)``, when known
        (:class:`ProjectionCache`); None: computed on the support vectors.

    Returns
    -------
    J : float
    grad_W : ndarray of the shape of ``W``
    grad_V : ndarray of the shape of ``V`` (bias gradient in column 0)
    """
    sv = np.flatnonzero(alpha_y)
    X, a = X[sv], alpha_y[sv]
    eta, Z_all = (gating(X, V), projections(X, W)) if projected is None else (projected[0][sv], projected[1][sv])
    grad_W = np.empty(W.shape)
    dJ_deta = np.empty_like(eta)
    quadratic = 0.0
    for m in range(W.shape[0]):  # a loop over the p regions, not over pairs
        Z = Z_all[:, m]
        b = a * eta[:, m]
        Km = projected_kernel(Z, Z, kernel, degree, s)
        if kernel == "linear":
            grad_W[m] = -np.outer(fixed_dot(b, X), fixed_dot(b, Z))
        elif kernel == "poly":
            M = np.outer(b, b) * (degree * integer_power(fixed_dot(Z, Z.T) + 1.0, degree - 1))
            grad_W[m] = -fixed_dot(X.T, fixed_dot(M, Z))
        else:  # rbf
            M = np.outer(b, b) * Km
            grad_W[m] = (2.0 / s**2) * fixed_dot(X.T, M.sum(axis=1)[:, None] * Z - fixed_dot(M, Z))
        Kb = fixed_dot(Km, b)
        quadratic += fixed_dot(b, Kb)
        dJ_deta[:, m] = -a * Kb
    dJ_dlogit = eta * (dJ_deta - np.sum(dJ_deta * eta, axis=1, keepdims=True))
    grad_V = np.empty(V.shape)
    grad_V[:, 0] = dJ_dlogit.sum(axis=0)
    grad_V[:, 1:] = fixed_dot(dJ_dlogit.T, X)
    J = float(np.abs(a).sum() - 0.5 * quadratic)
    return J, grad_W, grad_V


@dataclass(frozen=True)
class SVMSolution:
    """The canonical SVM on ``K_eta`` (Algorithm 2, lines 3-4) and what is read from it."""

    alpha_y: np.ndarray  # (n_samples,) alpha_i y_i, zero off the support
    intercept: float
    objective: float  # J of eq. 8 (inf: the kernel was not finite, the trial step is rejected)
    train_accuracy: float


def solve_svm(K, y_pm, C, max_svm_iter=-1):
    """``SVC(kernel='precomputed')`` on ``K`` (Algorithm 2, line 4), ``J`` and training accuracy.

    ``K`` is overwritten (scaled in place).  ``max_svm_iter`` caps libsvm's iterations (-1: none);
    a solve whose kernel is not finite or that hits the cap returns ``objective = inf``, so that
    Armijo's rule rejects the trial step.
    """
    rejected = SVMSolution(np.zeros(len(y_pm)), 0.0, np.inf, np.nan)
    if not np.all(np.isfinite(K)):
        return rejected
    # Solved on K / k with C k, k = mean(diag K): the dual of (K/k, kC) is k times that of (K, C)
    # with beta = k alpha and the same b, and libsvm's stopping rule (on the gradient Q alpha - 1)
    # is unchanged; libsvm then sees kernel entries of order one whatever the scale of W (its
    # curvature floor TAU = 1e-12 is absolute).
    scale = float(np.mean(np.diag(K)))
    scale = scale if scale > 0 else 1.0
    K /= scale
    svc = SVC(C=C * scale, kernel="precomputed", tol=_SVM_TOL, max_iter=max_svm_iter)
    with warnings.catch_warnings():  # hitting max_svm_iter is reported by fit_status_
        warnings.simplefilter("ignore", ConvergenceWarning)
        svc.fit(K, y_pm)
    if svc.fit_status_ != 0:
        return rejected
    beta_y = np.zeros(len(y_pm))
    beta_y[svc.support_] = svc.dual_coef_[0]  # beta_i y_i, y = +1 for svc.classes_[1]
    sv = np.sort(svc.support_)  # the terms that are not zero, in the order of the samples
    K_beta = fixed_dot(K[:, sv], beta_y[sv])
    objective = (np.abs(beta_y).sum() - 0.5 * fixed_dot(beta_y, K_beta)) / scale  # J of (K, C), eq. 8
    intercept = float(svc.intercept_[0])
    accuracy = float(np.mean(np.where(K_beta + intercept > 0, 1.0, -1.0) == y_pm))
    return SVMSolution(beta_y / scale, intercept, float(objective), accuracy)


def ratio(numerator, denominator):
    return numerator / denominator if denominator > 0 else np.inf


def norm(A):
    """The Frobenius norm of ``A`` from :func:`fixed_dot` (``np.linalg.norm`` calls BLAS)."""
    flat = np.ravel(A)
    return float(np.sqrt(fixed_dot(flat, flat)))


def armijo(theta, grad, current, solve, first_step):
    """Armijo's rule on ``J`` along ``-grad`` (002 §5): one SVM solve per trial step.

    Tries ``Delta = first_step * beta^k``, k = 0, 1, ..., and accepts the first with
    ``J(theta - Delta grad) <= J(theta) - sigma Delta ||grad||^2``; after ``_MAX_TRIALS``
    failures no step is taken.  Returns ``(theta, solution, Delta, n_trials)``, ``Delta = 0``
    when no step was taken.
    """
    decrease = _ARMIJO_SIGMA * float(np.sum(grad * grad))
    if not decrease > 0.0 or not np.isfinite(first_step):  # stationary: nothing to search
        return theta, current, 0.0, 0
    step = first_step
    for trial in range(1, _MAX_TRIALS + 1):
        candidate = theta - step * grad
        solution = solve(candidate)
        if solution.objective <= current.objective - step * decrease:
            return candidate, solution, step, trial
        step *= _ARMIJO_BETA
    return theta, current, 0.0, _MAX_TRIALS
