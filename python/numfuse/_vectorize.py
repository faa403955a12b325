"""numfuse.vectorize: NumPy's numpy.vectorize and Numba's @vectorize in one name, both translated
into nodes of the lazy graph (python/numfuse/_translate_array.py) so that `f(x) * 2 + 1` is one
fused group; numfuse.frompyfunc's calls take the same path (_functional.py).

- `vectorize(pyfunc, otypes=, excluded=, cache=, signature=)` and `@vectorize`: NumPy's class and
  NumPy's results. The function sees NumPy scalars (NEP 50 typing); without otypes the output
  dtype is the type of the first element's result (NumPy's rule: when the branches of the function
  give different types, the function is called once on the first elements, as NumPy does).
- `vectorize(["float64(float64, float64)", ...])` or `vectorize("f8(f8)")`, or with Numba's keywords
  (target=, identity=, nopython=, fastmath=): Numba's ufunc. The first signature whose inputs the
  arguments cast to safely is used; the body is typed as Numba types it (64-bit integer arithmetic,
  float64 literals) and the result cast to the signature's return type. Without signatures the
  types follow the arguments.
A function the translator cannot rewrite (a loop on an element's value, recursion, a call of an
unknown Python object, a gufunc `signature=`, object or string operands) is called per element on
the host through numpy.vectorize: the same results, without fusion.
"""
import functools
import inspect
import re
import types

import numpy as _np

from . import _core
from ._creation import asarray, asnumpy, zeros
from ._shape import broadcast_to
from ._ufuncs import isfinite, trunc
from ._translate_array import Untranslatable, Weak, dtype_of, python_numbers
from ._translate_array_trace import outside_values, run_cached

__all__ = ["vectorize"]

_NUMBA_KEYWORDS = {"target", "identity", "nopython", "fastmath", "forceobj", "boundscheck",
                   "writable_args"}
_NUMBA_TYPE_NAMES = {"boolean": "bool", "bool_": "bool", "b1": "bool", "double": "float64",
                     "float": "float64", "single": "float32", "intp": "int64", "uintp": "uint64"}


def _device_of(values):
    for v in values:
        if isinstance(v, _core.ndarray):
            return v.device
    return None


def _as_operand(v, device):
    """A numfuse array for a NumPy-typed operand, None when numfuse has no such dtype."""
    if isinstance(v, _core.ndarray):  # as it is: asarray(v, device=...) would give a copy
        return v if v.dtype.kind in "biufc" else None
    try:
        a = asarray(v, device=device) if device is not None else asarray(v)
    except (TypeError, ValueError):
        return None
    return a if a.dtype.kind in "biufc" else None


def _finish(value, shape, dtype, inputs):
    """The result as a new array of the broadcast shape and dtype (numpy.vectorize never returns
    an input or a view of one)."""
    fresh = value._pending and not any(value is i for i in inputs)
    if value.shape != shape:
        value, fresh = broadcast_to(value, shape), False
    if value.dtype != dtype:
        return value.astype(dtype)
    return value if fresh else value.copy()


def _result_dtype(v):
    if isinstance(v, (Weak, _core.ndarray, _np.generic, bool, int, float, complex)):
        return dtype_of(v)
    return None


