"""Local linear dimensionality-reduction methods as scikit-learn transformers (and LPK, paper
002's SVM with learned local projections, a classifier that also transforms).

Every graph-embedding method hands a graph and a constraint to the one solver,
:func:`locproj.core.solvers.solve_embedding`; see ``docs/methods.md``.
"""

from ._base import fit_memory as fit_memory  # public, beside the estimators that __all__ lists
from .isop import IsometricProjection
from .klpp import KernelLPP
from .lea import LocallyEmbeddedAnalysis
from .lfda import LocalFisherDiscriminantAnalysis
from .linear import Fisherfaces
from .llp import LocalLearningProjection
from .lpk import LocalProjectionKernelSVC
from .lpp import LocalityPreservingProjection
from .lsda import LocalitySensitiveDiscriminantAnalysis
from .mfa import MarginalFisherAnalysis
from .olpp import OrthogonalLPP
from .slle import SupervisedLLE
from .srda import SpectralRegressionDiscriminantAnalysis

__all__ = [
    "Fisherfaces",
    "IsometricProjection",
    "KernelLPP",
    "LocalFisherDiscriminantAnalysis",
    "LocalLearningProjection",
    "LocalProjectionKernelSVC",
    "LocallyEmbeddedAnalysis",
    "LocalityPreservingProjection",
    "LocalitySensitiveDiscriminantAnalysis",
    "MarginalFisherAnalysis",
    "OrthogonalLPP",
    "SpectralRegressionDiscriminantAnalysis",
    "SupervisedLLE",
]
