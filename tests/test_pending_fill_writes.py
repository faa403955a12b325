"""Writes into a pending fill (zeros, ones, full, *_like) and the views of one: the first write
materialises the fill once (on the CPU by a direct fill, backend/cpu/generate_cpu.cpp, or by the
row-copy short path of python/src/bind_indexing.cpp), and every view, read and later write sees
the values NumPy's eager arrays have. Sizes span the immediate-evaluation limit (small arrays are
made at once) and the 2 MiB direct-fill limit, so that both routes are compared with NumPy."""
import numpy
import pytest

from harness import ALL_DTYPES, make_array, oracle

# (300, 300) float64 is 720 KB, issue 11's row-copy program; (800, 400) is past the direct fill.
SHAPES = [(7, 5), (300, 300), (800, 400), (0, 4)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("make", ["zeros", "zeros_like", "ones", "full", "full_negzero"])
@oracle()
def test_row_writes_into_a_fresh_fill(xp, make, shape):
    a = xp.asarray(make_array(shape, numpy.float64, seed=1))
    out = {"zeros": lambda: xp.zeros(shape),
           "zeros_like": lambda: xp.zeros_like(a),
           "ones": lambda: xp.ones(shape),
           "full": lambda: xp.full(shape, 2.5),
           "full_negzero": lambda: xp.full(shape, -0.0)}[make]()
    for i in range(1, min(shape[0], 40)):
        out[i, :] = a[i - 1, :]
    return out, xp.copysign(1.0, out[:, :1])  # -0.0 kept as -0.0: its sign bit compared


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle()
def test_fill_of_every_dtype_then_row_write(xp, dtype):
    a = xp.asarray(make_array((200, 150), dtype, seed=2))
    zero, one = xp.zeros_like(a), xp.ones((200, 150), dtype=dtype)
    zero[3, :] = a[4, :]
    one[5, :] = a[6, :]
    return zero, one, xp.full((200, 150), 7, dtype=dtype)


@oracle()
def test_views_taken_before_the_first_write_see_it(xp):
    a = xp.asarray(make_array((300, 300), numpy.float64, seed=3))
    out = xp.zeros_like(a)
    row, col, t, block = out[2], out[:, 7], out.T, out[1:5, 3:9]
    out[2, :] = a[0, :]
    out[4, :] = a[1, :]
    return row, col, t[7], block, out.sum()


@oracle()
def test_write_through_a_view_of_a_pending_fill(xp):
    a = xp.asarray(make_array((300, 300), numpy.float64, seed=4))
    out = xp.ones((300, 300))
    v = out[10:20]
    v[3, :] = a[5, :]  # row 13 of out
    out[14, :] = v[3, :]  # a copy inside one array
    return out[12:16], v


@oracle()
def test_pending_readers_of_the_fill_keep_old_values(xp):
    a = xp.asarray(make_array((300, 300), numpy.float64, seed=5))
    out = xp.zeros((300, 300))
    before = out + 1.0  # reads the zeros: must not see the row written next
    out[3, :] = a[3, :]
    after = out * 2.0
    return before[3], after[3], before.sum(), after.sum()


@oracle()
def test_two_arrays_of_one_fill_value_stay_apart(xp):
    a = xp.asarray(make_array((300, 300), numpy.float64, seed=6))
    p, q = xp.zeros((300, 300)), xp.zeros((300, 300))
    p[0, :] = a[0, :]
    q[1, :] = a[1, :]
    return p[:2], q[:2]


@oracle()
def test_row_copy_errors_leave_the_fill_untouched(xp):
    out = xp.zeros((300, 300))
    try:
        out[0, :] = xp.ones(299)
    except ValueError:
        pass
    return out[0], out.sum()


@oracle()
def test_read_only_pending_fill_raises_at_the_row_write(xp):
    out = xp.zeros((300, 300))
    view = out[:]
    view.flags.writeable = False
    view[0, :] = xp.ones(300)


def test_fill_is_evaluated_once_by_the_first_write(device):
    """The first row write materialises the pending fill and leaves no pending node behind."""
    from harness import numfuse_module
    nf = numfuse_module()
    a = nf.asarray(make_array((300, 300), numpy.float64, seed=7), device=device)
    out = nf.zeros_like(a)
    before = nf._core.pending_node_count()
    out[1, :] = a[0, :]
    assert nf._core.pending_node_count() < before or device != "cpu"
    expected = numpy.zeros((300, 300))
    expected[1, :] = nf.asnumpy(a)[0, :]
    numpy.testing.assert_array_equal(nf.asnumpy(out), expected)


# ndarray.T is a getset slot of the type (python/src/slots.cpp): the same view, base and
# writeability as NumPy's, of pending and materialised arrays of every rank.
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4), (300, 300)], ids=str)
@oracle()
def test_transpose_attribute_views(xp, shape):
    owner = xp.asarray(make_array(shape, numpy.float64, seed=8))
    a = owner[...]
    t = a.T
    same_base = t.base is owner and owner.T.base is owner
    if t.ndim:
        t[(0,) * t.ndim] = -1.0  # a write through T reaches the owner
    return t, owner, t.shape, t.strides, same_base, t.flags.writeable, t.T.shape


@oracle()
def test_transpose_of_a_pending_fill_sees_the_first_write(xp):
    a = xp.asarray(make_array((300, 300), numpy.float64, seed=9))
    out = xp.zeros_like(a)
    t = out.T
    out[3, :] = a[3, :]
    return t[:, 3], t[5]


@oracle()
def test_transpose_of_a_read_only_view_stays_read_only(xp):
    a = xp.asarray(make_array((4, 5), numpy.float64, seed=10))
    v = a[1:]
    v.flags.writeable = False
    v.T[0, 0] = 1.0


def test_transpose_attribute_cannot_be_set_or_deleted(device):
    from harness import numfuse_module
    nf = numfuse_module()
    a = nf.zeros((3, 4), device=device)
    for xp_a in (numpy.zeros((3, 4)), a):
        with pytest.raises(AttributeError):
            xp_a.T = xp_a
        with pytest.raises(AttributeError):
            del xp_a.T
