"""The one generalized-eigenproblem solver behind every graph-embedding method.

Given data ``X`` (n_samples, n_features), an ``n x n`` "graph" matrix ``L`` and an optional
``n x n`` constraint matrix ``B``, :func:`solve_embedding` returns ``P`` (n_features, k) solving::

    minimise   tr(P^T X~^T L X~ P)
    subject to P^T X~^T B X~ P = I     (constraint='B', B=None means the identity)
          or   P^T P = I               (constraint='orthonormal')

(or maximise, ``maximize=True``), where ``X~`` is the centred data.  This is the graph-embedding
form of LPP (000 eq. 39, 003 eq. 6), LEA/NPE (001 eq. 8-11), LLP (000 eq. 37-38), LDA and LFDA.

Conventions (see ``docs/methods.md``):

* **PCA pre-step** (000 §4.1, "with all the zero principal components removed"): the problem is
  solved in an orthonormal basis of the row space of ``X~``.  Components are kept when their
  squared singular value exceeds ``pca_tol * max`` (default ``pca_tol = 10 * max(n, d) * eps``,
  the resolution of the Gram-matrix eigen-decomposition used to compute them).  The Gram matrix
  is the smaller of ``X~^T X~`` and ``X~ X~^T``, so ``d >> n`` costs O(n^2 d).  When ``d <= n``
  and ``X~^T X~`` is safely non-singular (Cholesky succeeds and LAPACK's reciprocal condition
  estimate is above ``1e-8`` times the spread ``max(b) / min(b)`` of a diagonal ``B``; for
  any other ``B`` the test is on ``X~^T B X~``) every component would be kept, the basis change
  cannot alter ``P``, and it is skipped.  The basis and the condition estimate are remembered
  for the last data matrix, which cross-validation fits under every grid point.  For a kernel
  matrix (``symmetric=True``) the basis is its own eigenvectors with eigenvalues above
  ``sqrt(pca_tol) * max`` -- or, for a centred kernel safely of rank ``n - 1``, a Householder
  basis of ``1^perp`` (no eigensolve).  Whitened coordinates of centred data that span all of
  ``1^perp`` (rank ``n - 1``, as with fewer samples than pixels) are that Householder basis too:
  ``Q^T L Q`` is then a rank-two update of ``L`` instead of a product with an ``n x r`` matrix.
* **Singular constraint**: if the reduced constraint matrix ``N`` is numerically singular
  (Cholesky fails or its estimated reciprocal condition is below ``singular_rcond``; not tested
  when known to be regular: whitened coordinates and a diagonal ``B`` give
  ``cond(N) <= max(b) / min(b)``), the ridge
  ``N + ridge * mean(diag N) * I`` is used (Sugiyama's KLFDA uses the same device).  Directions
  in the null space of ``N`` then get eigenvalues ~ 1/ridge: last when minimising, first when
  maximising (for LFDA/LDA these are the directions of zero local within-class scatter).
* **Order**: ascending eigenvalues (descending with ``maximize=True``); exactly equal eigenvalues keep
  the eigensolver's order (a stable sort: numpy's default sort orders equal keys differently on
  different CPUs), which is their only order with ``resolve_degenerate=False``.
* **Degenerate eigenvalues** (``resolve_degenerate=True``): inside every cluster of eigenvalues
  equal to ``degenerate_rtol`` relative to the problem's eigenvalue scale (``1e3 * ridge`` when
  the ridge was used), the basis is rotated to diagonalise the projected total scatter
  ``(X~ P_c)^T (X~ P_c)`` and ordered by decreasing variance; ties in variance (relative
  ``1e-6``, e.g. when the constraint is the total scatter) are broken by diagonalising the
  Euclidean Gram ``P_c^T P_c``, shortest column first.
* **Signs**: in every column of ``P`` the entry of largest absolute value is positive (ties, within
  ``1e-9`` relative: the first such entry).
* **Column length**: columns are constraint-scaled (``P^T X~^T B X~ P = I`` or ``P^T P = I``);
  estimators may rescale them (``column_scaling='unit'``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy import sparse

from ._dense import a_b, at_a, at_b, cholesky_rcond, rcond_spd
from ._eigh import eigh_selected
from ._memo import LastInput, remembered

__all__ = ["Embedding", "GramFactor", "check_n_components", "solve_embedding", "pca_basis", "fix_signs"]

_FAST_PATH_RCOND = 1e-8
_TIE_RTOL = 1e-6  # variances this close (relatively) count as tied in the degenerate resolution
_SIGN_TIE_RTOL = 1e-9  # fix_signs: entries this close (relatively) to a column's largest count as tied
_RIDGE_CLUSTER_FACTOR = 1e3  # with the ridge, eigenvalues are only resolved to ~ridge relative


@dataclass(frozen=True)
class Embedding:
    """Result of :func:`solve_embedding`.

    Each parameter is also an attribute of the same name.

    Parameters
    ----------
    components : ndarray of shape (n_features, k)
        Columns ``P``, constraint-scaled, sign-fixed.
    eigenvalues : ndarray of shape (k,)
        ``tr`` contributions ``p^T X~^T L X~ p`` per column (generalized eigenvalues).
    mean : ndarray of shape (n_features,)
        The mean subtracted from ``X`` (zeros when ``center=False``).
    rank : int
        Dimension of the PCA space (number of kept components).
    n_available : int
        Number of eigenpairs of the reduced problem (``rank``).
    regularized : bool
        Whether the singular-constraint ridge was applied.
    """

    components: np.ndarray
    eigenvalues: np.ndarray
    mean: np.ndarray
    rank: int
    n_available: int
    regularized: bool


@dataclass(frozen=True)
class GramFactor:
    """A graph or constraint matrix given as ``E^T E`` (e.g. ``(I - W)^T (I - W)``, 001 eq. 8, 000 eq. 36).

    The solver then forms ``(E Y)^T (E Y)`` by a rank-k update.

    Parameters
    ----------
    E : sparse matrix or ndarray of shape (m, n)
        The factor (or an object with ``shape``, ``@``, ``.T`` and ``gram()`` or ``toarray()``,
        such as :class:`locproj.core.neighbor_graphs.BlockDiagonal`).
    """

    E: object  # (m, n) sparse matrix or array

    @property
    def shape(self) -> tuple[int, int]:
        """The shape ``(n, n)`` of ``E^T E``."""
        return (self.E.shape[1], self.E.shape[1])

    def __matmul__(self, Y):
        return self.E.T @ (self.E @ Y)

    def toarray(self) -> np.ndarray:
        """Form ``E^T E`` as a dense array.

        Returns
        -------
        ndarray of shape (n, n)
            ``E^T E``.
        """
        if hasattr(self.E, "gram"):  # e.g. locproj.core.neighbor_graphs.BlockDiagonal: E^T E block by block
            return self.E.gram()
        E = self.E.toarray() if hasattr(self.E, "toarray") else np.asarray(self.E)
        return E.T @ E


@dataclass(frozen=True)
class _Basis:
    """Working coordinates: ``P = T @ A`` and ``X~ @ P = Y @ A``."""

    T: np.ndarray | None  # (d, r); None means the identity (no basis change)
    Y: np.ndarray  # (n, r)
    orthonormal: bool  # T^T T = I (so P^T P = A^T A)

    @property
    def rank(self) -> int:
        return self.Y.shape[1]

    def sandwich(self, L) -> np.ndarray:
        return _sandwich(self.Y, L)

    def gram(self) -> np.ndarray:
        return at_a(self.Y)

    def to_input(self, A: np.ndarray) -> np.ndarray:
        return A if self.T is None else a_b(self.T, A)

    def project(self, A: np.ndarray) -> np.ndarray:
        return a_b(self.Y, A)


@dataclass(frozen=True)
class _ComplementBasis:
    """Whitened coordinates ``Y = Q = H[:, 1:]`` when the centred data span all of ``1^perp``
    (rank ``n - 1``, e.g. fewer samples than features), with ``H`` the Householder reflector that
    maps ``e_1`` to ``1 / sqrt(n)``: ``Q`` is an orthonormal basis of ``1^perp``.  Every product
    with ``Q`` is a rank-one update, so ``Q^T L Q`` costs O(n^2) on the dense ``L`` instead of
    the O(n r^2) of ``Y^T L Y``.  ``T`` (d, n - 1) satisfies ``X~ T = Q``.
    """

    v: np.ndarray  # reflector vector, H = I - 2 v v^T / v^T v
    T: np.ndarray
    orthonormal: bool = False

    @property
    def rank(self) -> int:
        return len(self.v) - 1

    def sandwich(self, L) -> np.ndarray:
        dense = L.toarray() if hasattr(L, "toarray") else np.asarray(L @ np.eye(len(self.v)))
        return _reflect_both(dense, self.v)[1:, 1:]

    def gram(self) -> np.ndarray:
        return np.eye(self.rank)

    def to_input(self, A: np.ndarray) -> np.ndarray:
        return a_b(self.T, A)

    def project(self, A: np.ndarray) -> np.ndarray:
        return _reflect_rows(np.vstack([np.zeros((1, A.shape[1])), A]), self.v)  # H [0; A] = Q A


@dataclass(frozen=True)
class _CenteredKernelBasis(_ComplementBasis):
    """:class:`_ComplementBasis` for a centred kernel matrix ``K`` (``K 1 = 0``) of rank
    ``n - 1``: ``S = Q^T K Q`` (positive definite) and ``T = Q S^{-1}`` give ``K T = Q``;
    ``T`` is applied through the Cholesky factor of ``S``, so no eigen-decomposition is needed."""

    T: None = None
    cho: tuple = ()  # Cholesky factor of S (scipy.linalg.cho_factor)

    def to_input(self, A: np.ndarray) -> np.ndarray:
        return self.project(scipy.linalg.cho_solve(self.cho, A))


def _householder_to_constant(n: int) -> np.ndarray:
    v = np.full(n, -1.0 / np.sqrt(n))
    v[0] += 1.0  # v = e_1 - 1/sqrt(n): H e_1 = 1 / sqrt(n)
    return v


def _reflect_rows(A: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``H A`` for ``H = I - beta v v^T``."""
    return A - (2.0 / (v @ v)) * np.outer(v, v @ A)


