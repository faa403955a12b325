"""Functions applied over arrays: apply_along_axis and apply_over_axes (a numfuse function called
on slices or axes, lazy), and vectorize and frompyfunc (a Python function called per element).

A Python function per element: vectorize (_vectorize.py) and frompyfunc first translate the
function into fused element-wise nodes (_translate_array.py); where it cannot be translated they
are NumPy's own, given the operands' host memory, and their results are moved back to the
device of the first numfuse operand. numfuse has no object dtype: object results are read back by value (numpy.array of their
elements), so frompyfunc(f, 1, 1)(x) gives the dtype NumPy would infer from the values.
"""
import operator
import types

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index

from ._creation import asarray, zeros
from ._shape import expand_dims
from ._vectorize import call_on_host, translate_elementwise, vectorize

__all__ = ["apply_along_axis", "apply_over_axes", "vectorize", "frompyfunc"]


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    arr = asarray(arr)
    nd = arr.ndim
    axis = normalize_axis_index(operator.index(axis), nd)
    dims = list(range(nd))
    view = arr.transpose(dims[:axis] + dims[axis + 1:] + [axis])
    inds = (ind + (Ellipsis,) for ind in _np.ndindex(view.shape[:-1]))
    try:
        ind0 = next(inds)
    except StopIteration:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0") from None
    res = asarray(func1d(view[ind0], *args, **kwargs))
    buff = zeros(view.shape[:-1] + res.shape, res.dtype, device=arr.device)
    bd = list(range(buff.ndim))
    permute = bd[:axis] + bd[buff.ndim - res.ndim:] + bd[axis:buff.ndim - res.ndim]
    buff[ind0] = res
    for ind in inds:
        buff[ind] = asarray(func1d(view[ind], *args, **kwargs))
    return buff.transpose(permute)


def apply_over_axes(func, a, axes):
    val = asarray(a)
    n = val.ndim
    if _np.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        axis = axis + n if axis < 0 else axis
        res = func(val, axis)
        if res.ndim != val.ndim:
            res = expand_dims(res, axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


# ---- Python functions per element ---------------------------------------------------------------
# numfuse.vectorize lives in _vectorize.py (NumPy's and Numba's, translated into fused nodes).

class _PyFunc:
    """What numfuse.frompyfunc returns: NumPy's object ufunc over host values, its results read
    back by value (numfuse has no object dtype)."""

    def __init__(self, func, nin, nout, identity):
        kw = {} if identity is None else {"identity": identity}
        self._ufunc = _np.frompyfunc(func, nin, nout, **kw)
        self._func = func
        self._caches = ({}, {})  # recorded translations, typing results (_vectorize.py)
        self.__name__ = self._ufunc.__name__

    nin = property(lambda self: self._ufunc.nin)
    nout = property(lambda self: self._ufunc.nout)
    nargs = property(lambda self: self._ufunc.nargs)
    identity = property(lambda self: self._ufunc.identity)
    ntypes = property(lambda self: self._ufunc.ntypes)
    types = property(lambda self: self._ufunc.types)
    signature = property(lambda self: self._ufunc.signature)

    def __call__(self, *args, **kwargs):
        result = None if kwargs or self.nout != 1 else self._translated(args)
        return result if result is not None else call_on_host(self._ufunc, args, kwargs)

    def _translated(self, args):
        """The call as fused nodes where the function translates and its results have one type
        (the object array NumPy returns is read back as that type), else None."""
        if len(args) != self.nin or not isinstance(self._func, types.FunctionType):
            return None
        return translate_elementwise(self._func, list(args), object_results=True,
                                     caches=self._caches)

    def reduce(self, *args, **kwargs):
        return call_on_host(self._ufunc.reduce, args, kwargs)

    def accumulate(self, *args, **kwargs):
        return call_on_host(self._ufunc.accumulate, args, kwargs)

    def outer(self, *args, **kwargs):
        return call_on_host(self._ufunc.outer, args, kwargs)

    def reduceat(self, *args, **kwargs):
        return call_on_host(self._ufunc.reduceat, args, kwargs)

    def __repr__(self):
        return f"<ufunc {self.__name__!r}>"


def frompyfunc(func, /, nin, nout, *, identity=None):
    return _PyFunc(func, nin, nout, identity)
