"""numfuse.polynomial.laguerre: numpy.polynomial.laguerre with lagval, lagvander, lagfit and Laguerre
running on numfuse points (python/numfuse/polynomial/_device.py); the rest is NumPy's, on the
host (coefficient arithmetic, roots, quadrature)."""
import numpy.polynomial.laguerre as _npm
from numpy.polynomial.laguerre import *  # noqa: F401,F403

from ._device import module_functions, series_class

__all__ = list(_npm.__all__)

lagvander, lagfit = module_functions("lag", _npm)
Laguerre = series_class(_npm.Laguerre, lagfit)
