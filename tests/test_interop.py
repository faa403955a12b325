"""Zero-copy exchange with NumPy (issue 15): DLPack both ways, the array interfaces, asarray's copy
rules and get_array_module. Zero copy is checked by address (the same element 0); values, dtypes,
strides, 0-d, non-contiguous and negative strides, read-only arrays, pending arrays, the capsule
consumed once, and lifetimes (the lender deleted, the borrower still reads right).

The numfuse side runs on the `device` fixture where the exchange is device-neutral (the
capsule's device, pending work); NumPy can only borrow host memory, so the NumPy round trips are
CPU arrays. CuPy, PyTorch and JAX are in test_interop_libraries.py (on the GPU machine).
"""
import gc
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import harness

nf = harness.numfuse_module()
# Lazy throughout (small CPU ops would otherwise run at once): the exchange must see pending
# arrays as a GPU's are, e.g. a copy that has no memory yet.
pytestmark = [pytest.mark.skipif(nf is None, reason="numfuse not importable"),
              pytest.mark.usefixtures("lazy_graph_module")]

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.fixture(scope="module", autouse=True)
def host_default_device():
    """NumPy borrows host memory only: new arrays go to the CPU here (also on the GPU machine);
    the tests of device-neutral behaviour pass device= themselves."""
    before = nf._core.default_device()
    nf._core.set_default_device("cpu")
    yield
    nf._core.set_default_device(before)


def numpy_address(x):
    return x.__array_interface__["data"][0]


def numfuse_address(a):
    return nf._core._data_ptr(a)


def sample(shape, dtype, seed=0):
    return np.asarray(harness.make_array(shape, dtype, seed=seed))


# Layouts: each a function of a C-contiguous 3x4x5 array (the same on both libraries).
LAYOUTS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "sliced": lambda a: a[1:, ::2, 1:4],
    "negative": lambda a: a[::-1, :, ::-2],
    "row": lambda a: a[1],
    "column": lambda a: a[:, 2, 3],
    "zero-d": lambda a: a[1, 2, 3, ...],
    "empty": lambda a: a[:, 2:2],
}


# ---- numfuse -> NumPy ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_numpy_borrows_numfuse_memory(dtype, layout):
    base = sample((3, 4, 5), dtype)
    view = LAYOUTS[layout]
    a = view(nf.asarray(base))
    got = np.from_dlpack(a)
    expected = view(base)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.strides == expected.strides
    np.testing.assert_array_equal(got, expected)
    if got.size:
        assert numpy_address(got) == numfuse_address(a)


@pytest.mark.parametrize("max_version", [None, (1, 0), (1, 1), (2, 0)])
def test_capsule_versions(max_version):
    a = nf.arange(6.0)
    cap = a.__dlpack__(max_version=max_version)
    versioned = max_version is not None and max_version[0] >= 1
    assert ("dltensor_versioned" if versioned else "dltensor") in repr(cap)
    assert "used_" not in repr(cap)


def test_pending_array_is_computed_before_export(lazy_graph):
    a = nf.arange(8.0)
    b = nf.sin(a) * 2 + 1
    assert b._pending
    got = np.from_dlpack(b)
    np.testing.assert_allclose(got, np.sin(np.arange(8.0)) * 2 + 1)


def test_writes_through_numpy_are_seen_by_numfuse():
    a = nf.zeros(5)
    x = np.from_dlpack(a)
    assert x.flags.writeable
    x[2] = 7.0
    assert float(a[2]) == 7.0
    np.testing.assert_array_equal(np.asarray(a + 1), [1, 1, 8, 1, 1])


def test_pending_reader_sees_the_values_of_its_call(lazy_graph):
    # NumPy's eager order: b is a + 1 of the values when it was called, whatever is written later.
    a = nf.arange(4.0)
    b = a + 1
    x = np.from_dlpack(a)
    x[:] = 100
    c = a * 2  # recorded while the loan lives: computed at once
    x[:] = -1
    np.testing.assert_array_equal(np.asarray(b), [1, 2, 3, 4])
    np.testing.assert_array_equal(np.asarray(c), [200] * 4)


def test_read_only_array_exports_read_only():
    a = nf.broadcast_to(nf.arange(3.0), (4, 3))
    assert not a.flags.writeable
    x = np.from_dlpack(a)
    assert not x.flags.writeable
    np.testing.assert_array_equal(x, np.broadcast_to(np.arange(3.0), (4, 3)))
    assert x.strides == (0, 8)
    with pytest.raises(BufferError, match="read-only"):
        a.__dlpack__()  # the legacy capsule has no read-only flag


