"""numfuse.memmap against numpy.memmap: the same file contents read and written, NumPy's modes,
offsets, orders and errors; a numfuse CPU array over the mapping, whatever the default device."""
import numpy
import pytest

from harness import ALL_DTYPES, make_array, numfuse_module

nf = numfuse_module()


@pytest.fixture
def path(tmp_path):
    return tmp_path / "data.bin"


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
def test_reads_and_writes_reach_the_file(path, dtype, order):
    host = make_array((3, 5), dtype)
    host.tofile(path)
    m = nf.memmap(path, dtype=dtype, mode="r+", shape=(3, 5), order=order)
    want = numpy.memmap(path, dtype=dtype, mode="r", shape=(3, 5), order=order)
    assert isinstance(m, nf.ndarray) and isinstance(m, nf.memmap) and m.device == "cpu"
    assert m.shape == want.shape and m.dtype == want.dtype and m.strides == want.strides
    numpy.testing.assert_array_equal(nf.asnumpy(m), want)
    exp = numpy.array(want)  # the values before the writes, then NumPy's writes on them
    exp[1] = exp[2]
    exp[0, :2] = host[2, 3:]
    m[1] = m[2]
    m[0, :2] = nf.asarray(host[2, 3:])
    m.flush()
    numpy.testing.assert_array_equal(numpy.array(want), exp)  # NumPy's mapping sees the writes
    del m
    numpy.testing.assert_array_equal(numpy.fromfile(path, dtype=dtype).reshape((3, 5), order=order),
                                     exp)


@pytest.mark.parametrize("offset", [0, 8, 24, 4096 + 16])
def test_offset_and_new_file(path, offset):
    m = nf.memmap(path, dtype=numpy.float64, mode="w+", offset=offset, shape=(4,))
    w = numpy.memmap(path.with_suffix(".np"), dtype=numpy.float64, mode="w+", offset=offset,
                     shape=(4,))
    m += nf.arange(4.0)  # in-place operators land at once
    w += numpy.arange(4.0)
    m *= 2
    w *= 2
    m.flush()
    w.flush()
    assert m.offset == w.offset == offset and m.mode == w.mode == "w+"
    assert path.read_bytes() == path.with_suffix(".np").read_bytes()
    assert repr(m) == repr(w)


def test_read_only_and_copy_on_write(path):
    numpy.arange(6, dtype=numpy.int32).tofile(path)
    r = nf.memmap(path, dtype=numpy.int32, mode="r")
    assert r.flags.writeable is False
    with pytest.raises(ValueError):
        r[0] = 1
    c = nf.memmap(path, dtype=numpy.int32, mode="c")
    c[0] = 100
    c.flush()
    assert int(c[0]) == 100
    numpy.testing.assert_array_equal(numpy.fromfile(path, dtype=numpy.int32), numpy.arange(6))


def test_writes_through_views_and_out_land(path, lazy_graph):
    m = nf.memmap(path, dtype=numpy.float64, mode="w+", shape=(6,))
    view = m[2:]
    view[...] = nf.arange(4.0, device="cpu") * 3  # a memmap is a CPU array
    nf.multiply(nf.arange(2.0, device="cpu"), 5, out=m[:2])
    del m  # the memmap's deletion computes what is pending into the mapping
    numpy.testing.assert_array_equal(numpy.fromfile(path), [0, 5, 0, 3, 6, 9])
    view[0] = -1
    del view
    numpy.testing.assert_array_equal(numpy.fromfile(path), [0, 5, -1, 3, 6, 9])


def test_results_are_plain_arrays_and_values_match(path):
    make_array((10,), numpy.dtype(numpy.float32)).tofile(path)
    m = nf.memmap(path, dtype=numpy.float32, mode="r")
    w = numpy.memmap(path, dtype=numpy.float32, mode="r")
    s = m * 2 + 1
    assert type(s) is nf.ndarray
    numpy.testing.assert_array_equal(nf.asnumpy(s), numpy.asarray(w * 2 + 1))
    assert float(m.sum()) == pytest.approx(float(w.sum()), rel=1e-6)


@pytest.mark.parametrize("kwargs", [{"mode": "x"}, {"mode": "w+"}, {"mode": "r", "shape": (100,)},
                                    {"mode": "r", "offset": -8}])
def test_errors_are_numpys(path, kwargs):
    numpy.arange(4.0).tofile(path)
    with pytest.raises(Exception) as want:
        numpy.memmap(path.with_suffix(".np") if kwargs.get("mode") == "w+" else path, **kwargs)
    with pytest.raises(type(want.value)) as got:
        nf.memmap(path.with_suffix(".nf") if kwargs.get("mode") == "w+" else path, **kwargs)
    assert str(got.value) == str(want.value)


def test_the_mapping_outlives_the_memmap_object(path):
    numpy.arange(8.0).tofile(path)
    m = nf.memmap(path, dtype=numpy.float64, mode="r+")
    tail = m[4:]
    del m
    import gc
    gc.collect()
    numpy.testing.assert_array_equal(nf.asnumpy(tail), numpy.arange(4.0, 8.0))


def test_copy_to_the_default_device(path, device):
    numpy.arange(5.0).tofile(path)
    m = nf.memmap(path, dtype=numpy.float64, mode="r+")
    d = nf.asarray(m, device=device, copy=True)  # a copy on the CPU too
    assert str(d.device).split(":")[0] == device  # "cuda:0" on a GPU
    m[...] = d + 1  # the write-back of a device copy
    m += d
    assert m.device == "cpu"
    m.flush()
    numpy.testing.assert_array_equal(numpy.fromfile(path), 2 * numpy.arange(5.0) + 1)
