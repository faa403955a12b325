"""Issue 11's express lane on this machine: the per-op host cost of small ops written in Python
loops (strided views, in-place writes, operators, asnumpy), numfuse next to NumPy in one run.

Each row is one statement repeated in a loop inside a function; the time is thread CPU time per
statement (the best of --repeat rounds: the machine is shared), so that other processes' load
does not count. ratio = numpy / numfuse (> 1: numfuse faster).

--loops times issue 11's loop programs (bench/loop_programs.py, the rows of run_cpu.py --only
loops) the same way: thread CPU time, the best of --repeat runs, where run_cpu.py's wall-clock
medians move by 30% when other builds share the two cores.

Usage:  PYTHONPATH=python python bench/express_cpu.py [--iters 20000] [--repeat 7] [--loops]
"""
import argparse
import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402




def cases(xp, rng):
    """(name, loop(n)) pairs over the same NumPy inputs: each loop repeats one statement n times."""
    A = rng.random((200, 200)) + 200 * numpy.eye(200)
    a = xp.asarray(A)
    c0 = xp.asarray(A[0].copy())
    x, y = xp.asarray(rng.random(1000)), xp.asarray(rng.random(1000))
    b300 = xp.asarray(rng.random((300, 300)))
    o300 = xp.asarray(numpy.zeros((300, 300)))
    common.force(xp, a, c0, x, y, b300, o300)
    i = 150
    to_host = numpy.asarray if common.is_numpy(xp) else xp.asnumpy

    def col_div(n):  # an LU step's column: a strided view divided in place
        for _ in range(n):
            a[i + 1:, i] /= 1.0000001

    def block_update(n):  # an LU step's trailing block: a strided 2-d view minus an outer product
        for _ in range(n):
            a[i + 1:, i + 1:] -= xp.outer(a[i + 1:, i], a[i, i + 1:]) * 1e-12

    def outer(n):
        for _ in range(n):
            xp.outer(a[i + 1:, i], a[i, i + 1:])

    def strided_mul(n):  # a fresh result of a strided view and a scalar
        for _ in range(n):
            a[::4, 3] * 2.0

    def row_copy(n):
        for _ in range(n):
            o300[7, :] = b300[6, :]

    def add(n):
        for _ in range(n):
            x + y

    def add_float(n):
        for _ in range(n):
            x + 1.0

    def iadd(n, c=c0):
        for _ in range(n):
            c += 1.0

    def asnumpy_of_result(n):
        for _ in range(n):
            to_host(x * 0.5)

    return [("a[i+1:, i] /= s (49 strided)", col_div), ("a[i+1:, i+1:] -= outer(...) 49x49", block_update),
            ("outer(col, row) 49x49", outer), ("a[::4, 3] * 2.0 (50 strided)", strided_mul),
            ("out[i, :] = b[i-1, :] (300)", row_copy), ("x + y (1000)", add), ("x + 1.0 (1000)", add_float),
            ("c += 1.0 (200, in place)", iadd), ("asnumpy(x * 0.5) (1000)", asnumpy_of_result)]


def loop_rows(nf, repeat):
    """(label, numpy s, numfuse s, agree) of every loop program, best thread CPU time of `repeat`."""
    import loop_programs
    rows = []
    for label, fn, inputs, rtol in loop_programs.loop_cases(numpy.random.default_rng(5)):
        if "e+05" in label or "e+06" in label:
            continue  # masks of 1e5 and more may use the second core: this thread's time would flatter them
        best, results = [], []
        for xp in (numpy, nf):
            args = [xp.asarray(a) for a in inputs]
            common.force(xp, *args)
            r = common.force(xp, fn(xp, *args))  # warm-up
            t_best = float("inf")
            for _ in range(repeat):
                t = time.thread_time()
                r = common.force(xp, fn(xp, *args))
                t_best = min(t_best, time.thread_time() - t)
            best.append(t_best)
            results.append(common.to_numpy(xp, r))
        rows.append((label, best[0], best[1], common.agree(results[0], results[1], rtol)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_module_arg(ap)
    ap.add_argument("--iters", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--loops", action="store_true", help="issue 11's loop programs instead")
    args = ap.parse_args()
    os.environ.setdefault("NUMFUSE_DEVICE", "cpu")
    nf = common.import_numfuse(args.numfuse_module)
    if args.loops:
        print(f"# loop programs, thread CPU time, best of {args.repeat}: {common.machine_line(nf)}")
        rows = [[label, common.fmt_time(t_np), common.fmt_time(t_nf), f"{t_np / t_nf:.2f}x", "yes" if ok else "NO"]
                for label, t_np, t_nf, ok in loop_rows(nf, args.repeat)]
        common.print_table(["case", "numpy", "numfuse", "numpy/numfuse", "agree"], rows)
        return
    print(f"# express lane, per statement: {common.machine_line(nf)}")
    times = {}
    for xp in (numpy, nf):
        for name, loop in cases(xp, numpy.random.default_rng(4)):
            times.setdefault(name, []).append(common.thread_time_per_call(loop, args.iters, args.repeat))
    rows = [[name, f"{t_np * 1e6:.3f} us", f"{t_nf * 1e6:.3f} us", f"{t_np / t_nf:.2f}x"]
            for name, (t_np, t_nf) in times.items()]
    common.print_table(["statement", "numpy", "numfuse", "numpy/numfuse"], rows)


if __name__ == "__main__":
    main()
