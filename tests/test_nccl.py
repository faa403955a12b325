"""numfuse.cuda.nccl: NCCL's send/recv between ranks on numfuse arrays (issue 16's halo exchange).
What needs no GPU (the library, ids, argument errors, a clear error without a device) runs
everywhere; one rank exchanging with itself needs a GPU; two processes, one GPU each, need two.
The oracle is the data sent: what arrives equals it, bit for bit."""
import multiprocessing
import os

import numpy as np
import pytest

import harness

nf = harness.numfuse_module()
nccl = nf.cuda.nccl if nf is not None else None
cuda_ok = nf is not None and harness.cuda_available(nf)
has_nccl = nccl is not None and nccl.available()
needs_nccl = pytest.mark.skipif(not has_nccl, reason="NCCL could not be loaded")
needs_gpu = pytest.mark.skipif(not (cuda_ok and has_nccl), reason="needs a GPU and NCCL")
needs_two = pytest.mark.skipif(not (cuda_ok and has_nccl and nf.cuda.runtime.getDeviceCount() >= 2),
                               reason="needs two CUDA devices")


@needs_nccl
def test_unique_ids_and_version():
    a, b = nccl.get_unique_id(), nccl.get_unique_id()
    assert isinstance(a, bytes) and len(a) == 128 and a != b
    assert nccl.get_version() >= 20700  # send/recv came with 2.7
    assert nccl.unavailable_reason() == ""


@needs_nccl
@pytest.mark.parametrize("args,exc,words", [
    ((2, "not bytes", 0), TypeError, "commId"),
    ((2, b"short", 0), ValueError, "128 bytes"),
    ((2, None, 2), ValueError, "rank 2 is not in 0..1"),
    ((2, None, -1), ValueError, "rank -1"),
    ((0, None, 0), ValueError, "0 ranks"),
])
def test_communicator_argument_errors(args, exc, words):
    ndev, uid, rank = args
    with pytest.raises(exc, match=words):
        nccl.NcclCommunicator(ndev, nccl.get_unique_id() if uid is None else uid, rank,
                              device=0)


@needs_nccl
@pytest.mark.skipif(cuda_ok, reason="checks the behaviour without a GPU")
def test_no_gpu_is_a_clear_error():
    with pytest.raises(Exception) as e:
        nccl.NcclCommunicator(1, nccl.get_unique_id(), 0, device=0)
    assert "CUDA" in str(e.value) or "cuda" in str(e.value) or "device" in str(e.value)


@needs_gpu
@pytest.mark.parametrize("dtype,shape", [("float64", (10, 8192)), ("int32", (7,)),
                                         ("complex64", (3, 5)), ("uint8", (0,))])
def test_one_rank_sends_to_itself(dtype, shape):
    comm = nccl.NcclCommunicator(1, nccl.get_unique_id(), 0, device="cuda:0")
    assert (comm.size(), comm.rank_id(), comm.device_id()) == (1, 0, 0)
    host = harness.make_array(shape, dtype, 3)
    src = nf.asarray(host, device="cuda:0") * 1  # pending: computed before it is sent
    dst = nf.zeros(shape, dtype, device="cuda:0")
    reader = dst + 0  # a pending reader of dst: it must see the zeros, not what arrives
    with nccl.group():
        comm.send(src, 0)
        comm.recv(dst, 0)
    np.testing.assert_array_equal(nf.asnumpy(dst), host)
    np.testing.assert_array_equal(nf.asnumpy(reader), np.zeros(shape, dtype))
    np.testing.assert_array_equal(nf.asnumpy(dst * 2), host * 2)  # later work follows the receive
    comm.destroy()
    with pytest.raises(ValueError, match="destroyed"):
        comm.send(src, 0)


@needs_gpu
def test_send_errors_name_the_array():
    comm = nccl.NcclCommunicator(1, nccl.get_unique_id(), 0, device="cuda:0")
    with pytest.raises(TypeError, match="numfuse array"):
        comm.send(np.zeros(3), 0)
    with pytest.raises(ValueError, match="C-contiguous"):
        comm.send(nf.zeros((4, 4), device="cuda:0")[:, 1], 0)
    with pytest.raises(ValueError, match="on cpu"):
        comm.send(nf.zeros(3, device="cpu"), 0)
    with pytest.raises(ValueError, match="peer 1 is not in 0..0"):
        comm.send(nf.zeros(3, device="cuda:0"), 1)
    comm.destroy()


def _rank(rank, uid, queue):
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    import numfuse
    import numfuse.cuda.nccl as n
    try:
        comm = n.NcclCommunicator(2, uid, rank, device=f"cuda:{rank}")
        mine = numfuse.arange(1000.0, device=f"cuda:{rank}") + 1000 * rank
        theirs = numfuse.empty(1000, device=f"cuda:{rank}")
        with n.group():
            comm.send(mine, 1 - rank)
            comm.recv(theirs, 1 - rank)
        queue.put((rank, numfuse.asnumpy(theirs)))
    except Exception as e:  # reported to the test, not lost in the child
        queue.put((rank, repr(e)))


@needs_two
def test_two_processes_swap_arrays():
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    uid = nccl.get_unique_id()
    procs = [ctx.Process(target=_rank, args=(r, uid, queue)) for r in (0, 1)]
    for p in procs:
        p.start()
    got = dict(queue.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(timeout=60)
    for rank in (0, 1):
        assert not isinstance(got[rank], str), got[rank]
        np.testing.assert_array_equal(got[rank], np.arange(1000.0) + 1000 * (1 - rank))
