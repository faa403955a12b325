"""Record once, replay after: the array operations one translation of a Python function made
(_translate_array.py), replayed on new arrays without walking the AST again.

Interpreting the AST costs about 1 µs per node visited on a quiet machine (a 9-point stencil with
its loops visits ~150): more than the slice-written stencil's host time, enough to make a GPU
stencil of 0.2 ms per step host-bound. A translation's operations depend only on the operands'
dtypes (and which operands are the same array), the Python values it read (scalar arguments,
globals, closure, defaults) and nothing else: every branch on element values became a `where`.
So the first call records each operation (`Interpreter.apply`) as (function, argument slots,
errstate it ran under) and later calls with the same key replay that list: one Python call per node
of the graph, the graph itself identical.

A recording is dropped (the call interprets again) when a function it interpreted reads other
numbers or objects from its globals, closure or defaults than it did (checked on every replay), and
is never kept when the translation read a mutable Python object by value (a list's element, an
object's attribute: `Interpreter.outside`).
"""
import operator as _operator

import numpy as _np

from . import _core
from ._translate_array import Interpreter, Weak

_MAX_ENTRIES = 64  # recordings per cache (dtype combinations of one function): bounded memory


def outside_values(func):
    """What a function reads from outside its arguments, by value for numbers and by identity for
    other objects: its globals and closure (the names its code uses) and its defaults."""
    code = func.__code__
    seen = [(n, func.__globals__[n]) for n in code.co_names if n in func.__globals__]
    if func.__closure__:
        seen += [(n, c.cell_contents) for n, c in zip(code.co_freevars, func.__closure__)]
    seen += [("default", v) for v in func.__defaults__ or ()]
    return tuple((n, type(v), v) if isinstance(v, (bool, int, float, complex, _np.generic))
                 else (n, id(v)) for n, v in seen)


class Trace:
    """The array operations of one translation, as slots: ("in", k) the k-th leaf array given
    to the call, ("s", i) the result of step i, ("c", value) a constant."""

    def __init__(self, leaves):
        self.refs = {}
        # The dtype of each array slot as recorded (the recording's key fixes them): a NumPy
        # scalar of the same dtype as the array it meets replays as a Python number (_compile).
        self.dtypes = {("in", k): leaf.dtype for k, leaf in enumerate(leaves)
                       if isinstance(leaf, _core.ndarray)}
        self.keep = list(leaves)  # every array seen stays alive: ids stay unique while recording
        for k, leaf in enumerate(leaves):
            self.refs.setdefault(id(leaf), ("in", k))
        self.steps = []
        self.output = None
        self.mixed_types = False
        self.validators = ()
        self.array_constants = False  # an array not made by a recorded step: never replayed
        self.data_values = False  # a step's result was a number read from an array
        self.compiled = None  # the steps as one Python function (_compile), made at first replay
        self.with_views = None  # (shifts, function of (L, V)): views_replay(), made when asked

    def add(self, fn, args, result, errstate):
        spec = tuple(self.refs.get(id(a), ("c", a)) if isinstance(a, _core.ndarray) else ("c", a)
                     for a in args)
        self.array_constants |= any(s[0] == "c" and isinstance(s[1], _core.ndarray) for s in spec)
        if isinstance(result, _core.ndarray):
            self.keep.append(result)
            self.refs[id(result)] = ("s", len(self.steps))
            self.dtypes[("s", len(self.steps))] = result.dtype
        elif any(s[0] != "c" for s in spec):
            # A number read from the data (a host array's element): later steps would keep this
            # call's value as a constant, so the recording is never replayed.
            self.data_values = True
        self.steps.append((fn, spec, errstate))

    def finish(self, result, interpreter):
        self.output = self._template(result)
        self.mixed_types = interpreter.mixed_types
        self.validators = tuple((f, outside_values(f)) for f in dict.fromkeys(interpreter.functions))
        self.refs, self.keep = None, None

    def _template(self, v):
        if isinstance(v, tuple):
            return ("tuple", tuple(self._template(x) for x in v))
        if isinstance(v, Weak):
            return ("weak", self._template(v.array), v.kind)
        if isinstance(v, _core.ndarray):
            if id(v) in self.refs:
                return ("ref", self.refs[id(v)])
            self.array_constants = True
        return ("c", v)

    def valid(self, known=None, known_values=None):
        """Whether every function interpreted still reads what it read; `known` (one function)
        with `known_values` (its outside_values, just read by the caller) is not read again."""
        return all((known_values if f is known else outside_values(f)) == values
                   for f, values in self.validators)

    def replay(self, leaves):
        """(result, mixed_types) of the recorded call on new leaves."""
        if self.compiled is None:
            self.compiled = _compile(self.steps, self.output, dtypes=self.dtypes)
        return self.compiled(leaves), self.mixed_types

    def views_replay(self):
        """(shifts, replay): `shifts` lists each step that subscripts a leaf with a constant tuple
        of slices (a stencil's shifted reads) as (leaf index, key), and replay(L, V) runs the
        other steps with V[j] standing for the j-th shift's view. A caller that keeps the views
        of an unchanged leaf skips their subscripts on every call: a view reads its array's
        memory as it is when evaluated, so a kept view is what a new subscript would make."""
        if self.with_views is None:
            hoisted, shifts = {}, []
            for i, (fn, spec, _) in enumerate(self.steps):
                if _is_shift(fn, spec):
                    hoisted[i] = len(shifts)
                    shifts.append((spec[0][1], spec[1][1]))
            self.with_views = (tuple(shifts), _compile(self.steps, self.output, hoisted,
                                                               self.dtypes))
        return self.with_views

    def replay_stepwise(self, leaves):
        """replay() without the compiled function: each step read from the list (what the
        compiled function must agree with; tests compare the two)."""
        vals = []

        def get(slot):
            kind, x = slot
            return leaves[x] if kind == "in" else vals[x] if kind == "s" else x

        i, n = 0, len(self.steps)
        while i < n:
            state = self.steps[i][2]
            if state is None:
                fn, spec, _ = self.steps[i]
                vals.append(fn(*[get(s) for s in spec]))
                i += 1
                continue
            with _np.errstate(**state):  # a run of steps recorded under one errstate
                while i < n and self.steps[i][2] is state:
                    fn, spec, _ = self.steps[i]
                    vals.append(fn(*[get(s) for s in spec]))
                    i += 1
        return self._fill(self.output, get), self.mixed_types

    def _fill(self, t, get):
        if t[0] == "tuple":
            return tuple(self._fill(x, get) for x in t[1])
        if t[0] == "weak":
            return Weak(self._fill(t[1], get), t[2])
        return get(t[1]) if t[0] == "ref" else t[1]


