"""numfuse.stencil: Numba's @stencil over numfuse arrays, written as the slices a NumPy user writes.

A kernel such as `return 0.25 * (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1])` is run once by the
translator (_translate_array.py, Numba's typing) with every relative read `a[i, j]` replaced by
the shifted slice of `a` that holds the neighbour of every interior point. The result is the graph
the slice-written stencil builds, `out[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + ...)`: one fused
element-wise group on every backend, as fast as the slices by construction. The output is a new
array of the input's shape filled with cval (default 0) where the neighbourhood does not fit, with
the dtype Numba gives the kernel's return value (float literals are float64, integer arithmetic
is 64-bit); `out=` writes the interior of a given array and leaves its border as it is.

Options as Numba's: neighborhood= ((lo, hi) per dimension; needed by Numba when the indices come
from loops, here inferred from the indices the kernel reads when absent), cval=, standard_indexing=
(names of arguments indexed normally, e.g. a weights array), and func_or_mode='constant', the one
mode Numba has. Loops with bounds known before the data (range(-1, 2)) are unrolled. A construct
with no array form (an index or loop bound that depends on an element's value, a call of an unknown
object) raises NotImplementedError at the first call naming file:line and the construct.
"""
import operator as _operator

import numpy as _np

from . import _core
from ._core import _same_layouts
from ._creation import asarray, full, zeros
from ._shape import broadcast_to
from ._translate_array import Untranslatable, Weak, dtype_of
from ._stencil_views import KernelReads, ViewCache
from ._translate_array_trace import replay_cached, run_cached

__all__ = ["stencil"]

_OPTIONS = {"neighborhood", "cval", "standard_indexing"}
_MAX_FAST = 64  # fast-path entries per stencil (argument dtype/shape combinations): bounded


class _Relative:
    """A stencil argument read through relative indices."""

    __slots__ = ("array", "name")

    def __init__(self, array, name):
        self.array, self.name = array, name


