"""The methods and attributes of NumPy's ufunc objects on numfuse's: reduce (every binary ufunc,
initial= and where=), accumulate, reduceat, outer, at, and identity, types, ntypes, signature.

The reductions and scans the core computes (sum, prod, max, min, all, any, cumsum, cumprod) keep
their C++ path (_reductions.py). Any other binary ufunc is composed of the ufunc itself:
- ops that are exactly associative (bitwise and/or/xor, logical xor, max/min families) reduce as
  a tree of halves and accumulate by recursive doubling: log2(n) lazy steps, the same values as
  NumPy's left-to-right loop (maximum, minimum, fmax and fmin accumulate in a core scan);
- every other op (subtract, divide, power, logaddexp...) folds left to right, one lazy step per
  element of the axis, as NumPy's loop does, so that floating-point results round as NumPy's.
ufunc.at is NumPy's unbuffered at: positions written several times are updated once per
occurrence, in order, in rounds (the k-th occurrence of every position in round k).
"""
import operator

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from . import _core
from ._core import ndarray
from ._creation import arange, asarray, asnumpy, empty, follows_operands, full
from ._histograms import bincount
from ._indexing import _flat_setitem, nonzero, take
from ._reductions import _ufunc_accumulate, _ufunc_reduce, _UFUNC_REDUCE, cumsum, max as _max
from ._sort import argsort
from ._shape import broadcast_to, concatenate, moveaxis, stack
from . import _ufuncs as _u  # through the module: see _indexing.py on ufunc objects in globals

__all__ = []

_NoValue = _np._NoValue
# Exactly associative and commutative: any grouping gives NumPy's values.
_ASSOCIATIVE = {"bitwise_and", "bitwise_or", "bitwise_xor", "logical_xor", "logical_and",
                "logical_or", "maximum", "minimum", "fmax", "fmin", "gcd", "lcm"}
# accumulate of these is a scan node of the core (the C++ scans take NumPy's ufunc names).
_CORE_SCANS = {"maximum", "minimum", "fmax", "fmin"}
# The dtype characters of numfuse's dtypes (NumPy's loops of other dtypes are left out of types).
_OUR_CHARS = set("?bBhHiIlLqQefdFD")


def _numpy_ufunc(self):
    return getattr(_np, self.__name__)


def _identity(self):
    return _numpy_ufunc(self).identity


def _types(self):
    return [t for t in _numpy_ufunc(self).types if set(t.replace("->", "")) <= _OUR_CHARS]


def _check_binary(self, what, message):
    if self.nin != 2:
        raise ValueError(f"{what} only supported for binary functions")
    if self.nout != 1:
        raise ValueError(message)


# ---- reduce ------------------------------------------------------------------------------------

def _tree(self, x):
    """self folded over axis 0 of x (n >= 1), as a tree of halves."""
    while x.shape[0] > 1:
        half = x.shape[0] // 2
        folded = self(x[:half], x[half:2 * half])
        x = concatenate((folded, x[2 * half:])) if x.shape[0] % 2 else folded
    return x[0]


def _loop_dtype(self, method, ndim, in_dtype, **kwargs):
    """The dtype NumPy's reduce or accumulate computes in for these arguments, found by NumPy
    itself on a stand-in of ones of the same number of dimensions: its errors (axis, dtype, no
    such loop, not reorderable) come with it."""
    standin = _np.ones((1,) * ndim, in_dtype)
    with _np.errstate(all="ignore"):
        return getattr(_numpy_ufunc(self), method)(standin, **kwargs).dtype


