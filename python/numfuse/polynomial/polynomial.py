"""numfuse.polynomial.polynomial: numpy.polynomial.polynomial with polyval, polyvander, polyfit and Polynomial
running on numfuse points (python/numfuse/polynomial/_device.py); the rest is NumPy's, on the
host (coefficient arithmetic, roots, quadrature)."""
import numpy.polynomial.polynomial as _npm
from numpy.polynomial.polynomial import *  # noqa: F401,F403

from ._device import module_functions, series_class

__all__ = list(_npm.__all__)

polyvander, polyfit = module_functions("poly", _npm)
Polynomial = series_class(_npm.Polynomial, polyfit)