def test_lender_deleted_borrower_reads_right():
    a = nf.arange(1000, dtype=nf.int32) * 3
    x = np.from_dlpack(a)
    del a
    gc.collect()
    np.testing.assert_array_equal(x, np.arange(1000, dtype=np.int32) * 3)


def test_unconsumed_capsule_releases_the_storage():
    a = nf.arange(10.0)
    a = a + 0  # evaluated below: its storage is the array's own
    before = sys.getrefcount(a)
    cap = a.__dlpack__(max_version=(1, 0))
    del cap
    gc.collect()
    assert sys.getrefcount(a) == before
    np.testing.assert_array_equal(np.asarray(a), np.arange(10.0))


# ---- NumPy -> numfuse ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_numfuse_borrows_numpy_memory(dtype, layout):
    x = LAYOUTS[layout](sample((3, 4, 5), dtype, seed=1))
    a = nf.from_dlpack(x)
    assert a.device == "cpu"
    assert a.dtype == x.dtype and a.shape == x.shape and a.strides == x.strides
    np.testing.assert_array_equal(np.asarray(a), x)
    if x.size:
        assert numfuse_address(a) == numpy_address(x)
    # and numfuse computes on it as NumPy does
    if x.dtype != np.bool_ and x.size:
        np.testing.assert_array_equal(np.asarray(a + a), x + x)


def test_numfuse_reads_numpy_writes_in_call_order(lazy_graph):
    x = np.arange(5.0)
    a = nf.from_dlpack(x)
    b = a + 1  # the values of now
    x[0] = 50.0
    c = a + 1
    np.testing.assert_array_equal(np.asarray(b), [1, 2, 3, 4, 5])
    np.testing.assert_array_equal(np.asarray(c), [51, 2, 3, 4, 5])


def test_numfuse_writes_reach_numpy():
    x = np.zeros(4)
    a = nf.from_dlpack(x)
    a[1] = 3.0
    a += 1
    np.testing.assert_array_equal(x, [1, 4, 1, 1])


def test_read_only_numpy_array_stays_read_only():
    x = np.arange(4.0)
    x.flags.writeable = False
    a = nf.from_dlpack(x)
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 1.0
    np.testing.assert_array_equal(np.asarray(a), x)


def test_legacy_capsule_is_read_and_consumed_once():
    x = np.arange(6, dtype=np.int16)
    cap = x.__dlpack__()  # legacy
    a = nf.from_dlpack(cap)
    assert "used_dltensor" in repr(cap)
    np.testing.assert_array_equal(np.asarray(a), x)
    with pytest.raises(ValueError, match="already consumed"):
        nf.from_dlpack(cap)


def test_versioned_capsule_consumed_once():
    a = nf.arange(3.0)
    cap = a.__dlpack__(max_version=(1, 0))
    b = nf.from_dlpack(cap)
    assert "used_dltensor_versioned" in repr(cap)
    np.testing.assert_array_equal(np.asarray(b), [0, 1, 2])
    with pytest.raises(ValueError, match="already consumed"):
        nf.from_dlpack(cap)


def test_numpy_lender_deleted_numfuse_reads_right():
    x = np.arange(100.0) ** 2
    a = nf.from_dlpack(x)
    ref = sys.getrefcount(x)
    del x
    gc.collect()
    np.testing.assert_array_equal(np.asarray(a), np.arange(100.0) ** 2)
    assert ref >= 2  # numfuse holds NumPy's array through the capsule's deleter


def test_numpy_refcount_returns_after_release():
    x = np.arange(5.0)
    before = sys.getrefcount(x)
    a = nf.from_dlpack(x)
    assert sys.getrefcount(x) == before + 1
    del a
    gc.collect()
    assert sys.getrefcount(x) == before


def test_unsupported_dtypes_and_byte_order_raise_buffer_error():
    with pytest.raises(BufferError):
        nf.from_dlpack(np.arange(3, dtype=">i4"))
    with pytest.raises(BufferError):
        nf.from_dlpack(np.array(["2021-05-27"], dtype="datetime64[D]"))


# ---- the arguments of __dlpack__ and from_dlpack -------------------------------------------------

def test_dlpack_device(device):
    a = nf.zeros(3, device=device)
    kind, index = a.__dlpack_device__()
    assert (int(kind), index) == ((1, 0) if device == "cpu" else (2, 0))
    assert nf.from_dlpack(a).__dlpack_device__() == a.__dlpack_device__()