def _reduce_general(self, a, axis, dtype, out, keepdims, initial, where):
    name = self.__name__
    _check_binary(self, "reduce", "reduce only supported for functions returning a single value")
    a = asarray(a)
    kwargs = {"axis": axis, "dtype": dtype, "keepdims": keepdims}
    if initial is not _NoValue:
        kwargs["initial"] = initial
    loop = _loop_dtype(self, "reduce", a.ndim, a.dtype, **kwargs)
    a = a.astype(loop, copy=False)
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        axes = normalize_axis_tuple(axis, a.ndim) if a.ndim else ()
    ident = _identity(self)
    start = ident if initial is _NoValue else initial
    if where is not True and start is None:
        raise ValueError(f"reduction operation '{name}' does not have an identity, so to use a "
                         "where mask one has to specify 'initial'")
    kept = tuple(n for i, n in enumerate(a.shape) if i not in axes)

    length = 1
    for i in axes:
        length *= a.shape[i]

    def rows(v):  # the reduced axes first, flattened into one
        return moveaxis(v, axes, tuple(range(len(axes)))).reshape((length,) + kept) if axes else v[None]
    x = rows(a)
    mask = None if where is True else rows(broadcast_to(asarray(where, device=a.device), a.shape))
    if name in _ASSOCIATIVE and x.shape[0] and (mask is None or ident is not None):
        if mask is not None:  # masked-out elements become the identity: results unchanged
            x = _core.where(mask, x, full((), ident, loop, device=a.device))
        res = _tree(self, x)
        if initial is not _NoValue:
            res = self(initial, res)
    else:
        if x.shape[0] == 0 and start is None:
            raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
        # Left to right from initial, which defaults to the identity as NumPy's does
        # (hypot.reduce([-3.0]) is hypot(0, -3.0) = 3.0); masked-out elements leave the running
        # value as it is.
        acc = None
        if start is not None:
            acc = full(kept, _np.asarray(start).astype(loop, casting="unsafe"), loop, device=a.device)
        for i in range(x.shape[0]):
            step = x[i] if acc is None else self(acc, x[i])
            acc = step if mask is None else _core.where(mask[i], step, acc)
        res = acc
    res = asarray(res).astype(loop, copy=False)
    if keepdims:
        res = res.reshape(tuple(1 if i in axes else n for i, n in enumerate(a.shape)))
    if out is not None:
        target = out[0] if isinstance(out, tuple) else out
        target[...] = res
        return target
    return res


def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NoValue,
           where=True):
    if self.__name__ in _UFUNC_REDUCE:
        return _ufunc_reduce(self, array, axis, dtype, out, keepdims, initial, where)
    return _reduce_general(self, array, axis, dtype, out, keepdims, initial, where)


# ---- accumulate --------------------------------------------------------------------------------

def _scan_doubling(self, x):
    """Inclusive scan of self along axis 0 of x by recursive doubling (Hillis-Steele)."""
    step = 1
    while step < x.shape[0]:
        x = concatenate((x[:step], self(x[:-step], x[step:])))
        step *= 2
    return x


def accumulate(self, array, axis=0, dtype=None, out=None):
    name = self.__name__
    if name in ("add", "multiply"):
        return _ufunc_accumulate(self, array, axis, dtype, out)
    _check_binary(self, "accumulate",
                  "accumulate only supported for functions returning a single value")
    a = asarray(array)
    if a.ndim == 0:
        raise TypeError("cannot accumulate on a scalar")
    if axis is None or isinstance(axis, tuple) and len(axis) != 1:
        raise ValueError("accumulate does not allow multiple axes")
    axis = normalize_axis_index(operator.index(axis[0] if isinstance(axis, tuple) else axis), a.ndim)
    loop = _loop_dtype(self, "accumulate", a.ndim, a.dtype, axis=axis, dtype=dtype)
    a = a.astype(loop, copy=False)
    if name in _CORE_SCANS:  # a scan node of the core (CPU loop, CUDA scan kernels)
        res = _core.scan(name, a, axis, loop)
        if out is not None:
            target = out[0] if isinstance(out, tuple) else out
            target[...] = res
            return target
        return res
    x = moveaxis(a, axis, 0)
    if x.shape[0] == 0:
        res = x.copy()
    elif name in _ASSOCIATIVE:
        res = _scan_doubling(self, x)
    else:
        rows, acc = [], None
        for i in range(x.shape[0]):
            acc = x[i] if acc is None else self(acc, x[i])
            rows.append(acc)
        res = stack(rows)
    res = moveaxis(res, 0, axis).astype(loop, copy=False)
    if out is not None:
        target = out[0] if isinstance(out, tuple) else out
        target[...] = res
        return target
    return res


# ---- reduceat ------------------------------------------------------------------------------------

