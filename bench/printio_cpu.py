"""Issue 12's printing and files on the CPU: numfuse next to NumPy, in one run, on this machine.

numfuse prints and writes through NumPy's own code, so these rows measure what numfuse adds:
repr of a small array (the per-call option handling), repr of a large one (a summary made of its
corners only), and .npy/.npz/text round trips of host copies. Times are medians of interleaved
repeats (common.measure_pair); the ratio is numpy_time / numfuse_time (> 1: numfuse is faster).
"Agree" compares the strings, or the arrays read back.

Usage:
    PYTHONPATH=python python bench/printio_cpu.py [--quick]
"""
import io
import os
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def _npy_round_trip(xp, a):
    buf = io.BytesIO()
    xp.save(buf, a)
    buf.seek(0)
    return xp.load(buf)


def _npz_round_trip(xp, a, b):
    buf = io.BytesIO()
    xp.savez_compressed(buf, a=a, b=b)
    buf.seek(0)
    with xp.load(buf) as z:
        return z["a"], z["b"]


def _text_round_trip(xp, a):
    buf = io.StringIO()
    xp.savetxt(buf, a)
    buf.seek(0)
    return xp.loadtxt(buf)


def cases(rng, quick):
    k = 10 if quick else 1
    small = rng.standard_normal(8)
    big = rng.standard_normal((2000 // k, 5000))
    ints = rng.integers(-1000, 1000, 10_000_000 // k)
    table = rng.standard_normal((20_000 // k, 8))
    return [
        ("repr f64 (8,)", lambda xp, a: repr(a), (small,)),
        (f"repr f64 {big.shape} (summary)", lambda xp, a: repr(a), (big,)),
        (f"str of a view {big.shape}[::3, 1::2]", lambda xp, a: str(a[::3, 1::2]), (big,)),
        (f"save+load .npy f64 {big.shape}", _npy_round_trip, (big,)),
        (f"savez_compressed+load int64 {ints.size:.0e}", _npz_round_trip, (ints, small)),
        (f"savetxt+loadtxt f64 {table.shape}", _text_round_trip, (table,)),
    ]


def _agree(nf, want, got):
    if isinstance(want, str):
        return want == got
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    return all(numpy.array_equal(w, common.to_numpy(nf, g)) and w.dtype == common.to_numpy(nf, g).dtype
               for w, g in zip(want, got))


def main():
    args, nf = common.family_args(__doc__)
    rng = numpy.random.default_rng(0)
    print(f"{'case':44s} {'numpy':>10s} {'numfuse':>10s} {'ratio':>6s}  agree")
    for name, fn, inputs in cases(rng, args.quick):
        nf_in = [nf.asarray(a) for a in inputs]
        common.force(nf, *nf_in)
        tn, tf = common.measure_pair(lambda: fn(numpy, *inputs), numpy,
                                     lambda: fn(nf, *nf_in), nf, repeats=5, budget_s=20)
        agree = _agree(nf, fn(numpy, *inputs), fn(nf, *nf_in))
        print(f"{name:44s} {common.fmt_time(tn.median):>10s} {common.fmt_time(tf.median):>10s} "
              f"{tn.median / tf.median:6.2f}  {agree}")


if __name__ == "__main__":
    main()
