"""Zero-copy exchange with other array libraries: DLPack (the Array API standard's __dlpack__,
__dlpack_device__ and from_dlpack, 2023.12 and 2024.12) and the CUDA array interface (version 3).

The memory itself is lent and borrowed in C++ (python/src/bind_dlpack.cpp); this module holds the
protocols' argument rules: devices, copies, streams and their errors. Memory numfuse lends may be
written by the borrower at any time, and memory it borrows by the lender: in both cases numfuse's
pending readers of it are computed first, and new ones when they are recorded, so that lazy
evaluation never reads a value NumPy's eager order would not (docs/decisions.md, "Interop").
"""
import enum
import operator
import weakref

import numpy as _np

from . import _core
from ._core import ndarray


class DLDeviceType(enum.IntEnum):
    """DLPack's device types that numfuse reads or writes (dlpack.h's DLDeviceType)."""
    CPU = 1
    CUDA = 2
    CUDA_HOST = 3
    CUDA_MANAGED = 13


_LEGACY_DEFAULT_STREAM = 1


def _device_index(device):
    return 0 if device == "cpu" else int(device.split(":")[1])


def _dl_device_of(device):
    """The (device type, index) pair of a numfuse device string."""
    return (DLDeviceType.CPU, 0) if device == "cpu" else (DLDeviceType.CUDA, _device_index(device))


def _device_of_dl(dl_device):
    """The numfuse device string of a DLPack (type, index) pair, or None when numfuse has none."""
    kind, index = int(dl_device[0]), int(dl_device[1])
    if kind in (DLDeviceType.CPU, DLDeviceType.CUDA_HOST):
        return "cpu"
    if kind in (DLDeviceType.CUDA, DLDeviceType.CUDA_MANAGED):
        return f"cuda:{index}"
    return None


def _device_name(device):
    """A numfuse device string from what `device=` arguments accept: 'cpu', 'cuda', 'cuda:N' or a
    numfuse.cuda.Device."""
    if device is None:
        return None
    if not isinstance(device, str) and hasattr(device, "id"):
        return f"cuda:{int(device.id)}"
    name = str(device)
    return "cuda:0" if name in ("cuda", "gpu") else name


def _check_copy(copy):
    if copy is not None and not isinstance(copy, (bool, _np.bool_)):
        raise ValueError(f"copy must be True, False or None, not {copy!r}")
    return None if copy is None else bool(copy)


def __dlpack_device__(self):
    """(DLPack device type, device index): (1, 0) on the CPU, (2, N) on cuda:N."""
    return _dl_device_of(self.device)


