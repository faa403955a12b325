"""The first call of what the Array API suite's GPU-only DeadlineExceeded failures do (issue 12,
hypothesis' 800 ms per example): each case is one example of a failing test, timed on its first
call (kernels compiled, libraries loaded) and on a second call, with the kernels it compiled. A
fresh kernel cache directory makes every compile a real one, as on a new machine.

    PYTHONPATH=python python3 bench/aapi_first_calls_gpu.py [--device cuda] [--only NAME] [--trace-compiles]
"""
import argparse
import os
import sys
import tempfile
import time

os.environ["NUMFUSE_CACHE_DIR"] = tempfile.mkdtemp(prefix="nf-kernels-")
# --trace-compiles: each compile on stderr (kernel, time), under the case that caused it.
if "--trace-compiles" in sys.argv:
    os.environ["NUMFUSE_TRACE_COMPILES"] = "1"

import numpy  # noqa: E402

_t = time.perf_counter()
import numfuse as nf  # noqa: E402
IMPORT_MS = (time.perf_counter() - _t) * 1e3


def strict_equal(xp, out, expected):
    """The suite's ph.assert_array_elements for floats: NaNs, signed zeros, then values."""
    def real_eq(o, e):
        nan = xp.isnan(o)
        if not bool(xp.all(nan == xp.isnan(e))):
            return False
        oz, ez = o == 0, e == 0
        osg, esg = xp.signbit(o), xp.signbit(e)
        if not (bool(xp.all((oz & osg) == (ez & esg))) and bool(xp.all((oz & ~osg) == (ez & ~esg)))):
            return False
        ignore = nan | oz
        r = xp.asarray(42, dtype=o.dtype, device=o.device)
        return bool(xp.all(xp.where(ignore, r, o) == xp.where(ignore, r, e)))
    if out.dtype.kind == "c":
        return real_eq(xp.real(out), xp.real(expected)) and real_eq(xp.imag(out), xp.imag(expected))
    return real_eq(out, expected)