def test_dlpack_stream_argument(device):
    a = nf.ones(3, device=device)
    if device == "cpu":
        for stream in (1, -1, np.int64(2)):
            with pytest.raises(RuntimeError, match="stream"):
                a.__dlpack__(stream=stream)
        return
    for stream in (None, 1, 2, -1, np.int64(1)):
        b = nf.from_dlpack(a.__dlpack__(stream=stream, max_version=(1, 0)))
        assert numfuse_address(b) == numfuse_address(a)
    for stream in (0, -2, "1"):
        with pytest.raises(ValueError, match="stream"):
            a.__dlpack__(stream=stream)


def test_dlpack_argument_errors():
    a = nf.arange(3.0)
    with pytest.raises(RuntimeError, match="stream"):
        a.__dlpack__(stream=1)
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(10, 0))
    with pytest.raises(ValueError):
        a.__dlpack__(copy=np.array([1, 2, 3]))
    with pytest.raises(BufferError, match="copy=False"):
        a.__dlpack__(dl_device=(2, 0), copy=False)
    a.__dlpack__(dl_device=(1, 0), copy=False)


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool", "complex64"])
@pytest.mark.parametrize("copy", [None, True, False])
def test_dlpack_export_to_the_cpu(device, dtype, copy):
    """dl_device=(kDLCPU, 0) as array-api-tests' test_dunder_dlpack asks it (with upstream's
    #457): on the CPU every copy value exports; from a GPU copy=None and True copy to the host
    and copy=False is refused with BufferError (the standard), the array left as it was."""
    host = (np.arange(6) % 3).astype(dtype).reshape(2, 3)[:, ::-1]
    a = nf.asarray(host, device=device)
    if device != "cpu" and copy is False:
        with pytest.raises(BufferError, match="copy=False"):
            a.__dlpack__(dl_device=(1, 0), copy=copy, max_version=(1, 0))
        np.testing.assert_array_equal(nf.asnumpy(a), host)
        return

    class Capsule:
        def __dlpack__(self, **kw):
            return a.__dlpack__(dl_device=(1, 0), copy=copy, max_version=(1, 0))

        def __dlpack_device__(self):
            return (1, 0)

    got = np.from_dlpack(Capsule())
    np.testing.assert_array_equal(got, host)
    assert got.dtype == host.dtype
    if device == "cpu" and copy is not True:
        assert numpy_address(got) == numfuse_address(a)


def test_dlpack_copy_flag():
    a = nf.arange(4.0)
    shared = np.from_dlpack(a)
    copied = np.from_dlpack(a, copy=True)
    assert numpy_address(shared) == numfuse_address(a)
    assert numpy_address(copied) != numfuse_address(a)
    cap = a.__dlpack__(max_version=(1, 0), copy=True)
    b = nf.from_dlpack(cap)
    assert numfuse_address(b) != numfuse_address(a)
    np.testing.assert_array_equal(np.asarray(b), np.arange(4.0))


def test_from_dlpack_copy_and_device(device):
    x = np.arange(6.0)
    assert numfuse_address(nf.from_dlpack(x, copy=False)) == numpy_address(x)
    c = nf.from_dlpack(x, copy=True)
    assert numfuse_address(c) != numpy_address(x)
    x[0] = 9
    assert float(c[0]) == 0.0
    a = nf.arange(3.0, device=device)
    assert numfuse_address(nf.from_dlpack(a)) == numfuse_address(a)
    assert numfuse_address(nf.from_dlpack(a, copy=True)) != numfuse_address(a)
    if device == "cpu":
        with pytest.raises(ValueError):
            nf.from_dlpack(x, device="cuda:0", copy=False)
    with pytest.raises(AttributeError):
        nf.from_dlpack([1, 2, 3])


# ---- the array interfaces and asarray ------------------------------------------------------------

def test_numpy_asarray_shares_cpu_memory():
    a = nf.arange(6.0).reshape(2, 3)
    x = np.asarray(a)
    assert numpy_address(x) == numfuse_address(a)
    with pytest.raises(AttributeError):
        a.__cuda_array_interface__


def test_asarray_copy_rules():
    x = np.arange(5, dtype=np.float32)
    shared = nf.asarray(x, copy=False)
    assert numfuse_address(shared) == numpy_address(x)
    assert numfuse_address(nf.asarray(x)) != numpy_address(x)  # copy=None copies (decisions.md)
    assert numfuse_address(nf.asarray(x, copy=True)) != numpy_address(x)
    with pytest.raises(ValueError, match="avoid copy"):
        nf.asarray(x, dtype=np.float64, copy=False)
    with pytest.raises(ValueError, match="avoid copy"):
        nf.asarray(x[::-1].astype(">f4"), copy=False)


class _OnlyDLPack:
    """A foreign array that speaks DLPack only (as PyTorch's CPU tensors do to numfuse)."""

    def __init__(self, x):
        self._x = x

    def __dlpack__(self, **kwargs):
        return self._x.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._x.__dlpack_device__()


