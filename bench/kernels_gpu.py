"""Issue 14's "CUDA C++ from Python" figures: numfuse next to CuPy in one process.

1. RawKernel launch host cost: µs per launch of a small kernel in a loop of 10,000 launches
   (synchronised once at the end, so the figure is the host's: argument conversion, ordering with
   the lazy graph, cuLaunchKernel). Two argument lists: one int (an almost empty kernel), and
   three float32 arrays of 1024 elements and an int (the add kernel).
2. An ElementwiseKernel between two element-wise ops, y = k(x + 1) * 2 over 1e8 float32:
   numfuse records one fused kernel (numfuse.explain shows one group), CuPy launches three.
   GB/s counts the bytes the fused form must move (read x, write y: 8 bytes per element), next
   to the memory floor: a device-to-device copy of the same bytes.
3. ReductionKernel (sqrt of the sum of squares) of 1e8 float32, one output.

First calls (NVRTC compilation, or the disk cache) are shown apart from warm ones.

    PYTHONPATH=python python bench/kernels_gpu.py
"""
import os
import sys
import time

import numpy as np

import numfuse as nf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_timing  # noqa: E402

TINY = r'''extern "C" __global__ void tiny(int n) { if (n < 0 && threadIdx.x == 0) asm("trap;"); }'''
ADD = r'''extern "C" __global__ void add(const float* x, const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}'''


def launch_cost(kern, args, sync, loops=10_000):
    """µs of host time per launch (best of three loops)."""
    kern((1,), (128,), args)
    sync()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(loops):
            kern((8,), (128,), args)
        best = min(best, time.perf_counter() - t0)
        sync()
    return best / loops * 1e6


def main():
    peers = cuda_timing.peers()
    cp = peers.get("cupy", (None,))[0]
    print(f"device: {nf.cuda.Device().name}")

    # 1. launch host cost
    print(f"\n{'RawKernel launch, host µs/launch':42s} {'numfuse':>9s} {'cupy':>9s}")
    n = 1024
    h = np.arange(n, dtype=np.float32)
    rows = []
    nk_tiny, nk_add = nf.RawKernel(TINY, "tiny"), nf.RawKernel(ADD, "add")
    x, y, z = (nf.asarray(h, device="cuda") for _ in range(3))
    rows.append(("1 int argument", launch_cost(nk_tiny, (n,), nf.cuda.synchronize),
                 None if cp is None else
                 launch_cost(cp.RawKernel(TINY, "tiny"), (np.int32(n),), cp.cuda.runtime.deviceSynchronize)))
    cx = cy = cz = None
    if cp is not None:
        cx, cy, cz = (cp.asarray(h) for _ in range(3))
    rows.append(("3 float32 arrays + int (add, 1024)",
                 launch_cost(nk_add, (x, y, z, n), nf.cuda.synchronize),
                 None if cp is None else
                 launch_cost(cp.RawKernel(ADD, "add"), (cx, cy, cz, np.int32(n)), cp.cuda.runtime.deviceSynchronize)))
    for name, a, b in rows:
        print(f"{name:42s} {a:9.2f} {'-' if b is None else f'{b:9.2f}':>9s}")
    np.testing.assert_array_equal(nf.asnumpy(z), h + h)

    # 2. ElementwiseKernel between two element-wise ops
    N = 10**8
    hx = np.random.default_rng(0).random(N, dtype=np.float32)
    body = ("T x", "T y", "y = x * x - 0.5f * x", "poly")
    k = nf.ElementwiseKernel(*body)
    dx = nf.asarray(hx, device="cuda")
    plan = nf.explain(k(dx + 1) * 2)
    groups = plan.split(" group(s)")[0].split()[-1]
    t, first = cuda_timing.timed(lambda: nf.eval(k(dx + 1) * 2), nf.cuda.synchronize, 10)
    dst = nf.empty(N, dtype=np.float32, device="cuda")
    t_copy, _ = cuda_timing.timed(lambda: nf.cuda._c._copy_into(dx, dst), nf.cuda.synchronize, 10)
    gbytes = 8 * N / 1e9
    print(f"\nElementwiseKernel y = k(x + 1) * 2, 1e8 float32 ({groups} group(s) in numfuse.explain)")
    print(f"{'':20s} {'ms':>8s} {'GB/s':>8s} {'first ms':>9s}")
    print(f"{'numfuse':20s} {t * 1e3:8.3f} {gbytes / t:8.0f} {first * 1e3:9.1f}")
    print(f"{'copy floor':20s} {t_copy * 1e3:8.3f} {gbytes / t_copy:8.0f}")
    want = ((hx + 1) * (hx + 1) - np.float32(0.5) * (hx + 1)) * 2
    np.testing.assert_allclose(nf.asnumpy(k(dx + 1) * 2)[:1000], want[:1000], rtol=1e-6)
    if cp is not None:
        ck = cp.ElementwiseKernel(*body)
        cxx = cp.asarray(hx)
        tc, fc = cuda_timing.timed(lambda: ck(cxx + 1) * 2, cp.cuda.runtime.deviceSynchronize, 10)
        print(f"{'cupy (3 kernels)':20s} {tc * 1e3:8.3f} {gbytes / tc:8.0f} {fc * 1e3:9.1f}")

    # 3. ReductionKernel
    rk = ("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    r = nf.ReductionKernel(*rk)
    t, first = cuda_timing.timed(lambda: nf.eval(r(dx)), nf.cuda.synchronize, 10)
    got = float(nf.asnumpy(r(dx)))
    print(f"\nReductionKernel l2norm of 1e8 float32: numfuse {t * 1e3:.3f} ms ({4 * N / 1e9 / t:.0f} GB/s), "
          f"first {first * 1e3:.1f} ms, value {got:.6g} (NumPy {np.sqrt(np.sum(hx.astype(np.float64) ** 2)):.6g})")
    if cp is not None:
        cr = cp.ReductionKernel(*rk)
        tc, _ = cuda_timing.timed(lambda: cr(cxx), cp.cuda.runtime.deviceSynchronize, 10)
        print(f"ReductionKernel l2norm of 1e8 float32: cupy {tc * 1e3:.3f} ms ({4 * N / 1e9 / tc:.0f} GB/s)")


if __name__ == "__main__":
    main()
