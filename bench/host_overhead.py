"""Host time per small op, taken apart: recording only, recording + evaluation, evaluation into a
preallocated out=, a bare allocation, and the 2000 x `b = b + 1.0` chain, on the CPU and (when
present) the GPU, next to CuPy / NumPy in the same run. Per-op microseconds, best of 5 repeats.

    PYTHONPATH=python python bench/host_overhead.py [--reps 2000]
"""
import argparse
import time

import numpy

import numfuse as nf

try:
    import cupy
except ImportError:  # no CuPy on this machine
    cupy = None


def best_us(fn, reps, sync=lambda: None, repeats=5):
    fn()  # warm: kernels compiled, caches filled
    sync()
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t)
    return best / reps * 1e6


def cases(device, reps):
    a = nf.asarray(numpy.ones(1000, numpy.float32), device=device)
    b = nf.asarray(numpy.ones(1000, numpy.float32), device=device)
    c = nf.asarray(numpy.zeros(1000, numpy.float32), device=device)
    sync = nf.cuda.synchronize if device == "cuda" else (lambda: None)

    def record():
        for _ in range(reps):
            a + b

    def record_eval():
        for _ in range(reps):
            nf.eval(a + b)

    def into_out():
        for _ in range(reps):
            nf.eval(nf.add(a, b, out=c))

    def alloc():
        for _ in range(reps):
            nf.empty(1000, nf.float32, device=device)

    def chain():
        x = nf.zeros(1000, device=device)
        for _ in range(reps):
            x = x + 1.0
        nf.eval(x)

    return [("record a + b (never evaluated)", best_us(record, reps, sync)),
            ("a + b, evaluated each op", best_us(record_eval, reps, sync)),
            ("add(a, b, out=c), evaluated each op", best_us(into_out, reps, sync)),
            ("empty(1000)", best_us(alloc, reps, sync)),
            (f"{reps} x b = b + 1.0, whole loop / ops", best_us(chain, reps, sync))]


def peers(device, reps):
    if device == "cuda" and cupy is not None:
        a, b = cupy.ones(1000, cupy.float32), cupy.ones(1000, cupy.float32)
        sync = cupy.cuda.Stream.null.synchronize

        def op():
            for _ in range(reps):
                a + b

        def chain():
            x = cupy.zeros(1000)
            for _ in range(reps):
                x = x + 1.0
        return "cupy", {1: best_us(op, reps, sync), 4: best_us(chain, reps, sync)}
    if device == "cpu":
        a, b = numpy.ones(1000, numpy.float32), numpy.ones(1000, numpy.float32)

        def op():
            for _ in range(reps):
                a + b

        def chain():
            x = numpy.zeros(1000)
            for _ in range(reps):
                x = x + 1.0
        return "numpy", {1: best_us(op, reps), 4: best_us(chain, reps)}
    return None, {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2000)
    args = ap.parse_args()
    devices = ["cpu"] + (["cuda"] if nf.cuda.is_available() else [])
    for device in devices:
        rows = cases(device, args.reps)
        peer, figures = peers(device, args.reps)
        print(f"\nhost time per op on {device} (µs, best of 5 x {args.reps} ops)")
        print(f"{'case':44s} {'numfuse':>8s} {peer or '':>8s}")
        for i, (name, us) in enumerate(rows):
            p = figures.get(i)
            print(f"{name:44s} {us:8.2f} {'' if p is None else f'{p:8.2f}'}")


if __name__ == "__main__":
    main()
