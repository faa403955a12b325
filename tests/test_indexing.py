"""Advanced indexing (integer arrays, boolean masks), its writes, and the functions built on it:
nonzero, argwhere, flatnonzero, where(cond), take, take_along_axis, put, put_along_axis,
compress, extract. NumPy is the oracle (tests/harness.py)."""
import numpy
import pytest

from harness import ALL_DTYPES, VIEW_IDS, make_array, make_view, oracle

import numfuse

A3 = (4, 5, 6)
M2 = numpy.array([[True, False, True, False, False], [False] * 5, [True] * 5, [False, True] + [False] * 3])

# Keys for an array of shape (4, 5, 6); arrays appear as NumPy arrays and lists (both sides take
# them as they are) — test_getitem_xp_index passes them as xp arrays too.
GET_KEYS = [
    [2, 0, 3], [-1, -4], [[0, 1], [2, 3]], numpy.array([], dtype=numpy.int64), [],
    numpy.array([True, False, True, True]), M2, numpy.zeros((4, 5, 6), bool), numpy.ones((4, 5, 6), bool),
    (slice(None), [4, 0, 0]), (slice(None), slice(None), [5, -6]), (Ellipsis, [1, 2]),
    ([0, 1], [2, 3]), ([0, 1], slice(None), [2, 3]), (slice(1, 3), [0, 2], [1, 5]),
    ([[0], [1]], [0, 1, 2]), ([[0], [1]], slice(None), [0, 1, 2]), (0, slice(None), [1, 2]),
    (slice(None), 0, [1, 2]), ([0, 1], slice(None), 0), (1, [0, 2]), ([1, 2], 3, -1),
    (slice(None), [0, 1], None, [2, 3]), (None, [0, 1], [2, 3]), ([0, 1], None), (None, M2),
    (M2, slice(None, None, -2)), (slice(None), numpy.array([True, False, True, False, True]), 2),
    (True,), (False,), (slice(None), True, [0, 1]), ([0, 1], slice(None), True), (Ellipsis, True),
    (numpy.array(2),), (numpy.array(2), slice(None), [0, 1]), (numpy.int64(1), [0, 1]),
    (slice(None, None, -1), [0, 0, 0]), (slice(0, 0), [1]), ([0, 1], Ellipsis, [2, 3]),
    (slice(None), [[0, 1], [2, 3]], slice(2, 4)), numpy.array([[1, 2], [3, 0]], dtype=numpy.uint8),
    numpy.array([1, 0], dtype=numpy.int16), ([True, False, True, False], [1, 2]),
]


@pytest.mark.parametrize("key", GET_KEYS, ids=repr)
@oracle()
def test_getitem(xp, key):
    a = xp.asarray(make_array(A3, "int32"))
    return a[key]


def _xp_key(xp, key):
    conv = lambda k: xp.asarray(k) if isinstance(k, (list, numpy.ndarray)) and not isinstance(k, tuple) else k
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


