"""numfuse.polynomial: numpy.polynomial's series classes (Polynomial, Chebyshev, Legendre,
Laguerre, Hermite, HermiteE) and their modules, running on numfuse points.

The classes are subclasses of NumPy's: coefficients, domains and the series algebra are NumPy's
own (small, on the host); evaluating a series at numfuse points, and fitting one to numfuse data,
runs on the points' device (see _device.py). isinstance(p, numpy.polynomial.Chebyshev) holds.
"""
from numpy.polynomial import set_default_printstyle  # noqa: F401

from . import chebyshev, hermite, hermite_e, laguerre, legendre, polynomial  # noqa: F401
from .chebyshev import Chebyshev
from .hermite import Hermite
from .hermite_e import HermiteE
from .laguerre import Laguerre
from .legendre import Legendre
from .polynomial import Polynomial

__all__ = ["set_default_printstyle", "polynomial", "Polynomial", "chebyshev", "Chebyshev",
           "legendre", "Legendre", "hermite", "Hermite", "hermite_e", "HermiteE", "laguerre",
           "Laguerre"]
