"""Issue 16: bench/scaling.py's weak-scaling stencil and seed program on a LocalCluster of two
worker processes (loopback), against NumPy's loop on the whole grid; and a worker process
SIGKILLed in the middle of a run, after which the answer is still NumPy's (Dask recomputes the
chunks the worker held)."""
import argparse
import os
import sys

import numpy
import pytest

pytest.importorskip("dask")
pytest.importorskip("distributed")
import dask  # noqa: E402
from distributed import Client, wait  # noqa: E402

import numfuse  # noqa: E402
import numfuse.dask  # noqa: E402

# bench/ on sys.path: the worker processes inherit it and import the tasks' functions from it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import scaling  # noqa: E402

scaling.TIMEOUT = 60  # a hung cluster fails the test

SCHEMES = ("futures", "map_overlap")


@pytest.fixture(scope="module")
def client(device):
    # Work stealing off, as bench/scaling.py runs it: the scheduler lives in this process, and
    # so do the Dask arrays' metas, made on this process's default device: the workers' one.
    saved = numfuse._core.default_device()
    numfuse._core.set_default_device(scaling.CLIENT_DEVICE[device])
    try:
        with dask.config.set({"distributed.scheduler.work-stealing": False}), \
                scaling.cluster(device, 2) as cluster, Client(cluster) as c:
            c.register_plugin(numfuse.dask.DevicePlugin())  # each worker's NUMFUSE_DEVICE
            yield c
    finally:
        numfuse._core.set_default_device(saved)


@pytest.fixture(autouse=True)
def both_workers_up(request):
    """Every test starts with the cluster's two workers registered: a worker killed by an earlier
    test is restarted by its nanny, and a busy machine starts them late (a test that placed its
    strips on the workers of the moment once found none)."""
    if "client" in request.fixturenames:
        request.getfixturevalue("client").wait_for_workers(2, timeout=120)


def whole_grid_loop(strips, rows, cols, iterations, fill="random"):
    return scaling.heat_diffusion(scaling.initial_grid(strips, rows, cols, fill), iterations)


def run(client, scheme, workers, rows, cols, iterations, exchange_every, backend="numfuse",
        fill="random"):
    # Random numbers: the seed's grid (heat from the top row) leaves the lower strips zero for
    # many sweeps, where a wrong halo goes unseen.
    strips = scaling.place_grid(client, backend, rows, cols, workers, fill)
    result = scaling.run_stencil(client, scheme, strips, workers, backend, rows, cols,
                                 iterations, exchange_every)
    wait(result, timeout=scaling.TIMEOUT)
    return scaling.computed(client, scaling.result_array(result, backend, rows, cols))


@pytest.mark.parametrize("scheme", SCHEMES)
def test_stencil_on_workers_equals_numpys_whole_grid_loop(client, scheme):
    workers = scaling.workers_of(client)
    # 50 iterations (the seed's), halo of 7: the last exchange is a partial one (50 = 7*7 + 1).
    for fill in ("random", "seed"):
        got = run(client, scheme, workers, 40, 24, 50, 7, fill=fill)
        assert isinstance(got, numfuse.ndarray)
        numpy.testing.assert_allclose(numfuse.asnumpy(got), whole_grid_loop(2, 40, 24, 50, fill),
                                      rtol=1e-12, atol=1e-12, err_msg=fill)


def test_halo_depths_and_strip_counts_seeded(client):
    # The class of bug: a halo one row short or a trim one row off. Random strip counts (more
    # strips than workers too), strip heights down to the halo's depth, depths and iterations.
    rng = numpy.random.default_rng(16)
    w = scaling.workers_of(client)
    for _ in range(4):
        k = int(rng.integers(1, 5))
        depth = int(rng.integers(1, 6))
        rows = int(rng.integers(depth, depth + 8))
        cols = int(rng.integers(3, 12))
        iterations = int(rng.integers(1, 13))
        got = run(client, "futures", [w[i % 2] for i in range(k)], rows, cols, iterations, depth)
        numpy.testing.assert_allclose(numfuse.asnumpy(got),
                                      whole_grid_loop(k, rows, cols, iterations), rtol=1e-12,
                                      atol=1e-12, err_msg=f"{k} strips {rows}x{cols}, halo "
                                                          f"{depth}, {iterations} iterations")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_halo_deeper_than_a_strip_is_refused(client, scheme):
    workers = scaling.workers_of(client)
    strips = scaling.place_grid(client, "numfuse", 4, 6, workers)
    with pytest.raises(ValueError, match=r"exchange_every=5 must be in 1\.\.4"):
        scaling.run_stencil(client, scheme, strips, workers, "numfuse", 4, 6, 10, 5)


def test_bench_rows_weak_scaling_check_and_placement(client, device):
    # The bench's own measuring function on a small grid: NumPy's whole-grid answer for every
    # chunk type, and each strip kept on its worker by the futures exchange.
    peer = scaling.PEER[device]
    if peer == "cupy":
        pytest.importorskip("cupy")
    args = argparse.Namespace(size=32, iterations=50, exchange_every=10, exchange="futures",
                              persist=False, repeat=1, check_limit=1 << 22, fill="random")
    seconds, ok, stay = scaling.stencil_rows(client, args, [peer, "numfuse"])
    assert ok and all(stay.values())
    assert set(seconds) == {peer, "numfuse"}
    assert all(median >= best > 0 for median, best in seconds.values())


def test_seed_program_rows_agree_with_the_peer(client, device):
    peer = scaling.PEER[device]
    if peer == "cupy":
        pytest.importorskip("cupy")
    args = argparse.Namespace(rows=400, cols=8, grid=32, program_iterations=2, repeat=1)
    seconds, ok = scaling.program_seconds(client, args, [peer, "numfuse"], 2)
    assert ok and set(seconds) == {peer, "numfuse"}


@pytest.mark.parametrize("scheme", SCHEMES)
def test_worker_killed_mid_run_still_gives_numpys_answer(client, scheme):
    client.wait_for_workers(2, timeout=60)  # the previous kill's worker is back
    got, pending, held, pid = scaling.stencil_with_worker_killed(
        client, scheme, "numfuse", rows=32, cols=16, iterations=20, exchange_every=4, pause=0.1)
    assert pending, "the run had ended before the kill"
    assert held, "the killed worker held no strip: nothing was lost"
    numpy.testing.assert_allclose(got, whole_grid_loop(2, 32, 16, 20), rtol=1e-12, atol=1e-12)
    client.wait_for_workers(2, timeout=60)
    assert pid not in client.run(os.getpid).values()  # the worker was killed and replaced
