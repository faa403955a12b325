"""numpy.fft's helpers: fftfreq, rfftfreq, fftshift, ifftshift (lazy numfuse ops, no node of their own)."""
import operator

import numpy as _np

from ._creation import arange, asarray
from ._shape import roll

__all__ = ["fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _as_dtype(freqs, dtype):
    # The Array API's (2024.12) dtype=, which NumPy's helpers lack: a real floating type, the
    # frequencies computed in float64 as NumPy computes them, then rounded once.
    if dtype is None:
        return freqs
    dt = _np.dtype(dtype)
    if dt.kind != "f":
        raise ValueError(f"dtype must be a real floating-point data type, not {dt}")
    return freqs.astype(dt, copy=False)


def fftfreq(n, d=1.0, device=None, *, dtype=None):
    """numpy.fft.fftfreq: the sample frequencies [0, 1, ..., -(n//2), ..., -1] / (d*n)."""
    n = operator.index(n)
    k = arange(n, device=device)
    half = (n - 1) // 2 + 1
    # k for the first half, k - n for the rest: one fused elementwise expression.
    return _as_dtype((k - (k >= half) * n) * (1.0 / (n * d)), dtype)


def rfftfreq(n, d=1.0, device=None, *, dtype=None):
    """numpy.fft.rfftfreq: the sample frequencies of rfft, [0, 1, ..., n//2] / (d*n)."""
    n = operator.index(n)
    return _as_dtype(arange(n // 2 + 1, device=device) * (1.0 / (n * d)), dtype)


def _shifts(x, axes, sign):
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [sign * (dim // 2) for dim in x.shape]
    elif isinstance(axes, int) or hasattr(axes, "__index__"):
        shift = sign * (x.shape[axes] // 2)
    else:
        shift = [sign * (x.shape[ax] // 2) for ax in axes]
    return shift, axes


def fftshift(x, axes=None):
    """numpy.fft.fftshift: the zero frequency moved to the centre."""
    x = asarray(x)
    shift, axes = _shifts(x, axes, 1)
    return roll(x, shift, axes)


def ifftshift(x, axes=None):
    """numpy.fft.ifftshift: the inverse of fftshift."""
    x = asarray(x)
    shift, axes = _shifts(x, axes, -1)
    return roll(x, shift, axes)
