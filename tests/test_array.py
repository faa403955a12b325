"""The ndarray: creation, attributes, views, basic indexing, assignment, conversion, printing."""
import copy
import pickle

import numpy
import pytest

from harness import ALL_DTYPES, SHAPES, VIEW_IDS, make_array, make_view, oracle

import numfuse


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle()
def test_asarray_roundtrip_and_attributes(xp, shape, dtype):
    a = xp.asarray(make_array(shape, dtype))
    strides = a.strides if a.size else None  # NumPy's strides of empty arrays are arbitrary
    return a, a.shape, a.ndim, a.size, a.itemsize, a.nbytes, strides, str(a.dtype)


@pytest.mark.parametrize("obj", [[1, 2, 3], [[1.5, 2], [3, 4]], 3, 2.5, True, 1 + 2j, [],
                                 [[1, 2], [3, 4j]], (1, 2), [True, False]], ids=str)
@oracle()
def test_asarray_from_python(xp, obj):
    return xp.asarray(obj), xp.array(obj, dtype="float32")


@pytest.mark.parametrize("view", VIEW_IDS)
@oracle()
def test_views(xp, view):
    a = make_view(xp, view, "float64")
    return a, a.shape, a.strides if xp is numpy else a.strides, a.flags.c_contiguous, a.flags.f_contiguous


@oracle()
def test_creation_functions(xp):
    return (xp.zeros((2, 3)), xp.ones(4, dtype="int8"), xp.full((2, 2), 7.5), xp.full(3, 2, dtype="uint16"),
            xp.arange(10), xp.arange(1, 4, 0.5), xp.arange(5, dtype="float32"), xp.arange(10, 0, -3),
            xp.arange(0.1, 1, 0.3), xp.linspace(0, 1, 7), xp.linspace(2, 3, 5, endpoint=False),
            xp.linspace(0, 10, 5, dtype="int32"), xp.logspace(0, 2, 3), xp.eye(3), xp.eye(3, 4, k=1),
            xp.eye(4, 3, k=-2, dtype="int32"), xp.identity(2), xp.tri(3, 4, k=1), xp.tril(xp.ones((3, 4)), -1),
            xp.triu(xp.asarray(numpy.arange(12).reshape(3, 4)), 1), xp.diag(xp.asarray([1, 2, 3]), 1),
            xp.diag(xp.asarray(numpy.arange(9).reshape(3, 3)), -1), xp.zeros_like(xp.ones((2, 2), dtype="int8")),
            xp.ones_like(xp.zeros(3)), xp.full_like(xp.zeros(3, dtype="int32"), 4), xp.empty((0, 3)).shape,
            xp.empty_like(xp.zeros((2, 5))).shape)


@oracle()
def test_meshgrid(xp):
    x, y = xp.asarray([1, 2, 3]), xp.asarray([4.0, 5.0])
    return xp.meshgrid(x, y), xp.meshgrid(x, y, indexing="ij")


@oracle()
def test_frombuffer(xp):
    return xp.frombuffer(numpy.arange(4, dtype="int16").tobytes(), dtype="int16")


@oracle()
def test_negative_dimension_raises(xp):
    return xp.zeros((2, -1))


@pytest.mark.parametrize("key", [0, -1, (1, 2), (slice(None), 1), (Ellipsis, 0), (None, 1), (1, None, slice(2, None)),
                                 slice(None, None, -1), (slice(1, None, 2), slice(None, None, -2)), (),
                                 (Ellipsis,), (0, Ellipsis, None), slice(10, 20), (slice(-100, 100),)], ids=str)
@oracle()
def test_basic_indexing(xp, key):
    a = xp.asarray(numpy.arange(24).reshape(4, 6))
    return a[key]


@pytest.mark.parametrize("key", [5, (0, 7), (0, 0, 0), (Ellipsis, Ellipsis)], ids=str)
@oracle()
def test_basic_indexing_errors(xp, key):
    return xp.asarray(numpy.arange(24).reshape(4, 6))[key]


@pytest.mark.parametrize("key,value", [(0, 5), ((slice(None), 1), [1, 2, 3, 4]), (slice(None, None, -2), 9.7),
                                       ((Ellipsis, -1), numpy.arange(4)), ((slice(1, 3), slice(None)), [[1], [2]])],
                         ids=str)
@pytest.mark.parametrize("dtype", ["int32", "float64", "complex64", "bool", "uint8"])
@oracle()
def test_setitem_basic(xp, key, value, dtype):
    a = xp.asarray(make_array((4, 6), dtype))
    a[key] = value
    return a


@oracle()
def test_setitem_overflow(xp):
    a = xp.zeros(3, dtype="int8")
    a[0] = 300
    return a


@oracle()
def test_setitem_bad_broadcast(xp):
    a = xp.zeros((3, 4))
    a[:, 1] = xp.asarray([1.0, 2.0])
    return a


