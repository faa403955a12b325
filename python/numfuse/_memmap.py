"""numfuse.memmap: an array whose memory is a file mapped into the host's memory (numpy.memmap).

NumPy opens and maps the file (its modes, offsets, shapes and errors are NumPy's); the numfuse
array is a CPU array over that very mapping (python/src/bind_memmap.cpp holds the mapping's
buffer while any view of it lives), so reads see the file and writes reach it with no copy.
numfuse writes are lazy: a write into the memmap is evaluated at once (__setitem__ and the
in-place operators do), and flush() and the memmap's deletion evaluate anything still pending
(a write through another view, out=) before NumPy's flush pushes the pages to the file.

A memmap always lives on the CPU, whatever the default device: its memory is the mapping.
numfuse.asarray(m, device="cuda") copies it to a GPU; writing the result back is
m[...] = device_array (docs/decisions.md).
"""
import mmap

import numpy as _np

from . import _core
from ._core import ndarray
from ._creation import asarray

__all__ = ["memmap"]


class memmap(ndarray):
    """memmap(filename, dtype=uint8, mode='r+', offset=0, shape=None, order='C'): NumPy's
    arguments and semantics; a numfuse CPU array over the mapped file."""

    def __init__(self, filename, dtype=_np.uint8, mode="r+", offset=0, shape=None, order="C"):
        host = _np.memmap(filename, dtype=dtype, mode=mode, offset=offset, shape=shape,
                          order=order)
        mapping = host._mmap
        # NumPy maps from the allocation granularity below `offset` (numpy/_core/memmap.py)
        start = host.offset - host.offset % mmap.ALLOCATIONGRANULARITY
        raw = _core._wrap_host_memory(mapping, _np.uint8)
        ndarray.__init__(self, host.shape, host.dtype, buffer=raw, offset=host.offset - start,
                         strides=host.strides)
        if not raw.flags.writeable:
            self.flags.writeable = False
        self._host = host
        self.filename = host.filename
        self.offset = host.offset
        self.mode = host.mode

    def flush(self):
        """Computes pending writes into the mapping, then writes the pages to the file."""
        _core.eval(self)
        self._host.flush()

    def __setitem__(self, key, value):
        ndarray.__setitem__(self, key, _on_cpu(value))
        _core.eval(self)

    def __del__(self):
        if "_host" not in self.__dict__:  # NumPy refused the arguments: nothing was mapped
            return
        try:
            _core.eval(self)
        except Exception:  # noqa: BLE001  (a destructor must not raise; NumPy's cannot fail here)
            pass

    def __repr__(self):
        _core.eval(self)
        return repr(self._host)  # NumPy's repr of the same memory (memmap([...], dtype=...))


def _on_cpu(value):
    """A GPU operand written into the mapping comes to the host first (the explicit write-back
    of a memmap read into device memory)."""
    if isinstance(value, ndarray) and value.device != "cpu":
        return asarray(value, device="cpu")
    return value


def _in_place(name):
    op = getattr(ndarray, name)

    def method(self, other):
        res = op(self, _on_cpu(other))
        _core.eval(self)
        return res
    method.__name__ = name
    return method


for _name in ("__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
              "__ipow__", "__imatmul__", "__iand__", "__ior__", "__ixor__", "__ilshift__",
              "__irshift__"):
    if hasattr(ndarray, _name):
        setattr(memmap, _name, _in_place(_name))

