"""The CPU simulator of @cuda.jit kernels: the kernel's own Python, one simulated thread at a time.

A kernel without cuda.syncthreads() is called once per thread, block after block. A kernel with
it is rewritten (its AST) into a generator that yields where it synchronises; the simulator
starts one generator per thread of the block and advances them round-robin, so every thread
reaches the barrier before any passes it. Shared arrays belong to the block (_intrinsics).
No OS threads: deterministic, and fast enough for test sizes (docs/decisions.md says why).
"""
import ast
import itertools
import textwrap
import threading

import numpy as np

from .._core import ndarray
from . import _intrinsics as cu
from ._source import source_lines

_GENERATORS = {}  # id(py_func) -> (py_func, generator function or None when no syncthreads)
# One simulated launch at a time: the running thread's indices live in one global (STATE).
_LAUNCH_LOCK = threading.Lock()
_RUNNING = threading.local()  # this thread is running a simulated kernel


def _static(node, env):
    """The Python object an expression of names and attributes denotes, else None."""
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _static(node.value, env)
        return getattr(base, node.attr, None) if base is not None else None
    return None


class _BarrierToYield(ast.NodeTransformer):
    def __init__(self, env):
        self.env, self.found = env, False

    def visit_Expr(self, node):
        v = node.value
        if isinstance(v, ast.Call) and _static(v.func, self.env) is cu.syncthreads:
            self.found = True
            return ast.copy_location(ast.Expr(ast.Yield(value=None)), node)
        return self.generic_visit(node)

    def visit_FunctionDef(self, node):  # the kernel itself only, not nested functions
        if getattr(self, "_top", False):
            return node
        self._top = True
        node.decorator_list = []
        return self.generic_visit(node)


def _generator_of(py_func):
    """py_func rewritten so that cuda.syncthreads() statements are `yield` (None: it has none)."""
    hit = _GENERATORS.get(id(py_func))
    if hit is not None and hit[0] is py_func:
        return hit[1]
    lines, filename, first = source_lines(py_func)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    env = dict(py_func.__globals__)
    free = py_func.__code__.co_freevars
    cells = dict(zip(free, (c.cell_contents for c in py_func.__closure__ or ())))
    env.update(cells)
    rewriter = _BarrierToYield(env)
    tree = rewriter.visit(tree)
    gen = None
    if rewriter.found:
        fn = tree.body[0]
        if free:  # rebuild the closure: an outer function whose parameters are the free names
            outer = ast.parse(f"def _nf_outer({', '.join(free)}):\n    pass").body[0]
            outer.body = [fn, ast.Return(ast.Name(fn.name, ast.Load()))]
            tree.body = [outer]
        ast.fix_missing_locations(tree)
        ast.increment_lineno(tree, first - 1)
        code = compile(tree, filename, "exec")
        ns = {}
        exec(code, py_func.__globals__, ns)
        gen = ns["_nf_outer"](*(cells[n] for n in free)) if free else ns[fn.name]
    _GENERATORS[id(py_func)] = (py_func, gen)
    return gen


def _host_args(args):
    """NumPy views of the arguments the kernel's Python indexes (numfuse CPU arrays: their own
    memory, so the kernel's writes land in them), scalars as NumPy scalars of the translation's
    types, and what to copy back afterwards."""
    out, back = [], []
    for a in args:
        if isinstance(a, ndarray):
            if a.device == "cpu":
                out.append(a._host_view())
            else:
                h = np.array(a)
                back.append((a, h))
                out.append(h)
        elif isinstance(a, (bool, int, float, complex)):
            # typed as the translation types them (Numba's: int64, float64...), so that
            # `a[i] * f` computes in the same precision on both
            out.append(_PY_SCALAR[type(a)](a) if type(a) in _PY_SCALAR else a)
        elif isinstance(a, tuple):
            out.append(tuple(_PY_SCALAR[type(e)](e) if type(e) in _PY_SCALAR else e for e in a))
        else:
            out.append(a)
    return out, back


_PY_SCALAR = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}


def _thread_name(bid, tid):
    return f"blockIdx=({bid[0]}, {bid[1]}, {bid[2]}) threadIdx=({tid[0]}, {tid[1]}, {tid[2]})"


def run(dispatcher, griddim, blockdim, shared_bytes, args):
    """Runs the kernel over the grid on the CPU."""
    if getattr(_RUNNING, "yes", False):
        raise RuntimeError("a kernel cannot be launched from inside a simulated kernel")
    with _LAUNCH_LOCK:
        _RUNNING.yes = True
        try:
            _run(dispatcher, griddim, blockdim, shared_bytes, args)
        finally:
            _RUNNING.yes = False


def _run(dispatcher, griddim, blockdim, shared_bytes, args):
    fn = dispatcher.py_func
    gen = _generator_of(fn)
    hargs, back = _host_args(args)
    st = cu.STATE
    st.gdim, st.bdim = griddim, blockdim
    threads = [(x, y, z) for z in range(blockdim[2]) for y in range(blockdim[1])
               for x in range(blockdim[0])]
    try:
        for bz, by, bx in itertools.product(range(griddim[2]), range(griddim[1]), range(griddim[0])):
            st.bid = (bx, by, bz)
            st.block = []
            st.dynamic = np.zeros(shared_bytes, np.uint8)
            if gen is None:
                _run_block_plain(fn, hargs, threads, st)
            else:
                _run_block_barriers(gen, hargs, threads, st)
    finally:
        st.tid = None
        st.block = None
    for a, h in back:
        a[...] = h


def _reraise(e, st):
    if isinstance(e, IndexError):
        raise IndexError(f"{e} (in thread {_thread_name(st.bid, st.tid)})") from None
    e.add_note(f"(raised in the simulated thread {_thread_name(st.bid, st.tid)})")
    raise e


def _run_block_plain(fn, hargs, threads, st):
    for tid in threads:
        st.tid = tid
        st.shared_index = 0
        try:
            fn(*hargs)
        except Exception as e:  # noqa: BLE001 - re-raised, naming the thread
            _reraise(e, st)


def _run_block_barriers(gen, hargs, threads, st):
    live = []
    for tid in threads:
        st.tid = tid
        st.shared_index = 0
        live.append([gen(*hargs), tid, 0])
    while live:
        waiting = []
        for rec in live:
            st.tid, st.shared_index = rec[1], rec[2]
            try:
                next(rec[0])
            except StopIteration:
                continue
            except Exception as e:  # noqa: BLE001 - re-raised, naming the thread
                _reraise(e, st)
            rec[2] = st.shared_index
            waiting.append(rec)
        live = waiting
