"""Shape and joining functions (numfuse._shape) against NumPy: views, joins, splits, flips,
rolls, tiles, repeats and pads, on contiguous, strided, reversed, empty and 0-d inputs, with
NumPy's exceptions. Hypothesis checks broadcasting of random shape pairs."""
import numpy
import pytest
from hypothesis import given, settings, strategies as st

from harness import ALL_DTYPES, VIEW_IDS, make_array, make_view, oracle, run_both


def arr(xp, shape, dtype="float64", seed=0):
    return xp.asarray(make_array(shape, dtype, seed))


# ---- views ----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,order", [((6,), "C"), ((2, 3), "C"), ((3, 2), "F"), ((-1, 2), "C"),
                                         ((2, -1), "F"), ((1, 6, 1), "A"), ((), "C")])
@pytest.mark.parametrize("view", ["transpose", "cols", "3d_mixed"])
@oracle()
def test_reshape_views(xp, shape, order, view):
    a = make_view(xp, view, "int32")
    a = a.ravel()[:6]
    if shape == ():
        a = a[:1]
    return xp.reshape(a, shape, order=order), xp.reshape(a, shape, order=order, copy=True)


@pytest.mark.parametrize("case", ["bad_size", "two_unknown", "nocopy"])
@oracle()
def test_reshape_errors(xp, case):
    a = arr(xp, (2, 3))
    if case == "bad_size":
        return xp.reshape(a, (4,))
    if case == "two_unknown":
        return xp.reshape(a, (-1, -1))
    return xp.reshape(a.T, (6,), copy=False)


@pytest.mark.parametrize("view", VIEW_IDS)
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@oracle()
def test_ravel(xp, view, order):
    return xp.ravel(make_view(xp, view, "int16"), order=order)


@pytest.mark.parametrize("view", VIEW_IDS)
@oracle()
def test_transpose_family(xp, view):
    a = make_view(xp, view, "float32")
    out = [xp.transpose(a), xp.shape(a), xp.ndim(a), xp.size(a)]
    if a.ndim >= 2:
        out += [xp.transpose(a, (1, 0) + tuple(range(2, a.ndim))), xp.swapaxes(a, 0, -1),
                xp.moveaxis(a, 0, -1), xp.moveaxis(a, [0, 1], [-1, 0]), xp.rollaxis(a, -1),
                xp.rollaxis(a, 1, 0), xp.permute_dims(a, tuple(range(a.ndim))[::-1])]
    return out


@pytest.mark.parametrize("case", ["transpose_axes", "transpose_repeat", "moveaxis_len",
                                  "moveaxis_range", "moveaxis_dup", "swapaxes_range", "rollaxis_start"])
@oracle()
def test_transpose_errors(xp, case):
    a = arr(xp, (2, 3))
    return {
        "transpose_axes": lambda: xp.transpose(a, (0,)),
        "transpose_repeat": lambda: xp.transpose(a, (0, 0)),
        "moveaxis_len": lambda: xp.moveaxis(a, [0, 1], [0]),
        "moveaxis_range": lambda: xp.moveaxis(a, 3, 0),
        "moveaxis_dup": lambda: xp.moveaxis(a, [0, 0], [0, 1]),
        "swapaxes_range": lambda: xp.swapaxes(a, 0, 2),
        "rollaxis_start": lambda: xp.rollaxis(a, 0, 4),
    }[case]()


@oracle()
def test_squeeze_expand_dims(xp):
    a = arr(xp, (1, 3, 1, 2))
    v = arr(xp, (4,))
    return (xp.squeeze(a), xp.squeeze(a, 0), xp.squeeze(a, (0, -2)), xp.expand_dims(v, 0),
            xp.expand_dims(v, -1), xp.expand_dims(v, (0, 2)), xp.expand_dims(v, (-1, 0)),
            xp.expand_dims(arr(xp, ()), 0), xp.squeeze(arr(xp, ())))


@pytest.mark.parametrize("case", ["squeeze_size", "expand_range", "expand_dup"])
@oracle()
def test_squeeze_expand_errors(xp, case):
    a = arr(xp, (1, 3))
    if case == "squeeze_size":
        return xp.squeeze(a, 1)
    if case == "expand_range":
        return xp.expand_dims(a, 3)
    return xp.expand_dims(a, (0, 0))


