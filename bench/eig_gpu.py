"""eig and eigvals of large float64 matrices on the GPU (issue 13): numfuse (cusolverDnXgeev) next
to CuPy (when it has linalg.eig) and PyTorch (torch.linalg.eig/eigvals) on the device, and NumPy
and numfuse on the host, in one run; every result's eigenvalues checked against NumPy's (as
multisets: the order is each library's own). Each time is one warm call (these take seconds), after
a first call that loads the libraries.

    PYTHONPATH=python python bench/eig_gpu.py [--sizes=1000,4096] [--no-host-at=4096]
    PYTHONPATH=python python bench/eig_gpu.py --crossover=128,256,384,512,768

--crossover: numfuse's two routes for a CUDA array of each order, Xgeev on the device and the
host's LAPACK (copies there and back included), to place _linalg_decomp._GEEV_DEVICE_MIN_N.
"""
import os
import sys
import time

import numpy as np

import numfuse as nf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_timing  # noqa: E402


def matched_distance(got, want):
    """Largest |got - want| after sorting both the same way (real part, then imaginary), on
    values rounded to 8 digits first so that a conjugate pair cannot swap places."""
    def key(w):
        return np.lexsort((np.round(w.imag, 8), np.round(w.real, 8)))
    got, want = np.asarray(got, complex), np.asarray(want, complex)
    return float(np.max(np.abs(got[key(got)] - want[key(want)]), initial=0.0))


def once(fn, sync):
    sync()
    t0 = time.perf_counter()
    r = fn()
    sync()
    return time.perf_counter() - t0, r


def crossover(sizes):
    import numfuse._linalg_decomp as d
    rng = np.random.default_rng(1)
    print(f"{'case':28s} {'Xgeev':>10s} {'host':>10s}  (ms, best of 3 warm calls, numfuse on a cuda array)")
    shipped = d._GEEV_DEVICE_MIN_N
    try:
        for n in sizes:
            x = nf.asarray(rng.standard_normal((n, n)), device="cuda")
            for name in ("eigvals", "eig"):
                f = getattr(nf.linalg, name)
                row = []
                for route in (0, 1 << 30):
                    d._GEEV_DEVICE_MIN_N = route
                    once(lambda: f(x), nf.cuda.synchronize)
                    row.append(min(once(lambda: f(x), nf.cuda.synchronize)[0] for _ in range(3)))
                print(f"{name + f' {n}^2 float64':28s} {row[0] * 1e3:10.2f} {row[1] * 1e3:10.2f}",
                      flush=True)
    finally:
        d._GEEV_DEVICE_MIN_N = shipped


def main():
    args = dict(a.lstrip("-").split("=", 1) for a in sys.argv[1:] if "=" in a)
    if "crossover" in args:
        crossover([int(s) for s in args["crossover"].split(",")])
        return
    sizes = [int(s) for s in args.get("sizes", "1000,4096").split(",")]
    no_host = {int(s) for s in args.get("no-host-at", "4096").split(",") if s}
    peers = cuda_timing.peers()
    rng = np.random.default_rng(0)
    print(f"{'case':28s} {'numfuse':>10s} " + " ".join(f"{p:>10s}" for p in peers) +
          f" {'numpy-host':>10s} {'nf-host':>10s}  (ms, one warm call; check: max |w - numpy's|)")
    for n in sizes:
        a = rng.standard_normal((n, n))
        want = np.linalg.eigvals(a) if n not in no_host else None
        for name in ("eigvals", "eig"):
            row, checks = [], []
            x = nf.asarray(a, device="cuda")
            fn = (lambda: nf.linalg.eigvals(x)) if name == "eigvals" else (lambda: nf.linalg.eig(x)[0])
            once(fn, nf.cuda.synchronize)
            t, w = once(fn, nf.cuda.synchronize)
            row.append(t)
            if want is not None:
                checks.append(f"nf {matched_distance(nf.asnumpy(w), want):.1e}")
            for pname, (mod, sync, put) in peers.items():
                lib = mod.linalg
                f = getattr(lib, name, None)
                if f is None:
                    row.append(None)
                    continue
                d = put(a)
                call = (lambda: f(d)) if name == "eigvals" else (lambda: f(d)[0])
                try:
                    once(call, sync)
                    t, w = once(call, sync)
                    row.append(t)
                except Exception as e:  # a peer without GPU eig
                    print(f"  {pname} {name}: {type(e).__name__}: {str(e)[:80]}")
                    row.append(None)
            for fn_h in ((lambda: getattr(np.linalg, name)(a)),
                         (lambda: getattr(nf.linalg, name)(nf.asarray(a, device="cpu")))):
                if n in no_host:
                    row.append(None)
                    continue
                row.append(once(fn_h, lambda: None)[0])
            cells = " ".join(f"{t * 1e3:10.1f}" if t is not None else f"{'-':>10s}" for t in row)
            print(f"{name + f' {n}^2 float64':28s} {cells}  {', '.join(checks)}", flush=True)


if __name__ == "__main__":
    main()
