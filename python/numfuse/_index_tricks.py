"""NumPy's index tricks: grids (mgrid, ogrid, indices), concatenation by index (r_, c_), index
arithmetic (unravel_index, ravel_multi_index, ix_), the index sets of diagonals and triangles,
and the iteration helpers (ndenumerate, ndindex, broadcast, nditer).

Each is NumPy's algorithm over numfuse ops (arange, reshape, concatenate, nonzero), so results
are lazy and live on the default device. Checks that depend on values (an index out of bounds)
read the indices on the host, as put() does. s_, index_exp and ndindex make no arrays: they are
NumPy's own objects.
"""
import math
import operator

import numpy as _np

from ._core import ndarray
from ._creation import arange, array, asarray, asnumpy, empty, follows_operands, ones
from ._indexing import nonzero
from ._ranges import linspace, tri
from ._shape import concatenate
from . import _ufuncs as _u  # through the module: see _indexing.py on ufunc objects in globals

__all__ = ["mgrid", "ogrid", "r_", "c_", "s_", "index_exp", "ix_", "indices", "unravel_index",
           "ravel_multi_index", "diag_indices", "diag_indices_from", "tril_indices",
           "tril_indices_from", "triu_indices", "triu_indices_from", "mask_indices",
           "ndenumerate", "ndindex", "broadcast", "nditer"]

s_ = _np.s_
index_exp = _np.index_exp
ndindex = _np.ndindex


def indices(dimensions, dtype=int, sparse=False, *, device=None):
    dimensions = tuple(dimensions)
    n = len(dimensions)
    res = () if sparse else empty((n,) + dimensions, dtype, device=device)
    for i, dim in enumerate(dimensions):
        idx = arange(dim, dtype=dtype, device=device).reshape((1,) * i + (dim,) + (1,) * (n - i - 1))
        if sparse:
            res = res + (idx,)
        else:
            res[i] = idx
    return res


def _is_complex_step(step):
    return isinstance(step, (complex, _np.complexfloating))


