"""Timing helpers shared by the benchmarks and the demo.

numfuse is lazy: an expression returns at once and the work happens at evaluation. Every timed
region therefore ends with `force(xp, result)`, which evaluates pending work and, on a GPU, waits
for the device. The first call of a case is timed on its own (it may compile kernels); warm
figures are the median of repeats after warm-up calls.

Any module can stand in for numfuse (`--numfuse-module numpy` for dry runs before numfuse
exists); missing numfuse functions (eval, asnumpy, cuda) fall back to no-ops or NumPy's.
"""
import argparse
import importlib
import os
import statistics
import time
from dataclasses import dataclass, field

import numpy


def add_module_arg(parser: argparse.ArgumentParser) -> None:
    """Adds --numfuse-module (default: $NUMFUSE_MODULE or 'numfuse')."""
    parser.add_argument(
        "--numfuse-module", default=os.environ.get("NUMFUSE_MODULE", "numfuse"),
        help="module to benchmark as numfuse; 'numpy' gives a dry run of the script itself")


def family_args(doc):
    """The command line of the family benches (bench/*_cpu.py): --numfuse-module and --quick.
    Returns (args, the numfuse module)."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_module_arg(p)
    p.add_argument("--quick", action="store_true", help="small sizes (a dry run)")
    args = p.parse_args()
    return args, import_numfuse(args.numfuse_module)


def import_numfuse(name: str = "numfuse"):
    """Imports the module that plays numfuse."""
    return importlib.import_module(name)


def is_numpy(xp) -> bool:
    return xp is numpy


def cuda_available(xp) -> bool:
    """numfuse.cuda.is_available(), False where the module has no cuda submodule yet."""
    is_avail = getattr(getattr(xp, "cuda", None), "is_available", None)
    try:
        return bool(is_avail()) if is_avail else False
    except Exception:  # a broken driver must not stop a CPU benchmark
        return False


# Per module: (its eval, its device synchronize or None), looked up once. force() runs inside
# the timed region of every numfuse row, so its own cost (~1 us of getattr and is_available
# calls a call before) must not weigh on numfuse's side of a ratio.
_FORCERS = {}


def _forcer(xp):
    f = _FORCERS.get(id(xp))
    if f is None:
        sync = getattr(xp.cuda, "synchronize", None) if cuda_available(xp) else None
        f = _FORCERS[id(xp)] = (getattr(xp, "eval", None), sync, getattr(xp, "ndarray", ()), xp)
    return f


def force(xp, *results):
    """Evaluates pending numfuse work and waits for the device; a no-op for NumPy."""
    if xp is numpy:
        return results[0] if len(results) == 1 else results
    ev, sync, array_type, _ = _forcer(xp)  # (xp kept in the entry: its id stays valid)
    if ev is not None:
        if len(results) == 1 and isinstance(results[0], array_type):
            ev(results[0])
        else:
            arrays = [r for r in results if hasattr(r, "shape")]
            if arrays:
                ev(*arrays)
    if sync is not None:
        sync()
    return results[0] if len(results) == 1 else results


def to_numpy(xp, a):
    """numfuse.asnumpy(a) (or numpy.asarray where the module has no asnumpy)."""
    conv = getattr(xp, "asnumpy", None)
    return numpy.asarray(conv(a) if conv is not None and not is_numpy(xp) else a)


@dataclass
class Timing:
    first: float                      # seconds of the first call (compiles, allocates)
    times: list = field(default_factory=list)  # seconds of each warm repeat

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def best(self) -> float:
        return min(self.times)


def measure(fn, xp, repeats=5, warmup=1, budget_s=None) -> Timing:
    """Times fn() with evaluation forced inside the clock.

    The first call is recorded separately, then `warmup` untimed calls, then `repeats` timed
    ones. With budget_s, repeats stop early once their total passes the budget (at least one
    timed run always happens), so slow cases keep a run short on a 2-core machine.
    """
    t0 = time.perf_counter()
    force(xp, fn())
    first = time.perf_counter() - t0
    for _ in range(warmup):
        force(xp, fn())
    out = Timing(first)
    spent = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        force(xp, fn())
        dt = time.perf_counter() - t0
        out.times.append(dt)
        spent += dt
        if budget_s is not None and spent > budget_s:
            break
    return out


def measure_pair(fn_a, xp_a, fn_b, xp_b, repeats=7, warmup=1, budget_s=None, min_sample_s=None):
    """Times two implementations of one case with their repeats interleaved (a b b a a b ...).

    On a shared 2-core machine the background load drifts; alternating the runs puts both
    sides under the same load, so the ratio is steadier than from two separate series.

    With min_sample_s, a sample of a short operation is a loop of k calls (the same k for both
    sides, chosen after the warm-up so that the slower side's loop lasts about min_sample_s), and
    its time is the loop's divided by k: one call of tens of microseconds is otherwise timed at the
    mercy of a single interrupt or preemption. Times stay per call; `first` is one call.
    """
    inner = 1

    def once(fn, xp, k=None):
        k = inner if k is None else k
        t0 = time.perf_counter()
        for _ in range(k):
            force(xp, fn())
        return (time.perf_counter() - t0) / k
    ta, tb = Timing(once(fn_a, xp_a, 1)), Timing(once(fn_b, xp_b, 1))
    for _ in range(warmup):
        once(fn_a, xp_a)
        once(fn_b, xp_b)
    if min_sample_s:
        slower = max(once(fn_a, xp_a, 1), once(fn_b, xp_b, 1), 1e-7)
        inner = max(1, min(1000, round(min_sample_s / slower)))
    spent = 0.0
    for i in range(repeats):
        order = ((fn_a, xp_a, ta), (fn_b, xp_b, tb))
        for fn, xp, out in (order if i % 2 == 0 else order[::-1]):
            out.times.append(once(fn, xp))
            spent += out.times[-1] * inner
        if budget_s is not None and spent > budget_s:
            break
    return ta, tb


def thread_time_per_call(loop, iters, repeat):
    """Thread CPU seconds per statement of loop(n), the best of `repeat` rounds of `iters` (after a
    warm-up round of up to 100): for host-side statements, immune to other processes' load."""
    loop(min(iters, 100))
    best = float("inf")
    for _ in range(repeat):
        t = time.thread_time()
        loop(iters)
        best = min(best, time.thread_time() - t)
    return best / iters


def gbps(nbytes, seconds):
    """Bandwidth in GB/s (1e9 bytes) for the fewest bytes the operation must move."""
    return nbytes / seconds / 1e9 if nbytes and seconds > 0 else None


def fmt_time(seconds) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.3f} s"


