"""numfuse: NumPy for GPUs, lazy and fused. ``import numfuse as np``."""
import numpy as _np  # NumPy first: its dtype objects and its OpenBLAS are ours too

from . import _core
from ._core import ndarray, UFuncTypeError, pending_node_count
from ._dtypes import *  # noqa: F401,F403
from ._ufuncs import *  # noqa: F401,F403
from ._creation import *  # noqa: F401,F403
from ._math import *  # noqa: F401,F403
from . import _ndarray  # noqa: F401  (attaches Python-level methods to ndarray)

__version__ = "0.1.0"


def eval(*arrays):  # noqa: A001  (numfuse.eval, as MLX names it)
    """Evaluates pending arrays now (their values are computed; nothing is returned)."""
    _core.eval(*arrays)


def where(condition, x=None, y=None):
    if x is None and y is None:
        from ._indexing import nonzero
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return _core.where(condition, x, y)
