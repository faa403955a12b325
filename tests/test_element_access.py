"""Element access (issue 11): a[i, j] of a CPU array is NumPy's scalar of the array's dtype, as
NumPy's indexing returns it (on a GPU a 0-d array, as CuPy's); reads and writes of one element and
of small slices take a short path that must give NumPy's values, types and errors, whatever is
pending. The seeded property test interleaves them with lazy ops on pending and materialised
targets (NUMFUSE_ELEMENT_CASES programs, default 300).
"""
import os
import random

import numpy
import pytest

from harness import ALL_DTYPES, dtype_params, make_array, oracle, run_seeded_programs

CASES = int(os.environ.get("NUMFUSE_ELEMENT_CASES", "300"))


def _typed(xp, device, v):
    """v with the name of its type where the type is NumPy's (CPU): numpy.float64 must come back
    as numpy.float64, not as a 0-d array or a Python float."""
    if xp.is_numpy or device == "cpu":
        return [v, type(v).__name__]
    assert v.ndim == 0, f"a GPU element read is a 0-d array, got {type(v)}"
    return [v, numpy.dtype(v.dtype).type.__name__]


@dtype_params()
@oracle()
def test_element_read_types(xp, dtype, device):
    a = xp.asarray(make_array((3, 4), dtype, seed=1))
    v = xp.asarray(make_array((5,), dtype, seed=2))
    z = xp.asarray(make_array((), dtype, seed=3))
    keys2 = [(1, 2), (-1, -1), (-3, 0), (numpy.int32(1), numpy.uint8(2)), (numpy.int64(-2), 3),
             (numpy.uint64(2), numpy.int8(-4)), (numpy.array(1), 2), (xp.asarray(2), -1)]
    out = [_typed(xp, device, a[k]) for k in keys2]
    out += [_typed(xp, device, v[k]) for k in (0, 4, -5, numpy.int16(3), numpy.array(-1))]
    out.append(_typed(xp, device, z[()]))
    out.append(_typed(xp, device, a[(1,)][3]))  # a row's element
    return out


@dtype_params()
@oracle()
def test_element_read_of_pending_and_views(xp, dtype, device):
    base = xp.asarray(make_array((4, 6), dtype, seed=4))
    pending = base.copy()  # pending until read
    t = base.T[::-1]  # a strided view
    s = base[1:, ::2]
    out = [_typed(xp, device, pending[2, 3]), _typed(xp, device, t[0, 1]), _typed(xp, device, s[-1, -1])]
    if dtype.kind not in "bu":
        expr = base * 2  # a pending expression: its element is computed
        out.append(_typed(xp, device, expr[3, -2]))
    return out


@oracle()
def test_elements_iterate_as_scalars(xp, device):
    a = xp.asarray(numpy.arange(6, dtype=numpy.int32))
    return [_typed(xp, device, x) for x in a]


# Values stored into one element: Python scalars, NumPy scalars of every dtype, 0-d arrays, and
# values NumPy refuses (overflow, NaN into integers, complex into reals, sequences).
VALUES = {
    "int": 7, "neg_int": -3, "big_int": 300, "huge_int": 2 ** 70, "bool": True, "float": 2.75,
    "neg_float": -1.5, "nan": float("nan"), "inf": float("inf"), "big_float": 1e300,
    "complex": 1.5 - 2j, "np_float64": numpy.float64(3.25), "np_float32": numpy.float32(-0.5),
    "np_float16": numpy.float16(1.5), "np_int64": numpy.int64(-9), "np_int8": numpy.int8(5),
    "np_uint64_big": numpy.uint64(2 ** 63 + 5), "np_uint8": numpy.uint8(250), "np_bool": numpy.bool_(True),
    "np_complex64": numpy.complex64(1 + 1j), "np_complex128": numpy.complex128(-2.5 + 0.5j),
    "list1": [4], "list2": [1, 2], "str": "5", "none": None, "zero_d": numpy.array(6.5),
}


@pytest.mark.filterwarnings("ignore")  # NumPy warns of some casts (the values are compared)
@pytest.mark.parametrize("value", list(VALUES), ids=str)
@dtype_params()
@oracle()
def test_element_write_values(xp, dtype, value, device):
    if value == "huge_int" and dtype == numpy.float16:
        pytest.xfail("NumPy stores inf (and warns); numfuse refuses ints past 64 bits (no object dtype)")
    a = xp.asarray(make_array((3, 4), dtype, seed=5))
    v = VALUES[value]
    a[1, 2] = v
    a[-1, 0] = v
    return a


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("value", ["np_float64", "np_int64", "int", "float", "zero_d"], ids=str)
@dtype_params()
@oracle()
def test_element_write_of_0d_numfuse_arrays(xp, dtype, value, device):
    a = xp.asarray(make_array((3, 4), dtype, seed=6))
    src = xp.asarray(make_array((2,), dtype, seed=7))
    a[0, 0] = src[1] if value == "zero_d" else VALUES[value]
    a[2, 3] = xp.asarray(numpy.asarray(VALUES["np_float64"])).astype(dtype)  # a 0-d array
    return a


