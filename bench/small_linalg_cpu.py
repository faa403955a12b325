"""Issue 13 on the CPU: numpy.linalg's inv and solve of stacks of 8x8 float64, numfuse next to
NumPy in one run (best of 5 repeats, us a call). The one-matrix rows are the call's fixed cost
(argument handling, the node, the evaluation), which on a GPU is added to every kernel; solve's b
of the same batch shape as a skips the broadcasting (two broadcast_to and broadcast_shapes).

    PYTHONPATH=python python bench/small_linalg_cpu.py
"""
import time

import numpy as np

import numfuse as nf


def best_us(fn, reps):
    fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best * 1e6


def main():
    rng = np.random.default_rng(0)
    print(f"{'case':34s} {'numfuse us':>11s} {'numpy us':>9s} {'ratio':>6s}")
    for batch, reps in ((1, 2000), (1000, 50), (100_000, 2)):
        a = rng.standard_normal((batch, 8, 8)) + 8 * np.eye(8)
        b1 = rng.standard_normal((batch, 8, 1))
        b2 = rng.standard_normal((8, 1))  # broadcast against the stack
        na, nb1, nb2 = nf.asarray(a), nf.asarray(b1), nf.asarray(b2)
        rows = [("inv", lambda: nf.eval(nf.linalg.inv(na)), lambda: np.linalg.inv(a)),
                ("solve b (batch,8,1)", lambda: nf.eval(nf.linalg.solve(na, nb1)),
                 lambda: np.linalg.solve(a, b1)),
                ("solve b (8,1) broadcast", lambda: nf.eval(nf.linalg.solve(na, nb2)),
                 lambda: np.linalg.solve(a, b2))]
        for name, f_nf, f_np in rows:
            t_nf, t_np = best_us(f_nf, reps), best_us(f_np, reps)
            print(f"{name + f' {batch} x 8x8':34s} {t_nf:11.1f} {t_np:9.1f} {t_np / t_nf:6.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