def cases(dev):
    A = lambda x, **k: nf.asarray(x, device=dev, **k)  # noqa: E731
    rng = numpy.random.default_rng(0)

    def getitem_complex64_0d():
        x = A(numpy.complex64(-1.7491778e+19 - 3.7795102e+16j))
        return strict_equal(nf, x[None, None], A([[complex(x)]], dtype=numpy.complex64))

    def getitem_masking_float32():
        x = A(rng.standard_normal((4, 5)).astype(numpy.float32))
        m = A(rng.integers(0, 2, (4, 5)).astype(bool))
        out = x[m]
        return strict_equal(nf, out, A(nf.asnumpy(x)[nf.asnumpy(m)]))

    def searchsorted_uint8():
        return int(nf.searchsorted(A(numpy.array([0], numpy.uint8)), A(numpy.array([0], numpy.uint8)))[0])

    def unique_all_bool_0d():
        r = nf.unique_all(A(numpy.array(False)))
        return [int(v.size) for v in r]

    def unique_counts_int32():
        r = nf.unique_counts(A(numpy.array([-351, 179, -12364], numpy.int32)))
        return nf.asnumpy(r.counts).tolist()

    def sort_int16_descending():
        x = A(rng.integers(-5, 5, (5, 7)).astype(numpy.int16))
        return nf.asnumpy(nf.argsort(x, axis=0, descending=True))[0].tolist()

    def std_of_nan():
        return float(nf.std(A(numpy.array(numpy.nan)))), float(nf.var(A(numpy.array([1.0, numpy.inf]))))

    def eigh_float64_5():
        a = rng.standard_normal((2, 5, 5))
        return float(nf.linalg.eigh(A(a + a.transpose(0, 2, 1))).eigenvalues.sum())

    def eigh_float32_3():
        a = rng.standard_normal((3, 3)).astype(numpy.float32)
        return float(nf.linalg.eigvalsh(A(a + a.T)).sum())

    def slogdet_float32_12():
        return float(nf.linalg.slogdet(A(rng.standard_normal((12, 12)).astype(numpy.float32))).logabsdet)

    def matrix_power_float32_10():
        a = rng.standard_normal((10, 10)).astype(numpy.float32) + 10 * numpy.eye(10, dtype=numpy.float32)
        return float(nf.linalg.matrix_power(A(a), -2).sum())

    def vector_norm_float32():
        return float(nf.linalg.vector_norm(A(rng.standard_normal((3, 4)).astype(numpy.float32)), axis=(0, 1), ord=3))

    # The suite's _test_stacks: each matrix of the stack again, compared exactly with the result.
    def cholesky_float64_stack():
        x = A(numpy.broadcast_to(numpy.eye(3), (2, 3, 3)).copy())  # the suite's SPD matrices
        res = nf.linalg.cholesky(x, upper=False)
        return all(strict_equal(nf, res[i], nf.linalg.cholesky(x[i], upper=False)) for i in range(2))

    def solve_float32_stack():
        a = rng.standard_normal((2, 4, 4)).astype(numpy.float32) + 4 * numpy.eye(4, dtype=numpy.float32)
        x1, x2 = A(a), A(rng.standard_normal((2, 4, 1)).astype(numpy.float32))
        res = nf.linalg.solve(x1, x2)
        return all(strict_equal(nf, res[i], nf.linalg.solve(x1[i], x2[i])) for i in range(2))

    return [getitem_complex64_0d, getitem_masking_float32, cholesky_float64_stack, solve_float32_stack, searchsorted_uint8, unique_all_bool_0d,
            unique_counts_int32, sort_int16_descending, std_of_nan, eigh_float64_5, eigh_float32_3,
            slogdet_float32_12, matrix_power_float32_10, vector_norm_float32]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if nf.cuda.is_available() else "cpu")
    ap.add_argument("--only", default=None)
    ap.add_argument("--trace-compiles", action="store_true", help="print each NVRTC compile (stderr)")
    args = ap.parse_args()
    stats = nf.cuda.kernel_cache_stats if args.device != "cpu" else (lambda: {"compilations": 0})
    # What the suite's first test pays before any of its own work: the context, the first
    # allocation and copy, NVRTC's first compile.
    t = time.perf_counter()
    a = nf.asarray([1.0, 2.0], device=args.device)
    t1 = time.perf_counter()
    float((a + 1)[0])
    t2 = time.perf_counter()
    float((a * 3)[1])
    t3 = time.perf_counter()
    print(f"import numfuse {IMPORT_MS:.0f} ms; first array {1e3 * (t1 - t):.0f} ms; first kernel "
          f"{1e3 * (t2 - t1):.0f} ms; second new kernel {1e3 * (t3 - t2):.0f} ms")
    print(f"device {args.device}; kernel cache {os.environ['NUMFUSE_CACHE_DIR']} (empty); deadline 800 ms "
          "(1000 ms on a first run)")
    print(f"{'case':28s} {'first ms':>9s} {'compiles':>8s} {'second ms':>9s}  result")
    for case in cases(args.device):
        if args.only and args.only not in case.__name__:
            continue
        if args.trace_compiles:
            print(f"-- {case.__name__}", file=sys.stderr, flush=True)
        c0 = stats()["compilations"]
        t = time.perf_counter()
        try:
            res = case()
        except Exception as e:  # report and go on: one failing case must not hide the others
            res = f"{type(e).__name__}: {e}"[:100]
        first = (time.perf_counter() - t) * 1e3
        compiles = stats()["compilations"] - c0
        t = time.perf_counter()
        try:
            case()
        except Exception:
            pass
        second = (time.perf_counter() - t) * 1e3
        flag = "  OVER" if first > 800 else ""
        print(f"{case.__name__:28s} {first:9.0f} {compiles:8d} {second:9.1f}  {res}{flag}", flush=True)


if __name__ == "__main__":
    main()
