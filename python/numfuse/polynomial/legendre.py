"""numfuse.polynomial.legendre: numpy.polynomial.legendre with legval, legvander, legfit and Legendre
running on numfuse points (python/numfuse/polynomial/_device.py); the rest is NumPy's, on the
host (coefficient arithmetic, roots, quadrature)."""
import numpy.polynomial.legendre as _npm
from numpy.polynomial.legendre import *  # noqa: F401,F403

from ._device import module_functions, series_class

__all__ = list(_npm.__all__)

legvander, legfit = module_functions("leg", _npm)
Legendre = series_class(_npm.Legendre, legfit)
