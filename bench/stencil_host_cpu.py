"""Host time per step of numfuse.stencil next to the same stencil written with slices (issue 14),
on grids small enough that the Python side is the step's cost: what a GPU waits for when it runs
ahead of nothing (bench/stencil_ab.py measures the large grids).

    PYTHONPATH=python python bench/stencil_host_cpu.py [--n 8] [--device cpu|cuda]

Rows: the 5-point (float64) and 9-point (float32) stencils of bench/vectorize_stencil.py, 10 steps
per loop then numfuse.eval, best of --repeat interleaved runs: numfuse slices, numfuse.stencil
with out= (ping-pong: the kept views of _stencil_views.py), numfuse.stencil allocating a new
output per step, and NumPy's slices (CPU only). `x slices` is the slices' time over the row's.
"""
import argparse
import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vectorize_stencil import (five_point, five_point_slices, smooth9, smooth9_slices,  # noqa: E402
                               stencil_alloc, stencil_out)

import numfuse as nf  # noqa: E402


def best_per_step(xp, fn, grid, device, loops, repeat_index, best):
    a, b = (nf.asarray(grid, device=device) for _ in range(2)) if xp is nf else \
        (grid.copy(), grid.copy())
    if xp is nf:
        nf.eval(a, b)
    t0 = time.perf_counter_ns()
    for _ in range(loops):
        r = fn(xp, a, b, 10)
        if xp is nf:
            nf.eval(r)
    if xp is nf and device == "cuda":
        nf.cuda.synchronize()
    t = (time.perf_counter_ns() - t0) / (loops * 10) / 1e3
    best[repeat_index] = min(best.get(repeat_index, t), t)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--loops", type=int, default=100)
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args()
    rng = numpy.random.default_rng(0)
    for label, grid, slices, kernel in [
            ("5-point f64", rng.random((args.n, args.n)), five_point_slices, five_point),
            ("9-point f32", rng.random((args.n, args.n)).astype(numpy.float32), smooth9_slices,
             smooth9)]:
        st = nf.stencil(kernel)
        rows = [("numfuse slices", nf, slices), ("numfuse.stencil out=", nf, stencil_out(st)),
                ("numfuse.stencil alloc", nf, stencil_alloc(st))]
        rows += [("numpy slices", numpy, slices)] if args.device == "cpu" else []
        best = {}
        for k, (_, xp, fn) in enumerate(rows):  # warm-up: kernels compiled, recordings made
            best_per_step(xp, fn, grid, args.device, 2, k, {})
        for _ in range(args.repeat):
            for k, (_, xp, fn) in enumerate(rows):
                best_per_step(xp, fn, grid, args.device, args.loops, k, best)
        for k, (name, _, _) in enumerate(rows):
            print(f"{label} {args.n}^2 on {args.device}: {name:22s} {best[k]:6.2f} us/step  "
                  f"x slices {best[0] / best[k]:.2f}", flush=True)


if __name__ == "__main__":
    main()
