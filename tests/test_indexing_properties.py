"""Hypothesis property tests of indexing against NumPy: random shapes, random keys mixing basic
items (ints, slices, None, Ellipsis) with integer arrays, boolean masks and Python bools, read
and written, on contiguous and negative-stride/transposed arrays. Out-of-bounds indices and
mismatched masks are drawn too: both sides must then raise the same exception class."""
import numpy
from hypothesis import given, settings, strategies as st

from harness import make_array, run_both

DTYPES = ["int32", "float64", "bool", "complex64", "uint8", "float16"]
VIEWS = {
    "none": lambda a: a,
    "reversed": lambda a: a[::-1] if a.ndim else a,
    "transposed": lambda a: a.T,
    "strided": lambda a: a[..., ::2] if a.ndim else a,
}


@st.composite
def _items(draw, shape, start, end, bshape, allow_oob, exact):
    """Items indexing dims [start, end) of `shape` (all of them when `exact`), with None and
    Python bools mixed in."""
    items, dim = [], start
    while dim < end:
        kinds = ["int", "slice", "intarr", "intarr", "boolarr", "none", "bool"]
        kind = draw(st.sampled_from(kinds))
        if not exact and draw(st.integers(0, 3)) == 0:
            break
        n = shape[dim]
        lo, hi = (-n - 1, n) if allow_oob else (-n, n - 1)
        if kind == "none":
            items.append(None)
        elif kind == "bool":
            items.append(draw(st.booleans()))
        elif kind == "int":
            items.append(draw(st.integers(lo, hi)) if hi >= lo else slice(None))
            dim += 1
        elif kind == "slice":
            bound = st.none() | st.integers(-6, 6)
            step = st.none() | st.sampled_from([-3, -2, -1, 1, 2, 3])
            items.append(slice(draw(bound), draw(bound), draw(step)))
            dim += 1
        elif kind == "intarr":
            # A shape that broadcasts to bshape: a suffix of it, some dims set to 1.
            k = draw(st.integers(0, len(bshape)))
            ishape = tuple(1 if draw(st.booleans()) else s for s in bshape[len(bshape) - k:])
            if hi < lo:
                lo, hi = 0, 0
            size = int(numpy.prod(ishape))
            vals = draw(st.lists(st.integers(lo, hi), min_size=size, max_size=size))
            arr = numpy.array(vals, dtype=numpy.int64).reshape(ishape)
            items.append(arr)
            dim += 1
        else:
            k = draw(st.integers(1, min(2, end - dim)))
            mshape = shape[dim:dim + k]
            if allow_oob:
                mshape = (mshape[0] + 1,) + mshape[1:]
            size = int(numpy.prod(mshape))
            vals = draw(st.lists(st.booleans(), min_size=size, max_size=size))
            items.append(numpy.array(vals, dtype=bool).reshape(mshape))
            dim += k
    return items


@st.composite
def keys(draw, shape):
    """A key for `shape`: a tuple of items (maybe with an Ellipsis), a lone item, or a list."""
    nd = len(shape)
    bshape = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    allow_oob = draw(st.integers(0, 9)) == 0
    if draw(st.booleans()):
        i = draw(st.integers(0, nd))
        j = draw(st.integers(i, nd))
        items = draw(_items(shape, 0, i, bshape, allow_oob, exact=True)) + [Ellipsis] + \
            draw(_items(shape, j, nd, bshape, allow_oob, exact=True))
    else:
        items = draw(_items(shape, 0, nd, bshape, allow_oob, exact=False))
    if len(items) == 1 and draw(st.booleans()):
        item = items[0]
        return item.tolist() if isinstance(item, numpy.ndarray) and draw(st.booleans()) else item
    return tuple(items)


@st.composite
def cases(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    view = draw(st.sampled_from(sorted(VIEWS)))
    vshape = VIEWS[view](numpy.empty(shape)).shape
    key = draw(keys(vshape))
    dtype = draw(st.sampled_from(DTYPES))
    as_xp = draw(st.booleans())
    return shape, view, key, dtype, as_xp


def _key_for(xp, key, as_xp):
    if not as_xp:
        return key
    conv = lambda k: xp.asarray(k) if isinstance(k, numpy.ndarray) else k
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


@settings(max_examples=400, deadline=None)
@given(case=cases())
def test_getitem_matches_numpy(case):
    shape, view, key, dtype, as_xp = case

    def body(xp):
        a = VIEWS[view](xp.asarray(make_array(shape, dtype)))
        return a[_key_for(xp, key, as_xp)]
    run_both(body)


@settings(max_examples=400, deadline=None)
@given(case=cases(), value_kind=st.sampled_from(["scalar", "full", "suffix", "leading1"]), seed=st.integers(0, 5))
def test_setitem_matches_numpy(case, value_kind, seed):
    shape, view, key, dtype, as_xp = case
    try:
        rshape = VIEWS[view](numpy.asarray(make_array(shape, dtype)))[key].shape
    except Exception:
        rshape = ()
    vshape = {"scalar": (), "full": rshape, "suffix": rshape[1:], "leading1": (1,) + rshape}[value_kind]
    value = make_array(vshape, dtype, seed=seed)

    def body(xp):
        base = xp.asarray(make_array(shape, dtype))
        a = VIEWS[view](base)
        a[_key_for(xp, key, as_xp)] = xp.asarray(value) if as_xp else value
        return base
    run_both(body)


@settings(max_examples=200, deadline=None)
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=4).map(tuple),
       view=st.sampled_from(sorted(VIEWS)), dtype=st.sampled_from(DTYPES), seed=st.integers(0, 9))
def test_nonzero_matches_numpy(shape, view, dtype, seed):
    vals = make_array(shape, dtype, seed=seed)
    if vals.dtype.kind != "b":
        vals = vals * make_array(shape, "bool", seed=seed + 1)

    def body(xp):
        a = VIEWS[view](xp.asarray(vals))
        return xp.nonzero(a), xp.argwhere(a), xp.flatnonzero(a), a[a != 0]
    run_both(body)