@follows_operands
def reduceat(self, array, indices, axis=0, dtype=None, out=None):
    _check_binary(self, "reduceat",
                  "reduceat only supported for functions returning a single value")
    a = asarray(array)
    axis = normalize_axis_index(operator.index(axis), a.ndim)
    idx = _np.asarray(asnumpy(indices) if isinstance(indices, ndarray) else indices)
    if idx.ndim != 1:
        raise ValueError("index array must be 1-d")
    if idx.size and idx.dtype.kind not in "iu":
        raise TypeError(f"Cannot cast array data from {idx.dtype!r} to dtype('int64') according "
                        "to the rule 'safe'")
    n = a.shape[axis]
    for i in idx:
        if i < 0 or i >= n:
            raise IndexError(f"index {i} out-of-bounds in {self.__name__}.reduceat [0, {n})")
    if a.device == "cpu":
        # Host memory: NumPy's loop over the shared view (the segment loop below costs a Python
        # iteration and a reduction per index: 1e4 segments of 1e6 elements 49 ms, NumPy 0.4 ms).
        host_idx = asnumpy(indices) if isinstance(indices, ndarray) else indices  # NumPy's own reading
        res = asarray(_numpy_ufunc(self).reduceat(asnumpy(a, order="K"), host_idx, axis=axis, dtype=dtype))
        if out is not None:
            target = out[0] if isinstance(out, tuple) else out
            target[...] = res
            return target
        return res
    x = moveaxis(a, axis, 0)
    if dtype is not None:
        x = x.astype(dtype)
    parts = []
    for k, i in enumerate(idx):
        stop = idx[k + 1] if k + 1 < len(idx) else n
        if i < stop:
            parts.append(reduce(self, x[int(i):int(stop)], axis=0, dtype=dtype))
        else:
            parts.append(x[int(i)])
    if parts:
        res = stack(parts)
    else:
        res = x[:0].astype(x.dtype)
    res = moveaxis(res, 0, axis)
    if out is not None:
        target = out[0] if isinstance(out, tuple) else out
        target[...] = res
        return target
    return res


# ---- outer ---------------------------------------------------------------------------------------

@follows_operands
def outer(self, A, B, /, **kwargs):
    if self.nin != 2:
        raise ValueError("outer product only supported for binary functions")
    a, b = asarray(A), asarray(B)
    return self(a.reshape(a.shape + (1,) * b.ndim), b, **kwargs)


# ---- at ------------------------------------------------------------------------------------------

def _apply_once(self, a, positions, values):
    """a.flat[positions] = self(a.flat[positions], values) where every position is distinct."""
    current = take(a.ravel(), positions)  # ravel again each time: it reads the last writes
    new = self(current) if values is None else self(current, values)
    _flat_setitem(a, positions, asarray(new).astype(a.dtype, copy=False))


def _at_in_rounds(self, a, positions, values):
    """NumPy's unbuffered at: round k applies the k-th occurrence of every position, so each
    position is updated once per occurrence, in order. The first remaining occurrence of each
    position is found by a scatter in reverse order (the last write wins: the first one)."""
    first_of = empty((a.size,), _np.int64, device=a.device)
    while positions.size:
        ids = arange(positions.size, device=a.device)
        first_of[positions[::-1]] = ids[::-1]
        first = take(first_of, positions) == ids
        _apply_once(self, a, positions[first], None if values is None else values[first])
        rest = _u.logical_not(first)
        positions = positions[rest]
        values = None if values is None else values[rest]


# Past this many repeats of one index, float add.at / subtract.at on a GPU sums each index's
# values at once (_at_binned_sum) instead of one round per repeat (_at_in_rounds).
_AT_ROUNDS_MAX = 16


def _most_repeats(positions):
    """How often the most repeated position occurs (one small read from the device)."""
    return int(_max(bincount(positions)))


def _at_binned_sum(self, a, positions, values):
    """add.at / subtract.at of floats with heavily repeated indices: the values of each position
    summed by bincount (in float64) and applied in one write. NumPy adds them one by one in the
    target's dtype, so the last bits may differ (as CuPy's atomic adds differ), which the exact
    rounds would avoid at a pass per repeat (1e6 values into 1000 bins: 1000 passes)."""
    touched = nonzero(bincount(positions, minlength=a.size))[0]
    parts = (values.real, values.imag) if values.dtype.kind == "c" else (values,)
    sums = [take(bincount(positions, weights=p.astype(_np.float64), minlength=a.size), touched) for p in parts]
    total = sums[0] if len(sums) == 1 else sums[0] + 1j * sums[1]
    _apply_once(self, a, touched, total.astype(a.dtype))


