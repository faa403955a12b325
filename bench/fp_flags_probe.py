"""What numpy.errstate's checks cost the fused GPU kernels: each case timed with the checks on and
off (numfuse.cuda.set_fp_checks), next to CuPy in the same process.

    PYTHONPATH=python python3 bench/fp_flags_probe.py [--n 100000000] [--reps 20] [--no-cupy]

Cases (float32, values in [0.5, 1.5): no condition occurs, the checks' fast path):
  chain      x*y + z*x - sqrt(y)*2        3 reads + 1 write
  sincos     sin(x) + cos(x)              1 read + 1 write
  sum        sum(x)                       1 read (no checked step: the control)
  rownorm    sqrt(sum(x**2, -1))          1 read, rows of 1000
  firing     log(x - x) under errstate(divide='call'): every element raises (the worst case)
Prints ms (best batch of --reps calls) and GB/s counting each array byte read or written once,
and the on/off ratio. The checks stay on by default unless on/off shows a measurable cost.
"""
import argparse

import numpy

import numfuse as nf
from cuda_timing import timed

CASES = {
    "chain": (lambda m, x, y, z: x * y + z * x - m.sqrt(y) * 2, 4),
    "sincos": (lambda m, x, y, z: m.sin(x) + m.cos(x), 2),
    "sum": (lambda m, x, y, z: m.sum(x), 1),
    "rownorm": (lambda m, x, y, z: m.sqrt(m.sum(x.reshape(-1, 1000) ** 2, axis=-1)), 1),
    "firing": (lambda m, x, y, z: m.log(x - x), 2),
}


def run_case(name, fn, m, arrays, force, sync, reps):
    def call():
        if name == "firing":
            with numpy.errstate(divide="call", call=lambda kind, flag: None):
                return force(fn(m, *arrays))
        return force(fn(m, *arrays))
    best, first = timed(call, sync, reps)
    return best, first


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000_000)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--no-cupy", action="store_true")
    args = ap.parse_args()
    n = args.n // 1000 * 1000
    rng = numpy.random.default_rng(0)
    host = [(rng.random(n, dtype=numpy.float32) + numpy.float32(0.5)) for _ in range(3)]
    if not nf.cuda.is_available():
        raise SystemExit("no GPU: " + nf._core.cuda.unavailable_reason())
    xs = [nf.asarray(h, device="cuda") for h in host]
    nf.cuda.synchronize()
    cp = None
    if not args.no_cupy:
        try:
            import cupy as cp
            cs = [cp.asarray(h) for h in host]
            cp.cuda.runtime.deviceSynchronize()
        except Exception as e:  # noqa: BLE001 - a missing or broken CuPy only drops its column
            print(f"cupy unavailable: {e}")
            cp = None
    print(f"n = {n:.3g} float32, best of 3 batches of {args.reps}")
    print(f"{'case':10s} {'checks on':>18s} {'checks off':>18s} {'on/off':>7s} {'cupy':>18s}")
    for name, (fn, arrays_moved) in CASES.items():
        gb = arrays_moved * 4 * n / 1e9
        row = {}
        for on in (True, False):
            nf.cuda.set_fp_checks(on)
            row[on], _ = run_case(name, fn, nf, xs, nf.eval, nf.cuda.synchronize, args.reps)
        nf.cuda.set_fp_checks(True)
        line = (f"{name:10s} {row[True] * 1e3:8.3f} ms {gb / row[True]:5.0f} GB/s "
                f"{row[False] * 1e3:8.3f} ms {gb / row[False]:5.0f} GB/s {row[True] / row[False]:7.3f}")
        if cp is not None:
            t, _ = run_case(name, fn, cp, cs, lambda r: r, cp.cuda.runtime.deviceSynchronize, args.reps)
            line += f" {t * 1e3:8.3f} ms {gb / t:5.0f} GB/s"
        print(line)


if __name__ == "__main__":
    main()
