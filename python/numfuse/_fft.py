"""numpy.fft's transforms: NumPy 2's argument rules, each transform one C++ node.

fft/ifft/rfft/irfft and their 2-D and n-D forms become one `_core.fft_transform` call over all
their axes (pocketfft on the CPU, cuFFT on CUDA). The normalisation is an elementwise multiply
after the node that fuses with what follows. hfft and ihfft are irfft and rfft with a conjugate
on the side of the complex spectrum, as NumPy defines them. Repeated axes in fftn (which NumPy
allows: the transform is applied twice) fall back to one call per axis, as NumPy runs them.
"""
import math
import operator
import warnings

import numpy as _np

from . import _core
from . import _ufuncs as _u
from ._core import ndarray
from ._creation import asarray

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn", "irfftn",
           "fft2", "ifft2", "rfft2", "irfft2"]

_NORMS = ("backward", "ortho", "forward")


def _check_norm(norm, swapped):
    if norm is None or norm in _NORMS:
        return "backward" if norm is None else norm
    # NumPy's two wordings: the inverse transforms fail in _swap_direction, the others later.
    sep = ", " if swapped else ","
    raise ValueError(f'Invalid norm value {norm}; should be "backward"{sep}"ortho" or "forward".')


def _scale(norm, n_total, forward):
    """The factor of NumPy's normalisation `norm` for a transform of n_total points."""
    if norm == "ortho":
        return 1.0 / math.sqrt(n_total)
    if (norm == "backward") != forward:  # backward: the inverse divides; forward: the forward does
        return 1.0 / n_total
    return 1.0


def _length(n):
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _put(result, out):
    """NumPy's out=: the right shape, a same_kind cast, the result written into it."""
    if out is None:
        return result
    if not isinstance(out, ndarray):
        raise TypeError("out must be a numfuse.ndarray")
    if tuple(out.shape) != tuple(result.shape):
        raise ValueError("output array has wrong shape.")
    if not _np.can_cast(result.dtype, out.dtype, "same_kind"):
        raise _core.UFuncTypeError(
            f"Cannot cast ufunc 'fft' output from dtype('{result.dtype}') to "
            f"dtype('{out.dtype}') with casting rule 'same_kind'")
    out[...] = result
    return out


def _run(a, kind, forward, axes, lengths, norm, out):
    n_total = math.prod(lengths)
    return _put(_core.fft_transform(a, kind, forward, list(axes), list(lengths),
                                    _scale(norm, n_total, forward)), out)


def _input(a, out):
    """The transform's input as a numfuse array: a list or NumPy `a` on out='s device when out= is
    a numfuse array (NumPy's rule for numfuse), else on the default device."""
    return asarray(a, device=out.device if isinstance(out, ndarray) and not isinstance(a, ndarray)
                   else None)


def _one(a, n, axis, norm, out, kind, forward, swapped, default_n=None):
    a = _input(a, out)
    norm = _check_norm(norm, swapped)
    if n is None:
        n = a.shape[axis] if default_n is None else default_n(a.shape[axis])
    return _run(a, kind, forward, [axis], [_length(n)], norm, out)


def fft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.fft: the 1-D discrete Fourier transform (complex64 stays complex64)."""
    return _one(a, n, axis, norm, out, "c2c", True, False)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.ifft: the 1-D inverse discrete Fourier transform."""
    return _one(a, n, axis, norm, out, "c2c", False, True)


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.rfft: the 1-D transform of real input, n//2+1 values."""
    return _one(a, n, axis, norm, out, "r2c", True, False)


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.irfft: the inverse of rfft, n = 2*(m-1) real values by default."""
    return _one(a, n, axis, norm, out, "c2r", False, True, lambda m: (m - 1) * 2)


_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.hfft: the transform of a Hermitian-symmetric signal (irfft of its conjugate)."""
    a = _input(a, out)
    norm = _SWAP[_check_norm(norm, True)]
    return _one(_u.conjugate(a), n, axis, norm, out, "c2r", False, True, lambda m: (m - 1) * 2)


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.ihfft: the inverse of hfft (the conjugate of rfft)."""
    norm = _SWAP[_check_norm(norm, True)]
    return _put(_u.conjugate(_one(a, n, axis, norm, None, "r2c", True, False)), out)


def _cook_nd_args(a, s, axes, invreal=False):
    """NumPy's rules for s= and axes= (its _cook_nd_args), deprecation warnings included."""
    shapeless = s is None
    if shapeless:
        s = list(a.shape) if axes is None else [a.shape[ax] for ax in axes]
    s = list(s)
    if axes is None:
        if not shapeless:
            warnings.warn(
                "`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy 2.0). In a "
                "future version of NumPy, this will raise an error and `s[i]` will correspond to "
                "the size along the transformed axis specified by `axes[i]`. To retain current "
                "behaviour, pass a sequence [0, ..., k-1] to `axes` for an array of dimension k.",
                DeprecationWarning, stacklevel=4)
        axes = list(range(-len(s), 0))
    axes = list(axes)
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if invreal and shapeless:
        s[-1] = (a.shape[axes[-1]] - 1) * 2
    s = [a.shape[ax] if si == -1 else si for si, ax in zip(s, axes)]
    return s, axes


def _distinct(axes, ndim):
    """Whether no axis repeats (out-of-range ones are the C++ call's to refuse)."""
    return len({ax + ndim if ax < 0 else ax for ax in map(operator.index, axes)}) == len(axes)


def _nd(a, s, axes, norm, out, kind, forward, swapped):
    a = _input(a, out)
    norm = _check_norm(norm, swapped)
    s, axes = _cook_nd_args(a, s, axes, invreal=(kind == "c2r"))
    if not axes:
        return a if out is None else _put(a, out)  # NumPy: nothing to transform, a itself
    lengths = [_length(n) for n in s]
    if _distinct(axes, a.ndim):
        return _run(a, kind, forward, axes, lengths, norm, out)
    # Repeated axes: one transform per axis in NumPy's order.
    if kind == "c2c":
        for ii in reversed(range(len(axes))):
            a = _run(a, "c2c", forward, [axes[ii]], [lengths[ii]], norm, None)
    elif kind == "r2c":
        a = _run(a, "r2c", True, [axes[-1]], [lengths[-1]], norm, None)
        for ii in reversed(range(len(axes) - 1)):
            a = _run(a, "c2c", True, [axes[ii]], [lengths[ii]], norm, None)
    else:
        for ii in range(len(axes) - 1):
            a = _run(a, "c2c", False, [axes[ii]], [lengths[ii]], norm, None)
        a = _run(a, "c2r", False, [axes[-1]], [lengths[-1]], norm, None)
    return _put(a, out)


def fftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.fftn: the n-D transform over `axes` (all by default)."""
    return _nd(a, s, axes, norm, out, "c2c", True, False)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.ifftn: the n-D inverse transform."""
    return _nd(a, s, axes, norm, out, "c2c", False, True)


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.rfftn: the n-D transform of real input (halved along the last axis)."""
    return _nd(a, s, axes, norm, out, "r2c", True, False)


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.irfftn: the inverse of rfftn."""
    return _nd(a, s, axes, norm, out, "c2r", False, True)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.fft2: fftn over the last two axes."""
    return fftn(a, s, axes, norm, out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.ifft2: ifftn over the last two axes (out= honoured, where NumPy 2 ignores it)."""
    return ifftn(a, s, axes, norm, out)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.rfft2: rfftn over the last two axes."""
    return rfftn(a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.irfft2: irfftn over the last two axes (out= honoured, where NumPy 2 ignores it)."""
    return irfftn(a, s, axes, norm, out)