@oracle()
def test_broadcast_functions(xp):
    a, b, c = arr(xp, (3, 1)), arr(xp, (4,)), arr(xp, ())
    x, y, z = xp.broadcast_arrays(a, b, c)
    return (xp.broadcast_to(b, (2, 4)), xp.broadcast_to(c, (2, 0)), xp.broadcast_to(a, (2, 3, 5)), x, y, z,
            xp.broadcast_shapes((3, 1), (4,), ()), xp.broadcast_to(b, (2, 4)).flags.writeable,
            xp.broadcast_to(b, 4), xp.broadcast_arrays(b)[0])


@pytest.mark.parametrize("shape", [(3,), (2,), (-1, 4), (1,)], ids=str)
@oracle()
def test_broadcast_to_errors(xp, shape):
    return xp.broadcast_to(arr(xp, (2, 4)), shape)


@oracle()
def test_atleast(xp):
    s, v, m, t = arr(xp, ()), arr(xp, (3,)), arr(xp, (2, 3)), arr(xp, (2, 3, 4))
    return (xp.atleast_1d(s), xp.atleast_1d(v, m), xp.atleast_2d(s), xp.atleast_2d(v), xp.atleast_2d(s, v, m),
            xp.atleast_3d(s), xp.atleast_3d(v), xp.atleast_3d(m), xp.atleast_3d(t), xp.atleast_1d(5),
            xp.atleast_2d(), xp.atleast_3d([1, 2]))


# ---- flips and rotations ----------------------------------------------------------------------

@pytest.mark.parametrize("view", VIEW_IDS)
@oracle()
def test_flips(xp, view):
    a = make_view(xp, view, "complex128")
    out = [xp.flip(a)]
    if a.ndim >= 1:
        out += [xp.flip(a, 0), xp.flip(a, -1), xp.flipud(a)]
    if a.ndim >= 2:
        out += [xp.flip(a, (0, 1)), xp.fliplr(a), xp.rot90(a), xp.rot90(a, 2), xp.rot90(a, -1),
                xp.rot90(a, 3, axes=(1, 0)), xp.rot90(a, 4)]
    return out


@pytest.mark.parametrize("case", ["fliplr", "flipud", "flip_axis", "rot_same", "rot_len", "rot_range"])
@oracle()
def test_flip_errors(xp, case):
    v = arr(xp, (3,))
    return {
        "fliplr": lambda: xp.fliplr(v),
        "flipud": lambda: xp.flipud(arr(xp, ())),
        "flip_axis": lambda: xp.flip(v, 1),
        "rot_same": lambda: xp.rot90(arr(xp, (2, 2)), axes=(0, 0)),
        "rot_len": lambda: xp.rot90(arr(xp, (2, 2)), axes=(0,)),
        "rot_range": lambda: xp.rot90(arr(xp, (2, 2)), axes=(0, 2)),
    }[case]()


# ---- joining ----------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, -1, None])
@oracle()
def test_concatenate(xp, axis):
    a = arr(xp, (2, 3), "int32")
    b = xp.asarray(make_array((4, 6), "int32", seed=1))[::2, ::-2]  # (2, 3), strided and reversed
    c = arr(xp, (2, 3), "int32", seed=2)
    if axis == 0:
        c = arr(xp, (1, 3), "int32", seed=2)
    elif axis in (1, -1):
        c = arr(xp, (2, 0), "int32", seed=2)
    return xp.concatenate([a, b, c], axis=axis), xp.concatenate((a,), axis=axis)


@pytest.mark.parametrize("dtypes", [("int8", "uint8"), ("float16", "int16"), ("bool", "complex64"),
                                    ("uint64", "int64"), ("float32", "float32")], ids=str)
@oracle()
def test_concatenate_promotion(xp, dtypes):
    a, b = arr(xp, (2,), dtypes[0]), arr(xp, (3,), dtypes[1])
    return xp.concatenate([a, b]), xp.concatenate([a, b], dtype="float64"), xp.concat([b, a])


