"""Issue 12's numerical routines on the CPU: numfuse next to NumPy, in one run, on this machine.

Cases: gradient of a 2-D float64 field (both axes; non-uniform spacing along one), interp of 10^7
points into 10^5 samples, convolve with a short kernel (direct, one threaded pass), with two
long operands (numfuse: FFT; NumPy: direct), correlate of int32 (direct, exact), cross of 10^6
3-vectors, the gcd/lcm ufuncs and a fused spacing expression; a 200-tap float64 convolve and a
100-tap complex128 correlate stay direct (below the FFT's 500), NumPy's BLAS dot per output. Times are medians of interleaved
repeats (common.measure_pair); the ratio is numpy_time / numfuse_time (> 1: numfuse is faster).

Usage:
    PYTHONPATH=python python bench/numerical_cpu.py [--quick]
"""
import os
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def cases(rng, quick):
    k = 4 if quick else 1
    field = rng.standard_normal((2048 // k, 2048))
    spacing = numpy.cumsum(rng.uniform(0.5, 1.5, 2048))
    xs = numpy.sort(rng.uniform(0, 100, 100_000))
    fs = rng.standard_normal(100_000)
    pts = rng.uniform(-1, 101, 10_000_000 // k)
    sig = rng.standard_normal(4_000_000 // k)
    ker = rng.standard_normal(15)
    long_a, long_b = rng.standard_normal(100_000 // k), rng.standard_normal(20_000 // k)
    mid_a, mid_b = rng.standard_normal(100_000 // k), rng.standard_normal(200)
    za = mid_a + 1j * rng.standard_normal(mid_a.size)
    zb = rng.standard_normal(100) + 1j * rng.standard_normal(100)
    ints = rng.integers(-100, 100, 200_000 // k).astype(numpy.int32)
    iker = rng.integers(-5, 5, 31).astype(numpy.int32)
    va, vb = rng.standard_normal((1_000_000 // k, 3)), rng.standard_normal((1_000_000 // k, 3))
    ga = rng.integers(-10**6, 10**6, 4_000_000 // k)
    gb = rng.integers(1, 10**4, 4_000_000 // k)
    return [
        (f"gradient {field.shape} f64", lambda xp, f: xp.gradient(f), (field,)),
        (f"gradient {field.shape} x-spacing, edge 2",
         lambda xp, f, s: xp.gradient(f, s, axis=1, edge_order=2), (field, spacing)),
        (f"interp {pts.size:.0e} pts in 1e5 samples", lambda xp, x, a, b: xp.interp(x, a, b), (pts, xs, fs)),
        (f"convolve {sig.size:.0e} * 15 same", lambda xp, a, b: xp.convolve(a, b, "same"), (sig, ker)),
        (f"convolve {long_a.size:.0e} * {long_b.size:.0e} full",
         lambda xp, a, b: xp.convolve(a, b), (long_a, long_b)),
        (f"convolve {mid_a.size:.0e} * 200 full (direct)", lambda xp, a, b: xp.convolve(a, b),
         (mid_a, mid_b)),
        (f"correlate complex128 {za.size:.0e} * 100 same", lambda xp, a, b: xp.correlate(a, b, "same"),
         (za, zb)),
        (f"correlate int32 {ints.size:.0e} * 31 valid",
         lambda xp, a, b: xp.correlate(a, b), (ints, iker)),
        (f"cross {va.shape} f64", lambda xp, a, b: xp.cross(a, b), (va, vb)),
        (f"gcd+lcm int64 {ga.size:.0e}", lambda xp, a, b: xp.gcd(a, b) + xp.lcm(a, b), (ga, gb)),
        (f"x + spacing(x) * 3 f64 {sig.size:.0e}", lambda xp, x: x + xp.spacing(x) * 3, (sig,)),
    ]


def main():
    args, nf = common.family_args(__doc__)
    rng = numpy.random.default_rng(0)
    print(f"{'case':44s} {'numpy':>10s} {'numfuse':>10s} {'ratio':>6s}  agree")
    for name, fn, inputs in cases(rng, args.quick):
        nf_in = [nf.asarray(a) for a in inputs]
        common.force(nf, *nf_in)
        tn, tf = common.measure_pair(lambda: fn(numpy, *inputs), numpy,
                                     lambda: fn(nf, *nf_in), nf, repeats=5, budget_s=20)
        want = fn(numpy, *inputs)
        got = fn(nf, *nf_in)
        want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        agree = True
        for w, g in zip(want, got):
            g = common.to_numpy(nf, g)
            scale = numpy.abs(w).max() if w.size else 0.0
            agree &= g.dtype == w.dtype and numpy.allclose(g, w, rtol=1e-9, atol=1e-9 * scale)
        print(f"{name:44s} {common.fmt_time(tn.median):>10s} {common.fmt_time(tf.median):>10s} "
              f"{tn.median / tf.median:6.2f}  {agree}")


if __name__ == "__main__":
    main()
