"""The seed's Dask program (tests/dask_seed_program.py) on a dask.distributed LocalCluster of two
worker processes (loopback only), with numfuse chunks, against the same program in NumPy: the
chunks travel between processes through numfuse's serializers, and each worker's default device
is set by numfuse.dask.DevicePlugin."""
import numpy
import pytest

# Dask is in requirements-dev.txt; a machine without it (the GPU image) skips these tests.
pytest.importorskip("dask")
pytest.importorskip("distributed")
import cloudpickle  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import numfuse  # noqa: E402
import numfuse.dask  # noqa: E402

import harness  # noqa: E402

import dask_seed_program as seed  # noqa: E402

# The workers cannot import the tests' modules: the program's functions travel by value.
cloudpickle.register_pickle_by_value(seed)


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      worker_dashboard_address=None) as cluster, Client(cluster) as c:
        c.register_plugin(numfuse.dask.DevicePlugin())
        yield c


def host(v):
    return numfuse.asnumpy(v) if isinstance(v, numfuse.ndarray) else numpy.asarray(v)


def test_seed_program_on_two_worker_processes(client):
    x, g = seed.inputs()
    expected = seed.run_numpy(*client.compute([x, g], sync=True))
    xn, gn = seed.inputs(backend="numfuse")
    assert isinstance(xn._meta, numfuse.ndarray) and isinstance(gn._meta, numfuse.ndarray)
    got = seed.run(xn, gn)
    assert set(got) == set(expected)
    for name, value in got.items():
        assert isinstance(value, numfuse.ndarray), (name, type(value))
        assert value.shape == numpy.shape(expected[name]), name
        numpy.testing.assert_allclose(host(value), expected[name], rtol=1e-9, atol=1e-9,
                                      err_msg=name)


def test_chunks_stay_numfuse_on_the_workers(client):
    xn, _ = seed.inputs(backend="numfuse")
    kinds = client.compute(xn.map_blocks(lambda b: numpy.asarray([[type(b).__module__]]),
                                         dtype=object, chunks=(1, 1)), sync=True)
    assert set(numpy.asarray(kinds).ravel()) == {"numfuse._core"}
    # Each worker runs tasks with numfuse's serializers and dispatch registered.
    registered = client.run(lambda: __import__("distributed.protocol.serialize", fromlist=["x"])
                            .dask_serialize.dispatch(numfuse.ndarray).__module__)
    assert set(registered.values()) == {"numfuse.dask.serialize"}


def test_client_side_numfuse_data_reaches_the_workers(client):
    # numfuse arrays made on the client travel in the graph (from_array: pickled with protocol 5,
    # data out of band), by scatter (the "dask" serializer) and back by gather.
    a = numpy.random.default_rng(3).standard_normal((3000, 40))
    x = da.from_array(numfuse.asarray(a), chunks=(1000, 40), asarray=False)
    got = (x * 2).sum(axis=0).compute()
    assert isinstance(got, numfuse.ndarray)
    numpy.testing.assert_allclose(host(got), (a * 2).sum(axis=0), rtol=1e-12)
    future = client.scatter(numfuse.asarray(a[:7]))
    back = client.submit(lambda b: b[::-1] + 1, future).result()
    assert isinstance(back, numfuse.ndarray) and back.dtype == a.dtype
    numpy.testing.assert_array_equal(host(back), a[:7][::-1] + 1)


def test_device_plugin_sets_each_workers_default_device(client):
    def worker_devices(dask_worker):
        return dask_worker.numfuse_device, numfuse._core.default_device(), dask_worker.name
    seen = client.run(worker_devices)
    assert len(seen) == 2
    for plugin_device, default, name in seen.values():
        assert plugin_device == default == numfuse.dask.choose_device(name)


@pytest.mark.cuda
@pytest.mark.skipif(not harness.cuda_available(), reason="numfuse.cuda.is_available() is False")
def test_gpu_cluster_runs_the_program_on_pinned_workers():
    # One worker process per visible GPU, pinned as dask-cuda pins them (numfuse.dask.gpu_cluster).
    with numfuse.dask.gpu_cluster() as cluster, Client(cluster) as c:
        devices = c.run(lambda: (numfuse._core.default_device(),
                                 __import__("os").environ["CUDA_VISIBLE_DEVICES"]))
        assert len(devices) == numfuse.cuda.runtime.getDeviceCount()
        assert {d for d, _ in devices.values()} == {"cuda:0"}
        x, g = seed.inputs((4000, 20), (256, 256))
        expected = seed.run_numpy(*c.compute([x, g], sync=True))
        got = seed.run(*seed.inputs((4000, 20), (256, 256), backend="numfuse"))
        for name, value in got.items():
            assert isinstance(value, numfuse.ndarray) and value.device.startswith("cuda"), name
            numpy.testing.assert_allclose(host(value), expected[name], rtol=1e-9, atol=1e-9,
                                          err_msg=name)
