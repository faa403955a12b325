"""Shape and joining functions under NumPy's names, composed over C++ views, empty() plus slice
assignment, and advanced indexing (numfuse._indexing). Shape maths and argument checks run
on the host with NumPy's own helpers, so that errors read as NumPy's do."""
import builtins
import itertools
import operator

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from . import _core
from ._core import ndarray
from ._creation import array, asarray, asarrays, empty, follows_operands

__all__ = [
    "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "squeeze", "expand_dims",
    "broadcast_to", "broadcast_arrays", "broadcast_shapes", "atleast_1d", "atleast_2d",
    "atleast_3d", "concatenate", "concat", "stack", "unstack", "vstack", "hstack", "dstack",
    "column_stack", "split", "array_split", "hsplit", "vsplit", "dsplit", "flip", "fliplr",
    "flipud", "roll", "tile", "repeat", "pad", "rot90", "permute_dims",
]

_ALL = slice(None)
_REV = slice(None, None, -1)


def _shape_tuple(shape):
    """A shape argument (an int or a sequence of them) as a tuple, with NumPy's errors (bools
    refused, a 1-d array read as a sequence, a 0-d one as an int)."""
    return tuple(_core._shape(shape))


# ---- views ----------------------------------------------------------------------------------

def reshape(a, /, shape, order="C", *, copy=None):
    a = asarray(a)
    if order == "A":
        order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    if copy:
        a = a.copy(order="F" if order == "F" else "C")
    elif copy is False:
        v = (a.T if order == "F" else a).view()
        try:
            s = a.shape if shape is None else _shape_tuple(shape)  # reshape(None): as it is
            v.shape = s[::-1] if order == "F" else s
        except AttributeError:
            raise ValueError("Unable to avoid creating a copy while reshaping.") from None
        return v.T if order == "F" else v
    return a.reshape(shape, order=order)


def ravel(a, order="C"):
    a = asarray(a)
    if order == "A":
        order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    if order == "K":  # memory order: axes by decreasing stride (reversed axes stay reversed)
        perm = sorted(range(a.ndim), key=lambda i: -builtins.abs(a.strides[i]))
        return a.transpose(perm).ravel() if a.ndim else a.ravel()
    return a.ravel(order)


def transpose(a, axes=None):
    a = asarray(a)
    return a.transpose() if axes is None else a.transpose(tuple(axes))


permute_dims = transpose


def swapaxes(a, axis1, axis2):
    return asarray(a).swapaxes(axis1, axis2)


def moveaxis(a, source, destination):
    a = asarray(a)
    source = normalize_axis_tuple(source, a.ndim, "source")
    destination = normalize_axis_tuple(destination, a.ndim, "destination")
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return a.transpose(order)


