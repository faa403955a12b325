"""Files: .npy/.npz, text and raw binary files, read and written by NumPy's own code.

numfuse has no file format code of its own: an array is written as NumPy writes its host copy
(a view of a CPU array's memory, a copy of a device array), and a file is read by NumPy and the
result moved to the default device or the one given by `device=` (or by `like=`, where NumPy
takes it). The files are therefore exactly NumPy's, and NumPy's errors (a pickle refused
without allow_pickle, a bad header, a short file) are raised as NumPy raises them.

What numfuse cannot hold (object, string and structured dtypes, masked arrays) is refused with
TypeError rather than converted into something else.
"""
import collections.abc
import contextlib
import os
import pickle

import numpy as _np

from ._core import ndarray
from ._creation import asarray, asnumpy, device_of_like

__all__ = ["save", "load", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt",
           "fromfile", "NpzFile"]


def _host(x):
    # order "K": a device array comes back in its own layout (a transposed view stays
    # F-ordered), so that its .npy file is the one NumPy writes for the same view.
    return asnumpy(x, order="K") if isinstance(x, ndarray) else x


def _ours(x, device, sequences=True):
    """What NumPy read, as numfuse holds it: arrays moved to `device`, sequences of them (loadtxt
    with unpack=True) element by element, anything else (an unpickled object) as it is."""
    if isinstance(x, _np.ma.MaskedArray):
        raise TypeError("numfuse has no masked arrays: read with numpy.genfromtxt(usemask=True) "
                        "and convert .filled() data")
    if isinstance(x, _np.ndarray):
        return asarray(x, device=device)
    if isinstance(x, ndarray):
        return x if device is None else asarray(x, device=device)
    if sequences and isinstance(x, (tuple, list)) and x and all(isinstance(v, _np.ndarray) for v in x):
        return type(x)(_ours(v, device) for v in x)
    return x


def save(file, arr, allow_pickle=True, **kwargs):
    _np.save(file, _host(arr), allow_pickle=allow_pickle, **kwargs)


def savez(file, *args, allow_pickle=True, **kwds):
    _np.savez(file, *map(_host, args), allow_pickle=allow_pickle,
              **{k: _host(v) for k, v in kwds.items()})


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    _np.savez_compressed(file, *map(_host, args), allow_pickle=allow_pickle,
                         **{k: _host(v) for k, v in kwds.items()})


class NpzFile(collections.abc.Mapping):
    """numpy.lib.npyio.NpzFile whose items are numfuse arrays on `device`, each read from the
    archive when it is asked for, as NumPy's are."""

    def __init__(self, npz, device=None):
        self._npz, self._device = npz, device

    files = property(lambda self: self._npz.files)
    zip = property(lambda self: self._npz.zip)
    fid = property(lambda self: self._npz.fid)
    allow_pickle = property(lambda self: self._npz.allow_pickle)

    def __getitem__(self, key):
        return _ours(self._npz[key], self._device)

    def __iter__(self):
        return iter(self._npz)

    def __len__(self):
        return len(self._npz)

    def __contains__(self, key):
        return key in self._npz

    def get(self, key, default=None):
        return self[key] if key in self._npz else default

    def close(self):
        self._npz.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if hasattr(self, "_npz"):
            self.close()

    def __repr__(self):
        return repr(self._npz).replace("NpzFile", "numfuse.NpzFile", 1)


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *,
         max_header_size=10000, device=None):
    """numpy.load, the arrays on `device`. mmap_mode 'r' and 'c' read the file through NumPy's
    memory map into a numfuse array of its own ('r': read-only, as NumPy's map); 'r+' and 'w+'
    would have writes reach the file, which a numfuse array (memory of its own) cannot do, so
    they are refused."""
    if mmap_mode in ("r+", "w+", "readwrite", "write"):
        raise NotImplementedError(
            f"numfuse.load: mmap_mode={mmap_mode!r} is not supported (writes to a numfuse array "
            "cannot reach the file); use mmap_mode='r' or 'c', or numpy.load")
    got = _np.load(file, mmap_mode, allow_pickle, fix_imports, encoding,
                   max_header_size=max_header_size)
    if isinstance(got, _np.lib.npyio.NpzFile):
        return NpzFile(got, device)
    read_only = isinstance(got, _np.memmap) and not got.flags.writeable
    out = _ours(got, device, sequences=False)  # an unpickled list stays what was pickled
    if read_only:
        out.flags.writeable = False
    return out


def loadtxt(fname, dtype=float, comments="#", delimiter=None, converters=None, skiprows=0,
            usecols=None, unpack=False, ndmin=0, encoding=None, max_rows=None, *,
            quotechar=None, like=None, device=None):
    return _ours(_np.loadtxt(fname, dtype, comments, delimiter, converters, skiprows, usecols,
                             unpack, ndmin, encoding, max_rows, quotechar=quotechar),
                 device_of_like(device, like))


def genfromtxt(fname, dtype=float, *args, ndmin=0, like=None, device=None, **kwargs):
    return _ours(_np.genfromtxt(fname, dtype, *args, ndmin=ndmin, **kwargs),
                 device_of_like(device, like))


def savetxt(fname, X, fmt="%.18e", delimiter=" ", newline="\n", header="", footer="",
            comments="# ", encoding=None):
    _np.savetxt(fname, _host(X), fmt, delimiter, newline, header, footer, comments, encoding)


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None, device=None):
    return _ours(_np.fromfile(file, dtype, count, sep, offset), device_of_like(device, like))


def _tofile(self, fid, sep="", format="%s"):
    asnumpy(self).tofile(fid, sep, format)


def _dump(self, file):
    # NumPy's ndarray.dump: a pickle (protocol 2) written to a path or an open file.
    ctx = contextlib.nullcontext(file) if hasattr(file, "write") else open(os.fspath(file), "wb")
    with ctx as f:
        pickle.dump(self, f, protocol=2)


def _dumps(self):
    return pickle.dumps(self, protocol=2)


METHODS = {"tofile": _tofile, "dump": _dump, "dumps": _dumps}
