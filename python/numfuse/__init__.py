"""numfuse: NumPy for GPUs, lazy and fused. ``import numfuse as np``."""
import math

import numpy as _np  # NumPy first: its dtype objects and its OpenBLAS are ours too

from . import _core
from ._core import ndarray, UFuncTypeError, pending_node_count
from . import _numpy_fp_probe  # noqa: F401  (NumPy's floor_divide/remainder/divmod flags on NaN and inf, probed once)
from ._dtypes import *  # noqa: F401,F403
from ._ufuncs import *  # noqa: F401,F403
from ._creation import *  # noqa: F401,F403
from ._math import *  # noqa: F401,F403
from ._linalg import *  # noqa: F401,F403
from . import linalg, random, fft  # noqa: F401
from ._shape import *  # noqa: F401,F403
from ._ranges import *  # noqa: F401,F403
from ._indexing import *  # noqa: F401,F403
from ._indexing import nonzero as _nonzero
from ._reductions import *  # noqa: F401,F403
from ._sort import *  # noqa: F401,F403
from ._sets import *  # noqa: F401,F403
from ._statistics import *  # noqa: F401,F403
from ._histograms import *  # noqa: F401,F403
from ._covariance import *  # noqa: F401,F403
from ._numerical import *  # noqa: F401,F403
from ._convolve import *  # noqa: F401,F403
from ._windows import *  # noqa: F401,F403
from ._polynomial import *  # noqa: F401,F403
from ._printing import *  # noqa: F401,F403
from ._files import *  # noqa: F401,F403
from ._array_api import *  # noqa: F401,F403
from ._index_tricks import *  # noqa: F401,F403
from ._construction import *  # noqa: F401,F403
from ._editing import *  # noqa: F401,F403
from ._functional import *  # noqa: F401,F403
from ._stencil import stencil  # noqa: F401  (Numba's @stencil, translated into slices)
from ._bits import *  # noqa: F401,F403
from ._pad import pad  # noqa: F401  (the statistic and ramp modes, over _shape.pad)
from . import _ufunc_methods  # noqa: F401  (attaches ufunc.outer, .at, .reduceat, ... once)
from ._array_api import __array_api_version__, __array_namespace_info__  # noqa: F401
from ._exchange import from_dlpack  # noqa: F401
from ._interop import get_array_module  # noqa: F401
from . import _methods  # noqa: F401  (attaches the Python-level methods to ndarray, once)
from . import cuda  # noqa: F401
from ._kernels import RawKernel, RawModule  # noqa: F401
from ._elementwise_kernel import ElementwiseKernel  # noqa: F401
from ._reduction_kernel import ReductionKernel  # noqa: F401
from ._namespace_extras import *  # noqa: F401,F403  (the rest of NumPy's top-level names)
from ._host_families import *  # noqa: F401,F403  (datetimes, matrix, ma, rec, strings...)
from ._memmap import memmap  # noqa: F401
from . import ctypeslib, emath, lib, polynomial, testing, typing  # noqa: F401

__version__ = "0.1.0"


# numfuse.eval(*arrays), as MLX names it: computes pending arrays now. Bound straight to C++:
# a Python wrapper would add its own call to every evaluation.
eval = _core.eval  # noqa: A001


def explain(a):
    """How numfuse would evaluate `a` now: the planner's groups, why each was cut, each group's
    program and, for arrays on a GPU, the generated CUDA kernel source. Evaluates nothing."""
    return _core.explain(a) if isinstance(a, ndarray) else "not a numfuse array\n"


def result_type(*arrays_and_dtypes):
    """numpy.result_type with NumPy 2's rules (Python scalars weak)."""
    args = [a.dtype if isinstance(a, ndarray) else a for a in arrays_and_dtypes]
    return _np.result_type(*args)


def can_cast(from_, to, casting="safe"):
    return _np.can_cast(from_.dtype if isinstance(from_, ndarray) else from_, to, casting)


# The floating-point error state is NumPy's own: numfuse.errstate is numpy.errstate, and either
# module's seterr governs both. Each op captures the state current when it is called; the
# warning (or FloatingPointError) comes when its value is computed (docs/decisions.md).
errstate = _np.errstate
seterr = _np.seterr
geterr = _np.geterr
seterrcall = _np.seterrcall
geterrcall = _np.geterrcall

promote_types = _np.promote_types
min_scalar_type = _np.min_scalar_type


def shape(a):
    return a.shape if isinstance(a, ndarray) else _np.shape(a)


def ndim(a):
    return a.ndim if isinstance(a, ndarray) else _np.ndim(a)


def size(a, axis=None):
    if axis is None:
        return a.size if isinstance(a, ndarray) else _np.size(a)
    if not isinstance(a, ndarray):
        return _np.size(a, axis)
    from numpy.lib.array_utils import normalize_axis_tuple  # NumPy 2.4's size: axis tuples
    return math.prod(a.shape[ax] for ax in normalize_axis_tuple(axis, a.ndim))


def isscalar(element):
    return _np.isscalar(element)


def where(condition, x=None, y=None):
    if x is None and y is None:
        return _nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return _core.where(condition, x, y)


# A Dask program or worker that imported Dask first (a worker imports numfuse when it receives its
# first numfuse chunk): Dask's dispatch tables, backend and serializers learn numfuse arrays now.
# Otherwise `import numfuse.dask` does it.
if "dask" in __import__("sys").modules:
    try:
        from . import dask  # noqa: F401,E402
    except ImportError:  # a Dask without dask.array (or distributed's parts): nothing to register
        pass
