"""The rest of NumPy 2's top-level namespace: names an unchanged NumPy program may reach for.

Most are NumPy's own objects (constants, the scalar type hierarchy, numpy.exceptions and
numpy.dtypes, the buffer-size knobs): a program that compares or catches them meets the very same
objects, so ``except numfuse.exceptions.AxisError`` catches what numfuse raises (numfuse raises
NumPy's AxisError). The functions that only look at dtypes or shapes (common_type, mintypecode,
einsum_path) run NumPy's own code on stand-ins that carry a numfuse array's dtype and shape and
no data, so their answers and messages are NumPy's. The ones that need values on the host
(fromregex, nested_iters) say so where they take them there.
"""
import os
import pathlib
import sys
import warnings

import numpy as _np

from . import cuda
from ._core import ndarray
from ._creation import asarray, asnumpy, follows_operands
from ._shape import vstack
from ._flatiter import flatiter  # noqa: F401  (the type of numfuse_array.flat)

__all__ = ["get_include", "common_type", "mintypecode", "einsum_path", "isfortran", "row_stack",
           "show_config", "show_runtime", "test", "fromregex", "nested_iters", "flatiter"]

# NumPy's own objects, under their names: constants, the scalar types numfuse arrays cannot hold
# (numfuse.zeros(3, numfuse.str_) raises TypeError naming the dtype; isinstance and issubdtype
# checks behave), numpy.exceptions and numpy.dtypes, and NumPy's ufunc buffer size (numfuse's
# kernels have no such buffer: kept so that programs that tune it keep running). Only the names
# the installed NumPy has: numfuse follows it (the filter at the end drops the functions below
# that NumPy no longer has, e.g. a removed row_stack).
_NUMPY_OWN = ["False_", "True_", "ScalarType", "little_endian", "typecodes", "sctypeDict", "long",
              "ulong", "bytes_", "str_", "void", "object_", "character", "flexible", "longdouble",
              "clongdouble", "float96", "float128", "complex192", "complex256", "exceptions",
              "dtypes", "typename", "getbufsize", "setbufsize", "info"]
for _name in _NUMPY_OWN:
    if hasattr(_np, _name):
        globals()[_name] = getattr(_np, _name)
        if _name not in __all__:
            __all__.append(_name)


def get_include():
    """NumPy's C header directory: numfuse has no C API of its own, and a C extension built next
    to a numfuse program builds against NumPy (numfuse arrays reach it through __array__)."""
    return _np.get_include()


def _stand_in(a):
    """A NumPy array with a numfuse array's dtype and shape and no data (a broadcast scalar), for
    NumPy's functions that read only those."""
    if isinstance(a, ndarray):
        return _np.broadcast_to(_np.zeros((), a.dtype), a.shape)
    return a


def common_type(*arrays):
    return _np.common_type(*[_stand_in(a) for a in arrays])


common_type.__doc__ = _np.common_type.__doc__


def mintypecode(typechars, typeset="GDFgdf", default="d"):
    if not isinstance(typechars, str):
        typechars = [_stand_in(t) for t in typechars]
    return _np.mintypecode(typechars, typeset, default)


mintypecode.__doc__ = _np.mintypecode.__doc__


@follows_operands
def einsum_path(*operands, optimize="greedy", einsum_call=False):
    """numpy.einsum_path for numfuse operands: NumPy's planner and printed report on stand-ins of
    the operands' shapes and dtypes (the path depends on nothing else). numfuse.einsum itself
    contracts left to right whatever the path (python/numfuse/_einsum.py)."""
    return _np.einsum_path(*[_stand_in(o) for o in operands], optimize=optimize,
                           einsum_call=einsum_call)


def isfortran(a):
    if isinstance(a, ndarray):
        return bool(a.flags.f_contiguous and not a.flags.c_contiguous)
    return _np.isfortran(a)


isfortran.__doc__ = _np.isfortran.__doc__


