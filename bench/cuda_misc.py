"""GPU matmul, Monte Carlo pi and small-op host overhead: numfuse next to CuPy in one process.

    python bench/cuda_misc.py
"""
import os
import sys
import time

import numpy as np

import numfuse as nf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_timing  # noqa: E402


def timed(fn, sync, reps=10):
    return cuda_timing.timed(fn, sync, reps)


def main():
    try:
        import cupy as cp
        csync = cp.cuda.runtime.deviceSynchronize
    except ImportError:
        cp = None
    rows = []
    for dt in (np.float32, np.float64):
        n = 8192
        h = np.random.default_rng(0).random((n, n)).astype(dt)
        a = nf.asarray(h, device="cuda")
        t, first = timed(lambda: nf.eval(a @ a), nf.cuda.synchronize, 5)
        tc = None
        if cp is not None:
            ca = cp.asarray(h)
            tc, _ = timed(lambda: ca @ ca, csync, 5)
        rows.append((f"matmul {n}^2 {np.dtype(dt).name}", t, first, 2 * n**3 / t / 1e12, tc))
        del a
    n = 100_000_000

    def pi_nf():
        rng = nf.random.default_rng(1)
        x = rng.random(n)
        y = rng.random(n)
        return float(4.0 * nf.count_nonzero(x * x + y * y <= 1.0) / n)

    t, first = timed(pi_nf, nf.cuda.synchronize, 3)
    tc = None
    if cp is not None:
        def pi_cp():
            rng = cp.random.default_rng(1)
            x = rng.random(n)
            y = rng.random(n)
            return float(4.0 * cp.count_nonzero(x * x + y * y <= 1.0) / n)
        tc, _ = timed(pi_cp, csync, 3)
    rows.append((f"Monte Carlo pi 1e8 f64 (pi={pi_nf():.5f})", t, first, None, tc))
    xs = nf.asarray(np.random.default_rng(3).random(n, dtype=np.float32), device="cuda")
    t, first = timed(lambda: nf.eval(nf.sin(xs) + nf.cos(xs)), nf.cuda.synchronize)
    tc = None
    if cp is not None:
        cxs = cp.asarray(nf.asnumpy(xs))
        tc, _ = timed(lambda: cp.sin(cxs) + cp.cos(cxs), csync)
    rows.append(("sin(x)+cos(x) 1e8 f32", t, first, None, tc))
    del xs
    # The 5-point stencil, 50 iterations on 8192^2 float64, written with slices.
    grid = np.random.default_rng(2).random((8192, 8192))

    def stencil(xp, a, b):
        for _ in range(50):
            b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
            a, b = b, a
        return a

    ga, gb = nf.asarray(grid, device="cuda"), nf.asarray(grid, device="cuda")
    t, first = timed(lambda: nf.eval(stencil(nf, ga, gb)), nf.cuda.synchronize, 2)
    tc = None
    if cp is not None:
        ca, cb = cp.asarray(grid), cp.asarray(grid)
        tc, _ = timed(lambda: stencil(cp, ca, cb), csync, 2)
    rows.append(("stencil 50 it 8192^2 f64", t, first, None, tc))
    del ga, gb
    a = nf.asarray(np.ones(1000, np.float32), device="cuda")
    b = nf.asarray(np.ones(1000, np.float32), device="cuda")
    reps = 2000

    def small():
        for _ in range(reps):
            c = a + b
            nf.eval(c)

    t, _ = timed(small, nf.cuda.synchronize, 1)
    tc = None
    if cp is not None:
        ca, cb = cp.ones(1000, cp.float32), cp.ones(1000, cp.float32)

        def small_cp():
            for _ in range(reps):
                ca + cb
        tc, _ = timed(small_cp, csync, 1)
        tc /= reps
    rows.append(("small op: c = a + b, 1000 f32, per op (host)", t / reps, None, None, tc))
    bb = nf.asarray(np.zeros(1000, np.float32), device="cuda")

    def chain():
        nonlocal bb
        for _ in range(2000):
            bb = bb + 1.0
        nf.eval(bb)
    t, _ = timed(chain, nf.cuda.synchronize, 1)
    rows.append(("2000 x b = b + 1.0, per op", t / 2000, None, None, None))
    print("| case | numfuse warm | first call | TFLOP/s | CuPy | CuPy/numfuse |")
    print("|---|---|---|---|---|---|")
    for name, t, first, tf, tc in rows:
        unit = (lambda v: f"{v * 1e6:.2f} us") if t < 1e-3 else (lambda v: f"{v * 1e3:.3f} ms")
        print(f"| {name} | {unit(t)} | {'' if first is None else f'{first * 1e3:.0f} ms'} | "
              f"{'' if tf is None else f'{tf:.1f}'} | {'' if tc is None else unit(tc)} | "
              f"{'' if tc is None else f'{tc / t:.2f}x'} |")


if __name__ == "__main__":
    main()
