"""Issues 2 and 4's CPU speed figures: numfuse next to NumPy, in one run, on this machine.

Cases: element-wise binary (add, multiply), unary math (sin, exp, sqrt, log) and reductions
(sum, max, mean) over 1e7 float32 and float64; reductions of expressions (fused: sqrt of a sum of
squares, sum of squared differences, var, std, norm, max of a difference) over 1e7 float64; issue 4's
element-wise chains (sin(x)+cos(x), x*y+z*x-sqrt(y)*2 on 1e7 float32) and the 5-point stencil
(2048^2 float64, 20 iterations); matmul 2048^2 float64; issue 11's matrix-vector products (A @ x,
x @ A, A.T @ y at 1000^2 and 4000^2 float64/float32, and a loop of 1000 `v @ M[:, i:i+64]`); issue
11's conversion of an evaluated 80 MB result to NumPy (asnumpy, next to numpy.asarray and
numpy.copy); host overhead of a warm 1000-element add; issue 11's programs written as loops over
elements, small slices and boolean masks (bench/loop_programs.py; `--loops-only` for those alone).
Prints time, GB/s and the ratio numpy_time / numfuse_time (> 1: numfuse is faster), and whether
the two results agree.

Usage:
    PYTHONPATH=python python bench/run_cpu.py                    # what `make bench` runs
    python bench/run_cpu.py --numfuse-module numpy --quick        # dry run without numfuse
    python bench/run_cpu.py --markdown bench/cpu.md               # also write a markdown table
"""
import argparse
import os
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def elementwise_cases(n, rng):
    """(name, fn(xp, *args), numpy inputs, bytes moved, rtol) for the 1e7-element cases."""
    cases = []
    for dt in (numpy.float32, numpy.float64):
        tag, item = numpy.dtype(dt).name, numpy.dtype(dt).itemsize
        # Inputs in [0.1, 10): valid for log and sqrt, not so large that exp overflows float32.
        a = (rng.random(n) * 9.9 + 0.1).astype(dt)
        b = (rng.random(n) * 9.9 + 0.1).astype(dt)
        red_rtol = 1e-4 if dt == numpy.float32 else 1e-10  # summation order differs
        ew_rtol = 2e-6 if dt == numpy.float32 else 1e-14
        cases += [
            (f"add {tag}", lambda xp, a, b: a + b, (a, b), 3 * n * item, ew_rtol),
            (f"multiply {tag}", lambda xp, a, b: a * b, (a, b), 3 * n * item, ew_rtol),
            (f"sin {tag}", lambda xp, a: xp.sin(a), (a,), 2 * n * item, ew_rtol),
            (f"exp {tag}", lambda xp, a: xp.exp(a), (a,), 2 * n * item, ew_rtol),
            (f"sqrt {tag}", lambda xp, a: xp.sqrt(a), (a,), 2 * n * item, ew_rtol),
            (f"log {tag}", lambda xp, a: xp.log(a), (a,), 2 * n * item, ew_rtol),
            (f"sum {tag}", lambda xp, a: xp.sum(a), (a,), n * item, red_rtol),
            (f"max {tag}", lambda xp, a: xp.max(a), (a,), n * item, 0.0),
            (f"mean {tag}", lambda xp, a: xp.mean(a), (a,), n * item, red_rtol),
        ]
    return cases