# Binary operators a recording may call with a NumPy scalar on the left, and the numfuse
# array's reflected slot that makes the same node (the scalar stays strong, as NumPy's).
_REFLECTED = {_operator.add: _core.ndarray.__radd__, _operator.sub: _core.ndarray.__rsub__,
              _operator.mul: _core.ndarray.__rmul__, _operator.truediv: _core.ndarray.__rtruediv__}
_PLAIN_KINDS = frozenset("biufc")
_INFIX = {_operator.add: "+", _operator.sub: "-", _operator.mul: "*", _operator.truediv: "/",
          _operator.floordiv: "//", _operator.mod: "%", _operator.pow: "**"}


def _plain_scalar(value):
    """A NumPy scalar of a dtype numfuse has (booleans, integers, float16/32/64, complex64/128)."""
    return isinstance(value, _np.generic) and value.dtype.kind in _PLAIN_KINDS and \
        value.dtype.itemsize <= (16 if value.dtype.kind == "c" else 8)


def _is_shift(fn, spec):
    """Whether a recorded step is `leaf[constant tuple of slices]`: a view of the leaf."""
    return fn is _operator.getitem and len(spec) == 2 and spec[0][0] == "in" and \
        spec[1][0] == "c" and isinstance(spec[1][1], tuple) and \
        all(isinstance(k, slice) for k in spec[1][1])


def _same_dtype_scalar(value, array_dtype):
    """A NumPy float or complex scalar of `array_dtype` as the Python number that makes the same
    node with that array (NEP 50: a Python number takes the array's dtype; the value converts
    exactly). `x * numpy.float64(0.25)` went through NumPy's scalar protocol (~1.1 us on the
    CPU machine); `x * 0.25`, the slices' own literal, takes numfuse's short path (~0.45 us)."""
    if isinstance(value, (_np.floating, _np.complexfloating)) and value.dtype == array_dtype and \
            value.dtype.kind in "fc" and value.dtype.itemsize >= 4:
        return value.item()
    return value