class vectorize:
    """numpy.vectorize for numfuse operands, and Numba's @vectorize when given signatures (see the
    module's docstring). Translatable functions become fused element-wise nodes; others run per
    element on the host, as NumPy's numpy.vectorize does."""

    def __new__(cls, pyfunc=_np._NoValue, *args, **kwargs):
        numba_style = isinstance(pyfunc, (str, list, tuple)) or bool(_NUMBA_KEYWORDS & set(kwargs))
        if numba_style:
            sigs = () if callable(pyfunc) or pyfunc is _np._NoValue else pyfunc
            make = functools.partial(PyUFunc, signatures=sigs, identity=kwargs.get("identity"))
            return make(pyfunc) if callable(pyfunc) else make
        return super().__new__(cls)

    def __init__(self, pyfunc=_np._NoValue, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None):
        self._options = dict(otypes=otypes, doc=doc, excluded=excluded, cache=cache,
                             signature=signature)
        self.pyfunc = pyfunc
        if pyfunc is not _np._NoValue:
            self._host = _np.vectorize(pyfunc, **self._options)
            self.__doc__ = self._host.__doc__
            functools.update_wrapper(self, pyfunc, assigned=("__module__", "__name__",
                                                             "__qualname__"), updated=())

    def __getattr__(self, name):  # otypes, excluded, signature, cache as NumPy's object has them
        if name.startswith("__") or "_host" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self._host, name)

    def __call__(self, *args, **kwargs):
        if self.pyfunc is _np._NoValue:  # @vectorize(otypes=...) used as a decorator factory
            return vectorize(args[0], **self._options)
        result = self._translated(args, kwargs)
        if result is not None:
            return result
        return call_on_host(self._host, args, kwargs)

    def _translated(self, args, kwargs):
        """The call as fused nodes, or None where NumPy's per-element path must run."""
        host = self._host
        if host.signature is not None or not isinstance(self.pyfunc, types.FunctionType):
            return None
        code = self.pyfunc.__code__
        params = code.co_varnames[:code.co_argcount]
        if kwargs or len(args) != len(params):
            try:
                bound = inspect.signature(self.pyfunc).bind(*args, **kwargs)
            except (TypeError, ValueError):
                return None  # NumPy's call raises its own TypeError
            if bound.kwargs:
                return None
            values = list(bound.args)
        else:  # the common call: every parameter given by position
            values = list(args)
        # NumPy: excluded positions apply to positional arguments, names to keyword arguments.
        excluded = {p for p, name in enumerate(params[:len(values)])
                    if (p in host.excluded if p < len(args) else name in host.excluded)}
        return translate_elementwise(self.pyfunc, values, excluded, host.otypes or None,
                                     caches=self.__dict__.setdefault("_caches", ({}, {})))


def translate_elementwise(pyfunc, values, excluded=(), otypes=None, object_results=False,
                          caches=(None, None)):
    """numpy.vectorize's call (object_results: frompyfunc's, read back by value) as fused nodes:
    the results, or None where the per-element path must run.

    NumPy calls the function with Python numbers (its object loop converts the elements), so the
    values are computed with Python's rules on 64-bit arrays; the output dtype is otypes, or the
    type of the result on the first elements as NumPy scalars (numpy.vectorize), or the type of
    the Python results (frompyfunc). Results are converted as NumPy converts the Python numbers
    (_convert). caches: (recorded translations, typing results), dicts kept by the caller."""
    device = _device_of(values)
    operands, typing, inputs = [], [], []
    for pos, v in enumerate(values):
        if pos in excluded:
            operands.append(v)
            typing.append(v)
            continue
        a = _as_operand(v, device)
        if a is None or a.size == 0:
            return None
        inputs.append(a)
        # NumPy hands its scalars through unchanged and an array's elements as Python numbers;
        # numfuse's integer indexing gives 0-d arrays where NumPy gives scalars: those count as
        # scalars.
        scalar = isinstance(v, _np.generic) or (isinstance(v, _core.ndarray) and v.ndim == 0)
        operands.append(a if scalar else python_numbers(a))
        typing.append(_Stand(a.dtype, a.device))
    leaves = [o.array if isinstance(o, Weak) else o for p, o in enumerate(operands)
              if p not in excluded]
    key = tuple((type(o).__name__, o.array.dtype if isinstance(o, Weak) else o.dtype)
                if p not in excluded else (type(o), o) for p, o in enumerate(operands))
    traces = caches[0]
    try:
        hash(key)
    except TypeError:  # an unhashable excluded value: interpret every call
        traces = None
    try:
        out, mixed = run_cached(traces, key, pyfunc, operands, leaves, mode="numpy")
        outs = out if isinstance(out, tuple) else (out,)
        if any(_result_dtype(o) is None for o in outs):
            return None
        if object_results:
            if mixed:
                return None
            dtypes = [_result_dtype(o) for o in outs]
        elif otypes is not None:
            if len(otypes) != len(outs):
                return None
            dtypes = [_np.dtype(t) for t in otypes]
        else:
            dtypes = _typing_pass(pyfunc, typing, len(outs), caches[1])
            if dtypes is None:
                dtypes = _first_element_dtypes(pyfunc, values, excluded, len(outs))
        if dtypes is None or any(d.kind not in "biufc" for d in dtypes):
            return None
        shape = _np.broadcast_shapes(*(a.shape for a in inputs))
        results = tuple(_finish(_convert(o, d), shape, d, inputs) for o, d in zip(outs, dtypes))
    except (Untranslatable, _Unconvertible):
        return None
    except _ConversionError as e:
        raise e.error from None  # NumPy's conversion of the results raises this
    except (TypeError, ValueError, ArithmeticError):
        return None  # NumPy's per-element call gives the error NumPy gives
    return results if isinstance(out, tuple) else results[0]


