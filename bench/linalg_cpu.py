"""numfuse.linalg next to NumPy on the CPU, in one run: inv, solve, eigh and svd of 1000 x 1000
float64 (LAPACK of NumPy's own OpenBLAS on both sides, so the figures show numfuse's overhead:
the column-major copies in and out, the dtype handling), and a stack of 10,000 8 x 8 inv / solve /
eigh (where numfuse spreads the stack over its thread pool).

    PYTHONPATH=python .venv/bin/python bench/linalg_cpu.py [--n 1000] [--repeats 5]
"""
import argparse
import sys

import numpy

sys.path.insert(0, __import__("os").path.dirname(__file__))
from common import (add_module_arg, agree, fmt_time, import_numfuse, machine_line,  # noqa: E402
                    measure_pair, print_table, to_numpy)


def cases(n, batch):
    rng = numpy.random.default_rng(0)
    a = rng.standard_normal((n, n)) + n ** 0.5 * numpy.eye(n)
    b = rng.standard_normal((n, 8))
    h = a + a.T
    s = rng.standard_normal((batch, 8, 8)) + 4 * numpy.eye(8)
    sb = rng.standard_normal((batch, 8, 1))
    sh = s + numpy.swapaxes(s, -1, -2)
    # (name, operands, function of (xp, *operands), what is compared)
    return [
        (f"inv {n}x{n}", (a,), lambda xp, x: xp.linalg.inv(x), None),
        (f"solve {n}x{n}, 8 rhs", (a, b), lambda xp, x, y: xp.linalg.solve(x, y), None),
        (f"eigh {n}x{n}", (h,), lambda xp, x: xp.linalg.eigh(x), "values"),
        (f"svd {n}x{n}", (a,), lambda xp, x: xp.linalg.svd(x), "values"),
        (f"svdvals {n}x{n}", (a,), lambda xp, x: xp.linalg.svd(x, compute_uv=False), None),
        (f"det {n}x{n}", (a,), lambda xp, x: xp.linalg.det(x), None),
        (f"inv {batch} x 8x8", (s,), lambda xp, x: xp.linalg.inv(x), None),
        (f"solve {batch} x 8x8", (s, sb), lambda xp, x, y: xp.linalg.solve(x, y), None),
        (f"eigh {batch} x 8x8", (sh,), lambda xp, x: xp.linalg.eigh(x), "values"),
        # float32, computed in float64 as NumPy does (LinalgSpec::widen: cast inside the backend)
        (f"inv {batch} x 8x8 float32", (s.astype(numpy.float32),),
         lambda xp, x: xp.linalg.inv(x), None),
        (f"eigh {batch} x 8x8 float32", (sh.astype(numpy.float32),),
         lambda xp, x: xp.linalg.eigh(x), "values"),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_module_arg(p)
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--batch", type=int, default=10000)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    nf = import_numfuse(args.numfuse_module)
    print(machine_line(nf))
    rows = []
    for name, ops, fn, compare in cases(args.n, args.batch):
        nf_ops = [nf.asarray(o) for o in ops]
        unwrap = (lambda r: r[0]) if compare == "values" else (lambda r: r)

        def run_nf():
            r = fn(nf, *nf_ops)
            return unwrap(r)

        def run_np():
            return unwrap(fn(numpy, *ops))
        t_nf, t_np = measure_pair(run_nf, nf, run_np, numpy, repeats=args.repeats, budget_s=20)
        got, want = run_nf(), run_np()
        g = to_numpy(nf, got[0] if isinstance(got, tuple) else got)
        w = want[0] if isinstance(want, tuple) else want
        ok = agree(w, g, rtol=1e-6, atol=1e-8)
        rows.append([name, fmt_time(t_nf.median), fmt_time(t_np.median),
                     f"{t_np.median / t_nf.median:.2f}x", "yes" if ok else "NO"])
    print_table(["case", "numfuse", "numpy", "numpy/numfuse", "agree"], rows)


if __name__ == "__main__":
    main()
