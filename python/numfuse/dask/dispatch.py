"""The dask.array dispatch tables for numfuse chunks, and dask.sizeof.

Dask looks these functions up by the chunk's type (dask/array/dispatch.py). Most of them would
reach numfuse anyway through NumPy's __array_function__ (Dask's defaults for `object` are NumPy's
functions), but registering numfuse's own makes the chunk type explicit, skips a dispatch hop per
task, and covers what NEP-18 cannot: percentile (no default at all), the numel counts (whose
NumPy default returns a NumPy array, mixing chunk types), and the conversions to NumPy and CuPy.

empty is the exception: Dask calls it with the chunk type alone (dask.array.percentile's 0 and
100 and its merge's counts), so no device can be chosen for it; a numfuse array on the default
device (cuda:0 on a GPU machine) beside chunks on the CPU made the percentile programs mix devices.
It gives a NumPy array, host memory that numfuse functions copy to their numfuse operands'
device (numfuse.concatenate([zero, q, hundred]) on q's, asarray(counts, like=chunk) on the chunk's).
"""
import numpy as _np

from .. import _ufuncs as _u
from .._core import ndarray as _ndarray
from .._dask_sizeof import register as register_sizeof
from .._creation import asnumpy
from .._indexing import take
from .._linalg import einsum, tensordot
from .._shape import concatenate


def _einsum(*operands, **kwargs):
    # Dask passes NumPy's einsum keywords; numfuse's einsum takes NumPy's own set, but `casting`
    # and `order` are about the output of a buffered iterator numfuse does not have: the result
    # is the same without them ("safe" casting of the same dtype, a fresh array).
    kwargs.pop("casting", None)
    kwargs.pop("order", None)
    return einsum(*operands, **kwargs)


def _divide(x1, x2, out=None, dtype=None):
    # Dask's divide (numpy_compat.divide): NumPy's divide, then a cast to `dtype`. Reached through
    # _ufuncs at call time: a ufunc object kept in Dask's table would outlive nanobind's shutdown
    # (docs/architecture.md).
    x = _u.divide(x1, x2, out)
    return x if dtype is None else x.astype(dtype)


def _percentile(a, q, method="linear"):
    from dask.array.percentile import _percentile as dask_percentile
    # Dask's own helper computes with NumPy functions on the chunk (NEP-18 brings them here) and
    # returns (values, count); the values are a numfuse array like the chunk.
    return dask_percentile(a, q, method)


def _to_numpy(data, **kwargs):
    return asnumpy(data, **kwargs)


def _to_cupy(data, **kwargs):
    import cupy
    return cupy.asarray(data, **kwargs)


def register():
    """Registers numfuse.ndarray in dask.array's dispatch tables and dask.sizeof."""
    from dask.array import backends as _backends  # registers NumPy's entries first
    from dask.array import dispatch as d
    from dask.sizeof import sizeof

    d.concatenate_lookup.register(_ndarray, concatenate)
    d.take_lookup.register(_ndarray, take)
    d.tensordot_lookup.register(_ndarray, tensordot)
    d.einsum_lookup.register(_ndarray, _einsum)
    d.empty_lookup.register(_ndarray, _np.empty)
    d.divide_lookup.register(_ndarray, _divide)
    d.percentile_lookup.register(_ndarray, _percentile)
    # Counts of the same chunk type (CuPy's choice): a NumPy count beside numfuse chunks would
    # make the reduction's combine step mix types.
    d.numel_lookup.register(_ndarray, _backends._numel_arraylike)
    d.nannumel_lookup.register(_ndarray, _backends._nannumel)
    d.to_numpy_dispatch.register(_ndarray, _to_numpy)
    d.to_cupy_dispatch.register(_ndarray, _to_cupy)
    register_sizeof(sizeof)
