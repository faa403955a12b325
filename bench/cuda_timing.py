"""Timing of GPU work for the bench/cuda_*.py scripts: a first call (which may compile), then the
best of three batches of repeats, synchronised before and after each batch."""
import time


def timed(fn, sync, reps=20):
    """(best seconds per call, first call seconds) of fn(); sync() waits for the device."""
    t0 = time.perf_counter()
    fn()
    sync()
    first = time.perf_counter() - t0
    best = float("inf")
    for _ in range(3):
        sync()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best, first