@oracle()
def test_concatenate_out_and_lists(xp):
    out = xp.asarray(numpy.zeros((4, 2), numpy.float32))
    r = xp.concatenate([[[1, 2]], arr(xp, (3, 2))], out=out)
    return r, out, xp.concatenate([[1, 2], [3]]), xp.concatenate([arr(xp, (0, 2)), arr(xp, (0, 2))])


@pytest.mark.parametrize("case", ["dims", "ndim", "zero_d", "empty", "axis", "cast", "both", "out_shape",
                                  "out_cast"])
@oracle()
def test_concatenate_errors(xp, case):
    a = arr(xp, (2, 2))
    return {
        "dims": lambda: xp.concatenate([a, arr(xp, (2, 3))]),
        "ndim": lambda: xp.concatenate([a, arr(xp, (2,))]),
        "zero_d": lambda: xp.concatenate([arr(xp, ()), arr(xp, ())]),
        "empty": lambda: xp.concatenate([]),
        "axis": lambda: xp.concatenate([a, a], axis=2),
        "cast": lambda: xp.concatenate([a], dtype="int64"),
        "both": lambda: xp.concatenate([a], out=xp.asarray(numpy.zeros((2, 2))), dtype="float64"),
        "out_shape": lambda: xp.concatenate([a], out=xp.asarray(numpy.zeros(3))),
        "out_cast": lambda: xp.concatenate([a], out=xp.asarray(numpy.zeros((2, 2), numpy.int64))),
    }[case]()


@oracle()
def test_concatenate_message(xp):
    try:
        xp.concatenate([arr(xp, (2, 2)), arr(xp, (2, 3))])
    except ValueError as e:
        return str(e)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
@oracle()
def test_stack(xp, axis):
    a, b = arr(xp, (2, 3)), make_view(xp, "inner", "float64")[:2, :3]
    return xp.stack([a, b], axis=axis), xp.stack((a,), axis=axis), xp.unstack(a, axis=axis % 2)


@pytest.mark.parametrize("case", ["shapes", "empty", "axis", "generator", "unstack_0d"])
@oracle()
def test_stack_errors(xp, case):
    a = arr(xp, (2,))
    return {
        "shapes": lambda: xp.stack([a, arr(xp, (3,))]),
        "empty": lambda: xp.stack([]),
        "axis": lambda: xp.stack([a, a], axis=2),
        "generator": lambda: xp.stack(x for x in [a, a]),
        "unstack_0d": lambda: xp.unstack(arr(xp, ())),
    }[case]()


@oracle()
def test_stack_family(xp):
    s, v, w, m = arr(xp, ()), arr(xp, (3,)), arr(xp, (3,), seed=1), arr(xp, (2, 3))
    t = arr(xp, (2, 3, 2))
    return (xp.vstack([v, w]), xp.vstack([v, m]), xp.vstack((s, s)) if False else xp.vstack([s, s]),
            xp.hstack([v, w]), xp.hstack([m, m[:, :1]]), xp.hstack([s, v]), xp.dstack([v, w]),
            xp.dstack([m, m]), xp.dstack([t, m]), xp.column_stack([v, w]), xp.column_stack([m.T, v]),
            xp.vstack([v, w], dtype="float32"), xp.hstack([arr(xp, (2,), "int8"), arr(xp, (1,), "uint8")]))


@pytest.mark.parametrize("case", ["vstack", "hstack", "dstack", "column_stack", "hstack_empty"])
@oracle()
def test_stack_family_errors(xp, case):
    a, b = arr(xp, (2, 2)), arr(xp, (3,))
    return {
        "vstack": lambda: xp.vstack([a, b]),
        "hstack": lambda: xp.hstack([a, b]),
        "dstack": lambda: xp.dstack([a, b]),
        "column_stack": lambda: xp.column_stack([a, b]),
        "hstack_empty": lambda: xp.hstack([]),
    }[case]()


# ---- splitting ----------------------------------------------------------------------------------

