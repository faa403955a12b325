"""The cuda.* names a kernel uses (Numba's): grid, threadIdx, syncthreads, shared.array, atomic...

One object for each name serves both executions: the translator recognises the object (by
identity) and emits its CUDA C++; the simulator runs the kernel's Python, where the same object
reads the simulated thread's indices from ``STATE`` (set by _simulator for each thread it runs).
Called outside a kernel they raise, as Numba's do.
"""
import numpy as np


class _State:
    """The simulated thread now running (one Python thread runs all simulated threads)."""
    __slots__ = ("tid", "bid", "bdim", "gdim", "block", "shared_index", "dynamic")

    def __init__(self):
        self.tid = None


STATE = _State()


def _state():
    if STATE.tid is None:
        raise RuntimeError("cuda intrinsics (threadIdx, grid, syncthreads, shared.array...) can only "
                           "be used inside a kernel")
    return STATE


class Dim3:
    """cuda.threadIdx, blockIdx, blockDim, gridDim: .x .y .z of the running thread."""

    def __init__(self, name, field):
        self.name, self._field = name, field

    @property
    def x(self):
        return getattr(_state(), self._field)[0]

    @property
    def y(self):
        return getattr(_state(), self._field)[1]

    @property
    def z(self):
        return getattr(_state(), self._field)[2]

    def __repr__(self):
        return f"<cuda.{self.name}>"


threadIdx = Dim3("threadIdx", "tid")
blockIdx = Dim3("blockIdx", "bid")
blockDim = Dim3("blockDim", "bdim")
gridDim = Dim3("gridDim", "gdim")
warpsize = 32


def grid(ndim):
    """The absolute position of the thread in the grid: an int (ndim 1) or a tuple."""
    s = _state()
    pos = tuple(s.bid[k] * s.bdim[k] + s.tid[k] for k in range(ndim))
    return pos[0] if ndim == 1 else pos


def gridsize(ndim):
    """The number of threads of the grid along each dimension: an int (ndim 1) or a tuple."""
    s = _state()
    size = tuple(s.gdim[k] * s.bdim[k] for k in range(ndim))
    return size[0] if ndim == 1 else size


def syncthreads():
    """A barrier of the block. In the simulator, the kernel is rewritten so that this call is a
    ``yield`` (see _simulator): reaching this function means a call the rewrite did not see."""
    raise RuntimeError("cuda.syncthreads() can only be called as a statement of the kernel itself "
                       "in the simulator (not in a device function or inside an expression)")


def threadfence():
    """Memory fence (nothing to do in the simulator: its threads run one at a time)."""
    _state()


threadfence_block = threadfence
threadfence_system = threadfence


def _shared_array(shape, dtype):
    """cuda.shared.array: one array per block, the same for all its threads."""
    s = _state()
    if shape == 0 or shape == (0,):  # dynamic shared memory: the launch's shared_bytes
        return s.dynamic.view(dtype)
    k = s.shared_index
    s.shared_index = k + 1
    arrays = s.block
    if k == len(arrays):  # the first thread of the block to reach this declaration
        arrays.append(np.zeros(shape, dtype=dtype))
    return arrays[k]


def _local_array(shape, dtype):
    """cuda.local.array: private to the thread."""
    _state()
    return np.zeros(shape, dtype=dtype)


def _const_array_like(arr):
    """cuda.const.array_like: a read-only copy (constant memory on the GPU)."""
    out = np.array(arr)
    out.flags.writeable = False
    return out


class _Space:
    """A namespace of plain functions (not methods: the translator finds them by identity, and
    a bound method is a new object at each attribute access)."""

    def __init__(self, **functions):
        self.__dict__.update(functions)


shared = _Space(array=_shared_array)
local = _Space(array=_local_array)
const = _Space(array_like=_const_array_like)


def _index(idx):
    return idx if isinstance(idx, tuple) else (idx,)


class _Atomic:  # staticmethods: cuda.atomic.add is the same function object at every access
    """cuda.atomic: read-modify-write returning the old value (the simulator's threads run one
    at a time, so a plain read and write is atomic there)."""

    @staticmethod
    def add(ary, idx, val):
        old = ary[_index(idx)]
        ary[_index(idx)] = old + val
        return old

    @staticmethod
    def sub(ary, idx, val):
        old = ary[_index(idx)]
        ary[_index(idx)] = old - val
        return old

    @staticmethod
    def max(ary, idx, val):
        old = ary[_index(idx)]
        ary[_index(idx)] = max(old, val)
        return old

    @staticmethod
    def min(ary, idx, val):
        old = ary[_index(idx)]
        ary[_index(idx)] = min(old, val)
        return old

    @staticmethod
    def cas(ary, idx, old, val):
        cur = ary[_index(idx)]
        if cur == old:
            ary[_index(idx)] = val
        return cur

    @staticmethod
    def exch(ary, idx, val):
        old = ary[_index(idx)]
        ary[_index(idx)] = val
        return old


atomic = _Atomic()
