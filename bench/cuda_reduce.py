"""GPU reductions: numfuse next to a device-to-device copy measured in the same process, and CuPy
when it is installed. sum/max of 1e8 float32 (GB/s counts the bytes read once) and the seed
workload sqrt(sum(x**2, axis=-1)) on (1000, 100, 1000) float64. Warm times after a first call.

    python bench/cuda_reduce.py [reps]
"""
import os
import sys
import time

import numpy as np

import numfuse as nf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_timing  # noqa: E402

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20


def timed(fn, sync, reps=REPS):
    return cuda_timing.timed(fn, sync, reps)


def main():
    try:
        import cupy as cp
    except ImportError:
        cp = None
    rows = []
    n = 100_000_000
    host = np.random.default_rng(0).random(n, dtype=np.float32)
    x = nf.asarray(host, device="cuda")
    dst = nf.empty(n, np.float32, device="cuda")
    t_copy, _ = timed(lambda: nf.cuda._c._copy_into(x, dst), nf.cuda.synchronize)
    copy_gbs = 2 * 4 * n / t_copy / 1e9
    rows.append(("copy 1e8 f32 (DtoD)", t_copy, None, copy_gbs, None))
    for name, fn in (("sum", nf.sum), ("max", nf.max)):
        t, first = timed(lambda: nf.eval(fn(x)), nf.cuda.synchronize)
        ok = np.isclose(float(fn(x)), float(getattr(np, name)(host.astype(np.float64))), rtol=1e-4)
        rows.append((f"{name} 1e8 f32 (agree: {ok})", t, first, 4 * n / t / 1e9, None))
        if cp is not None:
            cx = cp.asarray(host)
            tc, _ = timed(lambda: getattr(cp, name)(cx), cp.cuda.runtime.deviceSynchronize)
            rows.append((f"  cupy {name}", tc, None, 4 * n / tc / 1e9, tc / t))
    del x, dst
    h3 = np.random.default_rng(1).random((1000, 100, 1000))
    a = nf.asarray(h3, device="cuda")
    t, first = timed(lambda: nf.eval(nf.sqrt(nf.sum(a ** 2, axis=-1))), nf.cuda.synchronize, 5)
    ok = np.allclose(nf.asnumpy(nf.sqrt(nf.sum(a ** 2, axis=-1))), np.sqrt(np.sum(h3 ** 2, axis=-1)))
    rows.append((f"sqrt(sum(x**2,-1)) (1000,100,1000) f64 (agree: {ok})", t, first, 8e8 / t / 1e9, None))
    if cp is not None:
        ca = cp.asarray(h3)
        tc, _ = timed(lambda: cp.sqrt(cp.sum(ca ** 2, axis=-1)), cp.cuda.runtime.deviceSynchronize, 5)
        rows.append(("  cupy sqrt(sum(x**2,-1))", tc, None, 8e8 / tc / 1e9, tc / t))
    print(f"| case | warm ms | first call ms | GB/s | % of copy | cupy/numfuse |")
    print("|---|---|---|---|---|---|")
    for name, t, first, gbs, ratio in rows:
        print(f"| {name} | {t * 1e3:.3f} | {'' if first is None else f'{first * 1e3:.1f}'} | {gbs:.0f} | "
              f"{100 * gbs / copy_gbs:.1f}% | {'' if ratio is None else f'{ratio:.2f}x'} |")


if __name__ == "__main__":
    main()