# Keys NumPy refuses, for reads and writes: the exception class and its message must be NumPy's.
BAD_KEYS = {
    "past_end": 5, "before_start": -6, "second_axis": (0, 7), "second_axis_neg": (1, -8),
    "too_many": (1, 2, 3), "float": 1.5, "float_in_tuple": (1, 2.0), "str": "x", "np_float": numpy.float64(1),
    "huge": 2 ** 64, "uint64_past": (numpy.uint64(2 ** 63), 0), "none_in_tuple_past": (None, 9),
    "slice_then_past": (slice(None), 9), "bad_slice_bound": slice(0, 2.5),
}


def _error_text(fn):
    try:
        fn()
    except Exception as e:  # the message is compared, the class by the oracle
        return type(e).__name__ + ": " + str(e)
    return "no error"


@pytest.mark.parametrize("key", list(BAD_KEYS), ids=str)
@oracle()
def test_bad_keys_read_and_write_messages(xp, key, device):
    a = xp.asarray(numpy.arange(35.0).reshape(5, 7))
    k = BAD_KEYS[key]

    def write():
        a[k] = 1.0
    return [_error_text(lambda: a[k]), _error_text(write)]


@oracle()
def test_element_errors_of_values_and_deletion(xp, device):
    a = xp.asarray(numpy.arange(12).reshape(3, 4).astype(numpy.int8))
    f = xp.asarray(numpy.zeros((2, 2)))
    out = []

    def store(target, key, value):
        target[key] = value
    out.append(_error_text(lambda: store(a, (0, 0), 300)))
    out.append(_error_text(lambda: store(a, (0, 0), float("nan"))))
    out.append(_error_text(lambda: store(f, (0, 0), [1.0, 2.0])))
    out.append(_error_text(lambda: store(f, (0, 0), 1j)))
    out.append(_error_text(lambda: a.__delitem__(0)))
    ro = xp.broadcast_to(xp.asarray(numpy.ones(3)), (2, 3))
    out.append(_error_text(lambda: store(ro, (0, 0), 2.0)))
    return out + [a, f]


def _target(xp, kind, shape, dtype, seed):
    data = make_array(shape, dtype, seed=seed)
    if kind == "materialised":
        return xp.asarray(data)
    if kind == "copy":
        return xp.asarray(data).copy()
    if kind == "expr":
        return xp.asarray(data) * 1 if dtype != numpy.bool_ else xp.asarray(data) & True
    if kind == "view":  # a view of a pending array: writes go to the base
        big = xp.asarray(make_array((shape[0] + 2, shape[1] + 3), dtype, seed=seed)).copy()
        return big[1:-1, 2:-1]
    raise ValueError(kind)


def _program(xp, seed):
    """A random program of element and small-slice reads and writes, interleaved with lazy ops
    that read the target (pending readers) and in-place ops on slices."""
    rng = random.Random(seed)
    dtype = numpy.dtype(rng.choice(["float64", "float32", "int64", "int32", "uint8", "bool", "complex128"]))
    shape = (rng.randint(1, 6), rng.randint(1, 9))
    a = _target(xp, rng.choice(["materialised", "copy", "expr", "view"]), shape, dtype, seed)
    seen, readers, held = [], [], []
    for _ in range(rng.randint(5, 25)):
        i, j = rng.randrange(-shape[0], shape[0]), rng.randrange(-shape[1], shape[1])
        op = rng.choice(["read", "read", "write", "write_np", "row_read", "row_write", "slice_write",
                         "reader", "iop_row", "read_back", "float_read", "hold"])
        if op == "read":
            seen.append(a[i, j])
        elif op == "float_read" and dtype.kind != "c":
            seen.append(float(a[i, j]))  # a GPU element read straight from its source
        elif op == "hold":
            held.append(a[i, j])  # read as a Python number at the end, after later writes
        elif op == "write":
            a[i, j] = rng.choice([1, 0, 3]) if dtype.kind in "iub" else rng.uniform(-4, 4)
        elif op == "write_np":
            a[i, j] = numpy.asarray(rng.randint(0, 5)).astype(dtype)[()]
        elif op == "row_read":
            seen.append(a[i, :].copy() if rng.random() < 0.5 else a[i])
        elif op == "row_write":
            row = make_array((shape[1],), dtype, seed=rng.randrange(1000))
            a[i, :] = xp.asarray(row) if rng.random() < 0.5 else row[0].item()
        elif op == "slice_write":
            lo = rng.randrange(shape[1])
            a[i, lo:lo + 3] = a[(i + 1) % shape[0], lo:lo + 3]  # may overlap its own row
        elif op == "reader":
            readers.append(a + a if dtype.kind != "b" else a | a)  # pending, reads a's memory
        elif op == "iop_row" and dtype.kind in "fc":
            a[i, 1:] *= 2
        elif op == "read_back":
            seen.append(a[i, j] == a[i, j])
    seen.extend(float(x) if dtype.kind != "c" else complex(x) for x in held)
    return [a, seen, readers]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("batch", range(4))
def test_element_programs_match_numpy(batch, device):
    run_seeded_programs(_program, range(batch * CASES // 4, (batch + 1) * CASES // 4), device)


@oracle()
def test_bool_scalar_keys_are_masks_not_integers(xp, device):
    # NumPy reads True/False (and numpy.bool_) as a 0-d mask: a new axis, never element 1 or 0.
    a = xp.asarray(numpy.arange(12.0).reshape(3, 4))
    out = [a[True], a[False], a[numpy.True_], a[1, True], a[True, 2], a[numpy.bool_(False), 0]]
    b = a.copy()
    b[True] = 5.0
    c = a.copy()
    c[1, False] = 7.0
    return out + [b, c]
