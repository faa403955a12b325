"""GPU elementwise bandwidth: numfuse next to a device-to-device copy (cuMemcpyDtoD) measured in
the same process, and CuPy when it is installed. 1e8 float32 elements; GB/s counts every byte
read and written once. Warm times (after a first, compiling call), synchronised around the loop.

    python bench/cuda_elementwise.py [n] [reps]
"""
import sys
import time

import numpy as np

import numfuse as nf

N = int(float(sys.argv[1])) if len(sys.argv) > 1 else 100_000_000
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 20


def timed(fn, nbytes, reps=REPS):
    t0 = time.perf_counter()
    fn()  # first call: compiles (or loads from disk) and allocates
    nf.cuda.synchronize()
    first = time.perf_counter() - t0
    best = float("inf")
    for _ in range(3):
        nf.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        nf.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best, nbytes / best / 1e9, first


def main():
    rng = np.random.default_rng(0)
    host = [rng.random(N, dtype=np.float32) for _ in range(3)]
    x, y, z = (nf.asarray(h, device="cuda") for h in host)
    dst = nf.empty(N, np.float32, device="cuda")
    b = 4 * N
    rows = []
    rows.append(("copy (cuMemcpyDtoD)", *timed(lambda: nf.cuda._c._copy_into(x, dst), 2 * b)))
    rows.append(("x + y", *timed(lambda: nf.eval(x + y), 3 * b)))
    rows.append(("x * y", *timed(lambda: nf.eval(x * y), 3 * b)))
    rows.append(("x*y+z*x-sqrt(y)*2", *timed(lambda: nf.eval(x * y + z * x - nf.sqrt(y) * 2), 4 * b)))
    rows.append(("sin(x)+cos(x)", *timed(lambda: nf.eval(nf.sin(x) + nf.cos(x)), 2 * b)))
    try:
        import cupy as cp
        cx, cy, cz = (cp.asarray(h) for h in host)

        def cpt(fn, nbytes):
            best, gbs, first = timed(lambda: (fn(), cp.cuda.Stream.null.synchronize()), nbytes)
            return best, gbs, first
        rows.append(("cupy x + y", *cpt(lambda: cx + cy, 3 * b)))
        rows.append(("cupy x*y+z*x-sqrt(y)*2", *cpt(lambda: cx * cy + cz * cx - cp.sqrt(cy) * 2, 4 * b)))
    except Exception as e:  # noqa: BLE001
        print("cupy not measured:", e)
    # Correctness of what was timed.
    got = nf.asnumpy(x * y + z * x - nf.sqrt(y) * 2)
    hx, hy, hz = host
    assert np.allclose(got, hx * hy + hz * hx - np.sqrt(hy) * 2, rtol=1e-5, atol=1e-5)
    copy_bw = rows[0][2]
    print(f"\nnumfuse CUDA elementwise, n={N:.0e} float32, {REPS} reps, device "
          f"{nf.cuda.runtime.getDeviceProperties(0)['name']}")
    print(f"{'case':28s} {'warm ms':>9s} {'GB/s':>8s} {'% copy':>7s} {'first ms':>9s}")
    for name, t, gbs, first in rows:
        print(f"{name:28s} {t * 1e3:9.3f} {gbs:8.1f} {100 * gbs / copy_bw:6.1f}% {first * 1e3:9.1f}")
    print("kernel cache:", nf.cuda.kernel_cache_stats())


if __name__ == "__main__":
    main()