def _at_segmented_sum(self, a, positions, values):
    """add.at / subtract.at of integers: the order of the updates cannot change the result
    (wrapping arithmetic), so the values of each position are summed at once (a sort, a cumsum
    and its differences at the ends of the runs) and applied in one write."""
    order = argsort(positions, kind="stable")
    sorted_pos = take(positions, order)
    csum = cumsum(take(values.astype(a.dtype, copy=False), order), dtype=a.dtype)
    last = concatenate((sorted_pos[1:] != sorted_pos[:-1], asarray([True], device=a.device)))
    ends = nonzero(last)[0]
    totals = take(csum, ends)
    totals = concatenate((totals[:1], totals[1:] - totals[:-1]))
    _apply_once(self, a, take(sorted_pos, ends), totals)


def _standin(x):
    if isinstance(x, ndarray):
        return _np.zeros(1, x.dtype)
    if type(x) in (bool, int, float, complex) or x is None:
        return x
    return _np.zeros(1, _np.asarray(x).dtype)


def _host_operand(x):
    """x for NumPy on the host: a numfuse array as a NumPy array (a device one copied)."""
    return asnumpy(x, order="K") if isinstance(x, ndarray) else x


def _host_index(indices):
    """An index with its numfuse arrays as NumPy arrays (tuples of them included)."""
    if isinstance(indices, tuple):
        return tuple(_host_operand(i) for i in indices)
    return _host_operand(indices)


@follows_operands
def at(self, a, indices, b=None, /):
    if not isinstance(a, ndarray):
        raise TypeError("first operand must be a numfuse array")
    if self.nout != 1:
        raise ValueError("at only supported for functions returning a single value")
    if (b is None) != (self.nin == 1):
        raise ValueError("second operand needed for ufunc" if b is None else
                         "second operand provided when ufunc is unary")
    # NumPy's casting and type errors, from NumPy's own at on one-element stand-ins.
    args = (_np.zeros(1, a.dtype), [0]) + (() if b is None else (_standin(b),))
    _numpy_ufunc(self).at(*args)
    if not a.flags.writeable:
        raise ValueError("assignment destination is read-only")
    if a.device == "cpu":
        # The CPU's memory is the host's: NumPy's own unbuffered loop updates it in place through
        # a shared view, in NumPy's order (its rounding) and at its speed. The rounds below
        # cost a pass per repeat of the most repeated index (1e6 adds into 1000 bins: 2.5 s).
        _numpy_ufunc(self).at(asnumpy(a, order="K"), _host_index(indices),
                              *(() if b is None else (_host_operand(b),)))
        return None
    positions = asarray(arange(a.size, device=a.device).reshape(a.shape)[indices])
    values = None
    if b is not None:
        values = broadcast_to(asarray(b, device=a.device), positions.shape).ravel()
    positions = positions.ravel()
    if positions.size == 0:
        return None
    if (self.__name__ in ("add", "subtract") and a.dtype.kind in "iu" and
            _np.result_type(a.dtype, values.dtype) == a.dtype):
        _at_segmented_sum(self, a, positions, values)
    elif self.__name__ in ("add", "subtract") and a.dtype.kind in "fc" and _most_repeats(positions) > _AT_ROUNDS_MAX:
        _at_binned_sum(self, a, positions, values)
    else:
        _at_in_rounds(self, a, positions, values)
    return None


# ---- the ufunc object --------------------------------------------------------------------------

ATTRIBUTES = {
    "reduce": reduce, "accumulate": accumulate, "reduceat": reduceat, "outer": outer, "at": at,
    "identity": property(_identity), "types": property(_types),
    "ntypes": property(lambda self: len(_types(self))),
    "signature": property(lambda self: None),
}

for _name, _value in ATTRIBUTES.items():
    setattr(_core.ufunc, _name, _value)