def test_asarray_of_a_foreign_host_array_shares_memory():
    x = np.arange(12.0).reshape(3, 4)[:, ::2]
    foreign = _OnlyDLPack(x)
    a = nf.asarray(foreign, device="cpu")
    assert numfuse_address(a) == numpy_address(x)
    np.testing.assert_array_equal(np.asarray(a), x)
    b = nf.asarray(foreign, dtype=np.float32, device="cpu")
    assert b.dtype == np.float32 and numfuse_address(b) != numpy_address(x)
    with pytest.raises(ValueError):
        nf.asarray(foreign, dtype=np.float32, copy=False)
    c = nf.asarray(foreign, device="cpu", copy=True)
    assert numfuse_address(c) != numpy_address(x)
    np.testing.assert_array_equal(np.asarray(c), x)


def test_get_array_module():
    a = nf.zeros(2)
    assert nf.get_array_module(a) is nf
    assert nf.get_array_module(np.zeros(2), 1.0, a) is nf
    assert nf.get_array_module(np.zeros(2)) is np
    assert nf.get_array_module() is np


# ---- property: every dtype and layout, both ways -------------------------------------------------

@st.composite
def strided_views(draw):
    dtype = draw(st.sampled_from(DTYPES))
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim)))
    key = tuple(slice(draw(st.integers(0, 2)), None, draw(st.sampled_from([1, 2, -1, -2])))
                for _ in shape)
    perm = draw(st.permutations(range(ndim)))
    return dtype, shape, key, tuple(perm)


@settings(max_examples=60, deadline=None)
@given(strided_views(), st.sampled_from([None, (1, 0)]))
def test_round_trips_keep_values_layout_and_memory(case, max_version):
    dtype, shape, key, perm = case
    base = sample(shape, dtype, seed=len(shape))
    x = base[key].transpose(perm) if shape else base
    # NumPy -> numfuse -> NumPy: the same memory all the way
    a = nf.from_dlpack(x)
    back = np.from_dlpack(a)
    np.testing.assert_array_equal(back, x)
    assert back.dtype == x.dtype and back.shape == x.shape
    if x.size:
        assert numpy_address(back) == numpy_address(x)
        assert back.strides == x.strides
    # numfuse -> NumPy through the requested capsule kind
    b = nf.asarray(base)[key].transpose(perm) if shape else nf.asarray(base)
    cap = b.__dlpack__(max_version=max_version)
    y = nf.from_dlpack(cap)
    np.testing.assert_array_equal(np.asarray(y), x)


def test_borrowed_memory_given_back_from_evaluations_in_threads():
    # A borrowed buffer whose last user is an evaluation (which runs without the GIL) is given
    # back through the interpreter's pending calls: no deadlock, and every reference returns.
    import threading
    x = np.arange(2_000_000.0)
    before = sys.getrefcount(x)

    def work(k):
        for i in range(20):
            nf.eval(nf.from_dlpack(x) * k + i)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gc.collect()
    assert sys.getrefcount(x) == before
    np.testing.assert_array_equal(np.asarray(nf.from_dlpack(x)[:3] * 2), [0, 2, 4])


class _RefusesToMove(_OnlyDLPack):
    """A producer that cannot export to another device and says so with its own exception."""

    def __dlpack__(self, *, dl_device=None, **kwargs):
        if dl_device is not None and tuple(dl_device) != tuple(self.__dlpack_device__()):
            raise RuntimeError("cannot export to another device")
        return self._x.__dlpack__(**kwargs)


def test_from_dlpack_moves_what_the_producer_cannot():
    x = np.arange(4.0)
    if not harness.cuda_available(nf):
        with pytest.raises(nf.cuda.CUDAError):  # numfuse's own copy is tried, and fails here
            nf.from_dlpack(_RefusesToMove(x), device="cuda")
        return
    a = nf.from_dlpack(_RefusesToMove(x), device="cuda")
    assert a.device == "cuda:0"
    np.testing.assert_array_equal(nf.asnumpy(a), x)


def test_asarray_of_a_foreign_array_with_its_own_dtype():
    x = np.arange(6, dtype=np.int32)
    foreign = _OnlyDLPack(x)
    same = nf.asarray(foreign, dtype=np.int32, device="cpu")
    assert numfuse_address(same) == numpy_address(x)
    assert numfuse_address(nf.asarray(foreign, dtype=np.int32, device="cpu", copy=False)) == numpy_address(x)
    copied = nf.asarray(foreign, dtype=np.int32, device="cpu", copy=True)
    assert numfuse_address(copied) != numpy_address(x)
    np.testing.assert_array_equal(np.asarray(copied), x)
