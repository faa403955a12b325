"""Issue 12's namespace breadth on the CPU: numfuse next to NumPy, in one run, on this machine.

Cases: draws from NumPy's bit generators (numfuse: NumPy's Generator on the host, then a copy to
a numfuse array), emath.sqrt of a half-negative vector (one host read decides complex), a
sliding-window mean (a strided view, one fused reduction), a Chebyshev series evaluated at 10^7
points (Clenshaw as one fused kernel) and fitted to 10^6 points (vander and lstsq), and the sum
of a memmap (the mapped pages, no copy). Times are medians of interleaved repeats
(common.measure_pair); ratio is numpy_time / numfuse_time (> 1: numfuse is faster).

Usage:
    PYTHONPATH=python python bench/namespace_cpu.py [--quick]
"""
import argparse
import os
import sys
import tempfile

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def cases(rng, quick, tmp):
    k = 10 if quick else 1
    n = 10_000_000 // k
    signed = rng.standard_normal(n)
    series = rng.standard_normal(1_000_000 // k)
    pts = rng.uniform(-1, 1, n)
    fit_x = numpy.linspace(0, 3, 1_000_000 // k)
    fit_y = numpy.sin(fit_x)
    coef = rng.standard_normal(12)
    path = os.path.join(tmp, "bench.dat")
    signed.astype(numpy.float64).tofile(path)
    return [
        (f"Generator(PCG64).normal {n:.0e}",
         lambda xp: xp.random.Generator(xp.random.PCG64(1)).normal(size=n), ()),
        (f"RandomState(MT19937).rand {n:.0e}",
         lambda xp: xp.random.RandomState(xp.random.MT19937(1)).rand(n), ()),
        (f"emath.sqrt {n:.0e} half negative", lambda xp, a: xp.emath.sqrt(a), (signed,)),
        (f"sliding_window_view(.., 16).mean {series.size:.0e}",
         lambda xp, a: xp.lib.stride_tricks.sliding_window_view(a, 16).mean(axis=-1), (series,)),
        (f"Chebyshev(12 coefs)(x) {n:.0e}",
         lambda xp, x: xp.polynomial.Chebyshev(coef)(x), (pts,)),
        (f"Chebyshev.fit deg 8, {fit_x.size:.0e} pts",
         lambda xp, x, y: xp.asarray(xp.polynomial.Chebyshev.fit(x, y, 8).coef), (fit_x, fit_y)),
        (f"memmap(..).sum() {n:.0e} f64",
         lambda xp: xp.memmap(path, dtype=numpy.float64, mode="r").sum(), ()),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_module_arg(p)
    p.add_argument("--quick", action="store_true", help="small sizes (a dry run)")
    args = p.parse_args()
    nf = common.import_numfuse(args.numfuse_module)
    rng = numpy.random.default_rng(0)
    print(common.machine_line(nf))
    print(f"{'case':44s} {'numpy':>10s} {'numfuse':>10s} {'ratio':>6s}  agree")
    with tempfile.TemporaryDirectory() as tmp:
        for name, fn, inputs in cases(rng, args.quick, tmp):
            nf_in = [nf.asarray(a) for a in inputs]
            common.force(nf, *nf_in)
            tn, tf = common.measure_pair(lambda: fn(numpy, *inputs), numpy,
                                         lambda: fn(nf, *nf_in), nf, repeats=5, budget_s=20)
            want = numpy.asarray(fn(numpy, *inputs))
            got = numpy.asarray(common.to_numpy(nf, fn(nf, *nf_in)))
            scale = numpy.abs(want).max() if want.size else 0.0
            agree = got.dtype == want.dtype and numpy.allclose(got, want, rtol=1e-7,
                                                               atol=1e-7 * scale)
            print(f"{name:44s} {common.fmt_time(tn.median):>10s} "
                  f"{common.fmt_time(tf.median):>10s} {tn.median / tf.median:6.2f}  {agree}")


if __name__ == "__main__":
    main()
