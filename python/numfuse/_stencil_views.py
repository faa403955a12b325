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


class KernelReads:
    """outside_values(kernel), read again only when one of the objects it came from was replaced
    (its code, defaults, the globals its code names, its closure's contents: compared by
    identity, ~0.1 us; outside_values itself cost ~0.4 us per call). While nothing was replaced,
    current() returns the same tuple object, so a holder of it compares by identity."""

    __slots__ = ("kernel", "forget", "code", "defaults", "names", "missing", "values", "cells",
                 "contents", "by_value")

    def __init__(self, kernel, forget):
        self.kernel = kernel
        self.forget = forget  # called when the kernel's code object was replaced
        self.code = None  # read at the first current(): a closure cell may be empty until then

    def snapshot(self):
        kernel = self.kernel
        if self.code is not None and kernel.__code__ is not self.code:
            # `kernel.__code__ = ...`: another function under the same object. What was recorded
            # from the old code (plans, recordings, kept views) is dropped, not keyed: the
            # outside values of two codes may be equal.
            self.forget()
        self.code = kernel.__code__
        self.names = tuple(self.code.co_names)
        self.missing = (_MISSING,) * len(self.names)
        self.cells = tuple(kernel.__closure__ or ())
        self.defaults = kernel.__defaults__
        self.values = tuple(map(kernel.__globals__.get, self.names, self.missing))
        by_value = outside_values(kernel)  # raises as the full path does (an empty cell)
        self.contents = tuple(c.cell_contents for c in self.cells)
        self.by_value = by_value

    def current(self):
        kernel = self.kernel
        if kernel.__code__ is self.code and kernel.__defaults__ is self.defaults and \
                (not self.names or all(map(_operator.is_, map(kernel.__globals__.get, self.names,
                                                             self.missing), self.values))) and \
                (not self.cells or self._same_cells()):
            return self.by_value
        self.snapshot()
        return self.by_value

    def _same_cells(self):
        try:
            return all(map(_operator.is_, [c.cell_contents for c in self.cells], self.contents))
        except ValueError:  # an empty cell: snapshot() raises what the full path raises
            return False


class Entry:
    """One argument combination's kept views and what its call writes."""

    __slots__ = ("refs", "weak", "views", "body", "interior", "shape", "target", "dtype",
                 "first", "device", "direct", "kernel", "reads", "others", "trace")

    def __init__(self, args, trace, fast_hit, kernel, reads):
        interior, target, dtype, first, shape, _ = fast_hit
        shifts, self.body = trace.views_replay()
        self.views = tuple(_unowned(args[k][key], args[k]) for k, key in shifts)
        self.refs = tuple(_unowned(a[...], a) for a in args)
        self.interior, self.target, self.dtype, self.shape = interior, target, dtype, shape
        self.first, self.device = first, args[first].device
        self.direct = None  # the replay's value needs no _finish (decided at the first run)
        self.kernel, self.reads, self.trace = kernel, reads, trace  # reads: KernelReads.current()
        # Functions the kernel called: their reads are checked by the recording's own rule.
        self.others = any(f is not kernel for f, _ in trace.validators)
        self.weak = ()

    def valid(self, reads):
        """Whether the kernel's outside values `reads` (KernelReads.current()) are the
        recording's: by identity while nothing was replaced, else by value."""
        if reads is not self.reads:
            if reads != self.reads:
                return False
            self.reads = reads  # equal values in new objects: identity again from here
        return not self.others or self.trace.valid(self.kernel, reads)


def _unowned(view, array):
    _core._unowned_view(view, array)
    return view


class ViewCache:
    """Entries by the arguments' ids (see the module's docstring)."""

    __slots__ = ("entries", "candidates", "__weakref__")

    def __init__(self):
        self.entries = {}
        self.candidates = {}  # ids -> weak references of arguments seen on a fast-path call

    def seen_before(self, key, args):
        """Whether these argument objects were seen on an earlier call (noted now if not)."""
        seen = self.candidates.get(key)
        if seen is not None and all(map(_operator.is_, [w() for w in seen], args)):
            self.candidates.pop(key, None)  # (another thread may have taken it)
            return True
        if len(self.candidates) >= _MAX_ENTRIES:
            self.candidates.clear()
        self.candidates[key] = tuple(map(_weakref.ref, args))
        return False

    def make(self, key, args, trace, fast_hit, kernel, reads):
        """The entry for these arguments (seen_before said so), or None where none can be kept."""
        entry = Entry(args, trace, fast_hit, kernel, reads)
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