def row_stack(tup, *, dtype=None, casting="same_kind"):
    # NumPy 2 deprecates the alias (numpy/_core/shape_base.py); the same warning, from the caller.
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.",
                  DeprecationWarning, stacklevel=2)
    return vstack(tup, dtype=dtype, casting=casting)


def _numfuse_config():
    package = sys.modules[__package__]  # the finished package, without importing it here
    return {"version": getattr(package, "__version__", "?"),
            "location": os.path.dirname(__file__), "cuda_available": bool(cuda.is_available())}


def show_config(mode="stdout"):
    """numfuse's build facts, then NumPy's show_config (numfuse uses NumPy's BLAS/LAPACK on the
    CPU). mode='dicts' returns NumPy's dict with a 'numfuse' entry added."""
    if mode == "dicts":
        conf = _np.show_config(mode="dicts")
        conf["numfuse"] = _numfuse_config()
        return conf
    if mode == "stdout":
        print("numfuse:")
        for k, v in _numfuse_config().items():
            print(f"  {k}: {v}")
    return _np.show_config(mode=mode)


def show_runtime():
    """NumPy's show_runtime, then numfuse's devices."""
    _np.show_runtime()
    conf = _numfuse_config()
    print(f"numfuse {conf['version']}: devices cpu" + (", cuda" if conf["cuda_available"] else ""))


def test(*pytest_args):
    """Runs numfuse's test suite (the repository's tests/ next to python/numfuse) with pytest;
    True when it passed. An installed numfuse without its tests says so (RuntimeError)."""
    tests = pathlib.Path(__file__).resolve().parents[2] / "tests"
    if not (tests / "harness.py").exists():
        raise RuntimeError(f"numfuse.test: no test suite next to this numfuse ({tests} absent); "
                           "run pytest on a checkout's tests/")
    import pytest
    return pytest.main([str(tests), "-q", "-p", "no:cacheprovider", *pytest_args]) == 0


def fromregex(file, regexp, dtype, encoding=None):
    """numpy.fromregex parses on the host; a plain dtype gives a numfuse array, a structured one
    the TypeError numfuse gives every dtype it cannot hold."""
    if _np.dtype(dtype).names is not None:
        raise TypeError(f"numfuse does not support dtype({_np.dtype(dtype)!r}) (structured); use "
                        "numpy.fromregex for record arrays")
    return asarray(_np.fromregex(file, regexp, dtype, encoding=encoding))


_WRITE_FLAGS = {"readwrite", "writeonly"}


def nested_iters(op, axes, flags=None, op_flags=None, op_dtypes=None, order="K",
                 casting="safe", buffersize=0):
    """numpy.nested_iters over the operands' values on the host. Iterators that write cannot
    reach numfuse memory through NumPy's nditer: asking to write a numfuse operand raises
    TypeError (iterate over numfuse.asnumpy(a) and assign the result back)."""
    ops = op if isinstance(op, (list, tuple)) else [op]
    flags_per_op = op_flags if op_flags is not None else [["readonly"]] * len(ops)
    if flags_per_op and isinstance(flags_per_op[0], str):
        flags_per_op = [flags_per_op] * len(ops)
    host = []
    for i, o in enumerate(ops):
        if isinstance(o, ndarray):
            if _WRITE_FLAGS & set(flags_per_op[i] if i < len(flags_per_op) else ()):
                raise TypeError(f"numfuse.nested_iters: operand {i} is a numfuse array and cannot "
                                "be written through NumPy's nditer; iterate over "
                                "numfuse.asnumpy(a) and assign it back")
            o = asnumpy(o)
        host.append(o)
    return _np.nested_iters(host if isinstance(op, (list, tuple)) else host[0], axes, flags,
                            op_flags, op_dtypes, order, casting, buffersize)


for _name in list(__all__):  # numfuse follows the installed NumPy's namespace
    if not hasattr(_np, _name):
        __all__.remove(_name)
        globals().pop(_name, None)