def fused_reduction_cases(n, rng):
    """Reductions of expressions (issue 4): numfuse computes the expression as it reduces it, in
    cache-sized chunks; NumPy stores the intermediate first. Bytes: the inputs, read once."""
    x = rng.random(n)
    y = rng.random(n)
    cube = x.reshape(n // 100_000, 100, 1000)
    mat = x.reshape(n // 2000, 2000)
    item = 8
    return [
        (f"sqrt(sum(x**2, axis=-1)) {cube.shape}", lambda xp, a: xp.sqrt(xp.sum(a ** 2, axis=-1)), (cube,),
         n * item, 1e-12),
        ("((x - y)**2).sum()", lambda xp, a, b: ((a - b) ** 2).sum(), (x, y), 2 * n * item, 1e-10),
        ("x.var()", lambda xp, a: a.var(), (x,), 2 * n * item, 1e-10),  # the mean, then the deviations
        (f"std(x, axis=0) {mat.shape}", lambda xp, a: xp.std(a, axis=0), (mat,), 2 * n * item, 1e-10),
        (f"norm(x, axis=1) {mat.shape}", lambda xp, a: xp.linalg.norm(a, axis=1), (mat,), n * item, 1e-12),
        ("max(abs(x - y))", lambda xp, a, b: xp.max(xp.abs(a - b)), (x, y), 2 * n * item, 0.0),
    ]


def softmax(xp, x):
    """Softmax along rows as NumPy users write it (issue 11's "softmax-like programs")."""
    e = xp.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def heat_diffusion(xp, grid, iterations):
    """The 5-point stencil as NumPy users write it: slices of one array, written through setitem."""
    a = grid.copy()
    b = a.copy()
    for _ in range(iterations):
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a, b = b, a
    return a


def fused_chain_cases(n, rng, side, iterations):
    """Issue 4's element-wise chains (1e7 float32), the stencil and issue 11's softmax rows: numfuse
    runs each chain as one pass; NumPy stores every intermediate. Bytes: inputs read once and the
    result written once."""
    x, y, z = (rng.random(n, dtype=numpy.float32) + 0.5 for _ in range(3))
    grid = numpy.zeros((side, side))
    grid[0, :] = 100.0
    return [
        (f"sin(x)+cos(x) float32 {n:.0e}", lambda xp, a: xp.sin(a) + xp.cos(a), (x,), 2 * n * 4, 2e-6),
        (f"x*y+z*x-sqrt(y)*2 float32 {n:.0e}", lambda xp, a, b, c: a * b + c * a - xp.sqrt(b) * 2,
         (x, y, z), 4 * n * 4, 2e-6),
        (f"5-point stencil {side}^2 float64, {iterations} it", lambda xp, g: heat_diffusion(xp, g, iterations),
         (grid,), 2 * iterations * side * side * 8, 1e-12),
    ] + [(f"softmax(x, axis=-1) {rows.shape} {rows.dtype}", softmax, (rows,), 2 * rows.nbytes, tol)
         for rows, tol in ((x.reshape(-1, 2000), 1e-5), (rng.random((n // 2000, 2000)), 1e-12))]


def matvec_cases(rng, sides):
    """Issue 11's matrix-vector products: (name, fn(xp, *args), numpy inputs, bytes moved, rtol).
    The bytes are the matrix's, read once (the vectors are a 1/n fraction)."""
    cases = []
    for n in sides:
        for dt in (numpy.float64, numpy.float32):
            a = rng.random((n, n)).astype(dt)
            x = rng.random(n).astype(dt)
            name = numpy.dtype(dt).name
            rtol = 1e-10 if dt == numpy.float64 else 1e-4
            cases += [(f"A @ x {n}^2 {name}", lambda xp, a, x: a @ x, (a, x), a.nbytes, rtol),
                      (f"x @ A {n}^2 {name}", lambda xp, a, x: x @ a, (a, x), a.nbytes, rtol),
                      (f"A.T @ y {n}^2 {name}", lambda xp, a, x: a.T @ x, (a, x), a.nbytes, rtol)]

    def slice_loop(xp, m, v):
        out = xp.empty((1000, 64), m.dtype)
        for i in range(1000):
            out[i] = v @ m[:, i:i + 64]
        return out
    m, v = rng.random((1000, 1064)), rng.random(1000)
    cases.append(("1000x out[i] = v @ M[:, i:i+64], M 1000x1064 float64", slice_loop, (m, v),
                  1000 * 1000 * 64 * 8, 1e-10))
    return cases


def reduction_cases(rng, shape):
    """Issue 11's reductions over a leading or non-contiguous axis: (name, fn(xp, *args), numpy
    inputs, bytes moved, rtol). NumPy adds whole rows, vectorised along the contiguous axis; so
    must numfuse. The bytes are the inputs', read once."""
    cases = []
    rows, cols = shape
    for dt in (numpy.float64, numpy.float32):
        x, y = rng.random(shape).astype(dt), rng.random(shape).astype(dt)
        name = f"{rows}x{cols} {numpy.dtype(dt).name}"
        rtol = 1e-10 if dt == numpy.float64 else 1e-4
        cases += [(f"sum axis 0 {name}", lambda xp, x: x.sum(axis=0), (x,), x.nbytes, rtol),
                  (f"mean axis 0 {name}", lambda xp, x: x.mean(axis=0), (x,), x.nbytes, rtol),
                  (f"max axis 0 {name}", lambda xp, x: x.max(axis=0), (x,), x.nbytes, 0.0),
                  (f"var axis 0 {name}", lambda xp, x: x.var(axis=0), (x,), x.nbytes, rtol),
                  (f"x.T.sum(axis=1) {name}", lambda xp, x: x.T.sum(axis=1), (x,), x.nbytes, rtol),
                  (f"argmax axis 0 {name}", lambda xp, x: x.argmax(axis=0), (x,), x.nbytes, 0.0),
                  (f"(x*y).sum(axis=0) {name}", lambda xp, x, y: (x * y).sum(axis=0), (x, y), 2 * x.nbytes, rtol)]
    return cases


# A timed sample lasts at least this long: operations of microseconds run in loops (see
# common.measure_pair), and then at least kShortRepeats samples are taken of each side.
kMinSample = 2e-3
kShortRepeats = 15


def time_pair(nf, fn, np_inputs, repeats, budget_s):
    """Times fn under NumPy and numfuse on the same data; returns (t_np, t_nf, r_np, r_nf)."""
    nf_inputs = tuple(nf.asarray(x) for x in np_inputs)
    common.force(nf, *nf_inputs)  # the upload is not part of the op's time
    run_np, run_nf = lambda: fn(numpy, *np_inputs), lambda: fn(nf, *nf_inputs)
    t0 = time.perf_counter()
    run_np()
    if time.perf_counter() - t0 < kMinSample / 2:
        repeats = max(repeats, kShortRepeats)
    t_np, t_nf = common.measure_pair(run_np, numpy, run_nf, nf, repeats, 1, budget_s, kMinSample)
    return t_np, t_nf, fn(numpy, *np_inputs), common.to_numpy(nf, common.force(nf, fn(nf, *nf_inputs)))


def one_thread_sum_row(nf, n, repeats, budget_s):
    """numfuse's sum of n float64 with its pool cut to one thread, beside NumPy's in the same run:
    set against the two-thread sum row it shows how far the host's memory bandwidth grows with a
    second core at the time of the run, the ceiling of every memory-bound row's ratio (on this
    shared VM it moves between about 1.2x and 1.9x with the neighbours' load)."""
    x = numpy.random.default_rng(5).random(n)
    pool = nf._core  # the pool's size is not public API (NUMFUSE_NUM_THREADS sets it at start)
    threads = pool.num_threads()
    pool.set_num_threads(1)
    try:
        t_np, t_nf, r_np, r_nf = time_pair(nf, lambda xp, a: xp.sum(a), (x,), repeats, budget_s)
    finally:
        pool.set_num_threads(threads)
    g_np, g_nf = common.gbps(x.nbytes, t_np.median), common.gbps(x.nbytes, t_nf.median)
    return [f"sum float64 {n:.0e}, numfuse on one thread", common.fmt_time(t_np.median),
            common.fmt_time(t_nf.median), common.fmt_time(t_nf.first), f"{g_np:.1f}", f"{g_nf:.1f}",
            f"{t_np.median / t_nf.median:.2f}x", "yes" if common.agree(r_np, r_nf, 1e-10) else "NO"]


def conversion_rows(nf, n, repeats):
    """Issue 11: numfuse.asnumpy(r) of an evaluated float64 result r of n elements (80 MB at 1e7),
    beside numpy.asarray(r) of the same numfuse array (the no-copy conversion the issue names) and
    numpy.copy of a NumPy array of the same values (what a copy costs). Calls of a microsecond are
    timed in loops (common.measure_pair). Returns (label, t_numpy, t_numfuse, agree)."""
    h = numpy.random.default_rng(3).random(n)
    r = common.force(nf, nf.asarray(h) * 2.0)  # evaluated before the clock starts
    expected = h * 2.0
    to_host = getattr(nf, "asnumpy", numpy.asarray)
    # Every result is a NumPy array: numpy as the module to force, nothing is pending.
    t_asarray, t_nf = common.measure_pair(lambda: numpy.asarray(r), numpy, lambda: to_host(r), numpy,
                                          max(repeats, kShortRepeats), 1, None, kMinSample)
    host = to_host(r)
    agree = common.agree(expected, host, 0.0) and numpy.shares_memory(host, numpy.asarray(r))
    mb = f"{n * 8 / 1e6:.0f} MB"
    return [(f"asnumpy(r), r {mb} float64 evaluated; numpy: asarray(r)", t_asarray, t_nf, agree),
            (f"asnumpy(r), r {mb} float64 evaluated; numpy: copy", common.measure(
                lambda: numpy.copy(expected), numpy, repeats=repeats, warmup=1), t_nf, agree)]


def overhead_cases(nf):
    """Per-op host overhead on a warm 1000-element add, for NumPy and numfuse.

    Three patterns: `c = a + b` with evaluation forced every iteration (the worst case for a lazy
    library); `c = a + 1.0` read back to NumPy every iteration, with `a = zeros(1000)` (a pending
    generator that every evaluation recomputes); and issue 4's 2000 chained `b = b + 1.0` with
    one read of `float(b[0])` at the end, the whole loop divided by the ops.
    """
    rows = []
    a0 = numpy.random.default_rng(2).random(1000)
    asnumpy = getattr(nf, "asnumpy", numpy.asarray)
    for name, iters in (("c = a + b, eval each op (1000 el.)", 20000),
                        ("c = a + 1.0, a = zeros(1000), asnumpy(c) each op", 20000),
                        ("2000x b = b + 1.0, then float(b[0]) (1000 el.)", 2000)):
        per = []  # [numpy, numfuse]; a list, since in a dry run nf is numpy itself
        for xp in (numpy, nf):
            a, b = xp.asarray(a0), xp.asarray(a0)
            common.force(xp, a, b)

            if name.startswith("c = a + b"):
                # numfuse.eval itself each op, not common.force (its checks cost ~1 us per call).
                ev = None if common.is_numpy(xp) else xp.eval

                def loop(a=a, b=b, ev=ev):
                    for _ in range(iters):
                        c = a + b
                        if ev is not None:
                            ev(c)
                    return c
            elif name.startswith("c = a + 1.0"):
                to_host = numpy.asarray if xp is numpy else asnumpy

                def loop(xp=xp, a=xp.zeros(1000), to_host=to_host):
                    for _ in range(iters):
                        to_host(a + 1.0)
            else:
                def loop(xp=xp):
                    b = xp.zeros(1000)
                    for _ in range(iters):
                        b = b + 1.0
                    return float(b[0])
            t = common.measure(loop, xp, repeats=5, warmup=1)
            per.append((t.median / iters, t.first / iters))
        rows.append((name, per[0][0], per[1][0], per[1][1]))
    return rows


def loop_rows(nf, repeats, quick):
    """Issue 11: programs written as loops over elements, small slices and boolean masks
    (bench/loop_programs.py), each timed under NumPy and numfuse in this run."""
    import loop_programs
    rows = []
    for label, fn, inputs, rtol in loop_programs.loop_cases(numpy.random.default_rng(5), quick):
        t_np, t_nf, r_np, r_nf = time_pair(nf, fn, inputs, repeats, 6.0)
        rows.append([label, common.fmt_time(t_np.median), common.fmt_time(t_nf.median),
                     common.fmt_time(t_nf.first), None, None, f"{t_np.median / t_nf.median:.2f}x",
                     "yes" if common.agree(r_np, r_nf, rtol) else "NO"])
        print("  done:", label, flush=True)
    return rows


SECTIONS = ("elementwise", "fused", "chains", "matvec", "reductions", "matmul", "conversion",
            "loops", "overhead")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_module_arg(ap)
    ap.add_argument("--quick", action="store_true", help="1e6 elements and 1024^2 matmul (a smoke run)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--markdown", metavar="PATH", help="also write the table as markdown to PATH")
    ap.add_argument("--only", default=",".join(SECTIONS),
                    help="comma-separated sections to run, of: " + ", ".join(SECTIONS))
    for section in ("overhead", "matvec", "loops", "reductions"):  # the older spellings
        ap.add_argument(f"--{section}-only", action="store_const", const=section, dest="only")
    args = ap.parse_args()
    sections = set(args.only.split(","))
    unknown = sections - set(SECTIONS)
    if unknown:
        ap.error(f"unknown sections {sorted(unknown)}; choose among {', '.join(SECTIONS)}")

    # These are CPU figures: keep numfuse off the GPU on a machine that has one.
    os.environ.setdefault("NUMFUSE_DEVICE", "cpu")
    nf = common.import_numfuse(args.numfuse_module)
    n = 1_000_000 if args.quick else 10_000_000
    m = 1024 if args.quick else 2048
    budget = 4.0  # seconds of timed repeats per case (both libraries) at most
    print(f"# numfuse CPU benchmark: {common.machine_line(nf)}", flush=True)

    headers = ["case", "numpy", "numfuse", "numfuse 1st call", "numpy GB/s", "numfuse GB/s",
               "numpy/numfuse", "agree"]
    rows = []
    rng = numpy.random.default_rng(0)
    bandwidth_cases = []
    if "elementwise" in sections:
        bandwidth_cases += [(f"{name} {n:.0e}", *case) for name, *case in elementwise_cases(n, rng)]
    if "fused" in sections:
        bandwidth_cases += [(f"{name} float64 {n:.0e}", *case) for name, *case in fused_reduction_cases(n, rng)]
    if "chains" in sections:
        bandwidth_cases += fused_chain_cases(n, rng, 1024 if args.quick else 2048, 20)
    if "matvec" in sections:
        bandwidth_cases += matvec_cases(rng, (1000,) if args.quick else (1000, 4000))
    if "reductions" in sections:
        bandwidth_cases += reduction_cases(numpy.random.default_rng(11),
                                           (1000, 1000) if args.quick else (10000, 1000))
    for label, fn, inputs, nbytes, rtol in bandwidth_cases:
        t_np, t_nf, r_np, r_nf = time_pair(nf, fn, inputs, args.repeats, budget)
        g_np, g_nf = common.gbps(nbytes, t_np.median), common.gbps(nbytes, t_nf.median)
        rows.append([label, common.fmt_time(t_np.median), common.fmt_time(t_nf.median),
                     common.fmt_time(t_nf.first), f"{g_np:.1f}", f"{g_nf:.1f}",
                     f"{t_np.median / t_nf.median:.2f}x", "yes" if common.agree(r_np, r_nf, rtol) else "NO"])
        print("  done:", label, flush=True)

    if "elementwise" in sections and hasattr(getattr(nf, "_core", None), "set_num_threads"):
        rows.append(one_thread_sum_row(nf, n, args.repeats, budget))

    if "matmul" in sections:
        A, B = rng.random((m, m)), rng.random((m, m))
        t_np, t_nf, r_np, r_nf = time_pair(nf, lambda xp, a, b: a @ b, (A, B), 3, budget * 2)
        tf = lambda t: f"{2 * m ** 3 / t / 1e9:.1f} GFLOP/s"
        rows.append([f"matmul {m}^2 float64", common.fmt_time(t_np.median), common.fmt_time(t_nf.median),
                     common.fmt_time(t_nf.first), tf(t_np.median), tf(t_nf.median),
                     f"{t_np.median / t_nf.median:.2f}x", "yes" if common.agree(r_np, r_nf, 1e-10) else "NO"])

    if "conversion" in sections:
        for label, t_np, t_nf, agree in conversion_rows(nf, n, args.repeats):
            rows.append([label, common.fmt_time(t_np.median), common.fmt_time(t_nf.median),
                         common.fmt_time(t_nf.first), None, None, f"{t_np.median / t_nf.median:.2f}x",
                         "yes" if agree else "NO"])

    if "loops" in sections:
        rows += loop_rows(nf, args.repeats, args.quick)

    if "overhead" in sections:
        for name, np_per, nf_per, nf_first in overhead_cases(nf):
            rows.append([f"overhead: {name}", common.fmt_time(np_per) + "/op", common.fmt_time(nf_per) + "/op",
                         common.fmt_time(nf_first) + "/op", None, None, f"{np_per / nf_per:.2f}x", None])

    print()
    text = common.print_table(headers, rows)
    print("\nratio = numpy time / numfuse time (above 1: numfuse faster); times are medians of "
          f"up to {args.repeats} runs after a warm-up; GB/s counts the fewest bytes each op must move.")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(f"Measured {common.machine_line(nf)}\n\n"
                    f"Command: `{' '.join([os.path.basename(sys.executable)] + sys.argv)}`\n\n{text}\n")
        print("wrote", args.markdown)


if __name__ == "__main__":
    main()
