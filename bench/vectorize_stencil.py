"""numfuse.stencil and numfuse.vectorize next to what they replace, in one run (issue 14).

Stencils: the 5-point stencil (float64, ping-pong for --its iterations) and a 9-point smoothing
(float32, neighbourhood loops) written three ways: @numfuse.stencil (with out=, and allocating a
new output per step), the same stencil written with slices in numfuse, and the slices in NumPy
(CPU) or CuPy (GPU, when importable). vectorize: a function with an if/else, then `* 2 + 1`:
numfuse.vectorize (translated, fused) next to numpy.vectorize (a Python call per element), the
same expression written with numfuse.where, and cupy.vectorize on the GPU.

Time is the median of warm repeats (first call excluded; evaluation and device sync inside the
clock); GB/s counts one read and one write of the grid per stencil step (the floor); `x slices`
is the slice-written numfuse time over this row's time (>= 1: as fast or faster).

Usage:
    PYTHONPATH=python python bench/vectorize_stencil.py                  # CPU, 2048^2, 1e6
    PYTHONPATH=python python bench/vectorize_stencil.py --device cuda --n 8192 --m 100000000
"""
import argparse
import os
import statistics
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def five_point(a):
    return 0.25 * (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1])


def smooth9(a):
    s = a[-1, -1]
    for i in range(-1, 2):
        for j in range(-1, 2):
            if i != -1 or j != -1:
                s += a[i, j]
    return s * numpy.float32(1.0 / 9.0)  # a float32 constant: Numba's typing keeps float32


def five_point_slices(xp, a, b, its):
    for _ in range(its):
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a, b = b, a
    return a


def _sum9(a):
    """The nine neighbours' sum as one expression (no name holds a partial sum: a held
    pending value is kept as an array of its own, an extra pass)."""
    n0, n1 = a.shape
    s = a[0:n0 - 2, 0:n1 - 2]
    for i in range(3):
        for j in range(3):
            if i or j:
                s = s + a[i:n0 - 2 + i, j:n1 - 2 + j]
    return s


def smooth9_slices(xp, a, b, its):
    for _ in range(its):
        b[1:-1, 1:-1] = _sum9(a) * numpy.float32(1.0 / 9.0)
        a, b = b, a
    return a


def stencil_out(kernel):
    def run(xp, a, b, its):
        for _ in range(its):
            kernel(a, out=b)
            a, b = b, a
        return a
    return run


def stencil_alloc(kernel):
    def run(xp, a, b, its):
        for _ in range(its):
            a = kernel(a)
        return a
    return run


def branchy(x):
    return x * x + 1.0 if x > 0.0 else -x * 0.5


def force(xp, result):
    """Evaluates and waits: numfuse through common.force, CuPy by synchronising its device."""
    if getattr(xp, "__name__", "") == "cupy":
        xp.cuda.runtime.deviceSynchronize()
        return result
    return common.force(xp, result)


def interleaved(runs, repeat):
    """Median seconds of each (xp, fn, args), their repeats taken in turns (a b c a b c ...) so
    that a shared machine's drifting load falls on all of them alike."""
    for xp, fn, args in runs:  # warm-up: kernels compiled, plans cached
        force(xp, fn(xp, *args))
    times = [[] for _ in runs]
    for _ in range(repeat):
        for k, (xp, fn, args) in enumerate(runs):
            t = time.perf_counter()
            force(xp, fn(xp, *args))
            times[k].append(time.perf_counter() - t)
    return [statistics.median(t) for t in times]