def _reflect_both(A: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``H A H = A - v w^T - w v^T`` for symmetric ``A``, ``H = I - beta v v^T`` and
    ``w = beta A v - (beta^2 / 2) (v^T A v) v`` (Golub & Van Loan §5.1)."""
    beta = 2.0 / (v @ v)
    Av = A @ v
    w = beta * Av - (beta**2 / 2) * (v @ Av) * v
    out = A - v[:, None] * w[None, :]
    out -= w[:, None] * v[None, :]
    return out


def _centered_kernel_basis(K: np.ndarray) -> _CenteredKernelBasis | None:
    """The fast basis when ``K`` is centred and safely of rank ``n - 1`` (else None)."""
    n = len(K)
    scale = np.abs(K).max(initial=0.0)
    if n < 2 or scale == 0 or np.abs(K.sum(axis=1)).max() > 100 * n * np.finfo(float).eps * scale:
        return None
    v = _householder_to_constant(n)
    S = _reflect_both(K, v)[1:, 1:]
    chol, rcond = cholesky_rcond((S + S.T) / 2)
    if rcond <= _FAST_PATH_RCOND:
        return None
    return _CenteredKernelBasis(v=v, cho=(chol, False))


def pca_basis(Xc: np.ndarray, *, whiten: bool, tol: float | None = None,
              symmetric: bool = False) -> _Basis | _ComplementBasis:
    """Compute an orthonormal (or whitened) basis of the row space of ``Xc``, zero components removed.

    Parameters
    ----------
    Xc : ndarray of shape (n_samples, n_features)
        The (centred) data.
    whiten : bool
        Whiten the working coordinates (``Y^T Y = I``) instead of keeping the basis orthonormal
        (``T^T T = I``).
    tol : float, optional
        Relative threshold on the eigenvalues of ``Xc^T Xc`` (squared singular values) below which
        a component counts as zero; default ``10 max(n_samples, n_features) eps``.
    symmetric : bool, default=False
        ``Xc`` is a symmetric PSD (kernel) matrix; its own eigen-decomposition gives the basis (no
        squaring of the condition number, and the threshold is ``sqrt(tol)`` on its eigenvalues)
        -- or, for a centred kernel that is safely of rank ``n - 1``, the cheaper
        ``_CenteredKernelBasis``.

    Returns
    -------
    basis : object
        The working coordinates: ``basis.rank`` components, ``Xc @ T = Y`` (``T`` of shape
        ``(n_features, rank)``, ``Y`` of shape ``(n_samples, rank)``), ``basis.to_input(A)``
        mapping coordinates ``A`` to ``T @ A``.
    """
    n, d = Xc.shape
    if tol is None:
        tol = 10 * max(n, d) * np.finfo(float).eps
    if symmetric:
        fast = _centered_kernel_basis(Xc) if whiten else None
        if fast is not None:
            return fast
        lam, V = scipy.linalg.eigh(Xc)
        keep = lam > np.sqrt(tol) * lam[-1] if lam[-1] > 0 else np.zeros(len(lam), bool)
        V, lam = V[:, keep], lam[keep]
        T = np.ascontiguousarray(V / lam if whiten else V)
        return _Basis(T=T, Y=V if whiten else V * lam, orthonormal=not whiten)
    if d <= n:
        lam, U = scipy.linalg.eigh(at_a(Xc), lower=False)
        keep = lam > tol * lam[-1] if lam[-1] > 0 else np.zeros(len(lam), bool)
        U = U[:, keep]
    else:
        lam, V = scipy.linalg.eigh(at_a(Xc.T), lower=False)
        keep = lam > tol * lam[-1] if lam[-1] > 0 else np.zeros(len(lam), bool)
        U = at_b(Xc, V[:, keep]) / np.sqrt(lam[keep])
        if not whiten:  # re-orthonormalise: P^T P = A^T A must hold to machine precision
            U = scipy.linalg.qr(U, mode="economic")[0]
    # C order: every fit maps its solution through T (a_b would copy a Fortran-ordered T each time)
    T = np.ascontiguousarray(U / np.sqrt(lam[keep]) if whiten else U)
    Y = a_b(Xc, T)
    if whiten and len(T.T) == n - 1 and _is_centered(Xc):  # Y spans 1^perp: use Q instead
        v = _householder_to_constant(n)
        QtY = _reflect_rows(Y, v)[1:]  # Q^T Y, so that X~ T Y^T Q = Y Y^T Q = Q
        return _ComplementBasis(v=v, T=a_b(T, np.ascontiguousarray(QtY.T)))
    return _Basis(T=T, Y=Y, orthonormal=not whiten)


def _is_centered(Xc: np.ndarray) -> bool:
    scale = np.abs(Xc).max(initial=0.0)
    return bool(np.abs(Xc.sum(axis=0)).max(initial=0.0) <= 100 * len(Xc) * np.finfo(float).eps * scale)


_DATA_MEMO = LastInput()  # the last data matrix: its mean, PCA basis and conditioning


def _full_rank_shortcut(Xc: np.ndarray, B, constraint: str, memo: dict):
    """Skip the PCA basis when ``d <= n`` and ``Xc`` has safely full column rank.

    Returns ``(ok, N)``.  The test is on ``X~^T X~`` (remembered per data matrix); for
    ``constraint='B'`` with ``B`` None or a positive diagonal, ``cond(X~^T B X~) <=
    cond(X~^T X~) max(b) / min(b)``, so the spread of ``b`` is charged to the estimate.  For any
    other ``B`` the test is on the reduced constraint matrix ``N = X~^T B X~`` itself (needed
    anyway): ``N`` non-singular implies full column rank.
    """
    n, d = Xc.shape
    if d > n:
        return False, None
    spread = 1.0 if constraint == "orthonormal" else _positive_diagonal_spread(B)
    if spread is None:
        N = _sandwich(Xc, B)
        return rcond_spd(N) > _FAST_PATH_RCOND, N
    data_rcond = remembered(memo, ("rcond",), lambda: rcond_spd(at_a(Xc)))
    return data_rcond / spread > _FAST_PATH_RCOND, None


def _positive_diagonal(B) -> np.ndarray | None:
    """The diagonal of ``B`` if it is a sparse matrix with a positive diagonal and nothing else."""
    if not sparse.issparse(B):
        return None
    B = sparse.coo_array(B)
    if np.any(B.row != B.col) or B.nnz < B.shape[0]:
        return None
    diag = B.diagonal()
    return diag if diag.min() > 0 else None


def _positive_diagonal_spread(B) -> float | None:
    """``max(b) / min(b)`` if ``B`` is None (1) or a sparse positive diagonal matrix, else None."""
    if B is None:
        return 1.0
    diag = _positive_diagonal(B)
    return None if diag is None else float(diag.max() / diag.min())


def solve_embedding(X, L, B=None, *, constraint: str = "B", n_components: int | None = None,
                    maximize: bool = False, center: bool = True, pca_tol: float | None = None,
                    ridge: float = 1e-9, singular_rcond: float = 1e-12,
                    resolve_degenerate: bool = True, degenerate_rtol: float = 1e-9,
                    symmetric: bool = False) -> Embedding:
    """Solve the graph-embedding problem described in the module docstring.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        Data (rows are samples).  For kernel methods pass the kernel matrix with
        ``center=False``: ``X^T L X = K L K`` (003 eq. 21-25) and ``P`` holds the dual
        coefficients.
    L : sparse matrix, ndarray, LinearOperator or GramFactor of shape (n_samples, n_samples)
        Symmetric positive semi-definite graph matrix (anything supporting ``L @ Y``).
    B : same types, optional
        Constraint matrix for ``constraint='B'``; ``None`` is the identity.
    constraint : {'B', 'orthonormal'}
        The constraint ``P^T X~^T B X~ P = I`` or ``P^T P = I`` (module docstring).
    n_components : int or None
        Number of columns to return; None returns all available (the PCA rank).
    maximize : bool
        Return the largest eigenvalues first (LDA/LFDA).
    center : bool
        Subtract the column mean of ``X`` first.
    pca_tol : float, optional
        Relative threshold on squared singular values of the PCA pre-step.
    ridge, singular_rcond : float
        Fix for a numerically singular reduced constraint matrix (module docstring).
    resolve_degenerate : bool
        Canonical, variance-ordered basis inside clusters of equal eigenvalues.
    degenerate_rtol : float
        Relative tolerance for two eigenvalues to count as equal (see ``_clusters``).
    symmetric : bool
        ``X`` is a symmetric positive semi-definite kernel matrix (requires ``center=False``):
        the PCA basis comes from ``eigh(X)`` itself rather than from ``X^T X``.

    Returns
    -------
    Embedding
        The columns ``P``, their eigenvalues, the mean subtracted and the rank of the PCA space.
    """
    X = np.asarray(X, dtype=float)
    memo = _DATA_MEMO.values_for(X, np.asarray(center))
    _check_problem(X, L, B, constraint, symmetric, center, memo)
    mean, Xc = remembered(memo, ("centred",), lambda: _centered(X, center))
    basis, N, shortcut = _working_basis(Xc, B, constraint, pca_tol, symmetric, memo)
    r = basis.rank
    k = check_n_components(n_components, r)

    M = basis.sandwich(L)
    N = N if N is not None else _reduced_constraint(basis, B, constraint)
    if shortcut or _whitened_regular(constraint, B, singular_rcond):  # N is known to be regular
        regularized = False
    else:
        N, regularized = _regularized(N, ridge, singular_rcond)
    rtol = max(degenerate_rtol, _RIDGE_CLUSTER_FACTOR * ridge) if regularized else degenerate_rtol
    lam, A, scale = _solve_reduced(M, N, maximize, k, resolve_degenerate, rtol)
    if resolve_degenerate:
        A = _resolve_degenerate(lam, A, basis, rtol, scale)
    P = basis.to_input(np.ascontiguousarray(A[:, :k]))  # prefixes bit-identical (test_nested_columns)
    lam = lam[:k]
    return Embedding(components=fix_signs(P), eigenvalues=lam, mean=mean.copy(), rank=r,
                     n_available=r, regularized=regularized)


def _check_problem(X: np.ndarray, L, B, constraint: str, symmetric: bool, center: bool, memo: dict) -> None:
    """Refuse data that are not finite, an unknown constraint and matrices of the wrong shape."""
    if X.ndim != 2 or not remembered(memo, ("finite",), lambda: bool(np.all(np.isfinite(X)))):
        raise ValueError("X must be a finite 2-D array.")
    if constraint not in ("B", "orthonormal"):
        raise ValueError(f"constraint must be 'B' or 'orthonormal', got {constraint!r}.")
    n, d = X.shape
    _check_square(L, n, "L")
    if B is not None:
        _check_square(B, n, "B")
    if symmetric and (center or n != d):
        raise ValueError("symmetric=True expects a square kernel matrix and center=False.")


def _working_basis(Xc: np.ndarray, B, constraint: str, pca_tol, symmetric: bool, memo: dict):
    """The PCA pre-step's basis (module docstring), or none when the data have safely full column
    rank; returns ``(basis, N, shortcut)`` with ``N`` the reduced constraint if the shortcut's test
    formed it (in the input coordinates), else None."""
    ok, N = (False, None) if symmetric else _full_rank_shortcut(Xc, B, constraint, memo)
    if ok:
        return _Basis(T=None, Y=Xc, orthonormal=True), N, True
    options = {"whiten": constraint == "B", "tol": pca_tol, "symmetric": symmetric}
    basis = remembered(memo, ("pca_basis", *sorted(options.items())), lambda: pca_basis(Xc, **options))
    return basis, None, False


def _solve_reduced(M, N, maximize: bool, k: int, resolve_degenerate: bool, degenerate_rtol: float):
    """The reduced eigenproblem ``M a = lambda N a`` in order; returns ``(lam, A, scale)`` with
    ``scale`` the problem's eigenvalue scale. Non-finite or degenerate problems are errors that say
    what to do."""
    scale = _eigenvalue_scale(M, N)
    if not (np.all(np.isfinite(M)) and (N is None or np.all(np.isfinite(N)))):
        raise ValueError(
            "the reduced eigenproblem has non-finite entries: the graph or constraint matrix "
            "overflowed (X or the graph weights too large); rescale X, e.g. by "
            "sklearn.preprocessing.StandardScaler.")
    try:
        lam, A = _eigh_sorted(M, N, maximize, k, resolve_degenerate, degenerate_rtol, scale)
    except np.linalg.LinAlgError as error:
        r = len(M)
        raise ValueError(
            f"the reduced {r} x {r} eigenproblem could not be solved ({error}): the graph or "
            "constraint matrix is numerically degenerate, as with many exact duplicate rows; "
            "remove duplicate rows (np.unique(X, axis=0)), reduce n_neighbors or raise the "
            "regularisation.") from error
    return lam, A, scale


# --------------------------------------------------------------------------- pieces


def _check_square(L, n: int, name: str) -> None:
    if getattr(L, "shape", None) != (n, n):
        raise ValueError(f"{name} must have shape ({n}, {n}), got {getattr(L, 'shape', None)}.")


def check_n_components(n_components, available: int) -> int:
    """Resolve ``n_components`` against the ``available`` count; a clear error if too many.

    Parameters
    ----------
    n_components : int or None
        The number of components asked for; None for all.
    available : int
        The number available (the rank of the centred training data).

    Returns
    -------
    int
        ``n_components``, or ``available`` for None.
    """
    if n_components is None:
        return available
    if n_components < 1 or n_components > available:
        raise ValueError(
            f"n_components={n_components} but only {available} components are available "
            "(the rank of the centred training data); use n_components=None or a smaller value."
        )
    return int(n_components)


def _sandwich(Y: np.ndarray, L) -> np.ndarray:
    """``Y^T L Y`` (L sparse, dense, LinearOperator or :class:`GramFactor`); only the upper
    triangle is authoritative (Fortran-ordered result)."""
    if isinstance(L, GramFactor):
        return at_a(np.asarray(L.E @ Y))
    diag = _positive_diagonal(L)
    if diag is not None:  # Y^T D Y = (D^1/2 Y)^T (D^1/2 Y)
        return at_a(np.sqrt(diag)[:, None] * Y)
    return at_b(Y, np.asarray(L @ Y))


def _centered(X: np.ndarray, center: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(mean, X - mean)``, or zeros and ``X`` itself when not centring."""
    if not center:
        return np.zeros(X.shape[1]), X
    mean = X.mean(axis=0)
    return mean, X - mean


def _reduced_constraint(basis: _Basis, B, constraint: str):
    """``N`` of the reduced problem ``M a = lambda N a`` (None means identity)."""
    if constraint == "orthonormal":
        return None if basis.orthonormal else at_a(basis.T)
    return basis.gram() if B is None else basis.sandwich(B)


def _whitened_regular(constraint: str, B, singular_rcond: float) -> bool:
    """Whether ``N = Y^T B Y`` in the whitened basis (``Y^T Y = I``) is safely regular without a
    test: for ``B`` None or a positive diagonal, ``cond(N) <= max(b) / min(b)``."""
    if constraint != "B":
        return False
    spread = _positive_diagonal_spread(B)
    return spread is not None and spread < 1e-3 / singular_rcond


def _regularized(N, ridge: float, singular_rcond: float):
    """``(N, False)``, or ``(N + ridge * mean(diag N) I, True)`` if ``N`` is numerically singular."""
    if N is None or rcond_spd(N) > singular_rcond:
        return N, False
    scale = np.trace(N) / max(len(N), 1)
    N = N.copy(order="K")  # keep the layout: an upper-only N stays upper-only
    N[np.diag_indices_from(N)] += ridge * (scale if scale > 0 else 1.0)
    return N, True


def _eigh_sorted(M, N, maximize: bool, k: int, resolve_degenerate: bool, rtol: float, scale: float):
    """The first ``k`` eigenpairs, ascending (descending if maximize) -- more if the cut would
    split a degenerate cluster.  Only those eigenvectors are formed (:mod:`locproj.core._eigh`)."""
    r = len(M)
    if r == 0 or k == 0:
        return np.empty(0), np.empty((r, 0))

    def wanted(eigenvalues: np.ndarray) -> slice:  # eigenvalues ascending
        stop = k
        if resolve_degenerate:
            ordered = eigenvalues[::-1] if maximize else eigenvalues
            stop = next(cl.stop for cl in _clusters(ordered, rtol, scale) if cl.stop >= k)
        return slice(r - stop, r) if maximize else slice(0, stop)

    # M and N are this solve's own temporaries: LAPACK works in them
    eigenvalues, A = eigh_selected(M, N, wanted)
    return _order(eigenvalues[wanted(eigenvalues)], A, maximize)


def _eigenvalue_scale(M, N) -> float:
    n_scale = 1.0 if N is None or len(N) == 0 else float(np.mean(np.diag(N)))
    scale = float(np.abs(M).max(initial=0.0)) / (n_scale if n_scale > 0 else 1.0)
    return scale if scale > 0 else np.finfo(float).tiny


def _order(lam, A, maximize: bool):
    order = np.argsort(-lam if maximize else lam, kind="stable")
    return lam[order], A[:, order]


def _clusters(lam: np.ndarray, rtol: float, scale: float) -> list[slice]:
    """Maximal runs of consecutive (sorted) eigenvalues ``lam_i, lam_{i+1}`` that differ by at
    most ``rtol * max(scale, |lam_i|, |lam_{i+1}|)``; ``scale`` is the problem's eigenvalue scale
    ``max|M_ij| / mean(diag N)`` so that numerically-zero eigenvalues group together."""
    if len(lam) == 0:
        return []
    pair_max = np.maximum(np.abs(lam[:-1]), np.abs(lam[1:]))
    tol = rtol * np.maximum(pair_max, scale)
    breaks = np.flatnonzero(np.abs(np.diff(lam)) > tol) + 1
    edges = np.concatenate([[0], breaks, [len(lam)]])
    return [slice(a, b) for a, b in zip(edges[:-1], edges[1:])]


def _resolve_degenerate(lam: np.ndarray, A: np.ndarray, basis: _Basis, rtol: float,
                        scale: float) -> np.ndarray:
    """``A`` (modified in place) with a canonical basis inside each degenerate cluster (any rotation
    that is orthogonal in the constraint's metric keeps both the constraint and the objective):

    1. diagonalise the projected total scatter ``(X~ P_c)^T (X~ P_c)``, largest variance first;
    2. where those variances tie too (e.g. when the constraint *is* the total scatter, as in
       LEA D-to-d, or LFDA's directions of zero within-class scatter), diagonalise the
       Euclidean Gram ``P_c^T P_c``, shortest column (largest variance per unit length) first.
    """
    for cl in _clusters(lam, rtol, scale):
        if cl.stop - cl.start < 2:
            continue
        F = basis.project(A[:, cl])  # projections of the (centred) training data
        var, R = scipy.linalg.eigh(F.T @ F)
        var, A[:, cl] = var[::-1], A[:, cl] @ R[:, ::-1]
        for tie in _clusters(var, _TIE_RTOL, float(np.abs(var).max())):
            if tie.stop - tie.start < 2:
                continue
            sub = A[:, cl][:, tie]
            P = basis.to_input(sub)
            _, R = scipy.linalg.eigh(P.T @ P)
            A[:, cl.start + tie.start : cl.start + tie.stop] = sub @ R
    return A


def fix_signs(P: np.ndarray) -> np.ndarray:
    """Flip columns so that each column's entry of largest ``|value|`` is positive.

    Entries within ``1e-9`` (relative) of the largest count as tied, and the first of them decides:
    an entry equal to the largest up to rounding, as in a column that is ``+a`` on one class and
    ``-a`` on another, never decides by its last bits.

    Parameters
    ----------
    P : ndarray of shape (n_rows, n_columns)
        The columns.

    Returns
    -------
    ndarray of shape (n_rows, n_columns)
        ``P`` with some columns negated (``P`` itself when it is empty).
    """
    if P.size == 0:
        return P
    magnitude = np.abs(P)
    idx = np.argmax(magnitude >= (1.0 - _SIGN_TIE_RTOL) * magnitude.max(axis=0), axis=0)
    signs = np.sign(P[idx, np.arange(P.shape[1])])
    signs[signs == 0] = 1.0
    return P * signs