def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of this array's memory (a pending array is computed first).

    max_version (major, minor) >= (1, 0) gives a versioned capsule ("dltensor_versioned", which
    carries the read-only flag); otherwise the legacy "dltensor" one, which a read-only array
    cannot be (BufferError). dl_device asks for another device: a copy, refused with BufferError
    when copy=False. On CUDA, `stream` is the consumer's: None or 1 the legacy default stream, 2
    the per-thread default stream, another integer a stream handle, -1 no ordering at all; the
    consumer's stream waits for numfuse's work on the array (an event, the host does not wait).
    """
    copy = _check_copy(copy)
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    # A consumer of 1.0 gets a capsule that says 1.0 (1.x minor versions share one layout).
    minor = int(max_version[1]) if versioned and tuple(max_version)[0] == 1 else 1
    target = self.device
    if dl_device is not None:
        target = _device_of_dl(dl_device)
        if target is None:
            raise BufferError(f"numfuse cannot export to DLPack device {tuple(dl_device)} "
                              "(it has CPU (1, 0) and CUDA (2, N) arrays)")
    arr, copied = self, False
    if target != self.device:
        if copy is False:
            raise BufferError(f"the array is on {self.device} and dl_device={tuple(dl_device)} "
                              "asks for another device: that needs a copy, and copy=False")
        arr, copied = _core.to_device(self, target), True
    elif copy:
        arr, copied = self.copy(), True
    if target == "cpu":
        if stream is not None:
            # As NumPy: the CPU has no streams.
            raise RuntimeError(f"stream={stream!r} for an array on the CPU: only None is accepted")
        stream = -1
    elif stream is None:
        stream = _LEGACY_DEFAULT_STREAM
    else:
        try:
            stream = operator.index(stream)
        except TypeError:
            raise ValueError(f"stream must be an integer >= -1 (a CUDA stream), not {stream!r}") from None
        if stream < -1:
            raise ValueError(f"stream must be an integer >= -1 (a CUDA stream), not {stream}")
    if stream == 0:
        raise ValueError("stream=0 is ambiguous for CUDA and not allowed: 1 is the legacy default "
                         "stream, 2 the per-thread default stream")
    return _core._dlpack_export(arr, versioned, copied, stream, max(minor, 0))


def _capsule_of(x, consumer_device, dl_device, copy):
    """x.__dlpack__ with the newest arguments the producer takes. Returns (capsule, honoured):
    honoured says the producer took dl_device and copy (DLPack 1.0's protocol)."""
    kwargs = {}
    if consumer_device != "cpu":
        kwargs["stream"] = _core._exchange_stream(_device_index(consumer_device))
    try:
        return x.__dlpack__(max_version=(1, 1), dl_device=dl_device, copy=copy, **kwargs), True
    except TypeError:
        pass  # a producer of the 2022.12 standard: no max_version, dl_device nor copy
    return x.__dlpack__(**kwargs), False


def from_dlpack(x, /, *, device=None, copy=None):
    """An array over the memory of any object with __dlpack__ (NumPy, CuPy, PyTorch, JAX, numfuse):
    no copy where the device allows. device= asks for another device (a copy); copy=True always
    copies, copy=False never does (ValueError when it would have to)."""
    copy = _check_copy(copy)
    target = _device_name(device)
    if isinstance(x, ndarray):
        out = x
        if target is not None and target != x.device:
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            return _core.to_device(x, target)
        return out.copy() if copy else out[...]
    if not hasattr(x, "__dlpack__"):
        if type(x).__name__ == "PyCapsule":  # a bare capsule (the 2021 way of older libraries)
            out = _core._dlpack_import(x)
            return _finish(out, target, copy, honoured=False)
        raise AttributeError(f"'{type(x).__name__}' object has no attribute '__dlpack__'")
    source = _device_of_dl(x.__dlpack_device__())
    want = target if target is not None else source
    if want is None:
        raise BufferError(f"numfuse cannot read DLPack device {tuple(x.__dlpack_device__())}")
    if want != source:
        if copy is False:
            raise ValueError(f"the data is on {source} and device={target} needs a copy, "
                             "and copy=False")
        try:  # the producer moves it (DLPack 1.0's dl_device), else numfuse does
            capsule, honoured = _capsule_of(x, want, _dl_device_of(want), copy)
        except (BufferError, ValueError, RuntimeError, NotImplementedError):
            # The standard says BufferError; libraries also say it otherwise. A real failure
            # comes back from the plain export below.
            capsule, honoured = _capsule_of(x, source, None, None)
    else:
        capsule, honoured = _capsule_of(x, source, None, copy)
    return _finish(_core._dlpack_import(capsule), want, copy, honoured)


def _finish(out, target, copy, honoured):
    """Moves or copies what the producer could not (a producer of the older protocol)."""
    if target is not None and out.device != target:
        if copy is False:
            raise ValueError(f"the data is on {out.device}, device={target} needs a copy, and "
                             "copy=False")
        return _core.to_device(out, target)
    if copy and not honoured:
        return out.copy()
    return out


# ---- the CUDA array interface ------------------------------------------------------------------

# What each array lent through __cuda_array_interface__: the borrower may write into the memory
# for as long as the array lives, so the loan counts (as a capsule that nobody consumes) until then.
_LOANS = {}


def _cuda_array_interface(self):
    """The CUDA array interface (version 3) of an array on a GPU: its own memory (a pending array
    is computed first), and in "stream" the stream numfuse enqueues on (1: the legacy default
    stream), which the consumer synchronises with. A CPU array has none (AttributeError)."""
    if self.device == "cpu":
        raise AttributeError("__cuda_array_interface__: the array is on the CPU "
                             "(use __array_interface__ or __dlpack__)")
    loan = _core._dlpack_export(self, True, False, -1)
    key = id(self)
    if key not in _LOANS:
        _LOANS[key] = []
        weakref.finalize(self, _LOANS.pop, key, None)
    loans = _LOANS[key]
    if len(loans) < 2:  # one per writeability; more would only count the same loan again
        loans.append(loan)
    strides = None if self.flags.c_contiguous else tuple(self.strides)
    return {
        "shape": tuple(self.shape),
        "typestr": self.dtype.str,
        "descr": [("", self.dtype.str)],
        "data": (_core._data_ptr(self) if self.size else 0, not self.flags.writeable),
        "strides": strides,
        "version": 3,
        "stream": _core._exchange_stream(_device_index(self.device)),
    }


_TYPESTR_ORDER = {"<": "little", ">": "big"}


def from_cuda_array_interface(obj):
    """A numfuse array over the CUDA memory of `obj` (its __cuda_array_interface__), no copy; the
    producer's "stream" is waited for (by numfuse's stream, not the host) before numfuse reads."""
    iface = obj.__cuda_array_interface__
    if iface.get("mask") is not None:
        raise NotImplementedError("__cuda_array_interface__ with a mask is not supported")
    if int(iface.get("version", 0)) > 3:
        raise BufferError(f"__cuda_array_interface__ version {iface['version']} is newer than 3")
    dtype = _np.dtype(iface["typestr"])
    if not dtype.isnative:
        raise BufferError(f"__cuda_array_interface__ typestr {iface['typestr']!r}: "
                          "numfuse reads native byte order only")
    ptr, readonly = iface["data"]
    shape = tuple(int(n) for n in iface["shape"])
    strides = iface.get("strides")
    out = _core._wrap_cuda_memory(int(ptr or 0), shape, strides, dtype, bool(readonly), obj)
    stream = iface.get("stream")
    if stream is not None:
        _core._wait_for_external_stream(_device_index(out.device), int(stream))
    return out


# ---- numfuse.asarray of other libraries' arrays --------------------------------------------------

def is_foreign_array(a):
    """Whether `a` is another library's array that numfuse can borrow (DLPack or the CUDA array
    interface); NumPy arrays are handled by asarray itself."""
    if isinstance(a, (ndarray, _np.ndarray, _np.generic)):
        return False
    t = type(a)
    if hasattr(t, "__dlpack__") and hasattr(t, "__dlpack_device__"):
        return True
    # Asked of the object: Numba sets it per instance, PyTorch's CPU tensors raise AttributeError.
    return hasattr(a, "__cuda_array_interface__")


def borrow(a, device, copy):
    """asarray of a foreign array: its memory, or a copy where the device asks for one. With
    device=None a GPU array stays on its GPU, host memory goes to the default device."""
    target = _device_name(device)
    if hasattr(type(a), "__dlpack__") and hasattr(type(a), "__dlpack_device__"):
        source = _device_of_dl(a.__dlpack_device__())
        if target is None:
            target = source if source not in (None, "cpu") else _core.default_device()
        return from_dlpack(a, device=None if target == source else target, copy=copy)
    out = from_cuda_array_interface(a)  # only the CUDA array interface: device memory
    if target is not None and out.device != target:
        if copy is False:
            raise ValueError("Unable to avoid copy while creating an array as requested.")
        return _core.to_device(out, target)
    return out.copy() if copy else out


def share_numpy(a, device):
    """asarray(numpy_array, copy=False): NumPy's memory itself when it can stay on the host."""
    target = _device_name(device) or _core.default_device()
    if target != "cpu":
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    try:
        return from_dlpack(a, copy=False)
    except BufferError as e:  # unaligned, byte-swapped or not a DLPack dtype
        raise ValueError("Unable to avoid copy while creating an array as requested.") from e


METHODS = {
    "__dlpack__": __dlpack__,
    "__dlpack_device__": __dlpack_device__,
    "__cuda_array_interface__": property(_cuda_array_interface),
}
