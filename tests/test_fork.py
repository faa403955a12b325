"""fork() in a process that has used numfuse (issue 10, hangs): the child's evaluations, which
need the thread pool the child does not inherit, must finish and be right, as NumPy's do. Every
child is waited for with a timeout (NF_FORK_TIMEOUT seconds, default 60), so a regression fails
instead of hanging the run."""
import multiprocessing
import os
import sys
import threading
import time

import numpy
import pytest

import numfuse as nf


N = 3_000_000  # large enough for the thread pool (a parallel reduction) on any machine


# CPU-backend tests (thread pool, locks, signal checks): their arrays live on the CPU whatever
# the machine's default device is (a forked child cannot use a CUDA context its parent made).
pytestmark = [pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform"),
              pytest.mark.usefixtures("cpu_default_device")]


def in_child(body, timeout=float(os.environ.get("NF_FORK_TIMEOUT", 60))):
    """Runs body() in a forked child; returns its exit status (body's result: 0 is success)."""
    pid = os.fork()
    if pid == 0:
        status = 99
        try:
            status = body()
        finally:
            os._exit(status)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.01)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail(f"the forked child did not finish within {timeout} s (a hang)")


def fused_reduction(xp, n, k):
    x = xp.arange(n, dtype=xp.float64) * (1e-6 * k)
    return (xp.sin(x) * xp.cos(x) + x).sum()


def close(got, expected):
    return abs(float(got) - float(expected)) <= 1e-9 * max(1.0, abs(float(expected)))


def test_forked_child_evaluates_a_parallel_reduction():
    assert nf._core.num_threads() >= 1
    expected = [fused_reduction(numpy, N, k) for k in (1, 2)]
    # The parent used the pool first: its workers are the threads the child does not have.
    assert close(fused_reduction(nf, N, 1), expected[0])

    def body():
        ok = close(fused_reduction(nf, N, 2), expected[1]) and close(fused_reduction(nf, N, 1), expected[0])
        return 0 if ok else 3

    assert in_child(body) == 0
    # And the parent's pool still works after the fork.
    assert close(fused_reduction(nf, N, 2), expected[1])


def _pool_work(k):
    return float(fused_reduction(nf, N // 4, k))


def test_multiprocessing_pool_with_fork_context():
    float(fused_reduction(nf, N, 1))  # the pool in use before the workers fork
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        result = pool.map_async(_pool_work, range(1, 5))
        got = result.get(timeout=120)
    expected = [float(fused_reduction(numpy, N // 4, k)) for k in range(1, 5)]
    numpy.testing.assert_allclose(got, expected, rtol=1e-9)


def test_fork_while_another_thread_evaluates():
    """Forks while a second thread is in the middle of evaluations, some of them of an array the
    child then evaluates itself: the child gets a fresh pool, unheld locks, and the claims of the
    parent's evaluating thread released."""
    expected_shared = float(fused_reduction(numpy, 4 * N, 3))
    expected_own = float(fused_reduction(numpy, N, 5))
    stop = threading.Event()
    errors = []

    def busy():
        try:
            while not stop.is_set():
                float(fused_reduction(nf, N, 4))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    worker = threading.Thread(target=busy)
    worker.start()
    try:
        for attempt in range(6):
            shared = fused_reduction(nf, 4 * N, 3)  # pending; the thread below evaluates it
            evaluator = threading.Thread(target=lambda: float(shared))
            evaluator.start()
            time.sleep(0.002 * attempt)

            def body():
                ok = close(shared, expected_shared) and close(fused_reduction(nf, N, 5), expected_own)
                return 0 if ok else 3

            assert in_child(body) == 0, f"attempt {attempt}"
            evaluator.join()
            assert close(shared, expected_shared)
    finally:
        stop.set()
        worker.join()
    assert not errors


@pytest.mark.cuda
@pytest.mark.skipif(not nf.cuda.is_available(), reason="no CUDA device")
def test_cuda_in_a_forked_child_raises_cuda_error():
    a = nf.ones(10, device="cuda")
    assert float(a.sum()) == 10.0  # the parent's CUDA context exists

    def body():
        try:
            float(nf.ones(10, device="cuda").sum())
        except nf.cuda.CUDAError as e:
            return 0 if "fork" in str(e) else 4
        except BaseException:
            return 5
        return 3

    assert in_child(body) == 0
    # CPU work in such a child still works.
    on_cpu = lambda: nf.arange(N, dtype=nf.float64, device="cpu").sum()
    assert in_child(lambda: 0 if close(on_cpu(), numpy.arange(N, dtype=numpy.float64).sum()) else 3) == 0
