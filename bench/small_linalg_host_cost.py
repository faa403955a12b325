"""Issue 13: the fixed host cost of one small-stack linalg call on CUDA. Prints the wall time of a
synchronised call (median, best) of inv (or solve) of a stack of B 8x8 float64 matrices, and with
--profile the CPU-side rows of torch.profiler for a few calls (the driver and runtime API calls
CUPTI records: cuLaunchKernel, cuStreamSynchronize, cuMemAlloc..., each with its count and time a
call). Run with NUMFUSE_TRACE_SMALL_LINALG=1 for numfuse's per-stage breakdown (printed at exit,
one process a stack size, so that the medians are one path's).

    PYTHONPATH=python python bench/small_linalg_host_cost.py [--batch=B] [--op=inv|solve] [--profile]
"""
import statistics
import sys
import time

import numpy as np

import numfuse as nf


def arg(name, default):
    for a in sys.argv[1:]:
        if a.startswith(f"--{name}="):
            return type(default)(a.split("=", 1)[1])
    return default


def main():
    batch, op, n = arg("batch", 1), arg("op", "inv"), arg("calls", 300)
    device = arg("device", "cuda")
    rng = np.random.default_rng(0)
    a = nf.asarray(rng.standard_normal((batch, 8, 8)) + 8 * np.eye(8), device=device)
    b = nf.asarray(rng.standard_normal((batch, 8, 1)), device=device)
    run = (lambda: nf.linalg.inv(a)) if op == "inv" else (lambda: nf.linalg.solve(a, b))
    for _ in range(20):
        run()
    if device == "cuda":
        nf.cuda.synchronize()
    each = []
    for _ in range(n):
        t0 = time.perf_counter()
        run()  # waits itself (LinAlgError at the call)
        each.append(time.perf_counter() - t0)
    print(f"{op} {batch} x 8x8 float64 on {device}: a call {statistics.median(each) * 1e6:.1f} us "
          f"(best {min(each) * 1e6:.1f}, {n} calls)")
    if "--profile" not in sys.argv:
        return
    from torch.profiler import ProfilerActivity, profile
    calls = 20
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(calls):
            run()
    print(f"torch.profiler, {calls} calls: rows (count / {calls} a call)")
    rows = sorted(p.key_averages(), key=lambda e: -e.cpu_time_total)
    for e in rows[:15]:
        print(f"  {e.key[:48]:48s} count {e.count:5d} ({e.count / calls:4.1f} a call) "
              f"cpu {e.cpu_time_total / e.count:7.2f} us each"
              f" device {getattr(e, 'device_time_total', 0) / e.count:7.2f} us each")


main()
