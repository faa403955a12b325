"""numfuse.lib: the submodules NumPy 2 keeps public in numpy.lib.

stride_tricks (as_strided, sliding_window_view, broadcast_to ...), scimath (= numfuse.emath) and
array_utils work on numfuse arrays. mixins.NDArrayOperatorsMixin, NumpyVersion, format, npyio,
introspect, Arrayterator and the docstring helpers are NumPy's own objects: they are
about Python classes, versions, files and docstrings, not about where array data lives.
"""
import numpy.lib as _nplib

from . import array_utils, scimath, stride_tricks  # noqa: F401

mixins = _nplib.mixins
NumpyVersion = _nplib.NumpyVersion
format = _nplib.format  # noqa: A001
npyio = _nplib.npyio
introspect = _nplib.introspect
Arrayterator = _nplib.Arrayterator
add_docstring, add_newdoc = _nplib.add_docstring, _nplib.add_newdoc
tracemalloc_domain = _nplib.tracemalloc_domain

__all__ = ["Arrayterator", "add_docstring", "add_newdoc", "array_utils", "format", "introspect",
           "mixins", "NumpyVersion", "npyio", "scimath", "stride_tricks", "tracemalloc_domain"]
