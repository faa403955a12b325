"""numfuse as a dask.array creation backend: dask.config.set({"array.backend": "numfuse"}).

Dask's creation functions (da.ones, da.zeros, da.empty, da.full, da.arange, da.random) ask the
configured backend's entry point (dask/array/backends.py, ArrayBackendEntrypoint). As CuPy's
entry point does, ours runs NumPy's creation code with a numfuse `meta`: Dask then builds every
chunk with NumPy's function called on that meta, which NEP-18 sends to numfuse. The random
numbers come from numfuse.random (Philox; Dask spawns one child SeedSequence per chunk), so they
differ from NumPy's, as CuPy's do.
"""
import numpy as _np

from .. import random as _random
from .._core import ndarray as _ndarray
from .._creation import asarray, empty

from dask import config as _config
from dask.array.backends import ArrayBackendEntrypoint
from dask.utils import Dispatch

from .dispatch import register as register_dispatch

to_numfuse_dispatch = Dispatch("to_numfuse_dispatch")


@to_numfuse_dispatch.register(_ndarray)
def _numfuse_to_numfuse(data, **kwargs):
    return data


@to_numfuse_dispatch.register((object, _np.ndarray))
def _to_numfuse(data, **kwargs):
    # NumPy chunks, CuPy chunks (their __cuda_array_interface__ / DLPack) and anything else
    # numfuse.asarray reads.
    return asarray(data, **kwargs)


def _meta(meta):
    return empty((0,)) if meta is None else meta


def _with_numpy_code(func_name, *args, meta=None, **kwargs):
    import dask.array as da
    with _config.set({"array.backend": "numpy"}):
        return getattr(da, func_name)(*args, meta=_meta(meta), **kwargs)


class NumfuseBackendEntrypoint(ArrayBackendEntrypoint):
    """The "numfuse" dask.array backend (entry point group "dask.array.backends")."""

    def __init__(self):
        register_dispatch()  # the chunks this backend makes need the dispatch tables

    @classmethod
    def to_backend_dispatch(cls):
        return to_numfuse_dispatch

    @classmethod
    def to_backend(cls, data, **kwargs):
        if isinstance(data._meta, _ndarray):
            return data  # already numfuse chunks
        return data.map_blocks(cls.to_backend_dispatch(), **kwargs)

    @property
    def RandomState(self):
        return _random.RandomState

    @property
    def default_bit_generator(self):
        return _random.Philox

    @staticmethod
    def ones(*args, meta=None, **kwargs):
        return _with_numpy_code("ones", *args, meta=meta, **kwargs)

    @staticmethod
    def zeros(*args, meta=None, **kwargs):
        return _with_numpy_code("zeros", *args, meta=meta, **kwargs)

    @staticmethod
    def empty(*args, meta=None, **kwargs):
        return _with_numpy_code("empty", *args, meta=meta, **kwargs)

    @staticmethod
    def full(*args, meta=None, **kwargs):
        return _with_numpy_code("full", *args, meta=meta, **kwargs)

    @staticmethod
    def arange(*args, like=None, **kwargs):
        import dask.array as da
        with _config.set({"array.backend": "numpy"}):
            return da.arange(*args, like=_meta(like), **kwargs)


def register():
    """Registers the backend under the name "numfuse" (what the entry point does when numfuse is
    installed; needed when it runs from a source tree)."""
    from dask.array.backends import array_creation_dispatch
    if "numfuse" not in array_creation_dispatch._lookup:
        array_creation_dispatch.register_backend("numfuse", NumfuseBackendEntrypoint())