class _Stand:
    """A 0-d stand-in to be made for an operand's dtype (only when the typing is not cached)."""

    __slots__ = ("dtype", "device")

    def __init__(self, dtype, device):
        self.dtype, self.device = dtype, device


def _typing_pass(pyfunc, typing, nout, cache=None):
    """The result dtypes for NumPy scalars of the operands' dtypes (0-d stand-ins), or None
    where they depend on the data (branches of different types). Cached by the operands' dtypes
    (and the excluded values, when hashable) in `cache`."""
    key = tuple(v.dtype if isinstance(v, _Stand) else (type(v), v) for v in typing)
    key += outside_values(pyfunc)
    try:
        if cache is not None and key in cache:
            return cache[key]
    except TypeError:  # an unhashable excluded value
        cache = None
    typing = [zeros((), v.dtype, device=v.device) if isinstance(v, _Stand) else v for v in typing]
    with _np.errstate(all="ignore"):
        out, mixed = run_cached(None, None, pyfunc, typing, [], mode="numpy", python_errors=False)
    outs = out if isinstance(out, tuple) else (out,)
    dtypes = None if mixed or len(outs) != nout else [_result_dtype(o) for o in outs]
    if cache is not None:
        cache[key] = dtypes
    return dtypes


def _first_element_dtypes(pyfunc, values, excluded, nout):
    """NumPy's rule without otypes: the dtype of the function's result on the first elements
    (read from the device: the inputs are evaluated)."""
    firsts = [v if pos in excluded else
              asnumpy(asarray(v).reshape(-1)[:1])[0] if isinstance(v, _core.ndarray) else
              _np.asarray(v).reshape(-1)[0] for pos, v in enumerate(values)]
    r = pyfunc(*firsts)
    rs = r if isinstance(r, tuple) else (r,)
    if len(rs) != nout:
        return None
    return [_np.asarray(x).dtype for x in rs]


class _Unconvertible(Exception):
    """A conversion NumPy's object path makes differently (complex to real raises there)."""


class _ConversionError(Exception):
    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def _convert(value, dtype):
    """value as NumPy converts Python results into an array of dtype: ints out of the dtype's
    range raise OverflowError, floats into ints go through int() (NaN: ValueError). Those checks
    read the values (an evaluation); other conversions stay lazy."""
    if isinstance(value, Weak):
        value = value.array
    if not isinstance(value, _core.ndarray):
        value = asarray(value)
    src = value.dtype
    if src.kind == "c" and dtype.kind not in "cb":
        raise _Unconvertible
    if dtype.kind not in "iu" or src.kind not in "iuf":
        return value
    info = _np.iinfo(dtype)
    if src.kind == "f":
        bad = asnumpy(value[~isfinite(value)].reshape(-1)[:1]) if value.size else ()
        if len(bad):
            raise _ConversionError(ValueError("cannot convert float NaN to integer")
                                   if _np.isnan(bad[0]) else
                                   OverflowError("cannot convert float infinity to integer"))
        value = trunc(value)
    if dtype == src or (src.kind == "f" and dtype == _np.int64):
        return value
    out_of_range = (value < info.min) | (value > info.max)
    bad = asnumpy(value[out_of_range].reshape(-1)[:1])
    if len(bad):
        raise _ConversionError(OverflowError(f"Python integer {int(bad[0])} out of bounds for "
                                             f"{dtype}"))
    return value


def call_on_host(fn, args, kwargs):
    device = _device_of(list(args) + list(kwargs.values()))
    host_args = [asnumpy(a, order="K") if isinstance(a, _core.ndarray) else a for a in args]
    host_kwargs = {k: asnumpy(v, order="K") if isinstance(v, _core.ndarray) else v
                   for k, v in kwargs.items()}
    return _from_host(fn(*host_args, **host_kwargs), device)


def _from_host(r, device):
    if isinstance(r, tuple):
        return tuple(_from_host(x, device) for x in r)
    if isinstance(r, _np.ndarray):
        if r.dtype == object:
            r = _np.array(r.tolist()) if r.ndim else _np.array(r.item())
        return asarray(r, device=device)
    if isinstance(r, _np.generic):
        return asarray(r, device=device)
    return r


def _numba_dtype(name):
    name = name.strip()
    return _np.dtype(_NUMBA_TYPE_NAMES.get(name, name))


