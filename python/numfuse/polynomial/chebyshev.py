"""numfuse.polynomial.chebyshev: numpy.polynomial.chebyshev with chebval, chebvander, chebfit and Chebyshev
running on numfuse points (python/numfuse/polynomial/_device.py); the rest is NumPy's, on the
host (coefficient arithmetic, roots, quadrature)."""
import numpy.polynomial.chebyshev as _npm
from numpy.polynomial.chebyshev import *  # noqa: F401,F403

from ._device import module_functions, series_class

__all__ = list(_npm.__all__)

chebvander, chebfit = module_functions("cheb", _npm)
Chebyshev = series_class(_npm.Chebyshev, chebfit)