def stencil_rows(nf, cp, device, n, its, repeat):
    rng = numpy.random.default_rng(0)
    rows = []
    k5, k9 = nf.stencil(five_point), nf.stencil(smooth9)
    for name, grid, slices, kernel, tol in [
            (f"5-point {n}^2 f64 x{its}", rng.random((n, n)), five_point_slices, k5, 1e-12),
            (f"9-point {n}^2 f32 x{its}", rng.random((n, n)).astype(numpy.float32),
             smooth9_slices, k9, 1e-5)]:
        nbytes = 2 * grid.nbytes * its
        impls = [("numfuse slices", nf, slices), ("numfuse.stencil out=", nf, stencil_out(kernel)),
                 ("numfuse.stencil alloc", nf, stencil_alloc(kernel))]
        impls += [("cupy slices", cp, slices)] if cp is not None else []
        impls += [("numpy slices", numpy, slices)] if device == "cpu" else []
        want = slices(numpy, grid.copy(), grid.copy(), 2) if n <= 4096 else None
        # The allocating stencil starts each step from a zero border (Numba's rule).
        zero_border = numpy.zeros_like(grid)
        want_alloc = slices(numpy, grid.copy(), zero_border, 1) if n <= 4096 else None
        if want_alloc is not None:
            want_alloc = slices(numpy, want_alloc.copy(), numpy.zeros_like(grid), 1)
        arrays = {label: (xp.array(grid), xp.array(grid)) if xp is not nf else
                  (nf.asarray(grid, device=device), nf.asarray(grid, device=device))
                  for label, xp, _ in impls}
        times = interleaved([(xp, fn, arrays[label] + (its,)) for label, xp, fn in impls], repeat)
        base = times[0]
        for (label, xp, fn), t in zip(impls, times):
            ok = "-"
            if want is not None:
                fresh = arrays[label][0].copy(), arrays[label][1].copy()
                fresh[0][...] = xp.array(grid) if xp is not nf else nf.asarray(grid, device=device)
                fresh[1][...] = fresh[0]
                r = fn(xp, fresh[0], fresh[1], 2)
                ok = common.agree(want_alloc if "alloc" in label else want, cp.asnumpy(r) if xp is cp and cp is not None else
                                  common.results_as_numpy(xp, r), rtol=tol)
            rows.append([name, label, common.fmt_time(t), f"{common.gbps(nbytes, t):.1f}",
                         f"{base / t:.2f}", ok])
    return rows


def vectorize_rows(nf, cp, device, m, repeat):
    x = numpy.random.default_rng(1).standard_normal(m)
    want = numpy.vectorize(branchy)(x[:1000]) * 2 + 1
    nv = nf.vectorize(branchy)
    impls = [("numfuse.vectorize", nf, lambda xp, a: nv(a) * 2 + 1),
             ("numfuse where", nf, lambda xp, a: xp.where(a > 0.0, a * a + 1.0, -a * 0.5) * 2 + 1)]
    if device == "cpu":
        impls.append(("numpy.vectorize", numpy,
                      lambda xp, a: numpy.vectorize(branchy)(a) * 2 + 1))
    if cp is not None:
        cv = cp.vectorize(branchy)
        try:  # CuPy's translator may refuse the function: the row then says so
            cv(cp.ones(4))
            impls.append(("cupy.vectorize", cp, lambda xp, a: cv(a) * 2 + 1))
        except Exception as e:  # noqa: BLE001 (any refusal)
            print(f"cupy.vectorize refused branchy: {type(e).__name__}: {e}")
    rows = []
    sizes = [m if xp is not numpy else min(m, 10**6) for _, xp, _ in impls]
    inputs = [nf.asarray(x[:n], device=device) if xp is nf else xp.asarray(x[:n])
              for (_, xp, _), n in zip(impls, sizes)]
    fast = [k for k, (_, xp, _) in enumerate(impls) if xp is not numpy]
    times = dict(zip(fast, interleaved([(impls[k][1], impls[k][2], (inputs[k],)) for k in fast],
                                       repeat)))
    for k, ((label, xp, fn), n, a) in enumerate(zip(impls, sizes, inputs)):
        if k in times:
            t = times[k]
        else:
            t0 = time.perf_counter()
            force(xp, fn(xp, a))
            t = time.perf_counter() - t0
        r = fn(xp, a)
        got = cp.asnumpy(r[:1000]) if xp is cp else common.results_as_numpy(xp, r[:1000])
        rows.append([f"vectorize if/else *2+1 f64 {n:.0e}", label, common.fmt_time(t),
                     f"{common.gbps(16 * n, t):.1f}", f"{t / n * 1e9:.2f} ns/elem",
                     common.agree(want, got, rtol=1e-12)])
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    common.add_module_arg(p)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--n", type=int, default=2048, help="grid side")
    p.add_argument("--its", type=int, default=20, help="stencil steps per timing")
    p.add_argument("--m", type=int, default=10**6, help="vectorize elements")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    nf = common.import_numfuse(args.numfuse_module)
    cp = None
    if args.device == "cuda":
        try:
            import cupy as cp  # noqa: F811
        except ImportError:
            cp = None
    print(common.machine_line(nf))
    common.print_table(["case", "impl", "time", "GB/s", "x slices", "ok"],
                       stencil_rows(nf, cp, args.device, args.n, args.its, args.repeat))
    print()
    common.print_table(["case", "impl", "time", "GB/s", "per element", "ok"],
                       vectorize_rows(nf, cp, args.device, args.m, args.repeat))


if __name__ == "__main__":
    main()
