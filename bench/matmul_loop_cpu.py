"""Issue 11's product loop, `out[i] = v @ M[:, i:i+64]` (bench/run_cpu.py's row, M of 1000 rows),
and the same loop over a matrix of a few rows, where BLAS's work is small and the time per step
is the host's: making the lazy product, evaluating it into the row of `out`, the view of M.
numfuse next to NumPy in one run; thread CPU time per step, the best of --repeat rounds (the
machine is shared). ratio = numpy / numfuse (> 1: numfuse faster).

Usage:  OPENBLAS_NUM_THREADS=1 PYTHONPATH=python python bench/matmul_loop_cpu.py [--repeat 9]
"""
import argparse
import os
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def loop_case(xp, rows, steps=1000, width=64):
    rng = numpy.random.default_rng(0)
    m = xp.asarray(rng.random((rows, steps + width)))
    v = xp.asarray(rng.random(rows))
    out = xp.empty((steps, width))
    common.force(xp, m, v, out)

    def loop(n):
        for _ in range(n):
            for i in range(steps):
                out[i] = v @ m[:, i:i + width]
        common.force(xp, out)
    return loop, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    import numfuse
    print(f"{'1000 steps of out[i] = v @ M[:, i:i+64]':44s} {'numpy':>10s} {'numfuse':>10s} {'ratio':>6s}")
    for rows in (1000, 16):
        (np_loop, np_out), (nf_loop, nf_out) = loop_case(numpy, rows), loop_case(numfuse, rows)
        t_np = common.thread_time_per_call(np_loop, 1, args.repeat) / 1000
        t_nf = common.thread_time_per_call(nf_loop, 1, args.repeat) / 1000
        agree = numpy.allclose(numpy.asarray(np_out), numfuse.asnumpy(nf_out), rtol=1e-12)
        print(f"{f'M of {rows} rows (per step)':44s} {t_np * 1e6:8.3f}us {t_nf * 1e6:8.3f}us "
              f"{t_np / t_nf:6.2f}{'' if agree else '  RESULTS DIFFER'}")


if __name__ == "__main__":
    main()
