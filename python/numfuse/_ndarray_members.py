"""ndarray members NumPy has and the C++ class lacks: byteswap, choose, resize (in place),
setflags, trace, flat, __setstate__ and NumPy's pickle state, and __array_interface__ (CPU).
_methods.py attaches them from METHODS.
"""
import sys
import weakref

import numpy as _np

from . import _core
from ._construction import empty_fortran, trace as _trace
from ._creation import asarray, asnumpy, empty, zeros
from ._editing import choose as _choose
from ._flatiter import FLAT

__all__ = []

_UNSIGNED = {1: _np.uint8, 2: _np.uint16, 4: _np.uint32, 8: _np.uint64}


# ---- byteswap ---------------------------------------------------------------------------------

def _swapped(u):
    """The bytes of each element of unsigned integer array u in reverse order (shifts and masks)."""
    n = u.dtype.itemsize
    out = None
    for i in range(n):
        byte = (u >> (8 * i)) & 0xFF
        part = byte << (8 * (n - 1 - i))
        out = part if out is None else out | part
    return out.astype(u.dtype, copy=False)


def _parts(a):
    """Arrays of one real component each, whose bytes are swapped separately (complex: both)."""
    return (a.real, a.imag) if a.dtype.kind == "c" else (a,)


def byteswap(self, inplace=False):
    if self.dtype.itemsize == 1 or (self.dtype.kind == "c" and self.dtype.itemsize == 2):
        return self if inplace else self.copy()
    target = self if inplace else empty(self.shape, self.dtype, device=self.device)
    if self.device == "cpu":
        # Host memory: NumPy's own byte swap in place, through shared views (the fused shifts and
        # masks below ran 7x slower than it on the CPU; on a GPU they are one kernel).
        host = asnumpy(target, order="K")
        if target is not self:
            host[...] = asnumpy(self, order="K")
        host.byteswap(inplace=True)
        return target
    for src, dst in zip(_parts(self), _parts(target)):
        unsigned = _UNSIGNED[src.dtype.itemsize]
        dst.view(unsigned)[...] = _swapped(src.view(unsigned))
    return target


# ---- resize in place ---------------------------------------------------------------------------

def _refcount_baseline():
    """References to self inside resize() when called as `a.resize(...)` with one name bound to
    `a`: measured, since it depends on the interpreter's calling convention."""
    class Probe:
        def count(self):
            return sys.getrefcount(self)
    p = Probe()
    return p.count()


_BASELINE = _refcount_baseline()


def resize(self, *new_shape, refcheck=True):
    if len(new_shape) == 1 and (new_shape[0] is None or isinstance(new_shape[0], (tuple, list))):
        new_shape = () if new_shape[0] is None else tuple(new_shape[0])
    new_shape = tuple(int(n) for n in new_shape)
    if any(n < 0 for n in new_shape):
        raise ValueError("negative dimensions not allowed")
    if not (self.flags.c_contiguous or self.flags.f_contiguous):
        raise ValueError("resize only works on single-segment arrays")
    size = 1
    for n in new_shape:
        size *= n
    if size == self.size and self.flags.c_contiguous:  # NumPy relabels the shape: views too
        self.shape = new_shape
        return
    if not self.flags.owndata:
        raise ValueError("cannot resize this array: it does not own its data")
    if size != self.size and refcheck and sys.getrefcount(self) > _BASELINE:
        raise ValueError("cannot resize an array that references or is referenced\nby another "
                         "array in this way.\nUse the np.resize function or refcheck=False")
    order = "F" if self.flags.f_contiguous and not self.flags.c_contiguous else "C"
    old = self.ravel(order=order)  # the memory's order, as NumPy's resize reads it
    new = zeros(new_shape, self.dtype, device=self.device)
    keep = min(size, self.size)
    if keep:
        new.reshape(-1)[:keep] = old[:keep]
    _core._replace_contents(self, new)


# ---- flags, trace, choose ----------------------------------------------------------------------

def setflags(self, write=None, align=None, uic=None):
    if uic:
        raise ValueError("cannot set WRITEBACKIFCOPY flag to True")
    if align is not None and not align:
        pass  # numfuse arrays are always aligned; NumPy accepts align=False on aligned arrays
    if write is not None:
        self.flags.writeable = bool(write)


