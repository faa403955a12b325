"""Two independent large evaluations in two Python threads against one of them alone: with the
GIL released and the graph lock held only while planning, the two run side by side (issue 10).
Also: the longest pause of a pure-Python thread while the main thread evaluates (GIL released).

Usage: PYTHONPATH=python python bench/threads_probe.py [--n 20000000] [--repeats 5] [--device cpu]
The ratio printed is (two threads, one evaluation each) / (one evaluation alone): 2.0 is what
evaluations serialised behind one lock cost; below 2.0 they overlap. On a machine whose every
core one evaluation already fills, compute-bound work cannot go far below 2.0."""
import argparse
import threading
import time

import numpy

import numfuse as nf


def reduction(n, k, device):
    # A fused reduction over a generator: no memory traffic, all compute (x is not held, so it
    # is computed as it is read, never stored).
    def x():
        return nf.arange(n, dtype=nf.float64, device=device) * (1e-7 * (k + 1))
    return float((nf.sin(x()) * nf.cos(x())).sum())


def materialised_sum(a):
    return float(a.sum())


def best(fn, repeats):
    fn()  # warm
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def in_two_threads(fn0, fn1):
    def both():
        threads = [threading.Thread(target=fn0), threading.Thread(target=fn1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return both


def longest_python_pause(fn):
    """The longest time a pure-Python thread went without running while fn ran on this thread:
    about fn's whole time when fn holds the GIL, a few ms (the switch interval) when it lets go."""
    stamps = []
    stop = False

    def ticker():
        while not stop:
            stamps.append(time.perf_counter())
            time.sleep(0)

    t = threading.Thread(target=ticker)
    t.start()
    time.sleep(0.05)
    t0 = time.perf_counter()
    fn()
    t1 = time.perf_counter()
    stop = True
    t.join()
    inside = [s for s in stamps if t0 <= s <= t1]
    points = [t0] + inside + [t1]
    return max(b - a for a, b in zip(points, points[1:])), t1 - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    n, dev = args.n, args.device
    pool = nf._core.num_threads()
    for threads in sorted({1, pool}):
        # With one pool thread an evaluation fills one core: two side by side cost ~1x on 2+ cores.
        nf._core.set_num_threads(threads)
        one = best(lambda: reduction(n, 0, dev), args.repeats)
        two = best(in_two_threads(lambda: reduction(n, 0, dev), lambda: reduction(n, 1, dev)), args.repeats)
        print(f"pool of {threads}: fused reduction of {n:.0e} elements: one {one * 1e3:.1f} ms, "
              f"two in two threads {two * 1e3:.1f} ms, ratio {two / one:.2f}")
    nf._core.set_num_threads(pool)

    a = nf.asarray(numpy.random.default_rng(0).random(n), device=dev)
    b = nf.asarray(numpy.random.default_rng(1).random(n), device=dev)
    one = best(lambda: materialised_sum(a), args.repeats)
    two = best(in_two_threads(lambda: materialised_sum(a), lambda: materialised_sum(b)), args.repeats)
    print(f"pool of {pool}: sum of {n:.0e} float64 in memory: one {one * 1e3:.1f} ms, two in two threads "
          f"{two * 1e3:.1f} ms, ratio {two / one:.2f}")

    pause, elapsed = longest_python_pause(lambda: reduction(n, 0, dev))
    print(f"longest pause of a Python thread during a {elapsed * 1e3:.0f} ms evaluation: "
          f"{pause * 1e3:.1f} ms (the whole evaluation when it holds the GIL)")


if __name__ == "__main__":
    main()
