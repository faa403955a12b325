"""numfuse.lib.stride_tricks: as_strided and sliding_window_view as views of numfuse memory.

NumPy's as_strided reads whatever memory the strides reach; numfuse's view reaches only the memory
of the array's own storage (checked in C++, python/src/bind_construction.cpp), so a stride error
is a ValueError instead of a read past the end. Views start from the storage's C-contiguous root
array, the one the given array views: strides and offsets are in bytes, as NumPy's.
"""
import numpy as _np
from numpy.lib.array_utils import normalize_axis_tuple

from .. import _core
from .._core import ndarray
from .._creation import asarray
from .._shape import broadcast_arrays, broadcast_shapes, broadcast_to

__all__ = ["as_strided", "sliding_window_view", "broadcast_to", "broadcast_arrays",
           "broadcast_shapes"]


def _root(x):
    """The C-contiguous array x views, whose memory spans the whole storage, and x's byte offset
    in it; None when x's storage has no such array at hand."""
    storage, offset, nbytes = _core._memory_layout(x)
    r = x
    while True:
        r_storage, r_offset, _ = _core._memory_layout(r)
        if r_storage == storage and r_offset == 0 and r.flags.c_contiguous and r.nbytes == nbytes:
            return r, offset
        nxt = r.base
        if not isinstance(nxt, ndarray):
            return None, 0
        r = nxt


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    x = x if isinstance(x, ndarray) else asarray(x)
    shape = tuple(x.shape) if shape is None else tuple(shape)
    strides = tuple(x.strides) if strides is None else tuple(strides)
    if len(strides) != len(shape):
        raise ValueError("mismatch in length of strides and shape")
    root, offset = _root(x)  # the whole storage, as NumPy's pointer arithmetic may reach it
    if root is None:
        if x.flags.c_contiguous:
            root, offset = x, 0
        else:
            raise ValueError("numfuse.lib.stride_tricks.as_strided: the array's memory has no "
                             "contiguous root array to view (pass a contiguous array)")
    _core.eval(root)  # the view reads the storage as it is now, as NumPy's would
    view = _core._strided_view(root, shape, x.dtype, offset, [int(s) for s in strides])
    if not writeable or not x.flags.writeable:
        view.flags.writeable = False
    return view


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """numpy.lib.stride_tricks.sliding_window_view (the same checks and messages) as a numfuse
    view: read-only unless writeable=True, as NumPy's."""
    window_shape = tuple(window_shape) if _np.iterable(window_shape) else (window_shape,)
    x = x if isinstance(x, ndarray) else asarray(x)
    if any(int(w) < 0 for w in window_shape):
        raise ValueError("`window_shape` cannot contain negative values")
    if axis is None:
        axis = tuple(range(x.ndim))
        if len(window_shape) != len(axis):
            raise ValueError(f"Since axis is `None`, must provide window_shape for all dimensions "
                             f"of `x`; got {len(window_shape)} window_shape elements and `x.ndim` "
                             f"is {x.ndim}.")
    else:
        axis = normalize_axis_tuple(axis, x.ndim, allow_duplicate=True)
        if len(window_shape) != len(axis):
            raise ValueError(f"Must provide matching length window_shape and axis; got "
                             f"{len(window_shape)} window_shape elements and {len(axis)} axes "
                             f"elements.")
    out_strides = tuple(x.strides) + tuple(x.strides[ax] for ax in axis)
    trimmed = list(x.shape)
    for ax, dim in zip(axis, window_shape):
        if trimmed[ax] < dim:
            raise ValueError("window shape cannot be larger than input array shape")
        trimmed[ax] -= dim - 1
    return as_strided(x, strides=out_strides, shape=tuple(trimmed) + window_shape,
                      writeable=writeable)