def parse_signature(sig):
    """'float64(float64, int32)' -> (float64, [float64, int32]); TypeError naming a bad one."""
    m = re.fullmatch(r"\s*(\w+)\s*\((.*)\)\s*", sig) if isinstance(sig, str) else None
    if m is None:
        raise TypeError(f"vectorize: signature {sig!r} is not of the form 'ret(arg, ...)'")
    try:
        args = [_numba_dtype(a) for a in m.group(2).split(",") if a.strip()]
        return _numba_dtype(m.group(1)), args
    except TypeError:
        raise TypeError(f"vectorize: unknown type in signature {sig!r}") from None


_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _accepts(value, dtype):
    """Whether an operand casts safely to a signature's type (Python scalars by kind, NEP 50)."""
    if isinstance(value, _core.ndarray):
        return _np.can_cast(value.dtype, dtype, "safe")
    kind = _np.asarray(value).dtype.kind
    if dtype.kind == "u" and kind == "i":
        return value >= 0
    return _KIND_RANK[kind] <= _KIND_RANK[dtype.kind]


class PyUFunc:
    """A Python function as a Numba-style ufunc (numfuse.vectorize with signatures or Numba's
    keywords): calls are fused element-wise nodes; see the module's docstring."""

    def __init__(self, pyfunc, signatures=(), identity=None):
        if isinstance(signatures, str):
            signatures = [signatures]
        self.pyfunc = pyfunc
        self._traces = {}
        self._loops = [parse_signature(s) for s in signatures]
        self.identity = identity
        self.nin = len(inspect.signature(pyfunc).parameters)
        self.nout = 1
        for ret, args in self._loops:
            if len(args) != self.nin:
                raise TypeError(f"vectorize: signature {ret}({', '.join(map(str, args))}) has "
                                f"{len(args)} inputs but {pyfunc.__name__} takes {self.nin}")
        functools.update_wrapper(self, pyfunc, updated=())

    @property
    def types(self):
        return ["".join(a.char for a in args) + "->" + ret.char for ret, args in self._loops]

    @property
    def ntypes(self):
        return len(self._loops)

    def __call__(self, *args, out=None):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes from {self.nin} to {self.nin + 1} positional "
                            f"arguments but {len(args)} were given")
        device = _device_of(args)
        operands = [a if isinstance(a, (bool, int, float, complex, _core.ndarray)) else
                    asarray(a, device=device) if device is not None else asarray(a) for a in args]
        ret = None
        if self._loops:
            for ret, sig_types in self._loops:
                if all(_accepts(v, t) for v, t in zip(operands, sig_types)):
                    break
            else:
                names = ", ".join(str(_np.asarray(v).dtype if not isinstance(v, _core.ndarray)
                                      else v.dtype) for v in operands)
                raise TypeError(f"ufunc '{self.__name__}' not supported for the input types "
                                f"({names}), and the inputs could not be safely coerced to any "
                                f"supported types according to the casting rule ''safe''")
            operands = [v.astype(t) if isinstance(v, _core.ndarray) and v.dtype != t else v
                        if isinstance(v, _core.ndarray) else asarray(v, dtype=t, device=device)
                        if device is not None else asarray(v, dtype=t)
                        for v, t in zip(operands, sig_types)]
        operands = [asarray(v) if not isinstance(v, _core.ndarray) else v for v in operands]
        if out is not None:
            # The value goes straight into the write: held by a name too, the write would take
            # it for an array of its own and copy it (a second pass: 3.9 against 2.4 ms of CPU
            # for 4e6 float64), where a value only the stack holds is computed into out.
            out[...] = self._value(operands, ret)
            return out
        return self._value(operands, ret)

    def _value(self, operands, ret):
        """The call's result (pending where translated) for operands of the loop's dtypes."""
        shape = _np.broadcast_shapes(*(a.shape for a in operands))
        try:
            key = tuple(a.dtype for a in operands)
            value, _ = run_cached(self._traces, key, self.pyfunc, operands, operands,
                                  mode="numba")
            dtype = ret if ret is not None else dtype_of(value)
            return _finish(value, shape, dtype, operands)
        except Untranslatable:
            host = _np.vectorize(self.pyfunc, otypes=None if ret is None else [ret])
            return call_on_host(host, operands, {})

    def __repr__(self):
        return f"<numfuse.vectorize ufunc {self.__name__!r} types={self.types}>"
