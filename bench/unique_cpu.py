"""np.unique of 1e7 values on the CPU: numfuse (one UniqueNode: sort, first of each run) next to
NumPy in one run, with the composed route (sort, mask, select) that return_counts still takes.

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
    print(f"{'case':36s} {'numfuse ms':>10s} {'numpy ms':>9s} {'composed ms':>11s}  ok")
    for name, h in cases:
        a = nf.asarray(h)
        t = best(lambda: nf.eval(nf.unique(a)))
        tn = best(lambda: np.unique(h))
        tc = best(lambda: nf.eval(nf.unique(a, return_counts=True)[0]))
        ok = np.array_equal(nf.asnumpy(nf.unique(a)), np.unique(h), equal_nan=True)
        print(f"{name:36s} {t:10.1f} {tn:9.1f} {tc:11.1f}  {ok}", flush=True)


if __name__ == "__main__":
    main()
