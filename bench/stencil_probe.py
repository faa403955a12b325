"""The 5-point stencil on the GPU, numfuse next to torch.compile in one process (issue 4's
workload, as bench/run_gpu.py and bench/peers/fused_peers.py write it), and numfuse's kernel.

    PYTHONPATH=python python3 bench/stencil_probe.py [--n 8192] [--its 50] [--no-torch] [--source]

Prints each library's best-of-reps time, its bandwidth counting one read and one write of the
grid per iteration, and torch.compile / numfuse. --source prints numfuse.explain of one step's right-hand side.
"""
import argparse
import time

import numpy

import numfuse as nf


def stencil(copy, g, its):
    a = copy(g)
    b = copy(a)
    for _ in range(its):
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a, b = b, a
    return a


def best(fn, sync, reps):
    fn()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--its", type=int, default=50)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--source", action="store_true", help="print numfuse.explain of one step")
    args = ap.parse_args()
    n, its = args.n, args.its
    host = numpy.random.default_rng(0).random((n, n))
    nbytes = its * 2 * 8 * n * n
    g = nf.asarray(host)
    nf.eval(g)
    if args.source:
        a = g.copy()  # the right-hand side alone (setitem evaluates its write at once)
        print(nf.explain(0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])))
    t_nf = best(lambda: nf.eval(stencil(lambda x: x.copy(), g, its)), nf.cuda.synchronize, args.reps)
    print(f"numfuse        {t_nf * 1e3:8.3f} ms  {nbytes / t_nf / 1e9:6.0f} GB/s")
    check = nf.asnumpy(stencil(lambda x: x.copy(), g, 2))
    want = stencil(numpy.copy, host, 2)
    print("agrees with NumPy after 2 iterations:", numpy.allclose(check, want, rtol=1e-14, atol=0))
    if args.no_torch:
        return
    import torch

    @torch.compile
    def step(a, b):
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        return b

    def sten():
        a = tg.clone()
        b = a.clone()
        for _ in range(its):
            b = step(a, b)
            a, b = b, a
        return a

    tg = torch.from_numpy(host).cuda()
    t_tc = best(sten, torch.cuda.synchronize, args.reps)
    print(f"torch.compile  {t_tc * 1e3:8.3f} ms  {nbytes / t_tc / 1e9:6.0f} GB/s")
    print(f"torch.compile / numfuse: {t_tc / t_nf:.2f}x (above 1: numfuse faster)")


if __name__ == "__main__":
    main()
