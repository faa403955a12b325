"""The Array API standard's namespace entry points (data-apis.org, 2024.12): the version, the
inspection namespace `__array_namespace_info__()`, `ndarray.__array_namespace__`, and the
top-level functions the standard names that NumPy also has (astype, matrix_transpose, vecdot).
NumPy's own answers are the model: numfuse differs only in the devices it has."""
import sys

import numpy as _np

from . import _core
from . import cuda as _cuda
from ._creation import asarray
from .linalg import matrix_transpose, vecdot  # noqa: F401 (numpy's top-level names)

__all__ = ["__array_api_version__", "__array_namespace_info__", "astype", "matrix_transpose",
           "vecdot"]

__array_api_version__ = "2024.12"
_KNOWN_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


def _devices():
    names = ["cpu"]
    if _cuda.is_available():
        names += [f"cuda:{i}" for i in range(_cuda.runtime.getDeviceCount())]
    return names


def _check_device(device):
    if device is not None and str(device) not in _devices():
        raise ValueError(f"Device not understood. Only {_devices()!r} are allowed, but received: "
                         f"{device!r}")


class _Info:
    """What `numfuse.__array_namespace_info__()` returns (NumPy's ``__array_namespace_info__``)."""

    __module__ = "numfuse"

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        return _core.default_device()

    def default_dtypes(self, *, device=None):
        _check_device(device)
        return {"real floating": _np.dtype(_np.float64), "complex floating": _np.dtype(_np.complex128),
                "integral": _np.dtype(_np.int64), "indexing": _np.dtype(_np.intp)}

    def devices(self):
        return _devices()

    def dtypes(self, *, device=None, kind=None):
        _check_device(device)
        if kind is None:
            names = _KINDS["bool"] + _KINDS["numeric"]
        else:
            names = ()
            for k in (kind,) if isinstance(kind, str) else tuple(kind):
                if k not in _KINDS:
                    raise ValueError(f"unsupported kind: {k!r}")
                names += tuple(n for n in _KINDS[k] if n not in names)
        return {n: _np.dtype(n) for n in names}


def __array_namespace_info__():
    return _Info()


def array_namespace_method(self, /, *, api_version=None):
    """ndarray.__array_namespace__: the numfuse module, for the standard's versions."""
    if api_version is not None and api_version not in _KNOWN_VERSIONS:
        raise ValueError(f"Version \"{api_version}\" of the Array API Standard is not supported.")
    return sys.modules["numfuse"]  # the finished namespace (this module sits below it)


def astype(x, dtype, /, *, copy=True, device=None):
    """The standard's astype: x as `dtype` (a copy unless copy=False allows a view), on `device`."""
    if isinstance(x, _np.generic) and device is None:
        return x.astype(dtype, copy=copy)  # a NumPy scalar (what a[()] of a CPU array gives), as NumPy's
    if not isinstance(x, (_core.ndarray, _np.generic)):
        raise TypeError(f"Input should be a numfuse array or scalar. It is a {type(x)} instead.")
    if isinstance(x, _np.generic):
        x = asarray(x, device=device)
    out = x.astype(dtype, copy=copy)
    return out if device is None else out.to_device(device)

