"""numfuse.polynomial.hermite_e: numpy.polynomial.hermite_e with hermeval, hermevander, hermefit and HermiteE
running on numfuse points (python/numfuse/polynomial/_device.py); the rest is NumPy's, on the
host (coefficient arithmetic, roots, quadrature)."""
import numpy.polynomial.hermite_e as _npm
from numpy.polynomial.hermite_e import *  # noqa: F401,F403

from ._device import module_functions, series_class

__all__ = list(_npm.__all__)

hermevander, hermefit = module_functions("herme", _npm)
HermiteE = series_class(_npm.HermiteE, hermefit)