def rollaxis(a, axis, start=0):
    a = asarray(a)
    n = a.ndim
    axis = normalize_axis_index(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise _np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start - n if start < 0 else start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return a.transpose(axes)


def squeeze(a, axis=None):
    return asarray(a).squeeze(axis)


def expand_dims(a, axis):
    a = asarray(a)
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    out_ndim = len(axis) + a.ndim
    axis = normalize_axis_tuple(axis, out_ndim)
    dims = iter(a.shape)
    return a.reshape(tuple(1 if d in axis else next(dims) for d in range(out_ndim)))


def _shape_str(shape):
    return "(" + ",".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def broadcast_to(array, shape, subok=False):
    a = asarray(array)
    shape = _shape_tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    if any(s >= 2 ** 63 for s in shape):
        raise ValueError("Maximum allowed dimension exceeded")
    if a.ndim > len(shape):
        raise ValueError("input operand has more dimensions than allowed by the axis remapping")
    for s, t in zip(a.shape[::-1], shape[::-1]):
        if s != 1 and s != t:
            raise ValueError("operands could not be broadcast together with remapped shapes "
                             f"[original->remapped]: {_shape_str(a.shape)}  and requested shape "
                             f"{_shape_str(shape)}")
    return _core._broadcast_to(a, list(shape))


broadcast_shapes = _np.broadcast_shapes


def broadcast_arrays(*args, subok=False):
    arrs = asarrays(args)
    shape = _np.broadcast_shapes(*(a.shape for a in arrs))
    return tuple(a if a.shape == shape else broadcast_to(a, shape) for a in arrs)


def _one_or_tuple(res):
    return res[0] if len(res) == 1 else tuple(res)


def atleast_1d(*arys):
    res = []
    for a in arys:
        a = asarray(a)
        res.append(a.reshape(1) if a.ndim == 0 else a)
    return _one_or_tuple(res)


def atleast_2d(*arys):
    res = []
    for a in arys:
        a = asarray(a)
        if a.ndim == 0:
            a = a.reshape(1, 1)
        elif a.ndim == 1:
            a = a[None, :]
        res.append(a)
    return _one_or_tuple(res)


def atleast_3d(*arys):
    res = []
    for a in arys:
        a = asarray(a)
        if a.ndim == 0:
            a = a.reshape(1, 1, 1)
        elif a.ndim == 1:
            a = a[None, :, None]
        elif a.ndim == 2:
            a = a[:, :, None]
        res.append(a)
    return _one_or_tuple(res)


def flip(m, axis=None):
    m = asarray(m)
    if axis is None:
        return m[(_REV,) * m.ndim]
    axis = normalize_axis_tuple(axis, m.ndim)
    return m[tuple(_REV if d in axis else _ALL for d in range(m.ndim))]


def fliplr(m):
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return m[:, ::-1]


def flipud(m):
    m = asarray(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return m[::-1, ...]


def rot90(m, k=1, axes=(0, 1)):
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    m = asarray(m)
    if axes[0] == axes[1] or builtins.abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim or axes[1] < -m.ndim:
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    # How k is read changed between NumPy versions (k %= 4, later int(k) % 4): the installed
    # NumPy decides what it refuses, on a 2x2 stand-in.
    _np.rot90(_np.empty((2, 2)), k)
    try:
        k %= 4
    except TypeError:  # a string NumPy accepted: the newer int(k)
        k = int(k) % 4
    if k == 0:
        return m[:]
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    perm = _np.arange(0, m.ndim)  # indexed by the axes as NumPy's rot90 does (its errors)
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    perm = [int(p) for p in perm]
    if k == 1:
        return flip(m, axes[1]).transpose(perm)
    return flip(m.transpose(perm), axes[1])


# ---- joining --------------------------------------------------------------------------------

def _check_sequence(arrays):
    if not hasattr(arrays, "__getitem__"):
        raise TypeError('arrays to stack must be passed as a "sequence" type such as list or tuple.')


def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("'out' must be an array")
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, "
                        "but both were provided.")
    arrs = asarrays(arrays)
    if not arrs:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrs = [a.ravel() for a in arrs]
        axis = 0
    first = arrs[0]
    if first.ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis_index(_core._axis(axis), first.ndim)  # NumPy's axis converter
    for i, a in enumerate(arrs[1:], 1):
        if a.ndim != first.ndim:
            raise ValueError("all the input arrays must have same number of dimensions, but the "
                             f"array at index 0 has {first.ndim} dimension(s) and the array at "
                             f"index {i} has {a.ndim} dimension(s)")
        for d in range(first.ndim):
            if d != axis and a.shape[d] != first.shape[d]:
                raise ValueError("all the input array dimensions except for the concatenation axis "
                                 f"must match exactly, but along dimension {d}, the array at index 0 "
                                 f"has size {first.shape[d]} and the array at index {i} has size "
                                 f"{a.shape[d]}")
    shape = list(first.shape)
    shape[axis] = builtins.sum(a.shape[axis] for a in arrs)
    if out is not None:
        if tuple(out.shape) != tuple(shape):
            raise ValueError("Output array is the wrong shape")
        dt = out.dtype
    else:
        dt = _np.dtype(dtype) if dtype is not None else _np.result_type(*(a.dtype for a in arrs))
    for a in arrs:
        if not _np.can_cast(a.dtype, dt, casting):
            raise TypeError(f"Cannot cast array data from {a.dtype!r} to {dt!r} according to the "
                            f"rule '{casting}'")
    res = out if out is not None else empty(shape, dt, device=first.device)
    lead = (_ALL,) * axis
    start = 0
    for a in arrs:
        n = a.shape[axis]
        res[lead + (slice(start, start + n),)] = a
        start += n
    return res


concat = concatenate


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    _check_sequence(arrays)
    arrs = asarrays(arrays)
    if not arrs:
        raise ValueError("need at least one array to stack")
    if len({a.shape for a in arrs}) != 1:
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis_index(operator.index(axis), arrs[0].ndim + 1)
    key = (_ALL,) * axis + (None,)
    return concatenate([a[key] for a in arrs], axis=axis, out=out, dtype=dtype, casting=casting)


def unstack(x, /, *, axis=0):
    x = asarray(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    return tuple(moveaxis(x, axis, 0))


def _as_tuple(res):
    return res if isinstance(res, tuple) else (res,)


@follows_operands
def vstack(tup, *, dtype=None, casting="same_kind"):
    _check_sequence(tup)
    return concatenate(_as_tuple(atleast_2d(*tup)), 0, dtype=dtype, casting=casting)


@follows_operands
def hstack(tup, *, dtype=None, casting="same_kind"):
    _check_sequence(tup)
    arrs = _as_tuple(atleast_1d(*tup))
    axis = 0 if arrs and arrs[0].ndim == 1 else 1
    return concatenate(arrs, axis, dtype=dtype, casting=casting)


@follows_operands
def dstack(tup):
    _check_sequence(tup)
    return concatenate(_as_tuple(atleast_3d(*tup)), 2)


@follows_operands
def column_stack(tup):
    _check_sequence(tup)
    arrs = []
    for v in tup:
        a = asarray(v)
        arrs.append(atleast_2d(a).T if a.ndim < 2 else a)
    return concatenate(arrs, 1)


# ---- splitting ------------------------------------------------------------------------------

def array_split(ary, indices_or_sections, axis=0):
    ary = asarray(ary)
    total = ary.shape[axis]
    try:  # NumPy's test: a sequence of split points if it has a length (bounds read as slices)
        points = [0] + list(indices_or_sections) + [total]
        sections = len(points) - 1
    except TypeError:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extras = divmod(total, sections)
        sizes = [0] + extras * [each + 1] + (sections - extras) * [each]
        points = list(itertools.accumulate(sizes))
    swapped = ary.swapaxes(axis, 0)
    return [swapped[points[i]:points[i + 1]].swapaxes(axis, 0) for i in range(sections)]


def split(ary, indices_or_sections, axis=0):
    ary = asarray(ary)
    try:
        len(indices_or_sections)
    except TypeError:
        sections = indices_or_sections
        if ary.shape[axis] % sections:
            raise ValueError("array split does not result in an equal division") from None
    return array_split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    ary = asarray(ary)
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    ary = asarray(ary)
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    ary = asarray(ary)
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


# ---- repeating and moving -------------------------------------------------------------------

def roll(a, shift, axis=None):
    a = asarray(a)
    if axis is None:
        return roll(a.ravel(), shift, 0).reshape(a.shape)
    axis = normalize_axis_tuple(axis, a.ndim, allow_duplicate=True)
    b = _np.broadcast(_np.asarray(shift), axis)
    if b.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    shifts = {ax: 0 for ax in range(a.ndim)}
    for sh, ax in b:
        shifts[ax] += int(sh)
    # Each rolled axis splits into two blocks that trade places: one copy of every block.
    pairs = []
    for ax, s in shifts.items():
        n = a.shape[ax]
        s = s % n if n else 0
        if s == 0:
            pairs.append([(_ALL, _ALL)])
        else:
            pairs.append([(slice(None, -s), slice(s, None)), (slice(-s, None), slice(None, s))])
    res = empty(a.shape, a.dtype, device=a.device)
    for combo in itertools.product(*pairs):
        src = tuple(p[0] for p in combo)
        dst = tuple(p[1] for p in combo)
        res[dst] = a[src]
    return res


def tile(A, reps):
    try:
        tup = tuple(_core._index(r) for r in reps)  # NumPy repeats each: int64
    except TypeError:
        tup = (_core._index(reps),)
    d = len(tup)
    A = asarray(A)
    if all(x == 1 for x in tup):
        return array(A, copy=True, ndmin=d)
    c = A.reshape((1,) * (d - A.ndim) + A.shape) if A.ndim < d else A
    tup = (1,) * (c.ndim - d) + tup
    # (s0, s1) tiled (t0, t1) is a broadcast view (t0, s0, t1, s1) copied once and reshaped.
    inter = [x for s in c.shape for x in (1, s)]
    big = [x for s, t in zip(c.shape, tup) for x in (t, s)]
    out = broadcast_to(c.reshape(inter), big).copy()
    return out.reshape(tuple(s * t for s, t in zip(c.shape, tup)))


def repeat(a, repeats, axis=None):
    a = asarray(a)
    if axis is None:
        a, axis = a.ravel(), 0
    else:
        axis = normalize_axis_index(_core._axis(axis), a.ndim)  # NumPy's axis converter
    reps = _np.asarray(repeats)
    if reps.dtype.kind not in "biu":
        if isinstance(repeats, (ndarray, _np.ndarray)):  # arrays cast safely; Python floats truncate
            raise TypeError(f"Cannot cast array data from {reps.dtype!r} to dtype('int64') "
                            "according to the rule 'safe'")
        reps = reps.astype(_np.intp)
    elif reps.dtype == _np.uint64 and not isinstance(repeats, (ndarray, _np.ndarray)):
        raise OverflowError("Python int too large to convert to C long")  # NumPy reads intp
    n = a.shape[axis]
    if reps.size == 1 and reps.ndim <= 1:
        r = int(reps.reshape(()))
        if r < 0:
            raise ValueError("negative dimensions are not allowed")
        # Each element once along a new axis, broadcast r times, then merged: one copy.
        b = a.reshape(a.shape[:axis + 1] + (1,) + a.shape[axis + 1:])
        b = broadcast_to(b, a.shape[:axis + 1] + (r,) + a.shape[axis + 1:]).copy()
        return b.reshape(a.shape[:axis] + (n * r,) + a.shape[axis + 1:])
    if reps.ndim > 1 or reps.shape[0] != n:
        raise ValueError(f"operands could not be broadcast together with shape ({n},) ({reps.size},)")
    if (reps < 0).any():
        raise ValueError("repeats may not contain negative values.")
    return a[(_ALL,) * axis + (asarray(_np.repeat(_np.arange(n), reps), device=a.device),)]


# ---- padding --------------------------------------------------------------------------------

def _as_pairs(x, ndim, as_index=False):
    """NumPy's forms of pad widths and values: n, (n,), (before, after), ((b, a),) * ndim."""
    if x is None:
        return ((None, None),) * ndim
    x = _np.array(x)
    if as_index:
        x = _np.round(x).astype(_np.intp, copy=False)
    if x.ndim < 3:
        if x.size == 1:
            x = x.ravel()
            if as_index and x < 0:
                raise ValueError("index can't contain negative values")
            return ((x[0], x[0]),) * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            if as_index and (x[0] < 0 or x[1] < 0):
                raise ValueError("index can't contain negative values")
            return ((x[0], x[1]),) * ndim
    if as_index and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return _np.broadcast_to(x, (ndim, 2)).tolist()


_INDEX_MODES = ("edge", "wrap", "reflect", "symmetric")


def pad(array, pad_width, mode="constant", **kwargs):
    a = asarray(array)
    widths = [(int(b), int(e)) for b, e in _as_pairs(pad_width, a.ndim, as_index=True)]
    if callable(mode):
        raise NotImplementedError("numfuse.pad: a callable mode is not supported")
    allowed = {"constant": {"constant_values"}, "empty": set(), "edge": set(), "wrap": set(),
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}}
    for m in ("linear_ramp", "maximum", "mean", "median", "minimum"):
        allowed[m] = None
    if mode not in allowed:
        raise ValueError(f"mode '{mode}' is not supported")
    if allowed[mode] is None:
        raise NotImplementedError(f"numfuse.pad: mode '{mode}' is not implemented yet")
    unsupported = set(kwargs) - allowed[mode]
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    new_shape = tuple(s + b + e for s, (b, e) in zip(a.shape, widths))
    if mode in ("constant", "empty"):
        out = empty(new_shape, a.dtype, device=a.device)
        centre = tuple(slice(b, b + s) for s, (b, _) in zip(a.shape, widths))
        out[centre] = a
        if mode == "empty":
            return out
        values = _as_pairs(kwargs.get("constant_values", 0), a.ndim)
        # Axis by axis as NumPy does: the pads of a later axis cover the corners.
        for ax, ((b, e), (vb, ve)) in enumerate(zip(widths, values)):
            roi = tuple(_ALL if d <= ax else centre[d] for d in range(a.ndim))
            lead = roi[:ax]
            rest = roi[ax + 1:]
            if b:
                out[lead + (slice(0, b),) + rest] = vb
            if e:
                out[lead + (slice(new_shape[ax] - e, None),) + rest] = ve
        return out
    if mode in ("reflect", "symmetric") and kwargs.get("reflect_type", "even") != "even":
        raise NotImplementedError("numfuse.pad: reflect_type='odd' is not implemented yet")
    # Index modes are separable: each axis reads its source positions, found by padding a
    # range of positions on the host (exactly NumPy's 1-d rule), through one take per axis.
    out = a
    for ax, (b, e) in enumerate(widths):
        if not b and not e:
            continue
        if a.shape[ax] == 0:
            raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant' "
                             "or 'empty'")
        idx = _np.pad(_np.arange(a.shape[ax]), (b, e), mode=mode)
        out = out[(_ALL,) * ax + (asarray(idx, device=a.device),)]
    return out if out is not a else a.copy()
