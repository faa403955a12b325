"""Issue 11's two rows still below NumPy: the row-copy loop over a fresh zeros_like (where the
first write materialises the pending fill) and basic-index view creation (a[i], a[1:5], a.T).
numfuse next to NumPy in one run; thread CPU time per statement, the best of --repeat rounds (the
machine is shared). ratio = numpy / numfuse (> 1: numfuse faster).

Usage:  PYTHONPATH=python python bench/rowcopy_cpu.py [--iters 100000] [--repeat 7]
"""
import argparse
import os
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402




def cases(xp, rng):
    A = rng.random((300, 300))
    a = xp.asarray(A)
    common.force(xp, a)

    def zeros_first_row(n):  # the pending fill materialised by its first row write
        for _ in range(n):
            out = xp.zeros_like(a)
            out[1, :] = a[0, :]

    def row_program(n):  # bench/loop_programs.py's row_copies, whole
        for _ in range(n):
            out = xp.zeros_like(a)
            for i in range(1, 300):
                out[i, :] = a[i - 1, :]

    def view(stmt):
        code = compile(f"for _ in range(n): {stmt}", stmt, "exec")
        return lambda n: exec(code, {"a": a, "n": n})

    return [("zeros_like(a); out[1, :] = a[0, :] (300x300)", zeros_first_row, 0.02),
            ("out = zeros_like(a); 299x out[i, :] = a[i-1, :]", row_program, 0.002),
            ("a[5]", view("a[5]"), 1.0), ("a[1:5]", view("a[1:5]"), 1.0),
            ("a.T", view("a.T"), 1.0), ("a[:, 3]", view("a[:, 3]"), 1.0)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    import numfuse
    print(f"{'statement':52s} {'numpy':>10s} {'numfuse':>10s} {'ratio':>6s}")
    np_cases = cases(numpy, numpy.random.default_rng(0))
    nf_cases = cases(numfuse, numpy.random.default_rng(0))
    for (name, np_loop, scale), (_, nf_loop, _) in zip(np_cases, nf_cases):
        iters = max(1, int(args.iters * scale))
        t_np = common.thread_time_per_call(np_loop, iters, args.repeat)
        t_nf = common.thread_time_per_call(nf_loop, iters, args.repeat)
        print(f"{name:52s} {t_np * 1e6:8.3f}us {t_nf * 1e6:8.3f}us {t_np / t_nf:6.2f}")


if __name__ == "__main__":
    main()
