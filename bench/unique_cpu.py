"""np.unique of 1e7 values on the CPU: numfuse (one UniqueNode: sort, first of each run, and the
run lengths for return_counts) next to NumPy in one run.

    PYTHONPATH=python python bench/unique_cpu.py
"""
import time

import numpy as np

import numfuse as nf


def best(fn, reps=5):
    fn()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t) * 1e3


def main():
    rng = np.random.default_rng(0)
    cases = [
        ("unique 1e7 float32 (1e6 values)", rng.integers(0, 10**6, 10**7).astype(np.float32)),
        ("unique 1e7 float64 (all distinct)", rng.standard_normal(10**7)),
        ("unique 1e7 int64 (1000 values)", rng.integers(0, 1000, 10**7)),
    ]
    print(f"{'case':36s} {'numfuse ms':>10s} {'numpy ms':>9s} {'nf counts':>9s} {'np counts':>9s}  ok")
    for name, h in cases:
        a = nf.asarray(h)
        t = best(lambda: nf.eval(nf.unique(a)))
        tn = best(lambda: np.unique(h))
        tc = best(lambda: nf.eval(*nf.unique(a, return_counts=True)))
        tnc = best(lambda: np.unique(h, return_counts=True))
        got, want = nf.unique(a, return_counts=True), np.unique(h, return_counts=True)
        ok = all(np.array_equal(nf.asnumpy(g), w, equal_nan=True) for g, w in zip(got, want))
        print(f"{name:36s} {t:10.1f} {tn:9.1f} {tc:9.1f} {tnc:9.1f}  {ok}", flush=True)

if __name__ == "__main__":
    main()
