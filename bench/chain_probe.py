"""Where the host time of 2000 x `b = b + 1.0` goes, per device: kernel-cache counters, the time
of a plain recording step, and the time of the steps that flush (depth limit) — each op timed.

Usage: python bench/chain_probe.py [cpu|cuda ...]   (default: every device present)
Environment limits (NUMFUSE_MAX_GRAPH_DEPTH, NUMFUSE_MAX_GROUP_OPS, ...) change the plan."""
import statistics
import sys
import time

import numpy

import numfuse as nf

N_OPS = 2000


def sync(device):
    if device == "cuda":
        nf.cuda.synchronize()


def chain(a):
    b = a
    for _ in range(N_OPS):
        b = b + 1.0
    nf.eval(b)
    return b


def per_op_times(a):
    """Nanoseconds of each step of one chain, then of the final eval (with a device sync)."""
    steps = []
    b = a
    clock = time.perf_counter_ns
    for _ in range(N_OPS):
        t = clock()
        b = b + 1.0
        steps.append(clock() - t)
    t = clock()
    nf.eval(b)
    sync(str(a.device).split(":")[0])
    return steps, clock() - t


def probe(device):
    a = nf.asarray(numpy.ones(1000, numpy.float32), device=device)
    chain(a)
    sync(device)
    stats = nf.cuda.kernel_cache_stats() if device == "cuda" else None
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        chain(a)
        sync(device)
        best = min(best, time.perf_counter() - t)
    print(f"[{device}] chain: {best / N_OPS * 1e6:.2f} us/op (best of 5)")
    steps, final = per_op_times(a)
    cut = 20_000  # a step above 20 us flushed pending work
    plain = [s for s in steps if s < cut]
    flushes = [s for s in steps if s >= cut]
    print(f"[{device}] plain step median {statistics.median(plain) / 1e3:.2f} us, mean "
          f"{statistics.fmean(plain) / 1e3:.2f} us ({len(plain)} steps, "
          f"{sum(plain) / N_OPS / 1e3:.2f} us/op)")
    if flushes:
        print(f"[{device}] flushing steps: {len(flushes)}, mean {statistics.fmean(flushes) / 1e3:.1f} us "
              f"({sum(flushes) / N_OPS / 1e3:.2f} us/op); final eval+sync {final / 1e3:.1f} us")
    if stats is not None:
        now = nf.cuda.kernel_cache_stats()
        print(f"[{device}] kernel cache during the runs:", {k: now[k] - stats[k] for k in stats})


devices = sys.argv[1:] or ["cpu"] + (["cuda"] if nf.cuda.is_available() else [])
for d in devices:
    probe(d)
