"""Issue 13's CPU FFT figures: numfuse.fft next to numpy.fft, in one run, on this machine.

Cases: fft and rfft of 2^22 (complex128/float64 and complex64/float32, NumPy 2 keeps single
precision), ifft (its 1/n is a fused multiply after the transform), a prime length (Bluestein),
and batched transforms along each axis of a 2-D array (numfuse spreads the independent lines over
its threads; NumPy's pocketfft runs one thread), fft2 of 2048^2. Times are medians of interleaved
repeats (common.measure_pair); the ratio is numpy_time / numfuse_time (> 1: numfuse is faster).
FLOPs are the conventional 5 n log2 n per complex transform (2.5 for real ones).

Usage:
    PYTHONPATH=python python bench/fft_cpu.py [--quick]
"""
import math
import os
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def cases(rng, quick):
    n = 1 << (18 if quick else 22)
    x64 = rng.standard_normal(n)
    z128 = x64 + 1j * rng.standard_normal(n)
    rows = rng.standard_normal((512, 2048)) if quick else rng.standard_normal((2048, 2048))
    prime = 1_000_003 if not quick else 65_537
    xp_ = rng.standard_normal(prime) + 1j * rng.standard_normal(prime)

    def flops(m, real=False):
        return (2.5 if real else 5.0) * m * math.log2(m)

    return [
        (f"fft 2^{int(math.log2(n))} complex128", lambda xp, a: xp.fft.fft(a), (z128,), flops(n)),
        (f"fft 2^{int(math.log2(n))} complex64", lambda xp, a: xp.fft.fft(a),
         (z128.astype(numpy.complex64),), flops(n)),
        (f"rfft 2^{int(math.log2(n))} float64", lambda xp, a: xp.fft.rfft(a), (x64,), flops(n, True)),
        (f"rfft 2^{int(math.log2(n))} float32", lambda xp, a: xp.fft.rfft(a),
         (x64.astype(numpy.float32),), flops(n, True)),
        (f"ifft 2^{int(math.log2(n))} complex128", lambda xp, a: xp.fft.ifft(a), (z128,), flops(n)),
        (f"fft prime {prime} complex128", lambda xp, a: xp.fft.fft(a), (xp_,), flops(prime)),
        (f"rfft rows {rows.shape} axis=-1", lambda xp, a: xp.fft.rfft(a, axis=-1), (rows,),
         rows.shape[0] * flops(rows.shape[1], True)),
        (f"fft cols {rows.shape} axis=0", lambda xp, a: xp.fft.fft(a, axis=0), (rows,),
         rows.shape[1] * flops(rows.shape[0])),
        (f"fft2 {rows.shape} float64", lambda xp, a: xp.fft.fft2(a), (rows,),
         flops(rows.size)),
    ]


def main():
    args, nf = common.family_args(__doc__)
    rng = numpy.random.default_rng(0)
    print(f"{'case':38s} {'numpy':>10s} {'numfuse':>10s} {'ratio':>6s} {'GFLOP/s nf':>10s}  agree")
    for name, fn, inputs, fl in cases(rng, args.quick):
        nf_in = [nf.asarray(a) for a in inputs]
        common.force(nf, *nf_in)
        tn, tf = common.measure_pair(lambda: fn(numpy, *inputs), numpy,
                                     lambda: fn(nf, *nf_in), nf, repeats=7, budget_s=20)
        want = fn(numpy, *inputs)
        got = common.to_numpy(nf, fn(nf, *nf_in))
        tol = 1e-4 if want.dtype == numpy.complex64 else 1e-9
        agree = numpy.allclose(got, want, rtol=tol, atol=tol * numpy.abs(want).max())
        print(f"{name:38s} {common.fmt_time(tn.median):>10s} {common.fmt_time(tf.median):>10s} "
              f"{tn.median / tf.median:6.2f} {fl / tf.median / 1e9:10.2f}  {agree}")


if __name__ == "__main__":
    main()