def agree(expected, got, rtol=1e-5, atol=0.0) -> bool:
    """Loose sanity check for benchmark results (the test suite does the exact checks)."""
    expected, got = numpy.asarray(expected), numpy.asarray(got)
    if expected.shape != got.shape:
        return False
    if expected.dtype.kind in "biu":
        return bool(numpy.array_equal(expected, got))
    return bool(numpy.allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True))


def median_timed(xp, fn, args, repeat):
    """(median seconds, last result) of fn(xp, *args) over `repeat` runs after a warm-up, each
    forced (evaluated, and synchronised on a GPU) inside the timing."""
    force(xp, fn(xp, *args))
    times = []
    r = None
    for _ in range(repeat):
        t = time.perf_counter()
        r = force(xp, fn(xp, *args))
        times.append(time.perf_counter() - t)
    return statistics.median(times), r


def results_as_numpy(xp, r):
    """A result (or a tuple or list of them) as NumPy arrays; non-arrays as they are."""
    if isinstance(r, (tuple, list)):
        return tuple(results_as_numpy(xp, x) for x in r)
    return r if is_numpy(xp) or not hasattr(r, "shape") else xp.asnumpy(r)


def print_table(headers, rows, file=None):
    """Prints a markdown table (also readable in a terminal); returns its text."""
    rows = [[("-" if c is None else str(c)) for c in r] for r in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    text = "\n".join([line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
                     + [line(r) for r in rows])
    print(text, file=file, flush=True)
    return text


def machine_line(xp=None) -> str:
    """One line naming the host, core count, NumPy and the numfuse device, for result headers."""
    import platform
    parts = [time.strftime("%Y-%m-%d %H:%M"), platform.node(), platform.machine(),
             f"{os.cpu_count()} cores", f"numpy {numpy.__version__}"]
    if xp is not None and not is_numpy(xp):
        parts.append(f"{xp.__name__} {getattr(xp, '__version__', '?')}"
                     f" on {'cuda' if cuda_available(xp) else 'cpu'}")
    elif xp is not None:
        parts.append("numfuse stood in for by numpy (dry run)")
    return ", ".join(parts)
