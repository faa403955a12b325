"""numfuse.stencil (out=) against the same stencil written with slices, A/B in one process
(issue 14 asks the stencil to be at least as fast as the slices; bench/vectorize_stencil.py's
five repeats measured 0.98-0.99x on the H100, within its noise). The two use two buffer pairs,
swapped every two pairs (each side runs on each pair alike) unless --fixed-buffers.

    PYTHONPATH=python python3 bench/stencil_ab.py [--device cuda] [--n 8192] [--its 20] [--pairs 15]

For the 5-point (float64) and the 9-point (float32) stencils of bench/vectorize_stencil.py, each
pair runs the slices and the stencil one after the other (which one first alternates), each
timed from the first step to the device's synchronisation. Prints the median and the best of
each, their ratio (slices / stencil: >= 1 means the stencil is as fast), and the host time of
one step without waiting (how far ahead of the device the Python side runs).
"""
import argparse
import os
import statistics
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vectorize_stencil import five_point, five_point_slices, smooth9, smooth9_slices, stencil_out  # noqa: E402

import numfuse as nf  # noqa: E402


def sync(device):
    if device == "cuda":
        nf.cuda.synchronize()


def run_timed(fn, a, b, its, device):
    t0 = time.perf_counter()
    r = fn(nf, a, b, its)
    nf.eval(r)
    sync(device)
    return time.perf_counter() - t0


def host_per_step(fn, a, b, device, steps=200):
    """Seconds of Python per step when the device is left to run behind (small steps: 1 each)."""
    fn(nf, a, b, 2)  # the small grid's kernels compiled and recorded first, outside the clock
    sync(device)
    t0 = time.perf_counter()
    fn(nf, a, b, steps)
    t = (time.perf_counter() - t0) / steps
    sync(device)
    return t


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--n", type=int, default=2048)
    p.add_argument("--its", type=int, default=20)
    p.add_argument("--pairs", type=int, default=9)
    p.add_argument("--fixed-buffers", action="store_true",
                   help="slices always on buffer pair A, the stencil on B (the older runs)")
    args = p.parse_args()
    rng = numpy.random.default_rng(0)
    for label, grid, slices, kernel in [
            ("5-point f64", rng.random((args.n, args.n)), five_point_slices, nf.stencil(five_point)),
            ("9-point f32", rng.random((args.n, args.n)).astype(numpy.float32), smooth9_slices,
             nf.stencil(smooth9))]:
        sten = stencil_out(kernel)
        arrays = [nf.asarray(grid, device=args.device) for _ in range(4)]
        nf.eval(*arrays)
        impls = [("slices", slices), ("stencil", sten)]
        pairs = [(arrays[0], arrays[1]), (arrays[2], arrays[3])]
        for _, fn in impls:  # warm-up: kernels compiled, recordings made, on both buffer pairs
            for a, b in pairs:
                run_timed(fn, a, b, 3, args.device)
        times = {"slices": [], "stencil": []}
        by_buffers = {(name, p): [] for name, _ in impls for p in "AB"}
        for k in range(args.pairs):
            # Which one runs first alternates every pair, which buffers each one uses every two
            # pairs (--fixed-buffers: slices on A, stencil on B always): two 8192^2 buffer pairs
            # may differ in speed by their placement alone, a bias a fixed assignment keeps.
            order = impls if k % 2 == 0 else impls[::-1]
            swap = not args.fixed_buffers and (k // 2) % 2 == 1
            for name, fn in order:
                p = "AB"[(name == "stencil") != swap]
                a, b = pairs["AB".index(p)]
                t = run_timed(fn, a, b, args.its, args.device)
                times[name].append(t)
                by_buffers[(name, p)].append(t)
        small = [nf.asarray(grid[:64, :64], device=args.device) for _ in range(4)]
        host = {name: host_per_step(fn, small[2 * i], small[2 * i + 1], args.device)
                for i, (name, fn) in enumerate(impls)}
        split = "; ".join(f"{name} on {p} {statistics.median(v) * 1e3:.3f}"
                          for (name, p), v in by_buffers.items() if v)
        med = {k: statistics.median(v) for k, v in times.items()}
        best = {k: min(v) for k, v in times.items()}
        print(f"{label} {args.n}^2 x{args.its} on {args.device}: "
              f"slices median {med['slices'] * 1e3:.3f} ms best {best['slices'] * 1e3:.3f}; "
              f"stencil median {med['stencil'] * 1e3:.3f} ms best {best['stencil'] * 1e3:.3f}; "
              f"slices/stencil median {med['slices'] / med['stencil']:.3f} best "
              f"{best['slices'] / best['stencil']:.3f}; host per step: slices "
              f"{host['slices'] * 1e6:.1f} us, stencil {host['stencil'] * 1e6:.1f} us; "
              f"medians by buffers (ms): {split}", flush=True)


if __name__ == "__main__":
    main()