@oracle()
def test_setitem_overlapping_views(xp):
    a = xp.asarray(numpy.arange(10))
    a[1:] = a[:-1]
    b = xp.asarray(numpy.arange(10))
    b[:-1] = b[1:]
    c = xp.asarray(numpy.arange(10))
    c[::-1] = c
    return a, b, c


@oracle()
def test_writes_through_views_reach_the_base(xp):
    a = xp.zeros((3, 4))
    v = a[1:, ::2]
    v[...] = 1.0
    v.T[0] = 5.0
    return a


@oracle()
def test_broadcast_view_is_read_only(xp):
    b = xp.broadcast_to(xp.asarray([1, 2, 3]), (2, 3))
    b[0, 0] = 5
    return b


@pytest.mark.parametrize("src", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("dst", ["bool", "int8", "uint16", "int64", "float16", "float32", "complex128"])
@oracle()
def test_astype(xp, src, dst):
    with numpy.errstate(all="ignore"):
        return xp.asarray(make_array((7,), src) * (3 if numpy.dtype(src).kind != "b" else 1)).astype(dst)


@oracle()
def test_astype_casting_rule(xp):
    return xp.asarray([1.5]).astype("int32", casting="safe")


@oracle()
def test_methods(xp):
    a = xp.asarray(numpy.arange(24.0).reshape(2, 3, 4))
    return (a.reshape(4, 6), a.reshape((3, -1)), a.reshape(-1), a.ravel(), a.flatten(), a.T, a.transpose(1, 0, 2),
            a.transpose((2, 1, 0)), a.swapaxes(0, 2), a[:, :1].squeeze(), a[:1].squeeze(0), a.copy(), a.view(),
            a.reshape(2, 12, order="F"), a.ravel(order="F"), a.flatten("F"), a.mT, a.diagonal(), a.view("int64"),
            a.T.reshape(4, 6))


@oracle()
def test_reshape_error(xp):
    return xp.asarray(numpy.arange(6)).reshape(4, 2)


@oracle()
def test_real_imag(xp):
    c = xp.asarray(numpy.array([1 + 2j, 3 - 4j], dtype="complex64"))
    r = xp.asarray([1.0, 2.0])
    c.imag[0] = 9
    return c.real, c.imag, r.real, r.imag, c


@oracle()
def test_fill(xp):
    a = xp.zeros((2, 3), dtype="int16")
    a.fill(7)
    a[0].fill(-1)
    return a


@pytest.mark.parametrize("dtype", ["int64", "float32", "complex128", "bool", "float16"])
@oracle()
def test_host_conversions(xp, dtype):
    a = xp.asarray(make_array((2, 3), dtype))
    s = a[1, 2]
    return a.tolist(), s.item(), a.item(4), float(s.real) if dtype == "complex128" else float(s), bool(a[0, 0]), \
        repr(a), str(a), len(a)


@oracle()
def test_truth_value_of_array_raises(xp):
    return bool(xp.asarray([1, 2]))


@oracle()
def test_len_of_0d_raises(xp):
    return len(xp.asarray(3.0))


@oracle()
def test_iteration(xp):
    return [x for x in xp.asarray(numpy.arange(6).reshape(3, 2))]


def test_numpy_interop():
    a = numfuse.asarray(numpy.arange(6.0).reshape(2, 3))
    n = numpy.asarray(a)
    assert isinstance(n, numpy.ndarray) and n.shape == (2, 3)
    numpy.testing.assert_array_equal(numfuse.asnumpy(a.T), numpy.arange(6.0).reshape(2, 3).T)
    numpy.testing.assert_array_equal(a.get(), numpy.arange(6.0).reshape(2, 3))
    assert numfuse.float32 is numpy.float32 and a.dtype == numpy.dtype("float64")
    b = numfuse.asarray(numpy.arange(4)[::-1])  # negative strides in NumPy
    assert b.tolist() == [3, 2, 1, 0]
    assert numfuse.asarray(numpy.arange(3, dtype=">i4")).tolist() == [0, 1, 2]  # big-endian input


def test_copy_pickle_and_flags():
    a = numfuse.asarray([[1, 2], [3, 4]])
    assert copy.deepcopy(a).tolist() == a.tolist()
    assert pickle.loads(pickle.dumps(a)).tolist() == a.tolist()
    assert a.flags["C_CONTIGUOUS"] and a.flags.owndata and not a.T.flags.owndata
    a.flags.writeable = False
    with pytest.raises(ValueError):
        a[0, 0] = 5
    assert a.tolist() == [[1, 2], [3, 4]]


def test_unsupported_dtype_raises_type_error():
    with pytest.raises(TypeError):
        numfuse.asarray(["a", "b"])
    with pytest.raises(TypeError):
        numfuse.zeros(3, dtype="datetime64[s]")
