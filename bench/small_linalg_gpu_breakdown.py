"""Issue 13: where the time of numfuse's stack of 100,000 8x8 float64 inv / solve / eigh goes, on
a GPU. Each row: the wall time of one call (synchronised before and after: median and best) and of
calls back to back, then, from torch.profiler (CUPTI sees numfuse's kernels as it sees CuPy's),
each call's kernels and the GPU's idle time between calls (the host's fixed cost a call: Python,
the node, the launch, the wait's wake-up). "inv 1 x 8x8" is that fixed cost alone. CuPy's rows
for the same inputs when it is installed.

    PYTHONPATH=python python bench/small_linalg_gpu_breakdown.py [--no-cupy] [--only=WORD,...]

The last rows are floors of any synchronised call: numfuse's evaluation of a one-element add
(its fixed cost for any op that waits), an uninitialised array of the stack's size (the
allocation and the free every call's result pays), and CuPy's empty kernel launched and waited
for (the driver's).

NUMFUSE_SMALL_LINALG_CONSTANT_SIZES=0 runs the kernels that read n from their parameters
(instead of the ones compiled for n == 8), to compare the two.
"""
import statistics
import sys
import time

import numpy as np

import numfuse as nf

B = 100_000


def inputs():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((B, 8, 8)) + 8 * np.eye(8)
    return {"a": a, "b1": rng.standard_normal((B, 8, 1)), "b8": rng.standard_normal((B, 8, 8)),
            "s": (a + np.swapaxes(a, -1, -2)) / 2,
            "one": np.eye(8)[None] + 0.1 * rng.standard_normal((1, 8, 8))}


def calls(xp, put, h):
    a, b1, b8, s, one = (put(h[k]) for k in ("a", "b1", "b8", "s", "one"))
    return [("inv", lambda: xp.linalg.inv(a)), ("solve b 8x1", lambda: xp.linalg.solve(a, b1)),
            ("solve b 8x8", lambda: xp.linalg.solve(a, b8)), ("eigh", lambda: xp.linalg.eigh(s)),
            ("inv 1 x 8x8", lambda: xp.linalg.inv(one)),
            ("x + 1, 1 element", lambda: one[0, 0, :1] + 1),
            ("empty like a", lambda: xp.empty(a.shape, a.dtype))]


def walls(run, sync, n=40):
    """(median, best) of one synchronised call, and the mean of n calls back to back, in us."""
    run()
    run()
    sync()
    each = []
    for _ in range(n):
        sync()
        t0 = time.perf_counter()
        run()
        sync()
        each.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    for _ in range(n):
        run()
    sync()
    return statistics.median(each) * 1e6, min(each) * 1e6, (time.perf_counter() - t0) / n * 1e6


def kernels(run, sync, n=8):
    """The kernels of one call (name, count, median us) and the GPU's busy and idle us a call."""
    try:
        from torch.profiler import ProfilerActivity, profile
    except ImportError:
        return "(no torch.profiler)"
    run()
    sync()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(n):
            run()
        sync()
    ks = sorted((e.time_range.start, e.time_range.end, e.name) for e in p.events()
                if str(e.device_type).endswith("CUDA"))
    if not ks:
        return "(no device events)"
    period = (ks[-1][1] - ks[0][0]) / n
    busy = sum(e - s for s, e, _ in ks) / n
    names = {}
    for s, e, name in ks:
        names.setdefault(name[:40], []).append(e - s)
    each = "; ".join(f"{k} x{len(v) / n:g} {statistics.median(v):.1f} us" for k, v in names.items())
    idle = period - busy
    return f"kernels a call {busy:6.1f} us, GPU idle a call {idle:6.1f} us (profiled) | {each}"


def main():
    h = inputs()

    def nf_run(f):
        def run():
            r = f()
            nf.eval(*r) if isinstance(r, tuple) else nf.eval(r)
        return run
    libs = [("numfuse", nf, lambda x: nf.asarray(x, device="cuda"), nf.cuda.synchronize, nf_run)]
    if "--no-cupy" not in sys.argv:
        try:
            import cupy as cp
            libs.append(("cupy", cp, cp.asarray, cp.cuda.runtime.deviceSynchronize, lambda f: f))
        except ImportError:
            pass
    only = [w for a in sys.argv if a.startswith("--only=") for w in a[7:].split(",") if w]
    for lib, xp, put, sync, wrap in libs:
        for name, f in calls(xp, put, h):
            if only and not any(w in name for w in only):
                continue
            run = wrap(f)
            med, best, b2b = walls(run, sync)
            print(f"{lib:8s} {name:12s} wall {med:7.1f} (best {best:7.1f}) back to back "
                  f"{b2b:7.1f} us  {kernels(run, sync)}", flush=True)
        if lib == "cupy" and not only:
            empty = xp.RawKernel('extern "C" __global__ void nf_empty() {}', "nf_empty")
            med, best, b2b = walls(lambda: empty((1,), (32,), ()), sync)
            print(f"{lib:8s} {'empty kernel':12s} wall {med:7.1f} (best {best:7.1f}) back to back "
                  f"{b2b:7.1f} us", flush=True)


if __name__ == "__main__":
    main()