def _compile(steps, output, hoisted=None, dtypes=None):
    """The recorded steps as one generated Python function of the leaves: `s3 = f3(L[0], s2)`
    per step, a run of steps under one errstate in one `with`. Replaying through the list of
    steps cost ~1 us per step of slot look-ups and argument lists (a 9-point stencil: 17 steps,
    more Python than the slice-written stencil's whole step); the function does only the calls.
    With `hoisted` (step index -> j), those steps are not run: `V[j]` (a second argument) is
    their value."""
    ns = {"_errstate": _np.errstate, "_Weak": Weak}
    lines = ["def replay(L):" if hoisted is None else "def replay(L, V):"]
    hoisted = hoisted or {}

    def const(value):
        name = f"c{len(ns)}"
        ns[name] = value
        return name

    def slot(spec):
        kind, x = spec
        if kind == "s":
            return f"V[{hoisted[x]}]" if x in hoisted else f"s{x}"
        return f"L[{x}]" if kind == "in" else const(x)

    def template(t):
        if t[0] == "tuple":
            return "(" + "".join(template(x) + ", " for x in t[1]) + ")"
        if t[0] == "weak":
            return f"_Weak({template(t[1])}, {const(t[2])})"
        return slot(t[1]) if t[0] == "ref" else const(t[1])

    state, indent = None, "    "
    for i, (fn, spec, st) in enumerate(steps):
        if i in hoisted:
            continue
        if st is not state:  # a new run of steps under one errstate (identity, as recorded)
            state = st
            indent = "    "
            if st is not None:
                lines.append(f"    with _errstate(**{const(st)}):")
                indent = "        "
        if fn in _REFLECTED and len(spec) == 2 and dtypes:
            c, other = (0, 1) if spec[0][0] == "c" else (1, 0)
            if spec[c][0] == "c" and spec[other][0] != "c" and spec[other] in dtypes:
                spec = list(spec)
                spec[c] = ("c", _same_dtype_scalar(spec[c][1], dtypes[spec[other]]))
        reflected = _REFLECTED.get(fn) if len(spec) == 2 else None
        if reflected and spec[0][0] == "c" and spec[1][0] != "c" and _plain_scalar(spec[0][1]):
            # `numpy.float64(0.25) * x` (a stencil's literal under Numba's typing): NumPy's scalar
            # reaches numfuse through its __array_ufunc__ protocol (~1.4 us); the array's own
            # reflected slot makes the same node from the same operands in ~0.5 us.
            fn, spec = reflected, (spec[1], spec[0])
        infix = _INFIX.get(fn) if len(spec) == 2 else None
        if infix:  # `x + y` is operator.add(x, y), without the call's global look-up
            lines.append(f"{indent}s{i} = {slot(spec[0])} {infix} {slot(spec[1])}")
        else:
            lines.append(f"{indent}s{i} = {const(fn)}({', '.join(slot(a) for a in spec)})")
    lines.append(f"    return {template(output)}")
    exec(compile("\n".join(lines), "<numfuse recorded translation>", "exec"), ns)
    return ns["replay"]


def replay_cached(cache, key, leaves, known=None, known_values=None):
    """(result, mixed_types) replayed from the recording in `cache` for `key` and the leaves'
    aliasing, or None where there is none (or it is no longer valid; `known`, `known_values`:
    see Trace.valid)."""
    ids = [id(a) for a in leaves]
    trace = cache.get((key, tuple(ids.index(i) for i in ids)))  # which leaves are one array
    if trace is not None and trace.valid(known, known_values):
        return trace.replay(leaves)
    return None


def run_cached(cache, key, func, args, leaves, mode="numpy", subscript=None, python_errors=True):
    """func(*args) translated over arrays: (result, mixed_types), replayed from `cache` (a dict,
    or None for no caching) when a recording for `key` and the leaves' aliasing exists.
    `leaves` are the arrays inside args (unwrapped), in an order the caller reproduces."""
    if cache is not None:
        hit = replay_cached(cache, key, leaves)
        if hit is not None:
            return hit
        ids = [id(a) for a in leaves]
        key = (key, tuple(ids.index(i) for i in ids))  # which leaves are the same array
    trace = Trace(leaves) if cache is not None else None
    it = Interpreter(mode, subscript, trace, python_errors)
    result = it.call(func, args)
    if trace is not None:
        trace.finish(result, it)
        if it.replayable and not trace.array_constants and not trace.data_values:
            if len(cache) >= _MAX_ENTRIES:
                cache.clear()
            cache[key] = trace
    return result, it.mixed_types
