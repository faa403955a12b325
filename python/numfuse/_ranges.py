"""Creation functions composed of the primitives and shape functions: ranges, grids and
triangles (NumPy's names). Above _creation and _shape in the package's layers."""
import builtins
import operator

import numpy as _np

from ._creation import arange, asarray, asarrays, device_of_like, zeros
from ._shape import broadcast_arrays, moveaxis
from ._ufuncs import _where, floor, power

__all__ = ["linspace", "logspace", "meshgrid", "tri", "tril", "triu", "diag", "diagflat"]


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start, stop = asarray(start, device=device), asarray(stop, device=device)
    div = (num - 1) if endpoint else num
    dt = _np.result_type(start.dtype, stop.dtype, float)
    delta = stop.astype(dt) - start.astype(dt)
    idx = arange(0, num, dtype=dt, device=start.device).reshape((-1,) + (1,) * delta.ndim)
    step = delta / div if div > 0 else _np.nan
    if div > 0:
        y = idx * step + start
    else:
        y = idx * delta + start
    if endpoint and num > 1:
        y[-1, ...] = stop
    if axis != 0:
        y = moveaxis(y, 0, axis)
    out_dtype = dt if dtype is None else _np.dtype(dtype)
    if _np.issubdtype(out_dtype, _np.integer):
        y = floor(y)
    y = y.astype(out_dtype, copy=False)
    return (y, step) if retstep else y


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, *, device=None):
    y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis, device=device)
    out = power(base, y)
    return out if dtype is None else out.astype(dtype, copy=False)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    arrays = [x.reshape((1,) * i + (-1,) + (1,) * (ndim - i - 1))
              for i, x in enumerate(asarrays(xi))]
    if indexing == "xy" and ndim > 1:
        arrays[0] = arrays[0].reshape((1, -1) + (1,) * (ndim - 2))
        arrays[1] = arrays[1].reshape((-1, 1) + (1,) * (ndim - 2))
    if not sparse:
        arrays = broadcast_arrays(*arrays)
    if copy:
        arrays = [a.copy() for a in arrays]
    return tuple(arrays)


def tri(N, M=None, k=0, dtype=float, *, like=None, device=None):
    M = N if M is None else M
    device = device_of_like(device, like)
    # The row and column numbers as NumPy's tri makes them (host aranges of N and M elements, in
    # its smallest integer types): its results and errors for float, huge or odd N, M and k.
    rows = _np.arange(N, dtype=_min_int(0, N))
    cols = _np.arange(-k, M - k, dtype=_min_int(-k, M - k))
    rows = asarray(rows, device=device).reshape(-1, 1)
    cols = asarray(cols, device=device).reshape(1, -1)
    return (rows >= cols).astype(dtype, copy=False)


def _min_int(low, high):
    """NumPy's twodim_base._min_int: the smallest of int8..int64 holding [low, high]."""
    for t in (_np.int8, _np.int16, _np.int32):
        if high <= _np.iinfo(t).max and low >= _np.iinfo(t).min:
            return t
    return _np.int64


def tril(m, k=0):
    m = asarray(m)
    mask = tri(*m.shape[-2:], k=k, dtype=builtins.bool, device=m.device)
    return _where(mask, m, zeros(1, m.dtype, device=m.device))


def triu(m, k=0):
    m = asarray(m)
    mask = tri(*m.shape[-2:], k=k - 1, dtype=builtins.bool, device=m.device)
    return _where(mask, zeros(1, m.dtype, device=m.device), m)


def diag(v, k=0):
    v = asarray(v)
    if v.ndim == 1:
        n = v.shape[0] + builtins.abs(k)
        out = zeros((n, n), v.dtype, device=v.device)
        flat = out.reshape(-1)
        start = k if k >= 0 else -k * n
        flat[start:start + (n - builtins.abs(k)) * (n + 1):n + 1] = v
        return out
    if v.ndim == 2:
        return v.diagonal(k).copy()
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    return diag(asarray(v).ravel(), k)
