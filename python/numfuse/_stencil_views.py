"""numfuse.stencil's per-input cache: the shifted views of the arrays a repeated call reads, made
once and kept (issue 14).

The slice-written stencil subscripts its input on every step (`a[:-2, 1:-1]`, ~0.13 us each, 4
or 9 per step); a stencil called again on the same arrays (the ping-pong `st(a, out=b)`,
`st(b, out=a)`) can keep them. A view reads its array's memory as that memory is when evaluated,
so a kept view is the view a new subscript would make, as long as the array still views the same
memory the same way: the entry keeps a reference layout of each input (a full view) and a call
uses it only when _core._same_layouts finds every argument viewing exactly that (storage, offset,
dtype, shape, strides; `a.shape = ...`, `a.strides = ...`, resize and __setstate__ change one).
What the kernel reads from outside (globals, closure, defaults, its code) is checked by identity
first, and by value (outside_values, as the recording's own rule) when an object was replaced.

Entries are keyed by the arguments' ids and dropped by a weak reference's callback when an
argument is collected; the kept views hold the arrays' memory, not the array objects
(_core._unowned_view), so a dropped input is freed as without the cache. An entry is made only
for arguments seen on an earlier call too (`candidates`): a stencil of a new temporary per call
(`st(x + 1)`) would pay for an entry it never uses again.
"""
import operator as _operator
import weakref as _weakref

from . import _core
from ._translate_array_trace import outside_values

_MAX_ENTRIES = 16  # argument combinations kept per stencil: ping-pong needs two
_MISSING = object()  # a global name the kernel's code uses but its module does not define


class _Outside:
    """What a kernel read from outside its arguments when its entry was made, checked cheaply."""

    __slots__ = ("kernel", "code", "defaults", "names", "missing", "values", "cells", "contents",
                 "by_value", "others", "trace")

    def __init__(self, kernel, trace):
        self.kernel, self.trace = kernel, trace
        self.code = kernel.__code__
        self.names = tuple(self.code.co_names)
        self.missing = (_MISSING,) * len(self.names)
        self.cells = tuple(kernel.__closure__ or ())
        # Functions the kernel called (their reads are checked by the recording's own rule).
        self.others = any(f is not kernel for f, _ in trace.validators)
        self.snapshot()

    def snapshot(self):
        kernel = self.kernel
        self.defaults = kernel.__defaults__
        self.values = tuple(map(kernel.__globals__.get, self.names, self.missing))
        self.contents = tuple(c.cell_contents for c in self.cells)
        self.by_value = outside_values(kernel)

    def unchanged(self):
        """Whether the kernel reads what it read: identity of every object first, then (one
        was replaced, perhaps by an equal number) the recording's rule by value."""
        kernel = self.kernel
        if kernel.__code__ is self.code and kernel.__defaults__ is self.defaults and \
                (not self.names or all(map(_operator.is_, map(kernel.__globals__.get, self.names,
                                                             self.missing), self.values))) and \
                (not self.cells or self._same_cells()):
            return not self.others or self.trace.valid(kernel, self.by_value)
        if kernel.__code__ is not self.code or outside_values(kernel) != self.by_value or \
                not self.trace.valid(kernel, self.by_value):
            return False
        self.snapshot()  # equal values in new objects: identity holds again from here
        return True

    def _same_cells(self):
        try:
            return all(map(_operator.is_, [c.cell_contents for c in self.cells], self.contents))
        except ValueError:  # an empty cell: the full path raises what Python raises
            return False


class Entry:
    """One argument combination's kept views and what its call writes."""

    __slots__ = ("refs", "weak", "views", "body", "interior", "shape", "target", "dtype",
                 "first", "device", "direct", "outside")

    def __init__(self, args, trace, fast_hit, outside):
        interior, target, dtype, first, shape, _ = fast_hit
        shifts, self.body = trace.views_replay()
        self.views = tuple(_unowned(args[k][key], args[k]) for k, key in shifts)
        self.refs = tuple(_unowned(a[...], a) for a in args)
        self.interior, self.target, self.dtype, self.shape = interior, target, dtype, shape
        self.first, self.device = first, args[first].device
        self.direct = None  # the replay's value needs no _finish (decided at the first run)
        self.outside = outside
        self.weak = ()


def _unowned(view, array):
    _core._unowned_view(view, array)
    return view


class ViewCache:
    """Entries by the arguments' ids (see the module's docstring)."""

    __slots__ = ("entries", "candidates", "__weakref__")

    def __init__(self):
        self.entries = {}
        self.candidates = {}  # ids -> weak references of arguments seen on a fast-path call

    def make(self, key, args, trace, fast_hit, kernel):
        """The entry for these arguments when they were seen before, else None (noted)."""
        seen = self.candidates.get(key)
        if seen is None or any(w() is not a for w, a in zip(seen, args)):
            if len(self.candidates) >= _MAX_ENTRIES:
                self.candidates.clear()
            self.candidates[key] = tuple(map(_weakref.ref, args))
            return None
        del self.candidates[key]
        entry = Entry(args, trace, fast_hit, _Outside(kernel, trace))
        if not _core._same_layouts(args, entry.refs, None, entry.first):
            return None  # a full view that is not the array's layout: never kept
        if len(self.entries) >= _MAX_ENTRIES:
            self.entries.clear()
        drop = _dropper(_weakref.ref(self), key)
        entry.weak = tuple(_weakref.ref(a, drop) for a in args)
        self.entries[key] = entry
        return entry


def _dropper(cache_ref, key):
    def drop(_):
        cache = cache_ref()
        if cache is not None:
            cache.entries.pop(key, None)
    return drop