@pytest.mark.parametrize("sections", [3, [2, 5], [0, 0, 9], [-2], [], 1], ids=str)
@pytest.mark.parametrize("axis", [0, 1])
@oracle()
def test_split(xp, sections, axis):
    a = xp.asarray(make_array((6, 9), "int64"))[::-1] if axis == 0 else xp.asarray(make_array((4, 6), "int64")).T
    return xp.split(a, sections, axis=axis), xp.array_split(a, sections, axis=axis), \
        xp.array_split(a, 4, axis=axis), xp.array_split(a, 7, axis=axis)


@oracle()
def test_split_family(xp):
    v, m, t = arr(xp, (6,)), arr(xp, (4, 6)), arr(xp, (2, 2, 4))
    return (xp.hsplit(v, 3), xp.hsplit(m, [1, 4]), xp.vsplit(m, 2), xp.dsplit(t, [1]),
            xp.array_split(arr(xp, (0, 3)), 2), xp.split(arr(xp, (5,)), [10]))


@pytest.mark.parametrize("case", ["unequal", "zero", "hsplit_0d", "vsplit_1d", "dsplit_2d", "axis"])
@oracle()
def test_split_errors(xp, case):
    v = arr(xp, (5,))
    return {
        "unequal": lambda: xp.split(v, 2),
        "zero": lambda: xp.array_split(v, 0),
        "hsplit_0d": lambda: xp.hsplit(arr(xp, ()), 1),
        "vsplit_1d": lambda: xp.vsplit(v, 1),
        "dsplit_2d": lambda: xp.dsplit(arr(xp, (2, 2)), 1),
        "axis": lambda: xp.split(v, 1, axis=1),
    }[case]()


# ---- roll, tile, repeat ------------------------------------------------------------------------

@pytest.mark.parametrize("shift,axis", [(1, None), (-7, None), (2, 0), (-1, 1), (13, -1), ((1, 2), (0, 1)),
                                        ((1, 1), (1, 1)), (0, 0), ([3, -2], 1), (5, (0, 1)), (2, 2)], ids=str)
@oracle()
def test_roll(xp, shift, axis):
    a = xp.asarray(make_array((4, 5, 3), "uint16"))[:, ::-1]
    return xp.roll(a, shift, axis=axis)


@oracle()
def test_roll_edge_cases(xp):
    return (xp.roll(arr(xp, (0, 3)), 2, axis=0), xp.roll(arr(xp, (0, 3)), 2), xp.roll(arr(xp, ()), 1),
            xp.roll(arr(xp, (3,)), 3))


@oracle()
def test_roll_errors(xp):
    return xp.roll(arr(xp, (3, 3)), (1, 2), axis=(0, 1, 0))


@pytest.mark.parametrize("reps", [2, (2,), (2, 1), (1, 3), (2, 2, 2), (0,), (1,), (1, 1, 1), (3, 0, 2)], ids=str)
@pytest.mark.parametrize("view", ["none", "neg_cols", "zero_d", "empty_slice"])
@oracle()
def test_tile(xp, reps, view):
    a = arr(xp, (2, 3), "int8") if view == "none" else make_view(xp, view, "int8")
    return xp.tile(a, reps)


@oracle()
def test_tile_errors(xp):
    return xp.tile(arr(xp, (3,)), -1)


@pytest.mark.parametrize("repeats,axis", [(2, None), (3, 0), (0, 1), ([1, 0, 2], 1), ([2, 1], 0),
                                          (numpy.array([2]), 1), (1, -1), ([0, 1, 2, 3, 4, 5], None)],
                         ids=str)
@oracle()
def test_repeat(xp, repeats, axis):
    a = xp.asarray(make_array((2, 3), "float16"))[::-1]
    return xp.repeat(a, repeats, axis=axis), a.repeat(repeats, axis)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle()
def test_repeat_tile_dtypes(xp, dtype):
    a = arr(xp, (3,), dtype)
    return xp.repeat(a, 2), xp.repeat(a, [2, 0, 1]), xp.tile(a, (2, 2)), xp.repeat(arr(xp, (), dtype), 3)


