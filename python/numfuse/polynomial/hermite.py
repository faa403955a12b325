"""numfuse.polynomial.hermite: numpy.polynomial.hermite with hermval, hermvander, hermfit and Hermite
running on numfuse points (python/numfuse/polynomial/_device.py); the rest is NumPy's, on the
host (coefficient arithmetic, roots, quadrature)."""
import numpy.polynomial.hermite as _npm
from numpy.polynomial.hermite import *  # noqa: F401,F403

from ._device import module_functions, series_class

__all__ = list(_npm.__all__)

hermvander, hermfit = module_functions("herm", _npm)
Hermite = series_class(_npm.Hermite, hermfit)
