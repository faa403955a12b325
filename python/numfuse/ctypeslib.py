"""numfuse.ctypeslib: numpy.ctypeslib for numfuse arrays.

as_ctypes of a CPU array is a ctypes object over the array's own memory (NumPy's, through
__array_interface__; a pending array is computed first). A GPU array has no host memory for
ctypes: TypeError. as_array copies the ctypes memory into a new numfuse array on the default
device: numfuse memory cannot be another object's memory, so writes through the ctypes object
later do not reach it (numpy.ctypeslib.as_array shares instead). load_library, ndpointer,
c_intp and as_ctypes_type are NumPy's own.
"""
import numpy as _np
import numpy.ctypeslib as _npc

from ._core import ndarray
from ._creation import asarray

__all__ = ["load_library", "ndpointer", "c_intp", "as_ctypes", "as_array", "as_ctypes_type"]

load_library, ndpointer, c_intp, as_ctypes_type = (
    _npc.load_library, _npc.ndpointer, _npc.c_intp, _npc.as_ctypes_type)


def as_ctypes(obj):
    if isinstance(obj, ndarray) and obj.device != "cpu":
        raise TypeError(f"as_ctypes: the array is on {obj.device}; ctypes reaches host memory "
                        "only (numfuse.asnumpy(a) first, or an array on the CPU)")
    return _npc.as_ctypes(obj)


def as_array(obj, shape=None):
    """A numfuse array holding a copy of the ctypes array or pointer's values (see above)."""
    if isinstance(obj, ndarray):
        return obj if shape is None else obj.reshape(shape)
    return asarray(_np.array(_npc.as_array(obj, shape), copy=True))
