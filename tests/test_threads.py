"""Evaluation from several Python threads (issue 10, responsiveness): long evaluations release
the GIL, two independent ones run side by side (the graph lock is held only while planning), a
node two threads need is computed once, and writes keep NumPy's order semantics. NumPy is the
oracle throughout."""
import threading
import time

import numpy
import pytest

import numfuse as nf


PERIOD = 1 << 16


# CPU-backend tests (thread pool, locks, signal checks): their arrays live on the CPU whatever
# the machine's default device is (a forked child cannot use a CUDA context its parent made).
pytestmark = pytest.mark.usefixtures("cpu_default_device")


def fused(xp, n, k):
    """A fused reduction over a periodic generator: long for numfuse, cheap for the oracle."""
    x = (xp.arange(n, dtype=xp.int64) % PERIOD).astype(xp.float64) * (1e-5 * k)
    return (xp.sin(x) * xp.cos(x)).sum()


def expected(n, k):
    """NumPy's value of fused(nf, n, k), from one period."""
    return (n // PERIOD) * float(fused(numpy, PERIOD, k)) + float(fused(numpy, n % PERIOD, k))


def sized(seconds):
    """A size for `fused` taking about `seconds` here."""
    n = 1 << 18
    while True:
        t = time.perf_counter()
        float(fused(nf, n, 1))
        dt = time.perf_counter() - t
        if dt > 0.05:
            return max(1 << 16, int(n * seconds / dt))
        n *= 4


def close(got, expected, rtol=1e-9):
    return abs(float(got) - float(expected)) <= rtol * max(1.0, abs(float(expected)))


def test_python_thread_runs_while_main_thread_evaluates():
    n = sized(1.0)
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    time.sleep(0.05)
    pending = fused(nf, n, 1)
    start = time.perf_counter()
    value = float(pending)  # implicit evaluation: float() releases the GIL while it computes
    end = time.perf_counter()
    stop.set()
    t.join()
    inside = [s for s in ticks if start <= s <= end]
    points = [start] + inside + [end]
    longest_pause = max(b - a for a, b in zip(points, points[1:]))
    assert close(value, expected(n, 1))
    assert len(inside) >= 5 and longest_pause < 0.5 * (end - start), (len(inside), longest_pause, end - start)


def test_independent_evaluation_finishes_while_another_runs():
    n_long = sized(2.0)
    long_done = []
    started = threading.Event()

    def long_eval():
        started.set()
        long_done.append((float(fused(nf, n_long, 1)), time.perf_counter()))

    a = threading.Thread(target=long_eval)
    a.start()
    started.wait()
    time.sleep(0.1)
    short = fused(nf, 1 << 18, 2)  # its own graph: it need not wait for the long one
    value = float(short)
    short_end = time.perf_counter()
    a.join()
    assert close(value, expected(1 << 18, 2))
    assert close(long_done[0][0], expected(n_long, 1))
    assert short_end < long_done[0][1], "the short evaluation waited for the long one"


def test_node_shared_by_two_threads_is_computed_once_and_right():
    n = 1 << 22
    base = nf.arange(n, dtype=nf.float64) * 1e-6
    shared = nf.sin(base) * nf.cos(base)  # pending, held: both threads' graphs read it
    results = {}
    barrier = threading.Barrier(3)

    def use(k):
        barrier.wait()
        results[k] = float((shared * k + 1.0).sum())

    threads = [threading.Thread(target=use, args=(k,)) for k in (1, 2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    x = numpy.arange(n, dtype=numpy.float64) * 1e-6
    s = numpy.sin(x) * numpy.cos(x)
    for k in (1, 2, 3):
        assert close(results[k], (s * k + 1.0).sum()), k
    numpy.testing.assert_allclose(numpy.asarray(shared), s, rtol=1e-15)


@pytest.mark.parametrize("delay", [0.0, 0.005, 0.02])
def test_write_waits_for_a_pending_reader_another_thread_is_evaluating(delay):
    n = 1 << 22
    values = numpy.random.default_rng(0).random(n)
    arr = nf.asarray(values)
    # Reads arr's old values, whoever evaluates it and whenever.
    reader = (nf.sin(arr) * nf.cos(arr) + nf.exp(arr)).sum()
    evaluating = threading.Event()
    got = []

    def evaluate():
        evaluating.set()
        got.append(float(reader))

    t = threading.Thread(target=evaluate)
    t.start()
    evaluating.wait()
    time.sleep(delay)
    arr[: n // 2] = 0.0  # waits for the reader if the other thread has claimed it
    after = float((nf.sin(arr) * nf.cos(arr) + nf.exp(arr)).sum())
    t.join()
    assert close(got[0], (numpy.sin(values) * numpy.cos(values) + numpy.exp(values)).sum())
    values[: n // 2] = 0.0
    assert close(after, (numpy.sin(values) * numpy.cos(values) + numpy.exp(values)).sum())


@pytest.mark.parametrize("seed", range(3))
def test_threads_stress_against_numpy(seed):
    """Threads build programs over shared inputs (materialised and pending), evaluate them in
    every implicit way, and write into their own arrays that their pending graphs read."""
    n = 1 << 17  # above the size where evaluation releases the GIL and the graph lock
    rng = numpy.random.default_rng(seed)
    base_np = rng.random(n)
    base = nf.asarray(base_np)
    shared_np = numpy.exp(-base_np) + 1.0
    shared = nf.exp(-base) + 1.0  # pending until some thread needs it
    errors = []
    barrier = threading.Barrier(4)

    def worker(w):
        r = numpy.random.default_rng(seed * 100 + w)
        try:
            barrier.wait()
            for step in range(12):
                k = float(r.integers(1, 5))
                own_np = base_np * k
                own = base * k
                pend_np = numpy.sqrt(shared_np + own_np)
                pend = nf.sqrt(shared + own)  # reads `own` before the write below
                own[: n // 3] = -1.0
                own_np[: n // 3] = -1.0
                kind = step % 4
                if kind == 0:
                    got, want = float(pend.sum()), float(pend_np.sum())
                elif kind == 1:
                    got, want = numpy.asarray(pend)[::997], pend_np[::997]
                elif kind == 2:
                    got, want = (pend * own).max().item(), (pend_np * own_np).max()
                else:
                    got, want = bool((pend > 1.0).all()), bool((pend_np > 1.0).all())
                numpy.testing.assert_allclose(got, want, rtol=1e-12)
        except Exception as e:
            errors.append((w, repr(e)))

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not errors, errors