def trace_method(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return _trace(self, offset, axis1, axis2, dtype, out)


def choose_method(self, choices, out=None, mode="raise"):
    return _choose(self, choices, out=out, mode=mode)


# ---- pickling: NumPy's state tuple --------------------------------------------------------------

def _arrival_device(device):
    """Where an unpickled array lands: a CPU array on the CPU; a device array, as CuPy does, on
    the receiving process's current device (a Dask worker pinned to its GPU receives chunks
    from workers on other GPUs), or on the device it left when the receiver's default is the CPU."""
    if device == "cpu":
        return device
    here = _core.default_device()
    return device if here == "cpu" else here


def _reconstruct(device):
    """An empty array that __setstate__ then fills (pickle's protocol, as NumPy's _reconstruct)."""
    return empty((0,), _np.uint8, device=_arrival_device(device))


def _from_host(host, device):
    """The array pickled by __reduce_ex__(5): NumPy's unpickled array, moved to numfuse."""
    return asarray(host, device=_arrival_device(device))


def __reduce_ex__(self, protocol):
    """Protocol 5 hands the data to pickle as a NumPy array, which NumPy reduces to a PickleBuffer:
    out of band when the pickler takes buffers (dask.distributed, multiprocessing), so the bytes
    are never copied into the pickle stream; a CPU array's buffer is its own memory, a device
    array's one host copy. Protocols below 5 use NumPy's state tuple (__reduce__)."""
    if protocol < 5:
        return __reduce__(self)
    return (_from_host, (asnumpy(self, order="K"), self.device))


def __reduce__(self):
    host = asnumpy(self, order="K")
    fortran = self.flags.f_contiguous and not self.flags.c_contiguous
    state = (1, self.shape, self.dtype, fortran, host.tobytes(order="F" if fortran else "C"))
    return (_reconstruct, (self.device,), state)


def __setstate__(self, state):
    if not isinstance(state, tuple) or len(state) not in (4, 5):
        raise ValueError("__setstate__ takes a tuple of 4 or 5 items (NumPy's pickle state)")
    if len(state) == 5:
        state = state[1:]
    shape, dtype, is_fortran, data = state
    host = _np.frombuffer(data, dtype=dtype) if isinstance(data, (bytes, bytearray)) else \
        _np.asarray(data, dtype=dtype).ravel()
    shape = tuple(shape)
    if is_fortran:
        made = empty_fortran(shape, host.dtype, self.device)
        made[...] = asarray(host.reshape(shape[::-1]).T, device=self.device)
    else:
        made = asarray(host.reshape(shape), device=self.device)
    _core._replace_contents(self, made)


# ---- __array_interface__ -----------------------------------------------------------------------

# The exported host views of each array, by layout, alive as long as the array: NumPy's array
# made from the interface has the numfuse array as its base and may write into the memory at
# any time, so the export must count (Storage::host_views: pending readers are evaluated when
# recorded) for as long as that array can exist, which is at most the numfuse array's life.
_EXPORTS = {}


def _array_interface(self):
    """NumPy's array interface of a CPU array: its own memory, not a copy (a pending array is
    computed first). A device array has none (AttributeError: NumPy then calls __array__)."""
    if self.device != "cpu":
        raise AttributeError("__array_interface__: the array is on " + self.device +
                             " (numpy.asarray copies it through __array__)")
    view = self._host_view()
    layout = (_core._memory_layout(self)[:2], self.shape, self.strides, self.dtype.str)
    key = id(self)
    views = _EXPORTS.get(key)
    if views is None:
        views = _EXPORTS[key] = {}
        weakref.finalize(self, _EXPORTS.pop, key, None)
    views.setdefault(layout, view)
    return views[layout].__array_interface__


METHODS = {
    "byteswap": byteswap,
    "resize": resize,
    "setflags": setflags,
    "trace": trace_method,
    "choose": choose_method,
    "flat": FLAT,
    "__reduce__": __reduce__,
    "__reduce_ex__": __reduce_ex__,
    "__setstate__": __setstate__,
    "__array_interface__": property(_array_interface),
}