class _Grid:
    """mgrid (dense) and ogrid (sparse): NumPy's nd_grid over numfuse's arange and indices."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self._one(key)
        size, num_list = [], [0]
        for k in key:
            start = 0 if k.start is None else k.start
            step = 1 if k.step is None else k.step
            if _is_complex_step(step):
                step = abs(step)
                size.append(int(step))
            else:
                size.append(int(math.ceil((k.stop - start) / step)))
            num_list += [start, k.stop, step]
        typ = _np.result_type(*num_list)
        if self.sparse:
            nn = [arange(s, dtype=typ) for s in size]
        else:
            nn = list(indices(size, typ)) if size else []
        for k, kk in enumerate(key):
            start = 0 if kk.start is None else kk.start
            step = 1 if kk.step is None else kk.step
            if _is_complex_step(step):
                step = int(abs(step))
                if step != 1:
                    step = (kk.stop - start) / float(step - 1)
            nn[k] = nn[k] * step + start
        if self.sparse:
            n = len(size)
            return tuple(x.reshape((1,) * k + (-1,) + (1,) * (n - k - 1)) for k, x in enumerate(nn))
        if not nn:
            return empty((0,), typ)
        return array(nn) if len(nn) > 1 else nn[0].reshape((1,) + nn[0].shape)

    @staticmethod
    def _one(key):
        start = 0 if key.start is None else key.start
        step = key.step
        if _is_complex_step(step):
            step_float = abs(step)
            step = length = int(step_float)
            if step != 1:
                step = (key.stop - start) / float(step - 1)
            typ = _np.result_type(start, key.stop, step_float)
            return arange(0, length, 1, dtype=typ) * step + start
        return arange(start, key.stop, step)

    def __len__(self):
        return 0


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


class _AxisConcatenator:
    """r_ and c_: NumPy's AxisConcatenator (its string directives included) over numfuse's
    concatenate. numfuse has no matrix class: the 'r' and 'c' directives raise."""

    def __init__(self, axis=0, ndmin=1, trans1d=-1):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    @follows_operands
    def __getitem__(self, key):
        if isinstance(key, str):
            raise NotImplementedError("numfuse has no matrix class: r_['...'] strings are not supported")
        if not isinstance(key, tuple):
            key = (key,)
        trans1d, ndmin, axis = self.trans1d, self.ndmin, self.axis
        objs, type_objs = [], []
        for k, item in enumerate(key):
            scalar = False
            if isinstance(item, slice):
                start = 0 if item.start is None else item.start
                step = 1 if item.step is None else item.step
                if _is_complex_step(step):
                    newobj = linspace(start, item.stop, num=int(abs(step)))
                else:
                    newobj = arange(start, item.stop, step)
                if ndmin > 1:
                    newobj = array(newobj, copy=None, ndmin=ndmin)
                    if trans1d != -1:
                        newobj = newobj.swapaxes(-1, trans1d)
            elif isinstance(item, str):
                if k != 0:
                    raise ValueError("special directives must be the first entry.")
                if item in ("r", "c"):
                    raise NotImplementedError("numfuse has no matrix class: the 'r' and 'c' "
                                              "directives are not supported")
                if "," in item:
                    vec = item.split(",")
                    try:
                        axis, ndmin = [int(x) for x in vec[:2]]
                        if len(vec) == 3:
                            trans1d = int(vec[2])
                        continue
                    except Exception as e:
                        raise ValueError(f"unknown special directive {item!r}") from e
                try:
                    axis = int(item)
                    continue
                except (ValueError, TypeError) as e:
                    raise ValueError("unknown special directive") from e
            elif type(item) in _np.ScalarType:
                scalar = True
                newobj = item
            else:
                item_ndim = _np.ndim(item)
                newobj = array(item, copy=None, ndmin=ndmin)
                if trans1d != -1 and item_ndim < ndmin:
                    k2 = ndmin - item_ndim
                    k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
                    axes = list(range(ndmin))
                    newobj = newobj.transpose(axes[:k1] + axes[k2:] + axes[k1:k2])
            objs.append(newobj)
            type_objs.append(item if scalar else newobj.dtype)
        if type_objs:
            final = _np.result_type(*type_objs)
            objs = [array(o, copy=None, ndmin=ndmin, dtype=final) for o in objs]
        return concatenate(tuple(objs), axis=axis)

    def __len__(self):
        return 0


r_ = _AxisConcatenator(0)
c_ = _AxisConcatenator(-1, ndmin=2, trans1d=0)


@follows_operands
def ix_(*args):
    out = []
    nd = len(args)
    for k, new in enumerate(args):
        if not isinstance(new, ndarray):
            host = _np.asarray(new)
            if host.size == 0:
                host = host.astype(_np.intp)  # [] selects nothing, as NumPy allows
            new = asarray(host)
        if new.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.dtype == _np.bool_:
            new, = nonzero(new)
        out.append(new.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1)))
    return tuple(out)


def _shape_tuple(shape):
    try:
        return tuple(operator.index(s) for s in shape)
    except TypeError:
        return (operator.index(shape),)


def _integer_indices(x, what):
    arr = x if isinstance(x, ndarray) else asarray(_np.asarray(x))
    if arr.dtype.kind not in "iu" and not (arr.dtype.kind == "b" and what == "unravel"):
        if what == "unravel" or arr.dtype.kind != "b":
            raise TypeError("only int indices permitted")
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8:
        # NumPy reads indices as intp, safely: uint64 cannot be.
        raise TypeError("Cannot cast array data from dtype('uint64') to dtype('int64') according "
                        "to the rule 'safe'")
    return arr.astype(_np.intp, copy=False)


def unravel_index(indices, shape, order="C"):
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    dims = _shape_tuple(shape)
    if any(d < 0 for d in dims):
        raise ValueError("dimensions must be non-negative")
    idx = _integer_indices(indices, "unravel")
    size = math.prod(dims)
    host = asnumpy(idx)
    bad = (host < 0) | (host >= size)
    if bad.any():
        raise ValueError(f"index {host[bad].flat[0]} is out of bounds for array with size {size}")
    out = [None] * len(dims)
    axes = range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))
    rest = idx
    for ax in axes:
        out[ax] = _u.remainder(rest, dims[ax])
        rest = _u.floor_divide(rest, dims[ax])
    return tuple(out)


@follows_operands
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    dims = _shape_tuple(dims)
    coords = [_integer_indices(c, "ravel") for c in multi_index]
    if len(coords) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims):
        raise ValueError(f"mode must be a string or a sequence of {len(dims)} strings")
    if math.prod(dims) > _np.iinfo(_np.intp).max:
        raise ValueError("invalid dims: array size defined by dims is larger than the maximum "
                         "possible size.")
    fixed = []
    for c, n, m in zip(coords, dims, modes):
        if m == "raise":
            host = asnumpy(c)
            if ((host < 0) | (host >= n)).any():
                raise ValueError("invalid entry in coordinates array")
        elif m == "wrap":
            c = _u.remainder(c, n) if n else c
        elif m == "clip":
            c = _u.minimum(_u.maximum(c, 0), n - 1)
        else:
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {m!r})")
        fixed.append(c)
    axes = range(len(dims)) if order == "C" else range(len(dims) - 1, -1, -1)
    flat = None
    for ax in axes:
        flat = fixed[ax] if flat is None else flat * dims[ax] + fixed[ax]
    if flat is None:
        raise ValueError("parameter multi_index must be a sequence of length 0")
    return flat


def diag_indices(n, ndim=2):
    idx = arange(n)
    return (idx,) * ndim


def diag_indices_from(arr):
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return (arange(arr.shape[0], device=arr.device),) * arr.ndim  # on arr's device


def tril_indices(n, k=0, m=None):
    return nonzero(tri(n, m, k=k, dtype=bool))


def triu_indices(n, k=0, m=None):
    return nonzero(_u.logical_not(tri(n, m, k=k - 1, dtype=bool)))


def tril_indices_from(arr, k=0):
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return nonzero(tri(arr.shape[-2], arr.shape[-1], k=k, dtype=bool, device=arr.device))


def triu_indices_from(arr, k=0):
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return nonzero(_u.logical_not(tri(arr.shape[-2], arr.shape[-1], k=k - 1, dtype=bool,
                                      device=arr.device)))


def mask_indices(n, mask_func, k=0):
    a = mask_func(ones((n, n), int), k)
    return nonzero(a != 0)


def _host(x):
    """An operand of the iteration helpers on the host: the memory itself for a CPU array."""
    return asnumpy(x, order="K") if isinstance(x, ndarray) else x


def ndenumerate(arr):
    """(index, value) pairs over the array's elements in C order, read on the host once."""
    return _np.ndenumerate(_np.asarray(_host(arr)))


class broadcast:
    """NumPy's broadcast object: the broadcast shape of its operands and an iterator over
    tuples of their elements (read on the host)."""

    def __init__(self, *args):
        self._b = _np.broadcast(*(_host(a) for a in args))

    def __getattr__(self, name):  # shape, ndim, nd, size, numiter, iters, index
        return getattr(self._b, name)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._b)

    def reset(self):
        self._b.reset()


def nditer(op, *args, **kwargs):
    """NumPy's nditer over the operands' host memory: read-only loops on any device; writes
    (readwrite, writeonly) go to the memory itself for CPU arrays only."""
    ops = [_host(o) for o in op] if isinstance(op, (list, tuple)) else _host(op)
    flags = kwargs.get("op_flags", args[1] if len(args) > 1 else None)
    on_device = any(isinstance(o, ndarray) and o.device != "cpu"
                    for o in (op if isinstance(op, (list, tuple)) else [op]))
    if on_device and flags is not None and any("write" in str(f) for f in _np.ravel(
            _np.asarray(flags, dtype=object))):
        raise NotImplementedError("numfuse.nditer: writing operands must be CPU arrays")
    return _np.nditer(ops, *args, **kwargs)