class _Standard:
    """A stencil argument named in standard_indexing: indexed as usual (a weights array)."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _standard_read(value, index, node, filename, apply):
    index = index if isinstance(index, tuple) else (index,)
    if any(not isinstance(i, (int, _np.integer)) or isinstance(i, bool) for i in index):
        raise NotImplementedError(f"numfuse.stencil: {filename}:{getattr(node, 'lineno', '?')}: "
                                  f"the index {index!r} into a standard_indexing array (only "
                                  "integers known before the data)")
    # On the CPU a 0-d array, not the element: a host array's element is a NumPy scalar, which a
    # recording would keep as a constant (later calls with other weights read the first call's).
    # A GPU array's element is already a 0-d array: read as the slices' `w[0]` reads it, so the
    # graph is theirs (tests/test_stencil_matches_slices.py).
    on_gpu = isinstance(value.array, _core.ndarray) and value.array.device != "cpu"
    return apply(_getitem, value.array, index if on_gpu else tuple(index) + (Ellipsis,))


def _getitem(array, index):
    return array[index]


def _shift_key(offsets, nbhd):
    """The basic index whose view holds the neighbour at `offsets` of every interior point:
    `k - lo` to `k - hi` from the end (None: to the end). It does not depend on the shape, so a
    recorded call replays it as one constant subscript (`a[1:, :-2]`), the slices' own key; the
    interior is empty (and nothing is read) where the neighbourhood does not fit."""
    return tuple(slice(k - lo, (k - hi) or None) for k, (lo, hi) in zip(offsets, nbhd))


def _offsets(index, ndim, node, filename):
    index = index if isinstance(index, tuple) else (index,)
    where = f"{filename}:{getattr(node, 'lineno', '?')}"
    for i in index:
        if isinstance(i, (_core.ndarray, Weak)):
            raise NotImplementedError(f"numfuse.stencil: {where}: a relative index that depends on "
                                      "an element's value")
        if isinstance(i, (bool, _np.bool_)) or not isinstance(i, (int, _np.integer)):
            raise NotImplementedError(f"numfuse.stencil: {where}: the relative index {i!r} "
                                      "(only integers relative to the current point)")
    if len(index) != ndim:
        raise ValueError(f"numfuse.stencil: {where}: {len(index)} relative indices into a "
                         f"{ndim}-dimensional array")
    return tuple(int(i) for i in index)


class StencilFunc:
    """What @numfuse.stencil returns: call it with arrays (and scalars), as Numba's StencilFunc."""

    def __init__(self, kernel, mode, options):
        unknown = set(options) - _OPTIONS
        if unknown:
            raise TypeError(f"stencil: unknown option(s) {sorted(unknown)}; expected some of "
                            f"{sorted(_OPTIONS)}")
        self.kernel = kernel
        self.mode = mode
        self.options = options
        self.neighborhood = options.get("neighborhood")
        self._plans = {}
        self._fast = {}  # fast-path key -> (interior, its shape, dtype, first input, shape, traces)
        self._views = ViewCache()  # the arguments' ids -> their kept views (_stencil_views.py)
        self._reads = KernelReads(kernel, self._forget)  # outside_values(kernel), read on a change
        self.__name__ = getattr(kernel, "__name__", "stencil")
        self.__doc__ = kernel.__doc__

    def __reduce__(self):
        # Pickled (cloudpickle: Dask ships it to workers) as the kernel and options: the caches
        # hold weak references, kept views and generated functions, remade by the first calls.
        return StencilFunc, (self.kernel, self.mode, self.options)

    def __call__(self, *args, out=None):
        # The same arrays as an earlier call, viewing the same memory the same way, and the
        # kernel reading the same outside values: their shifted views are kept (_stencil_views).
        reads = self._reads.current()  # first: a replaced __code__ forgets every entry (_forget)
        hit = self._views.entries.get(id(args[0]) if len(args) == 1 else tuple(map(id, args)))
        if hit is not None and _same_layouts(args, hit.refs, out, hit.first) and \
                hit.valid(reads):  # (out: None or an array of the input's shape)
            if out is None:
                out = self._allocate(hit.shape, hit.dtype, hit.device)
            if hit.direct:  # the value straight into the write (see below)
                out[hit.interior] = hit.body(args, hit.views)
                return out
            return self._write_from_views(hit, args, out)
        fast = self._fast_key(args, reads)
        try:
            hit = None if fast is None else self._fast.get(fast)
        except TypeError:  # an unhashable scalar or outside value: the full path every time
            fast = hit = None
        if hit is None:
            return self._call(args, out, fast)
        # A call like an earlier one (the arrays' dtypes and shapes, the scalars, what the kernel
        # reads from outside): its checks passed then, and its recording replays without the
        # operands' wrappers. The slices' own host time per step is a few us; this path's was
        # 3-4x that, the GPU step's gap (bench/stencil_ab.py).
        interior, target, dtype, first, shape, traces = hit
        leaves = [a for a in args if isinstance(a, _core.ndarray)]
        if out is None:
            out = self._allocate(shape, dtype, args[first].device)
        elif not isinstance(out, _core.ndarray) or out.shape != shape:
            return self._call(args, out, None)  # raises the full path's error
        if traces is None:  # the neighbourhood does not fit: only the border (cval)
            return out
        outside = reads  # the kernel's outside values (KernelReads.current(), just now)
        if len(leaves) == len(args):  # arrays only: kept views once these arrays repeat
            key = id(args[0]) if len(args) == 1 else tuple(map(id, args))
            entry = self._views.seen_before(key, args) and self._entry(key, args, traces, hit,
                                                                       outside)
            if entry:
                return self._write_from_views(entry, args, out)
        replayed = replay_cached(traces, "interior", leaves, self.kernel, outside)
        if replayed is None:  # no recording for this aliasing yet: the full path makes one
            return self._call(args, out, None)
        # The value goes straight into the write (see _call), held by nothing else: the write
        # computes it into `out` in place only when the interpreter's stack holds the last
        # reference (NumPy's temporary elision test); a name or the replay's tuple holding it
        # too made an array of its own and a second pass copying it (1.5x the step's time).
        box = [replayed[0]]
        del replayed
        out[interior] = self._finish(box.pop(), target, dtype)
        return out

    def _forget(self):
        self._plans, self._fast, self._views = {}, {}, ViewCache()

    def _entry(self, key, args, traces, hit, outside):
        """The kept views' entry for these arguments (seen before), or None where there is no
        valid recording for their aliasing (_stencil_views)."""
        ids = [id(a) for a in args]
        trace = traces.get(("interior", tuple(ids.index(i) for i in ids)))
        if trace is None or not trace.valid(self.kernel, outside):
            return None
        return self._views.make(key, args, trace, hit, self.kernel, outside)

    def _write_from_views(self, entry, args, out):
        """The interior written from an entry's kept views; the first time, whether the value
        needs _finish (its dtype and shape are the recording's, the same on every call)."""
        box = [entry.body(args, entry.views)]
        if entry.direct is None:
            value = box[0]
            entry.direct = isinstance(value, _core.ndarray) and value.dtype == entry.dtype and \
                value.shape == entry.target
            del value
        out[entry.interior] = self._finish(box.pop(), entry.target, entry.dtype)
        return out

    def _fast_key(self, args, reads):
        """The key of a call on the fast path: dtype and shape of each numfuse array, type and
        value of each scalar, and what the kernel reads from outside; None for any other
        argument (the full path converts it). It may be unhashable (__call__ tells)."""
        key = []
        for a in args:
            if isinstance(a, _core.ndarray):
                key.append((a.dtype, a.shape))
            elif isinstance(a, (bool, int, float, complex, _np.generic)):
                key.append((type(a), a))
            else:
                return None
        return tuple(key) + reads  # (hashed by the look-up)

    def _call(self, args, out, fast):
        values, relative, nbhd, dtype, traces, interior = self._prepare(args)
        shape = relative[0].array.shape
        if out is not None:
            if not isinstance(out, _core.ndarray) or out.shape != shape:
                raise ValueError(f"stencil: out must be a numfuse array of shape {shape}, "
                                 f"got {getattr(out, 'shape', type(out).__name__)}")
        else:  # first, as the slice-written stencil allocates its output before writing it
            out = self._allocate(shape, dtype, relative[0].array.device)
        fits = all(s.stop > s.start for s in interior)
        if fits:
            # The value goes straight into the write: a Python name holding it would make the
            # graph keep it as an array of its own (an extra pass) before copying it into out.
            out[interior] = self._interior(values, nbhd, traces, interior, dtype)
        if fast is not None:  # later calls like this one take the fast path (__call__)
            if len(self._fast) >= _MAX_FAST:
                self._fast.clear()
            first = next(k for k, v in enumerate(values) if isinstance(v, _Relative))
            self._fast[fast] = (interior, tuple(s.stop - s.start for s in interior), dtype,
                                first, shape, traces if fits else None)
        return out

    def interior_expression(self, *args):
        """What a call writes into the output's interior, as a pending array (for
        numfuse.explain: the slice-written stencil's graph, see the module's docstring)."""
        values, _, nbhd, dtype, traces, interior = self._prepare(args)
        return self._interior(values, nbhd, traces, interior, dtype)

    def _prepare(self, args):
        """(operands, relative operands, neighbourhood, output dtype, recordings, interior slices)."""
        code = self.kernel.__code__
        names = code.co_varnames[:code.co_argcount]
        if len(args) != len(names):
            raise TypeError(f"{self.__name__}() takes {len(names)} arguments ({len(args)} given)")
        standard = set(self.options.get("standard_indexing", ()))
        values, relative = self._operands(args, names, standard)
        shape, ndim = relative[0].array.shape, relative[0].array.ndim
        nbhd, dtype, traces = self._plan(values, relative, names, ndim)
        interior = tuple(slice(-lo, n - hi) for (lo, hi), n in zip(nbhd, shape))
        return values, relative, nbhd, dtype, traces, interior

    def _interior(self, values, nbhd, traces, interior, dtype):
        return self._finish(self._run(values, nbhd, traces),
                            tuple(s.stop - s.start for s in interior), dtype)

    @staticmethod
    def _finish(body, target, dtype):
        """The kernel's value as the interior's array: its dtype, broadcast to `target`."""
        body = body.array if isinstance(body, Weak) else body
        body = asarray(body) if not isinstance(body, _core.ndarray) else body
        if body.dtype != dtype:
            body = body.astype(dtype)
        return body if body.shape == target else broadcast_to(body, target)

    def _operands(self, args, names, standard):
        values, relative = [], []
        device = next((a.device for a in args if isinstance(a, _core.ndarray)), None)
        for name, a in zip(names, args):
            if isinstance(a, (bool, int, float, complex, _np.generic)):
                values.append(a)
                continue
            arr = a if isinstance(a, _core.ndarray) else \
                asarray(a, device=device) if device is not None else asarray(a)
            if name in standard:
                values.append(_Standard(arr))
            else:
                values.append(_Relative(arr, name))
                relative.append(values[-1])
        if not relative:
            raise ValueError(f"stencil {self.__name__}: no array argument to apply the kernel over")
        first = relative[0].array
        if first.ndim == 0:
            raise ValueError(f"stencil {self.__name__}: the input '{relative[0].name}' is 0-d")
        for r in relative[1:]:
            if r.array.shape != first.shape:
                raise ValueError(f"stencil {self.__name__}: the input '{r.name}' has shape "
                                 f"{r.array.shape}, the first input '{relative[0].name}' has "
                                 f"shape {first.shape}: stencil inputs must have one shape")
        return values, relative

    def _plan(self, values, relative, names, ndim):
        """(neighborhood, output dtype, recordings of the interior's computation), from one run
        of the kernel on 0-d stand-ins (cached by the arguments' types and scalar values and the
        numbers the kernel reads from outside): it notes every relative index the kernel reads."""
        key = tuple((type(v).__name__, v.array.dtype if isinstance(v, _Relative) else
                     (v.array.dtype, v.array.shape) if isinstance(v, _Standard) else v)
                    for v in values)
        key += (ndim,) + self._reads.current()
        try:
            plan = self._plans.get(key)
        except TypeError:  # an unhashable scalar argument
            plan, key = None, None
        if plan is not None:
            return plan
        seen = []
        filename = self.kernel.__code__.co_filename

        def record(value, index, node, apply):
            if isinstance(value, _Standard):
                return _standard_read(value, index, node, filename, apply)
            if not isinstance(value, _Relative):
                return NotImplemented
            offs = _offsets(index, ndim, node, filename)
            seen.append(offs)
            return zeros((), value.array.dtype, device=value.array.device)

        with _np.errstate(all="ignore"):
            result = self._translate(values, record, None, None)
        if not isinstance(result, (_core.ndarray, Weak, bool, int, float, complex, _np.generic)):
            raise TypeError(f"stencil {self.__name__}: the kernel returns "
                            f"{type(result).__name__}; a stencil kernel returns one number")
        dtype = dtype_of(result.array if isinstance(result, Weak) else result)
        if dtype.kind not in "biufc":
            raise TypeError(f"stencil {self.__name__}: the kernel returns {type(result).__name__}")
        nbhd = self._neighborhood(seen, ndim)
        if key is not None:
            self._plans[key] = (nbhd, dtype, {})  # the last: recorded interior computations
        return nbhd, dtype, {} if key is None else self._plans[key][2]

    def _neighborhood(self, seen, ndim):
        given = self.options.get("neighborhood")
        if given is None:
            nbhd = tuple((min([0] + [o[d] for o in seen]), max([0] + [o[d] for o in seen]))
                         for d in range(ndim))
            self.neighborhood = nbhd
            return nbhd
        given = tuple(tuple(int(x) for x in pair) for pair in given)
        if len(given) != ndim:
            raise ValueError(f"{len(given)} dimensional neighborhood specified for {ndim} "
                             "dimensional input array")
        for lo, hi in given:
            if not lo <= 0 <= hi:
                raise ValueError(f"stencil {self.__name__}: neighborhood {given} must contain 0 "
                                 "in every dimension (lo <= 0 <= hi)")
        for offs in seen:
            if any(not lo <= o <= hi for o, (lo, hi) in zip(offs, given)):
                raise ValueError(f"stencil {self.__name__}: the kernel reads the relative index "
                                 f"{offs}, outside the neighborhood {given}")
        return given

    def _run(self, values, nbhd, traces):
        filename = self.kernel.__code__.co_filename

        def shifted(value, index, node, apply):
            if isinstance(value, _Standard):
                return _standard_read(value, index, node, filename, apply)
            if not isinstance(value, _Relative):
                return NotImplemented
            offs = tuple(int(i) for i in (index if isinstance(index, tuple) else (index,)))
            return apply(_operator.getitem, value.array, _shift_key(offs, nbhd))
        leaves = [v.array for v in values if isinstance(v, (_Relative, _Standard))]
        return self._translate(values, shifted, traces, leaves)

    def _translate(self, values, subscript, traces, leaves):
        """The kernel over `values`; with `traces`, replayed from a recording when one exists
        (the key: the plan's, which holds the argument types and scalar values)."""
        try:
            result, _ = run_cached(traces, "interior", self.kernel, values, leaves or [],
                                   mode="numba", subscript=subscript)
        except Untranslatable as e:
            raise NotImplementedError(f"numfuse.stencil: {e}") from None
        return result

    def _allocate(self, shape, dtype, device):
        if "cval" not in self.options:
            return zeros(shape, dtype, device=device)
        cval = self.options["cval"]
        if _np.iscomplexobj(cval) and dtype.kind != "c":
            raise ValueError("cval type does not match stencil return type.")
        return full(shape, cval, dtype, device=device)


def stencil(func_or_mode="constant", **options):
    """Numba's @stencil (see the module's docstring): `@stencil`, `@stencil(neighborhood=...,
    cval=..., standard_indexing=...)`, or `stencil(kernel)`."""
    if callable(func_or_mode):
        return StencilFunc(func_or_mode, "constant", options)
    if func_or_mode != "constant":
        raise ValueError(f"Unsupported mode style {func_or_mode}")
    return lambda kernel: StencilFunc(kernel, func_or_mode, options)