@pytest.mark.parametrize("key", GET_KEYS, ids=repr)
@oracle()
def test_getitem_xp_index(xp, key):
    a = xp.asarray(make_array(A3, "float32"))
    return a[_xp_key(xp, key)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle()
def test_getitem_dtypes(xp, dtype):
    a = xp.asarray(make_array((5, 3), dtype))
    m = xp.asarray(make_array((5, 3), "bool", seed=3))
    return a[[4, 0, -1, 0]], a[:, [2, 0]], a[m], a[[1, 2], [0, 2]]


@pytest.mark.parametrize("view", VIEW_IDS)
@oracle()
def test_getitem_of_views(xp, view):
    a = make_view(xp, view, "complex64")
    if a.ndim == 0:
        return a[True], a[False], a[None, [0, 0]]
    n = a.shape[0]
    idx = [n - 1, 0, n // 2] if n else []
    mask = xp.asarray(numpy.arange(a.size).reshape(a.shape) % 3 == 0)
    return a[idx], a[mask], a[..., [0]] if a.shape[-1] else a[..., []]


@oracle()
def test_getitem_empty_and_zero_d(xp):
    e = xp.asarray(numpy.zeros((0, 3)))
    z = xp.asarray(numpy.array(7.5))
    return e[[]], e[:, [2, 0]], e[e > 0], z[True], z[False], z[z > 1], z[None, [0, 0, 0]]


@pytest.mark.parametrize("key", [
    [4], [-5], (slice(None), [6]), (0, [5]), [[1, 2], [3, 9]], ([1, 2], [0, 9]), ([5], [9]),
    numpy.ones(3, bool), numpy.ones((4, 6), bool), (slice(None), numpy.ones(4, bool)),
    ([0, 1], [0, 1, 2]), ([[0, 1]], [[0], [1], [2]], [0, 1, 2, 3]), (0, 0, 0, [0]),
    numpy.ones((4, 5, 6, 1), bool), (Ellipsis, Ellipsis, [0]), [1.0], numpy.array([1.5]), "x",
    1.5, [[0, 1], [2]],
], ids=repr)
@oracle()
def test_getitem_errors(xp, key):
    a = xp.asarray(make_array((4, 5, 6), "int64"))
    return a[key]


@oracle()
def test_getitem_out_of_bounds_message(xp):
    a = xp.asarray(numpy.arange(3))
    try:
        a[[0, 10]]
    except IndexError as e:
        return str(e)


@oracle()
def test_bool_mismatch_message(xp):
    a = xp.asarray(numpy.arange(3))
    try:
        a[xp.asarray(numpy.ones(4, bool))]
    except IndexError as e:
        return str(e)


@oracle()
def test_getitem_returns_copy(xp):
    a = xp.asarray(numpy.arange(6.0))
    b = a[[1, 2]]
    b[0] = 100
    c = a[a > 2]
    c[...] = -1
    return a, b, c


def test_gather_is_lazy():
    a = numfuse.arange(10) * 2
    r = a[[3, 1]]
    assert r._pending
    assert r.tolist() == [6, 2]


def test_pending_index_array():
    a = numfuse.arange(10) * 10
    idx = numfuse.arange(3) + 7
    assert a[idx].tolist() == [70, 80, 90]
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10"):
        a[idx + 1]


# ---- writes -----------------------------------------------------------------------------------

SET_CASES = [
    ([0, 2], 5), ([0, 2], [7, 8]), ([[0], [3]], [1, 2, 3, 4, 5, 6]), ((slice(None), [1, 3]), 9),
    ((slice(None), [1, 3]), [[1], [2], [3], [4]]), (([0, 1], slice(None), [2, 3]), [1, 2, 3, 4, 5, 6]),
    ([0, 0, 0, 1], [1, 2, 3, 4]), ([-1, -1], [5, 6]), (M2[:, :1].ravel(), -2),
    (numpy.array([True, False, False, True]), [[1] * 6] * 5), (numpy.ones((4, 5, 6), bool), 3),
    (numpy.ones((4, 5, 6), bool), numpy.arange(120)), (M2, [1, 2, 3, 4, 5, 6]), (M2, numpy.arange(48).reshape(8, 6)),
    ((slice(None), M2[0]), 1.9), ((True,), 4), ((False,), 4), ((numpy.array(1), [0, 4]), [[7]]),
    ([], []), ((Ellipsis, [0]), numpy.ones((1, 4, 5, 1))), ([1, 2], numpy.ones((1, 1, 5, 6))),
]


@pytest.mark.parametrize("key,value", SET_CASES, ids=repr)
@oracle()
def test_setitem(xp, key, value):
    a = xp.asarray(make_array(A3, "int16"))
    a[key] = value
    return a


@pytest.mark.parametrize("key,value", SET_CASES, ids=repr)
@oracle()
def test_setitem_xp_index_and_value(xp, key, value):
    a = xp.asarray(make_array(A3, "float64"))
    a[_xp_key(xp, key)] = xp.asarray(value) if isinstance(value, (list, numpy.ndarray)) else value
    return a


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle()
def test_setitem_dtypes(xp, dtype):
    a = xp.asarray(make_array((5, 3), dtype))
    v = xp.asarray(make_array((2, 3), dtype, seed=1))
    a[[3, 0]] = v
    a[xp.asarray(make_array((5, 3), "bool", seed=2))] = v[0, 0]
    a[:, [2, 2]] = v[1, :2]
    return a


@pytest.mark.parametrize("key,value", [
    ([0, 5], 1), ([0, 1], [1, 2, 3]), (numpy.ones(3, bool), 1), (numpy.ones((4, 5, 6), bool), [1, 2]),
    (numpy.ones((4, 5, 6), bool), numpy.ones((120, 1))), (M2, [1, 2]), ([0, 1], numpy.ones((1, 2, 5, 6))),
    ([0, 1], numpy.ones((2, 1, 5, 6))), ([1.5], 0),
], ids=repr)
@oracle()
def test_setitem_errors(xp, key, value):
    a = xp.asarray(make_array(A3, "int32"))
    a[key] = value
    return a


@pytest.mark.parametrize("key", [[0], numpy.ones(3, bool), (slice(None), [0])], ids=repr)
@oracle()
def test_setitem_python_int_overflow(xp, key):
    a = xp.asarray(numpy.zeros(3, numpy.uint8))
    a[key] = 300
    return a


@oracle()
def test_setitem_read_only(xp):
    a = xp.broadcast_to(xp.asarray(numpy.arange(3)), (2, 3))
    a[[0]] = 1


@oracle()
def test_augmented_assignment(xp):
    a = xp.asarray(numpy.arange(24).reshape(4, 6))
    a[[0, 2], 1:] += 1
    a[a > 20] *= 2
    a[[1, 1, 1]] -= 5  # get, subtract, set: once, as NumPy does
    return a


@pytest.mark.parametrize("view", VIEW_IDS)
@oracle()
def test_setitem_into_views(xp, view):
    base = xp.asarray(make_array((4, 5, 6), "float32"))
    sizes = {"step2": (12,), "reversed": (9,), "offset": (10,), "rev_step3": (20,)}
    a = make_view(xp, view, "float32")
    if a.ndim == 0:
        a[True] = 3
        return a
    a[[0, -1]] = 2.5
    a[a > 3] = -1
    return a, base


@oracle()
def test_setitem_into_view_updates_base(xp):
    base = xp.asarray(numpy.arange(20.0).reshape(4, 5))
    v = base[::-1, 1::2]
    v[[0, 2], [1, 0]] = -7
    v[v > 10] = 0
    return base


@oracle()
def test_setitem_value_aliases_target(xp):
    a = xp.asarray(numpy.arange(10))
    a[[1, 2, 3, 4]] = a[:4]
    b = xp.asarray(numpy.arange(10))
    b[[5, 6, 7, 8, 9]] = b[::-1][:5]
    # (NumPy 2.4's single-boolean-mask assignment does not buffer an overlapping value, so
    # b[b > 4] = b[::-1][:5] gives [.. 9 8 7 8 9] there; numfuse computes the right side first.)
    return a, b


@oracle()
def test_setitem_pending_value_and_target(xp):
    a = xp.asarray(numpy.arange(8.0)) * 2
    v = a[[7, 6]] + 1
    a[[0, 1]] = v
    m = a > 5
    a[m] = a[m] * 10  # the right side is computed before the write
    return a, v


# ---- nonzero and friends ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle()
def test_nonzero(xp, dtype):
    vals = make_array((3, 4), dtype)
    if vals.dtype.kind in "iuf":
        vals = vals * (make_array((3, 4), "bool", seed=5))
    a = xp.asarray(vals)
    return xp.nonzero(a), a.nonzero(), xp.argwhere(a), xp.flatnonzero(a), xp.where(a)


@oracle()
def test_nonzero_special_values(xp):
    f = xp.asarray(numpy.array([0.0, -0.0, numpy.nan, numpy.inf, 1e-300]))
    c = xp.asarray(numpy.array([0j, 1j, 1 + 0j, complex(0, -0.0)]))
    h = xp.asarray(numpy.array([0, 1e-7, -0.0], numpy.float16))
    return xp.nonzero(f), xp.nonzero(c), xp.nonzero(h)


@pytest.mark.parametrize("view", VIEW_IDS)
@oracle()
def test_nonzero_views(xp, view):
    a = make_view(xp, view, "int8")
    if a.ndim == 0:
        return xp.argwhere(a), xp.flatnonzero(a)
    return xp.nonzero(a), xp.argwhere(a), xp.flatnonzero(a)


@oracle()
def test_nonzero_empty_and_zero_d(xp):
    e = xp.asarray(numpy.zeros((2, 0, 3)))
    return xp.nonzero(e), xp.argwhere(e), xp.argwhere(xp.asarray(5)), xp.argwhere(xp.asarray(0))


@oracle()
def test_nonzero_zero_d_raises(xp):
    return xp.nonzero(xp.asarray(1))


# ---- take, put and friends -------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2])
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@oracle()
def test_take(xp, axis, mode):
    a = xp.asarray(make_array((3, 4, 5), "float64"))
    idx = [[0, 2], [-1, 3]] if mode == "raise" else [[0, 7], [-9, 3]]
    return xp.take(a, idx, axis=axis, mode=mode), a.take(xp.asarray(numpy.array(idx)), axis=axis, mode=mode), \
        xp.take(a, 1, axis=axis)


@pytest.mark.parametrize("case", ["oob", "oob_axis", "empty_wrap", "bad_axis"])
@oracle()
def test_take_errors(xp, case):
    a = xp.asarray(numpy.zeros((2, 3)))
    if case == "oob":
        return xp.take(a, 10)
    if case == "oob_axis":
        return xp.take(a, [0, 10], axis=1)
    if case == "empty_wrap":
        return xp.take(xp.asarray(numpy.zeros(0)), [0], mode="wrap")
    return xp.take(a, 0, axis=2)


@oracle()
def test_take_out_and_float_indices(xp):
    a = xp.asarray(numpy.arange(12.0).reshape(3, 4))
    out = xp.asarray(numpy.zeros((3, 2)))
    r = xp.take(a, [3, 0], axis=1, out=out)
    return r, out, xp.take(a, [1.7, 2.2])


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@oracle()
def test_take_along_axis(xp, axis):
    a = xp.asarray(make_array((3, 4), "int32"))
    if axis is None:
        idx = numpy.array([11, 0, 5])
    else:
        idx = numpy.argsort(make_array((3, 4), "int32"), axis=axis)
        idx = idx[:, :2] if axis == 0 else idx[:2]
    return xp.take_along_axis(a, xp.asarray(idx), axis=axis)


@pytest.mark.parametrize("case", ["ndim", "float", "none_2d"])
@oracle()
def test_take_along_axis_errors(xp, case):
    a = xp.asarray(numpy.zeros((3, 4)))
    if case == "ndim":
        return xp.take_along_axis(a, xp.asarray([0, 1]), axis=0)
    if case == "float":
        return xp.take_along_axis(a, xp.asarray(numpy.zeros((1, 4))), axis=0)
    return xp.take_along_axis(a, xp.asarray(numpy.zeros((1, 4), int)), axis=None)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
@oracle()
def test_put(xp, mode):
    a = xp.asarray(numpy.arange(12).reshape(3, 4))
    idx = [0, 5, -1, 5] if mode == "raise" else [0, 15, -13, 5]
    xp.put(a, idx, [100, 200])
    b = xp.asarray(numpy.arange(20.0).reshape(4, 5))[::2, ::-2]  # not contiguous
    xp.put(b, xp.asarray([[0], [4]]), xp.asarray([-1.0, -2.0, -3.0]), mode=mode)
    c = xp.asarray(numpy.arange(5))
    c.put([1, 2], 9)
    xp.put(c, [], [])
    return a, b, c


@oracle()
def test_put_out_of_bounds(xp):
    b = xp.asarray(numpy.arange(20.0).reshape(4, 5))[::2, ::-2]
    xp.put(b, [6], 1.0)


@pytest.mark.parametrize("axis", [0, 1, None])
@oracle()
def test_put_along_axis(xp, axis):
    a = xp.asarray(numpy.arange(12).reshape(3, 4))
    if axis is None:
        xp.put_along_axis(a, xp.asarray([0, 11, 5]), 99, axis=None)
    else:
        idx = numpy.array([[1, 0, 2, 2]]) if axis == 0 else numpy.array([[3], [0], [1]])
        xp.put_along_axis(a, xp.asarray(idx), xp.asarray(numpy.array([[-1]])), axis=axis)
    return a


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@oracle()
def test_compress_and_extract(xp, axis):
    a = xp.asarray(make_array((3, 4), "float32"))
    cond = [True, False, True] if axis == 0 else [False, True, True]
    return xp.compress(cond, a, axis=axis), a.compress(cond, axis=axis), \
        xp.extract(xp.asarray(make_array((3, 4), "bool")), a), xp.extract(a > 0, a)


@pytest.mark.parametrize("case", ["long", "2d"])
@oracle()
def test_compress_errors(xp, case):
    a = xp.asarray(numpy.zeros(3))
    if case == "long":
        return xp.compress([0, 1, 1, 1], a)
    return xp.compress([[True]], a)
