"""numfuse.lib: the submodules NumPy 2 keeps public in numpy.lib.

stride_tricks (as_strided, sliding_window_view, broadcast_to ...), scimath (= numfuse.emath) and
array_utils work on numfuse arrays. mixins.NDArrayOperatorsMixin, NumpyVersion, format, npyio,
introspect, Arrayterator and the docstring helpers are NumPy's own objects: they are
about Python classes, versions, files and docstrings, not about where array data lives.
"""
import numpy.lib as _nplib

from . import array_utils, scimath, stride_tricks  # noqa: F401

# NumPy's own (those the installed NumPy has: numfuse follows it)
for _name in ("mixins", "NumpyVersion", "format", "npyio", "introspect", "Arrayterator",
              "add_docstring", "add_newdoc", "tracemalloc_domain"):
    if hasattr(_nplib, _name):
        globals()[_name] = getattr(_nplib, _name)

__all__ = [n for n in getattr(_nplib, "__all__", ()) if n in globals()]