@pytest.mark.parametrize("case", ["negative", "negative_list", "length", "float", "float_array", "axis"])
@oracle()
def test_repeat_errors(xp, case):
    a = arr(xp, (3,))
    return {
        "negative": lambda: xp.repeat(a, -1),
        "negative_list": lambda: xp.repeat(a, [1, -1, 1]),
        "length": lambda: xp.repeat(a, [1, 2]),
        "float": lambda: xp.repeat(a, 2.5),
        "float_array": lambda: xp.repeat(a, xp.asarray([1.5, 1.0, 2.0])),
        "axis": lambda: xp.repeat(a, 2, axis=1),
    }[case]()


# ---- pad ----------------------------------------------------------------------------------------

PAD_WIDTHS = [1, (2,), (1, 2), ((1, 0), (0, 3)), ((2, 1),), [[0, 0], [1, 1]], 0, numpy.array([[1, 2], [3, 0]])]


@pytest.mark.parametrize("width", PAD_WIDTHS, ids=str)
@pytest.mark.parametrize("mode,kwargs", [("constant", {}), ("constant", {"constant_values": 7}),
                                         ("constant", {"constant_values": ((1, 2), (3, 4))}),
                                         ("constant", {"constant_values": (-1.5, 2.5)}), ("edge", {}),
                                         ("wrap", {}), ("reflect", {}), ("symmetric", {}),
                                         ("empty", {})], ids=str)
@oracle()
def test_pad(xp, width, mode, kwargs):
    a = xp.asarray(make_array((3, 4), "int32"))[::-1]
    r = xp.pad(a, width, mode=mode, **kwargs)
    return r.shape if mode == "empty" else r


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle()
def test_pad_dtypes_and_shapes(xp, dtype):
    return (xp.pad(arr(xp, (3,), dtype), (2, 1)), xp.pad(arr(xp, (2, 1, 2), dtype), 1, mode="edge"),
            xp.pad(arr(xp, (), dtype), 3), xp.pad(arr(xp, (0, 2), dtype), 1),
            xp.pad(arr(xp, (2,), dtype), 5, mode="reflect"))


@pytest.mark.parametrize("case", ["negative", "mode", "edge_empty", "kwarg", "width_shape"])
@oracle()
def test_pad_errors(xp, case):
    a = arr(xp, (3,))
    return {
        "negative": lambda: xp.pad(a, -1),
        "mode": lambda: xp.pad(a, 1, mode="foo"),
        "edge_empty": lambda: xp.pad(arr(xp, (0,)), 1, mode="edge"),
        "kwarg": lambda: xp.pad(a, 1, mode="edge", constant_values=3),
        "width_shape": lambda: xp.pad(a, ((1, 2), (3, 4))),
    }[case]()


# ---- broadcasting properties ------------------------------------------------------------------

_shapes = st.lists(st.integers(0, 3), max_size=4).map(tuple)


@st.composite
def shape_pairs(draw):
    """Pairs that often broadcast: the second is the first with dims set to 1, dropped or changed."""
    s1 = draw(_shapes)
    s2 = list(s1[draw(st.integers(0, len(s1))):])
    for i in range(len(s2)):
        s2[i] = draw(st.sampled_from([s2[i], s2[i], 1, draw(st.integers(0, 3))]))
    s2 = tuple(draw(st.lists(st.integers(1, 3), max_size=2))) + tuple(s2)
    return (s1, s2) if draw(st.booleans()) else (s2, s1)


@settings(max_examples=300, deadline=None)
@given(pair=shape_pairs(), dtype=st.sampled_from(["int16", "float32", "bool", "complex128"]))
def test_broadcasting_matches_numpy(pair, dtype):
    s1, s2 = pair

    def body(xp):
        a, b = xp.asarray(make_array(s1, dtype)), xp.asarray(make_array(s2, dtype, seed=1))
        x, y = xp.broadcast_arrays(a, b)
        return xp.broadcast_shapes(s1, s2), x, y, (a + b).shape
    run_both(body)


@settings(max_examples=300, deadline=None)
@given(pair=shape_pairs())
def test_broadcast_to_matches_numpy(pair):
    s1, s2 = pair
    run_both(lambda xp: xp.broadcast_to(xp.asarray(make_array(s1, "int32"))[..., ::-1], s2))
