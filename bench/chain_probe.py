"""Where the GPU time of 2000 x `b = b + 1.0` goes: kernel-cache counters and time per flush."""
import time

import numpy

import numfuse as nf

a = nf.asarray(numpy.ones(1000, numpy.float32), device="cuda")


def chain():
    b = a
    for _ in range(2000):
        b = b + 1.0
    nf.eval(b)
    nf.cuda.synchronize()
    return b


chain()
s0 = nf.cuda.kernel_cache_stats()
for _ in range(3):
    t = time.perf_counter()
    chain()
    print(f"chain: {(time.perf_counter() - t) / 2000 * 1e6:.2f} us/op")
print("kernel cache during 3 chains:", {k: nf.cuda.kernel_cache_stats()[k] - s0[k] for k in s0})
t = time.perf_counter()
b = a
for _ in range(2000):
    b = b + 1.0
print(f"recording only (with depth flushes): {(time.perf_counter() - t) / 2000 * 1e6:.2f} us/op")
