"""Bad input, family by family: each case is one body run under NumPy and numfuse (harness's
run_both), which must raise the same exception class (numfuse's may be a subclass) or, where
NumPy accepts the input, return the same values. The cases are generated from tables: a bad
argument of each kind (float, None, string, out of range, huge, wrong shape...) for each entry
point of a family, so a new entry point or a new kind of bad argument is one table row.

Cases that fail because of another area of issue 10 are xfail(strict=True) with the area named,
so that they flip when that area is fixed.
"""
import copy
import operator
import pickle

import numpy
import pytest

from harness import make_array, run_both

HUGE = 2 ** 64          # past int64: NumPy's "Maximum allowed dimension exceeded"
BIG = 2 ** 63           # one past int64's largest value


def arr(xp, shape=(2, 3), dtype="float64", seed=0):
    return xp.asarray(make_array(shape, dtype, seed))


CASES = []


def case(name, fn, xfail=None):
    CASES.append(pytest.param(fn, id=name, marks=[pytest.mark.xfail(strict=True, reason=xfail)]
                              if xfail else []))


# ---- creation -----------------------------------------------------------------------------------

BAD_SHAPES = {"float": 2.0, "none": None, "str": "a", "nested": [2, [3]], "neg": -1,
              "neg_in_tuple": (2, -1), "float_in_tuple": (2, 2.0), "big": BIG, "huge": HUGE,
              "huge_in_tuple": (2, HUGE), "object": object(), "float_array": numpy.array(2.0),
              "bool": True, "bool_in_tuple": (2, True), "int_1d_array": numpy.array([2, 1]),
              "int_0d_array": numpy.array(2), "bool_0d_array": numpy.array(True), "bytes": b"\x02"}
for fname in ("zeros", "ones", "empty"):
    for sname, shape in BAD_SHAPES.items():
        # empty's values are whatever memory held: only its shape and dtype are compared.
        case(f"{fname}-{sname}", lambda xp, f=fname, s=shape: (
            _shape_dtype if f == "empty" else (lambda r: r))(getattr(xp, f)(s)))
    case(f"{fname}-bad-dtype", lambda xp, f=fname: getattr(xp, f)(3, dtype="foo"))
for sname, shape in BAD_SHAPES.items():
    case(f"full-{sname}", lambda xp, s=shape: xp.full(s, 1.0))
for vname, value in {"str": "a", "numeric_str": "2.5", "none": None, "list_str": ["1", "x"]}.items():
    case(f"full-float-{vname}", lambda xp, v=value: xp.full(2, v, dtype=numpy.float64))
    case(f"full-int-{vname}", lambda xp, v=value: xp.full(2, v, dtype=numpy.int32))

ARANGE = {"inf": (float("inf"),), "nan": (float("nan"),), "huge": (10 ** 20,),
          "tiny_step": (0, 1, 1e-300), "zero_step": (0, 5, 0), "neg_inf": (0, float("-inf"), -1),
          "empty": (5, 0), "neg_step_empty": (0, 5, -1), "float_args": (0.5, 3.5, 0.5)}
for aname, args in ARANGE.items():
    case(f"arange-{aname}", lambda xp, a=args: xp.arange(*a))
EYE = {"float_n": (2.5,), "huge_n": (10 ** 20,), "float_k": (3, None, 1.0), "str_n": ("a",),
       "neg_n": (-1,), "big_k": (3, 3, 10 ** 20)}
for ename, args in EYE.items():
    case(f"eye-{ename}", lambda xp, a=args: xp.eye(*a))
LINSPACE = {"neg_num": (0, 1, -1), "float_num": (0, 1, 2.0), "zero_num": (0, 1, 0),
            "one_num": (0, 1, 1)}
for lname, args in LINSPACE.items():
    case(f"linspace-{lname}", lambda xp, a=args: xp.linspace(*a))
CONVERT = {"str_to_float": (["a"], "float64"), "num_str_to_float": (["1.5", "2"], "float64"),
           "str_to_int": (["x"], "int64"), "mixed": ([1, "a"], "float64"),
           "ragged": ([[1, 2], [3]], None), "none_to_float": ([None, 1.0], "float64"),
           "complex_to_float": ([1j], "float64"), "bad_dtype": ([1], "foo")}
for cname, (obj, dt) in CONVERT.items():
    case(f"asarray-{cname}", lambda xp, o=obj, d=dt: xp.asarray(o, dtype=d))
    case(f"array-{cname}", lambda xp, o=obj, d=dt: xp.array(o, dtype=d))
for lname in ("zeros_like", "ones_like", "empty_like"):
    case(f"{lname}-bad-shape", lambda xp, f=lname: getattr(xp, f)(arr(xp), shape=(2, -1)))
    case(f"{lname}-bad-dtype", lambda xp, f=lname: getattr(xp, f)(arr(xp), dtype="foo"))

# ---- shape ops ----------------------------------------------------------------------------------

RESHAPE = {"float": (2.0, 3), "wrong_size": (4,), "two_unknown": (-1, -1), "neg2": (-2, 3),
           "neg3_last": (3, -3), "zero_unknown": (0, -1), "huge": (HUGE,), "neg_huge": (-HUGE,),
           "str": ("a",), "none": (None,), "tuple_float": ((2, 3.0),), "big": (BIG, 1)}
for rname, args in RESHAPE.items():
    case(f"reshape-{rname}", lambda xp, a=args: arr(xp).reshape(*a))
    case(f"np.reshape-{rname}", lambda xp, a=args: xp.reshape(arr(xp), a if len(a) > 1 else a[0]))
case("reshape-bad-order", lambda xp: arr(xp).reshape(6, order="Q"))
case("reshape-order-none", lambda xp: arr(xp).reshape(6, order=None))
case("reshape-no-args", lambda xp: arr(xp).reshape())
case("shape-set-float", lambda xp: setattr(arr(xp), "shape", (3.0, 2)))
case("shape-set-str", lambda xp: setattr(arr(xp), "shape", "a"))
case("shape-set-wrong", lambda xp: setattr(arr(xp), "shape", (4,)))
case("shape-set-noncontig", lambda xp: setattr(arr(xp).T, "shape", (6,)))

TRANSPOSE = {"too_few": (0,), "too_many": (0, 1, 2), "repeated": (0, 0), "out_of_range": (0, 5),
             "float": (0.0, 1), "empty": (), "neg": (-1, -2)}
for tname, axes in TRANSPOSE.items():
    case(f"transpose-{tname}", lambda xp, a=axes: xp.transpose(arr(xp), a))
    case(f"transpose1d-{tname}", lambda xp, a=axes: xp.transpose(arr(xp, (3,)), a))
case("transpose-0d-empty", lambda xp: xp.transpose(arr(xp, ()), ()))
SWAP = {"out_of_range": (0, 2), "neg_out": (-3, 0), "float": (0.0, 1), "huge": (10 ** 20, 0),
        "str": ("0", 1)}
for sname, args in SWAP.items():
    case(f"swapaxes-{sname}", lambda xp, a=args: xp.swapaxes(arr(xp), *a))
SQUEEZE = {"non_unit": 1, "out_of_range": 5, "empty_tuple": (), "float": 0.0,
           "repeated": (0, 0), "unit_ok": 0, "tuple_unit": (0, 2), "list": [0],
           "0d_array": numpy.array(0), "1d_array": numpy.array([0]), "bool": True,
           "bool_in_tuple": (True,), "huge": HUGE}
for sname, axis in SQUEEZE.items():
    case(f"squeeze-{sname}", lambda xp, a=axis: xp.squeeze(arr(xp, (1, 3, 1)), axis=a))
for axis in (0, -1, 1, (0,), ()):
    case(f"squeeze-0d-{axis}", lambda xp, a=axis: xp.squeeze(arr(xp, ()), axis=a))
EXPAND = {"out_of_range": 4, "neg_out": -5, "repeated": (0, 0), "float": 0.0, "ok_tuple": (0, 3)}
for ename, axis in EXPAND.items():
    case(f"expand_dims-{ename}", lambda xp, a=axis: xp.expand_dims(arr(xp), a))
MOVE = {"out_of_range": (0, 3), "len_mismatch": ((0, 1), (0,)), "repeated": ((0, 0), (0, 1)),
        "float": (0.0, 1)}
for mname, (src, dst) in MOVE.items():
    case(f"moveaxis-{mname}", lambda xp, s=src, d=dst: xp.moveaxis(arr(xp), s, d))
BROADCAST = {"mismatch": (3, 3), "fewer_dims": (3,), "negative": (-1, 3), "huge": (HUGE, 3),
             "float": (2.0, 3), "ok": (4, 2, 3)}
for bname, shape in BROADCAST.items():
    case(f"broadcast_to-{bname}", lambda xp, s=shape: xp.broadcast_to(arr(xp), s))
case("broadcast_to-readonly-write",
     lambda xp: operator.setitem(xp.broadcast_to(arr(xp, (3,)), (2, 3)), 0, 1.0))
case("broadcast_arrays-mismatch", lambda xp: xp.broadcast_arrays(arr(xp), arr(xp, (3, 2))))

JOIN_INPUTS = {
    "dims": lambda xp: [arr(xp), arr(xp, (3,))],
    "shapes": lambda xp: [arr(xp), arr(xp, (3, 3))],
    "zero_d": lambda xp: [arr(xp, ()), arr(xp, ())],
    "empty_list": lambda xp: [],
    "not_sequence": lambda xp: arr(xp),
}
for jname, make in JOIN_INPUTS.items():
    for fname in ("concatenate", "stack", "vstack", "hstack"):
        case(f"{fname}-{jname}", lambda xp, f=fname, m=make: getattr(xp, f)(m(xp)))
for axis in (2, -3, 1.0, None):
    case(f"concatenate-axis-{axis}", lambda xp, a=axis: xp.concatenate([arr(xp), arr(xp)], axis=a))
    case(f"stack-axis-{axis}", lambda xp, a=axis: xp.stack([arr(xp), arr(xp)], axis=a))
case("concatenate-out-shape", lambda xp: xp.concatenate([arr(xp), arr(xp)], out=arr(xp)))
case("concatenate-out-and-dtype",
     lambda xp: xp.concatenate([arr(xp)], out=arr(xp), dtype=numpy.float64))
case("concatenate-casting", lambda xp: xp.concatenate([arr(xp)], dtype=numpy.int32,
                                                     casting="safe"))
SPLIT = {"uneven": (4, 0), "zero_sections": (0, 0), "axis_out": (2, 5), "float_sections": (2.0, 0)}
for sname, (n, axis) in SPLIT.items():
    case(f"split-{sname}", lambda xp, n=n, a=axis: xp.split(arr(xp, (6, 2)), n, axis=a))
case("array_split-zero", lambda xp: xp.array_split(arr(xp, (6,)), 0))
case("hsplit-0d", lambda xp: xp.hsplit(arr(xp, ()), 2))
case("vsplit-1d", lambda xp: xp.vsplit(arr(xp, (4,)), 2))
for fname, args in {"tile-neg": (-1,), "tile-float": (2.0,), "repeat-neg": (-1,),
                    "repeat-mismatch": ([1, 2, 3],), "repeat-float-array": (numpy.array([1.5]),)}.items():
    op = fname.split("-")[0]
    case(f"{fname}", lambda xp, op=op, a=args: getattr(xp, op)(arr(xp, (2,)), *a))
for axis in (2, -3, (0, 0), 1.0):
    case(f"flip-axis-{axis}", lambda xp, a=axis: xp.flip(arr(xp), axis=a))
    case(f"roll-axis-{axis}", lambda xp, a=axis: xp.roll(arr(xp), 1, axis=a))
case("roll-shift-axis-mismatch", lambda xp: xp.roll(arr(xp), (1, 2), axis=(0, 1, 0)))
for axis in (0, -1, 1):
    for fname in ("flip", "roll", "expand_dims", "cumsum"):
        if fname == "roll":
            case(f"{fname}-0d-axis{axis}", lambda xp, a=axis: xp.roll(arr(xp, ()), 1, axis=a))
        else:
            case(f"{fname}-0d-axis{axis}", lambda xp, f=fname, a=axis: getattr(xp, f)(arr(xp, ()), axis=a))
PAD = {"neg": ((-1, 1),), "bad_mode": (1, "nope"), "shape": (((1, 2, 3),),)}
for pname, args in PAD.items():
    case(f"pad-{pname}", lambda xp, a=args: xp.pad(arr(xp), *a))
case("rot90-axes", lambda xp: xp.rot90(arr(xp), axes=(0, 0)))
case("fliplr-1d", lambda xp: xp.fliplr(arr(xp, (3,))))

# ---- indexing: get ------------------------------------------------------------------------------

GET_KEYS = {
    "too_many": (0, 0, 0), "out_of_bounds": 5, "neg_out_of_bounds": -3, "float": 1.0,
    "float_in_tuple": (0, 1.0), "str": "a", "float_slice_start": slice(0.0, 2),
    "float_slice_stop": slice(0, 2.0), "float_slice_step": slice(0, 2, 0.5),
    "zero_step": slice(None, None, 0), "huge_slice": slice(None, 10 ** 20),
    "neg_huge_slice": slice(-10 ** 20, None), "huge_step": slice(None, None, 10 ** 20),
    "huge_int": 10 ** 20, "two_ellipsis": (Ellipsis, Ellipsis), "float_list": [1.0],
    "str_list": ["a"], "list_out_of_bounds": [0, 5], "float_array": numpy.array([1.0]),
    "float_0d_slice": slice(None, numpy.array(2.0)), "array_slice": slice(None, numpy.array([2])),
    "bool_mismatch": numpy.array([True, False, True]), "bool_2d_mismatch": numpy.ones((3, 3), bool),
    "empty_bool": numpy.zeros(0, bool), "empty_bool_2d": numpy.zeros((0, 3), bool),
    "empty_bool_bad": numpy.zeros((0, 5), bool), "empty_bool_col": (slice(None), numpy.zeros(0, bool)),
    "fancy_mismatch": ([0, 1], [0, 1, 2]), "none_float": (None, 1.5), "dict": {},
    "np_bool_slice": slice(numpy.True_, 2), "bool_scalar": True, "np_int": numpy.int64(1),
    "uint_slice": slice(numpy.int64(0), numpy.uint64(2)), "0d_int_array": numpy.array(1),
    # NumPy's order: integers converted, then the count of indices, then left to right the
    # bounds of integers and the reading of slices; 2**63 fits uint64 (OverflowError)
    "big_int": BIG, "big_int_in_tuple": (0, BIG), "neg_huge_int": -BIG - 1, "huge": HUGE,
    "out_of_bounds_then_float_slice": (5, slice(1.0, None)),
    "float_slice_then_out_of_bounds": (slice(1.0, None), 5),
    "too_many_float_slice": (0, 0, slice(1.0, None)), "too_many_zero_step": (0, 0, slice(None, None, 0)),
    "ellipsis_out_of_bounds_float_slice": (Ellipsis, 5, slice(1.0, None)),
    "zero_step_then_out_of_bounds": (slice(None, None, 0), 5),
}
for kname, key in GET_KEYS.items():
    xf = None
    case(f"getitem-{kname}", lambda xp, k=key: arr(xp)[k], xf)
case("getitem-0d-index", lambda xp: arr(xp, ())[0])
for kname, key in {"float_slice": slice(1.0, None), "array_slice": slice(numpy.array([1])),
                   "zero_step": slice(None, None, 0), "big_int": BIG}.items():
    case(f"getitem-0d-{kname}", lambda xp, k=key: arr(xp, ())[k])
case("getitem-0d-empty-tuple", lambda xp: arr(xp, ())[()])
case("getitem-numfuse-float-index", lambda xp: arr(xp)[xp.asarray([1.0])])
case("getitem-numfuse-0d-float-slice", lambda xp: arr(xp, (5,))[:xp.asarray(2.0)])

# ---- indexing: set ------------------------------------------------------------------------------

SET_CASES = {
    "shape_mismatch": (slice(None), numpy.ones(4)), "seq_into_element": ((0, 0), [1.0, 2.0]),
    "str_into_float": ((0, 0), "abc"), "num_str_into_float": ((0, 0), "1.5"),
    "str_row": (0, "abc"), "none_into_float": ((0, 0), None), "mixed_list": (0, [1, 2, "a"]),
    "extra_zero_dims": (Ellipsis, numpy.zeros((0, 2, 3))), "extra_unit_dims": (Ellipsis, numpy.ones((1, 1, 2, 3))),
    "extra_dims": (Ellipsis, numpy.ones((2, 2, 3))), "fancy_mismatch": ([0, 1], numpy.ones((3, 3))),
    "fancy_str": ([0, 1], "a"), "fancy_none": ([0, 1], None), "mask_count": (numpy.array([[True, False, True]] * 2), [1.0, 2.0, 3.0]),
    "empty_mask": (numpy.zeros((0, 3), bool), 5.0), "out_of_bounds": (5, 1.0), "float_key": (1.0, 2.0),
    "complex_into_float": ((0, 0), 1j), "object": ((0, 0), object()), "dict": ((0, 0), {}),
    "float_slice": (slice(0.0, 1), 2.0), "big_int": (BIG, 1.0), "huge_int": (HUGE, 1.0),
    "out_of_bounds_then_float_slice": ((5, slice(1.0, None)), 1.0),
}
for sname, (key, value) in SET_CASES.items():
    def body(xp, k=key, v=value):
        a = arr(xp)
        a[k] = v
        return a
    case(f"setitem-{sname}", body)
for sname, value in {"none": None, "str": "7", "bad_str": "x", "float": 1.5}.items():
    def body(xp, v=value):
        a = arr(xp, (3,), "int64")
        a[0] = v
        return a
    case(f"setitem-int-{sname}", body)


def _fill(xp, value, dtype="float64"):
    a = arr(xp, (3,), dtype)
    a.fill(value)
    return a


for fname, value in {"none": None, "str": "a", "num_str": "2.5", "list": [1, 2]}.items():
    case(f"fill-{fname}", lambda xp, v=value: _fill(xp, v))
case("fill-int-none", lambda xp: _fill(xp, None, "int32"))


def _delitem(xp):
    a = arr(xp)
    del a[0]


def _set_strides(xp, strides):
    a = arr(xp)
    a.strides = strides
    return a


case("delitem", _delitem)
for sname, strides in {"length": (8,), "memory": (800, 8), "str": "a", "swap": (8, 16)}.items():
    case(f"set-strides-{sname}", lambda xp, s=strides: _set_strides(xp, s))
case("del-strides", lambda xp: delattr(arr(xp), "strides"))
case("set-ndim", lambda xp: setattr(arr(xp), "ndim", 3))
case("set-size", lambda xp: setattr(arr(xp), "size", 3))

# ---- ufuncs -------------------------------------------------------------------------------------

UFUNCS = ("add", "subtract", "multiply", "true_divide", "maximum", "less", "equal", "logical_and")
UFUNC_KWARGS = {
    "bad_casting": {"casting": "nope"}, "safe_casting": {"casting": "safe", "dtype": numpy.int32},
    "no_casting": {"casting": "no", "dtype": numpy.float32}, "bad_dtype": {"dtype": "foo"},
    "out_shape": {"out": "shape"}, "out_int": {"out": "int"}, "out_list": {"out": "list"},
    "out_tuple_len": {"out": "tuple2"}, "where_shape": {"where": "shape"},
    "unknown_kwarg": {"bogus": 1}, "casting_none": {"casting": None},
}


def _ufunc_call(xp, name, kwargs):
    a, b = arr(xp), arr(xp, seed=1)
    kw = dict(kwargs)
    out = kw.get("out")
    if out == "shape":
        kw["out"] = xp.zeros((3, 2))
    elif out == "int":
        kw["out"] = xp.zeros((2, 3), dtype=numpy.int8)
    elif out == "list":
        kw["out"] = [0.0] * 6
    elif out == "tuple2":
        kw["out"] = (xp.zeros((2, 3)), xp.zeros((2, 3)))
    if kw.get("where") == "shape":
        kw["where"] = xp.asarray(numpy.ones((4,), bool))
    return getattr(xp, name)(a, b, **kw)


for uname in UFUNCS:
    for kname, kwargs in UFUNC_KWARGS.items():
        case(f"ufunc-{uname}-{kname}", lambda xp, u=uname, k=kwargs: _ufunc_call(xp, u, k))
    case(f"ufunc-{uname}-broadcast", lambda xp, u=uname: getattr(xp, u)(arr(xp), arr(xp, (3, 2))))
    case(f"ufunc-{uname}-too-many-args",
         lambda xp, u=uname: getattr(xp, u)(arr(xp), arr(xp), arr(xp), arr(xp)))
    xf = ("numfuse has no string dtype: NumPy 2's logical_and reads 'a' as a true string"
          if uname == "logical_and" else None)
    case(f"ufunc-{uname}-str", lambda xp, u=uname: getattr(xp, u)(arr(xp), "a"), xf)
for uname in ("sin", "sqrt", "negative", "invert", "logical_not"):
    case(f"ufunc1-{uname}-bool-float", lambda xp, u=uname: getattr(xp, u)(arr(xp, (3,), "bool")))
    case(f"ufunc1-{uname}-int", lambda xp, u=uname: getattr(xp, u)(arr(xp, (3,), "int32")))
    case(f"ufunc1-{uname}-float", lambda xp, u=uname: getattr(xp, u)(arr(xp, (3,))))
case("inplace-int-float", lambda xp: operator.iadd(arr(xp, (3,), "int32"), 1.5))
case("inplace-broadcast-grow", lambda xp: operator.iadd(arr(xp, (3,)), arr(xp)))
case("inplace-str", lambda xp: operator.iadd(arr(xp, (3,)), "a"))
case("bitwise-float", lambda xp: arr(xp) & arr(xp))
case("shift-float", lambda xp: arr(xp) << 1)
case("where-bad-condition-shape", lambda xp: xp.where(arr(xp, (3,), "bool"), arr(xp), 0.0))
case("where-one-arg-missing", lambda xp: xp.where(arr(xp, (3,), "bool"), 1.0))

# ---- the Python protocol ------------------------------------------------------------------------

PROTOCOL = {
    "eq_none": lambda xp: arr(xp) == None,  # noqa: E711
    "ne_none": lambda xp: arr(xp) != None,  # noqa: E711
    "eq_str": lambda xp: arr(xp) == "a",
    "ne_str": lambda xp: arr(xp) != "a",
    "lt_none": lambda xp: arr(xp) < None,  # noqa: E711
    "lt_str": lambda xp: arr(xp) < "a",
    "none_eq": lambda xp: None == arr(xp),  # noqa: E711
    "eq_mixed_list": lambda xp: arr(xp, (3,)) == [1, "a", 3],
    "eq_object": lambda xp: arr(xp, (3,)) == object(),
    "add_none": lambda xp: arr(xp) + None,
    "add_str": lambda xp: arr(xp) + "a",
    "add_bytes": lambda xp: arr(xp) + b"a",
    "divmod": lambda xp: divmod(arr(xp, (5,), "int64"), 3),
    "rdivmod": lambda xp: divmod(7, arr(xp, (5,), "int64", seed=2) + 10),
    "divmod_float": lambda xp: divmod(arr(xp), arr(xp, seed=1)),
    "divmod_str": lambda xp: divmod(arr(xp), "a"),
    "contains_2d": lambda xp: make_array((2, 3), "int64")[0, 1].item() in arr(xp, (2, 3), "int64"),
    "contains_2d_missing": lambda xp: 99 in arr(xp, (2, 3), "int64"),
    "contains_none": lambda xp: None in arr(xp),
    "contains_str": lambda xp: "a" in arr(xp),
    "contains_0d": lambda xp: 1.0 in xp.asarray(1.0),
    "len_0d": lambda xp: len(arr(xp, ())),
    "iter_0d": lambda xp: iter(arr(xp, ())),
    "hash": lambda xp: hash(arr(xp)),
    "float_size2": lambda xp: float(arr(xp, (2,))),
    "int_size2": lambda xp: int(arr(xp, (2,))),
    "bool_size2": lambda xp: bool(arr(xp, (2,))),
    "bool_empty": lambda xp: bool(arr(xp, (0,))),
    "float_empty": lambda xp: float(arr(xp, (0,))),
    "int_complex": lambda xp: int(arr(xp, (), "complex128")),
    "float_complex": lambda xp: float(arr(xp, (), "complex128")),
    "complex_size2": lambda xp: complex(arr(xp, (2,))),
    "index_float": lambda xp: operator.index(arr(xp, ())),
    "index_size2": lambda xp: operator.index(arr(xp, (2,), "int64")),
    "index_int": lambda xp: operator.index(arr(xp, (), "int64")),
    "float_size1": lambda xp: float(arr(xp, (1,))),
    "pow_mod": lambda xp: pow(arr(xp), 2, 3),
    "matmul_scalar": lambda xp: arr(xp) @ 2.0,
    "pickle": lambda xp: pickle.loads(pickle.dumps(arr(xp)[:, ::-1])),
    "pickle_pending": lambda xp: pickle.loads(pickle.dumps(arr(xp) * 2)),
    "pickle_0d": lambda xp: pickle.loads(pickle.dumps(arr(xp, (), "int16"))),
    "copy": lambda xp: copy.copy(arr(xp)),
    "deepcopy": lambda xp: copy.deepcopy(arr(xp, (3,), "complex64")),
    "deepcopy_shared": lambda xp: (lambda a: (lambda c: c[0] is c[1])(copy.deepcopy([a, a])))(arr(xp)),
    "copy_independent": lambda xp: (lambda a: (copy.copy(a).fill(7), a)[1])(arr(xp)),
}
for pname, fn in PROTOCOL.items():
    case(f"protocol-{pname}", fn)


def _base_is(xp, make, expect_owner):
    a = arr(xp)
    v = make(a)
    return (v.base is a) if expect_owner else (v.base is None)


BASES = {"slice": (lambda a: a[1:], True), "slice_of_slice": (lambda a: a[1:][:, 1:], True),
         "transpose": (lambda a: a.T, True), "reshape": (lambda a: a.reshape(6), True),
         "view": (lambda a: a.view(), True), "row": (lambda a: a[0], True),
         "ravel": (lambda a: a.ravel(), True), "fancy": (lambda a: a[[0]], False),
         "copy": (lambda a: a.copy(), False), "ufunc": (lambda a: a + 1, False),
         "expand_dims": (lambda a: a[None], True), "fresh": (lambda a: a, False),
         # NumPy's squeeze returns the array itself when nothing is squeezed: an owner's base
         "squeeze_nothing": (lambda a: a.squeeze(), False),
         "squeeze_empty_axes": (lambda a: a.squeeze(axis=()), False),
         "squeeze_unit": (lambda a: a[:1].squeeze(), True)}
for bname, (make, owner) in BASES.items():
    case(f"base-{bname}", lambda xp, m=make, o=owner: _base_is(xp, m, o))
for sname, make in {"none": lambda a: a.squeeze(), "empty": lambda a: a.squeeze(axis=()),
                    "np": lambda a: numpy.squeeze(a) if isinstance(a, numpy.ndarray) else
                    __import__("numfuse").squeeze(a), "0d_axis0": lambda a: a[0, 0].squeeze(axis=0)}.items():
    case(f"squeeze-is-self-{sname}", lambda xp, m=make: (lambda a: m(a) is a)(arr(xp)))


def _error_class(fn):
    """The exact class of what fn raises (TypeError, not its subclass UFuncTypeError)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is the result
        return type(e).__name__
    return None


OBJECT_LOOP = {"add_none": lambda a: a + None, "radd_none": lambda a: None + a,
               "ufunc_none": lambda a: __import__("numpy" if isinstance(a, numpy.ndarray) else "numfuse").add(a, None),
               "div_object": lambda a: a / object(), "pow_none": lambda a: a ** None,
               "and_none": lambda a: a.astype(int) & None, "divmod_none": lambda a: divmod(a, None),
               "add_str": lambda a: a + "a"}
for oname, fn in OBJECT_LOOP.items():
    case(f"object-loop-{oname}", lambda xp, f=fn: _error_class(lambda: f(arr(xp))))
case("base-outlives-owner", lambda xp: (lambda v: v.base.shape)(arr(xp)[1:]))

# ---- reductions and scans -----------------------------------------------------------------------

REDUCTIONS = ("sum", "prod", "max", "min", "any", "all", "mean", "std", "var", "argmax", "argmin",
              "nansum", "nanmax", "nanmean", "count_nonzero", "ptp")
BAD_AXES = {"out_of_range": 2, "neg_out": -3, "float": 1.0, "dup": (0, 0), "dup_neg": (1, -1),
            "tuple_out": (0, 2), "str": "0", "huge": 10 ** 20}
TUPLE_AXIS_UNSUPPORTED = {"argmax", "argmin"}
for rname in REDUCTIONS:
    for aname, axis in BAD_AXES.items():
        case(f"{rname}-axis-{aname}", lambda xp, r=rname, a=axis: getattr(xp, r)(arr(xp), axis=a))
    for axis in (0, -1, 1, (0,)):
        case(f"{rname}-0d-axis-{axis}", lambda xp, r=rname, a=axis: getattr(xp, r)(arr(xp, ()), axis=a))
for rname in ("sum", "prod", "max", "min", "any", "all", "mean"):
    case(f"{rname}-out-shape", lambda xp, r=rname: getattr(xp, r)(arr(xp), axis=0, out=xp.zeros(2)))
    case(f"{rname}-out-list", lambda xp, r=rname: getattr(xp, r)(arr(xp), axis=0, out=[0.0] * 3))
    case(f"{rname}-keepdims-out", lambda xp, r=rname: getattr(xp, r)(arr(xp), axis=0, keepdims=True,
                                                                     out=xp.zeros(3)))
case("max-empty", lambda xp: xp.max(arr(xp, (0,))))
case("argmax-empty", lambda xp: xp.argmax(arr(xp, (0,))))
case("max-empty-initial", lambda xp: xp.max(arr(xp, (0,)), initial=-1.0))
case("min-empty-axis", lambda xp: xp.min(arr(xp, (0, 3)), axis=0))
case("sum-dtype-bad", lambda xp: xp.sum(arr(xp), dtype="foo"))
case("sum-where-shape", lambda xp: xp.sum(arr(xp), where=xp.asarray(numpy.ones(4, bool))))
case("mean-where-shape", lambda xp: xp.mean(arr(xp), where=xp.asarray(numpy.ones(4, bool))))
case("sum-initial-str", lambda xp: xp.sum(arr(xp), initial="a"))
case("argmax-tuple-axis", lambda xp: xp.argmax(arr(xp), axis=(0,)))
case("argmax-out-dtype", lambda xp: xp.argmax(arr(xp), axis=0, out=xp.zeros(3)))
case("var-ddof-large", lambda xp: xp.var(arr(xp, (2,)), ddof=5))
for sname in ("cumsum", "cumprod", "nancumsum"):
    for aname, axis in {"out_of_range": 2, "float": 1.0, "tuple": (0,), "neg_out": -3}.items():
        case(f"{sname}-axis-{aname}", lambda xp, s=sname, a=axis: getattr(xp, s)(arr(xp), axis=a))
    case(f"{sname}-out-shape", lambda xp, s=sname: getattr(xp, s)(arr(xp), axis=0, out=xp.zeros(6)))
    case(f"{sname}-0d-axis1", lambda xp, s=sname: getattr(xp, s)(arr(xp, ()), axis=1))
case("diff-0d", lambda xp: xp.diff(arr(xp, ())))
case("diff-neg-n", lambda xp: xp.diff(arr(xp), n=-1))
case("diff-axis", lambda xp: xp.diff(arr(xp), axis=2))

# ---- products -----------------------------------------------------------------------------------

PRODUCTS = {
    "matmul-mismatch": lambda xp: xp.matmul(arr(xp), arr(xp)),
    "matmul-0d": lambda xp: xp.matmul(arr(xp, ()), arr(xp)),
    "matmul-op-mismatch": lambda xp: arr(xp, (3,)) @ arr(xp, (2,)),
    "matmul-batch-mismatch": lambda xp: xp.matmul(arr(xp, (2, 2, 3)), arr(xp, (3, 3, 2))),
    "matmul-out-shape": lambda xp: xp.matmul(arr(xp), arr(xp, (3, 2)), out=xp.zeros((3, 3))),
    "dot-mismatch": lambda xp: xp.dot(arr(xp), arr(xp)),
    "inner-mismatch": lambda xp: xp.inner(arr(xp, (3,)), arr(xp, (2,))),
    "vdot-mismatch": lambda xp: xp.vdot(arr(xp, (3,)), arr(xp, (2,))),
    "tensordot-mismatch": lambda xp: xp.tensordot(arr(xp), arr(xp), axes=([0], [1])),
    "tensordot-bad-axes": lambda xp: xp.tensordot(arr(xp), arr(xp), axes=5),
    "einsum-bad-char": lambda xp: xp.einsum("i1->i", arr(xp, (3,))),
    "einsum-too-many": lambda xp: xp.einsum("ij->ij", arr(xp, (3,))),
    "einsum-mismatch": lambda xp: xp.einsum("ij,ij->i", arr(xp), arr(xp, (3, 2))),
    "einsum-out-label": lambda xp: xp.einsum("ij->k", arr(xp)),
    "einsum-operands": lambda xp: xp.einsum("ij,jk->ik", arr(xp)),
    "einsum-repeat-out": lambda xp: xp.einsum("ij->ii", arr(xp)),
    "outer-ok": lambda xp: xp.outer(arr(xp, (2,)), arr(xp, (3,))),
}
for pname, fn in PRODUCTS.items():
    case(f"product-{pname}", fn)

# ---- random -------------------------------------------------------------------------------------

RANDOM = {
    "random-neg": lambda xp: xp.random.default_rng(0).random(-1),
    "random-float": lambda xp: xp.random.default_rng(0).random(2.0),
    "random-huge": lambda xp: xp.random.default_rng(0).random(HUGE),
    "random-str": lambda xp: xp.random.default_rng(0).random("a"),
    "random-dtype": lambda xp: xp.random.default_rng(0).random(3, dtype=numpy.int32),
    "normal-neg-scale": lambda xp: xp.random.default_rng(0).normal(0.0, -1.0, 3),
    "normal-neg-scale-array": lambda xp: xp.random.default_rng(0).normal(0.0, [1.0, -1.0]),
    "uniform-inf": lambda xp: xp.random.default_rng(0).uniform(0, float("inf"), 3),
    "integers-empty": lambda xp: xp.random.default_rng(0).integers(5, 5, 3),
    "integers-reversed": lambda xp: xp.random.default_rng(0).integers(5, 2, 3),
    "integers-dtype-range": lambda xp: xp.random.default_rng(0).integers(0, 300, 3, dtype=numpy.uint8),
    "integers-float-dtype": lambda xp: xp.random.default_rng(0).integers(0, 3, 3, dtype=numpy.float64),
    "integers-neg-high": lambda xp: xp.random.default_rng(0).integers(-1),
    "choice-empty": lambda xp: xp.random.default_rng(0).choice(0, 3),
    "choice-0d": lambda xp: xp.random.default_rng(0).choice(numpy.array(3.0), 3),
    "randint-reversed": lambda xp: xp.random.randint(5, 2),
    "seed-neg": lambda xp: xp.random.seed(-1),
    "seed-float": lambda xp: xp.random.seed(1.5),
    "rand-neg": lambda xp: xp.random.rand(-1),
    "legacy-uniform-inf": lambda xp: xp.random.uniform(0, float("inf")),
}
for rname, fn in RANDOM.items():
    case(f"random-{rname}", fn)


def _refused_draw_keeps_state(xp):
    g = xp.random.default_rng(5)
    try:
        g.random((2, HUGE))
    except ValueError:
        pass
    h = xp.random.default_rng(5)
    return bool((g.random(4) == h.random(4)).all())  # numfuse's numbers are not NumPy's


def _pickled_generator(xp, kind):
    g = xp.random.default_rng(3) if kind == "gen" else xp.random.RandomState(3)
    draw = (lambda r: r.random(3)) if kind == "gen" else (lambda r: r.rand(3))
    draw(g)
    g2 = pickle.loads(pickle.dumps(g)) if kind != "deepcopy" else copy.deepcopy(g)
    return draw(g), draw(g2)


case("random-refused-draw-keeps-state", _refused_draw_keeps_state)
for kind in ("gen", "legacy"):
    case(f"random-pickle-{kind}", lambda xp, k=kind: (lambda a, b: bool((a == b).all()))(
        *_pickled_generator(xp, k)))

# ---- linalg.norm --------------------------------------------------------------------------------

NORM = {
    "bad-ord-vector": lambda xp: xp.linalg.norm(arr(xp, (3,)), ord="fro"),
    "bad-ord-str": lambda xp: xp.linalg.norm(arr(xp), ord="nope"),
    "bad-ord-matrix": lambda xp: xp.linalg.norm(arr(xp), ord=3),
    "axis-out": lambda xp: xp.linalg.norm(arr(xp), axis=2),
    "axis-float": lambda xp: xp.linalg.norm(arr(xp), axis=1.0),
    "axis-three": lambda xp: xp.linalg.norm(arr(xp, (2, 2, 2)), axis=(0, 1, 2)),
    "axis-dup": lambda xp: xp.linalg.norm(arr(xp), axis=(0, 0)),
    "3d-no-axis-ord": lambda xp: xp.linalg.norm(arr(xp, (2, 2, 2)), ord=2),
    "0d-axis": lambda xp: xp.linalg.norm(arr(xp, ()), axis=0),
    "0d": lambda xp: xp.linalg.norm(arr(xp, ())),
}
for nname, fn in NORM.items():
    case(f"norm-{nname}", fn)

# ---- method arguments typed in C++ --------------------------------------------------------------

METHODS = {
    "astype-bad-dtype": lambda xp: arr(xp).astype("foo"),
    "astype-casting": lambda xp: arr(xp).astype(numpy.int32, casting="safe"),
    "astype-casting-none": lambda xp: arr(xp).astype(numpy.int32, casting=None),
    "astype-casting-bad": lambda xp: arr(xp).astype(numpy.int32, casting="nope"),
    "astype-order-none": lambda xp: arr(xp).astype(numpy.float32, order=None),
    "astype-order-bad": lambda xp: arr(xp).astype(numpy.float32, order="Q"),
    "astype-copy-none": lambda xp: arr(xp).astype(numpy.float32, copy=None),
    "astype-none": lambda xp: arr(xp, dtype="int32").astype(None),
    "copy-order-none": lambda xp: arr(xp).copy(order=None),
    "copy-order-bad": lambda xp: arr(xp).copy(order="Q"),
    "ravel-order-none": lambda xp: arr(xp).ravel(order=None),
    "flatten-order-int": lambda xp: arr(xp).flatten(order=1),
    "view-bad-dtype": lambda xp: arr(xp).view("foo"),
    "view-itemsize": lambda xp: arr(xp, (2, 3)).view(numpy.complex128),
    "diagonal-float": lambda xp: arr(xp).diagonal(1.0),
    "diagonal-huge": lambda xp: arr(xp).diagonal(10 ** 20),
    "diagonal-same-axes": lambda xp: arr(xp).diagonal(0, 0, 0),
    "diagonal-1d": lambda xp: arr(xp, (3,)).diagonal(),
    "take-float-axis": lambda xp: arr(xp).take(0, axis=0.0),
    "take-out-of-bounds": lambda xp: arr(xp).take(7),
    "take-bad-mode": lambda xp: arr(xp).take(0, mode="nope"),
    "take-0d-axis0": lambda xp: xp.take(arr(xp, ()), 0, axis=0),
    "take-0d-axis1": lambda xp: xp.take(arr(xp, ()), 0, axis=1),
    "clip-none": lambda xp: xp.clip(arr(xp)),
    "round-float-decimals": lambda xp: xp.round(arr(xp), 1.5),
    "put-out-of-bounds": lambda xp: arr(xp).put([10], 1.0),
    "take_along_axis-ndim": lambda xp: xp.take_along_axis(arr(xp), xp.asarray([0]), axis=0),
    "take_along_axis-float": lambda xp: xp.take_along_axis(arr(xp), xp.asarray([[0.0]]), axis=0),
    "nonzero-0d": lambda xp: xp.nonzero(arr(xp, ())),
    "compress-2d-cond": lambda xp: xp.compress(xp.asarray([[True]]), arr(xp)),
}
for mname, fn in METHODS.items():
    case(f"method-{mname}", fn)


# ---- dtype= and out= of every public function that takes them -----------------------------------
# One row per function: the call with `v` as its dtype= (or out=); every value of the kind is
# tried. out= values are made from NumPy's own result of the call (its shape and dtype).

DTYPE_KIND = {"unknown": "foo", "float": 1.5, "none": None, "name": "float32", "type": numpy.int16,
              "dtype": numpy.dtype("uint8"), "char": "b", "bool": bool, "complex": complex}
# dtypes numfuse has no arrays of (by design): where NumPy accepts them numfuse raises TypeError
# naming the dtype; where NumPy refuses them too, numfuse raises NumPy's class or that TypeError.
DTYPES_NUMFUSE_LACKS = {"object": object, "str_type": str, "structured": [("a", "f8")],
                        "unicode": "U3", "datetime": "M8[s]", "void": "V8"}


def _shape_dtype(r):
    """What an uninitialised result is, not its values."""
    return numpy.shape(r), numpy.asarray(r).dtype


DTYPE_ROWS = {
    **{f: (lambda xp, v, f=f: getattr(xp, f)(arr(xp), dtype=v))
       for f in ("sum", "prod", "mean", "cumsum", "cumprod", "nansum", "nanprod", "nanmean",
                 "nancumsum", "nancumprod", "std", "var", "nanstd", "nanvar")},
    **{f"method_{f}": (lambda xp, v, f=f: getattr(arr(xp), f)(dtype=v))
       for f in ("sum", "prod", "mean", "cumsum", "cumprod", "std", "var")},
    "astype": lambda xp, v: arr(xp).astype(v),
    "view": lambda xp, v: arr(xp).view(v),
    "arange": lambda xp, v: xp.arange(3, dtype=v),
    "array": lambda xp, v: xp.array([1, 0], dtype=v),
    "asarray": lambda xp, v: xp.asarray([1, 0], dtype=v),
    "ascontiguousarray": lambda xp, v: xp.ascontiguousarray([1, 0], dtype=v),
    "zeros": lambda xp, v: xp.zeros(2, dtype=v), "ones": lambda xp, v: xp.ones(2, dtype=v),
    "empty": lambda xp, v: _shape_dtype(xp.empty(2, dtype=v)),
    "full": lambda xp, v: xp.full(2, 1, dtype=v), "eye": lambda xp, v: xp.eye(2, dtype=v),
    "identity": lambda xp, v: xp.identity(2, dtype=v), "tri": lambda xp, v: xp.tri(2, dtype=v),
    "linspace": lambda xp, v: xp.linspace(0, 1, 3, dtype=v),
    "logspace": lambda xp, v: xp.logspace(0, 1, 3, dtype=v),
    "zeros_like": lambda xp, v: xp.zeros_like(arr(xp), dtype=v),
    "ones_like": lambda xp, v: xp.ones_like(arr(xp), dtype=v),
    "empty_like": lambda xp, v: _shape_dtype(xp.empty_like(arr(xp), dtype=v)),
    "full_like": lambda xp, v: xp.full_like(arr(xp), 1, dtype=v),
    "frombuffer": lambda xp, v: xp.frombuffer(bytes(range(16)), dtype=v),
    **{f: (lambda xp, v, f=f: getattr(xp, f)([arr(xp), arr(xp)], dtype=v))
       for f in ("concatenate", "stack", "hstack", "vstack")},
    "einsum": lambda xp, v: xp.einsum("ij->j", arr(xp), dtype=v),
    "matmul": lambda xp, v: xp.matmul(arr(xp), arr(xp).T, dtype=v),
    "ufunc_add": lambda xp, v: xp.add(arr(xp), 1, dtype=v),
    "random": lambda xp, v: _shape_dtype(xp.random.default_rng(0).random(2, dtype=v)),
    "standard_normal": lambda xp, v: _shape_dtype(xp.random.default_rng(0).standard_normal(2, dtype=v)),
    "integers": lambda xp, v: _shape_dtype(xp.random.default_rng(0).integers(0, 2, 2, dtype=v)),
    "randint": lambda xp, v: _shape_dtype(xp.random.randint(0, 2, 2, dtype=v)),
}
# Known differences, named so that they flip when fixed.
INT_MEAN = "mean/var/std with an integer or bool dtype=: NumPy divides and casts back, numfuse has no loop"
DTYPE_XFAIL = {(f"{m}{r}", v): INT_MEAN for m in ("", "method_") for r in ("mean", "std", "var")
               for v in ("type", "dtype", "char", "bool")}
for rname, fn in DTYPE_ROWS.items():
    for vname, value in DTYPE_KIND.items():
        case(f"dtype-{rname}-{vname}", lambda xp, f=fn, v=value: f(xp, v),
             DTYPE_XFAIL.get((rname, vname)))


@pytest.mark.parametrize("row,value", [pytest.param(fn, v, id=f"{r}-{vn}")
                                       for r, fn in DTYPE_ROWS.items()
                                       for vn, v in DTYPES_NUMFUSE_LACKS.items()])
def test_dtype_numfuse_lacks(row, value, device):
    import numfuse
    try:
        row(numpy, value)
        expected = None
    except Exception as e:  # noqa: BLE001 - any class NumPy raises is the one to compare
        expected = type(e)
    with pytest.raises(Exception) as got:
        row(numfuse, value)
    if expected is None or not isinstance(got.value, expected):
        assert isinstance(got.value, TypeError) and "does not support dtype" in str(got.value), got.value

OUT_KIND = {
    "ok": lambda xp, ref: xp.zeros(ref.shape, ref.dtype),
    "wrong_shape": lambda xp, ref: xp.zeros(ref.shape + (2,), ref.dtype),
    "fewer_dims": lambda xp, ref: xp.zeros(ref.shape[1:], ref.dtype),
    "int8": lambda xp, ref: xp.zeros(ref.shape, numpy.int8),
    "complex": lambda xp, ref: xp.zeros(ref.shape, numpy.complex128),
    "list": lambda xp, ref: numpy.zeros(ref.shape).tolist(),
    "tuple": lambda xp, ref: (xp.zeros(ref.shape, ref.dtype),),
    "readonly": lambda xp, ref: xp.broadcast_to(xp.zeros((), ref.dtype), ref.shape),
    "scalar": lambda xp, ref: 0.0,
}
OUT_ROWS = {
    **{f: (lambda xp, o, f=f: getattr(xp, f)(arr(xp), axis=0, out=o))
       for f in ("sum", "prod", "mean", "max", "min", "all", "any", "argmax", "argmin", "ptp",
                 "std", "var", "cumsum", "cumprod", "nansum", "nanmean", "nanmax", "nancumsum")},
    **{f"method_{f}": (lambda xp, o, f=f: getattr(arr(xp), f)(axis=1, out=o))
       for f in ("sum", "max", "argmax", "cumsum", "mean")},
    "round": lambda xp, o: xp.round(arr(xp), 1, out=o),
    "around": lambda xp, o: xp.around(arr(xp), out=o),
    "clip": lambda xp, o: xp.clip(arr(xp), -1.0, 1.0, out=o),
    "fix": lambda xp, o: xp.fix(arr(xp), out=o),
    "isposinf": lambda xp, o: xp.isposinf(arr(xp), out=o),
    "isneginf": lambda xp, o: xp.isneginf(arr(xp), out=o),
    "compress": lambda xp, o: xp.compress([True, False], arr(xp), axis=0, out=o),
    "take": lambda xp, o: xp.take(arr(xp), [0, 2], axis=1, out=o),
    "concatenate": lambda xp, o: xp.concatenate([arr(xp), arr(xp)], out=o),
    "dot": lambda xp, o: xp.dot(arr(xp), arr(xp).T, out=o),
    "matmul": lambda xp, o: xp.matmul(arr(xp), arr(xp).T, out=o),
    "einsum": lambda xp, o: xp.einsum("ij->j", arr(xp), out=o),
    "outer": lambda xp, o: xp.outer(arr(xp, (2,)), arr(xp, (3,)), out=o),
    "ufunc_add": lambda xp, o: xp.add(arr(xp), 1.0, out=o),
    "random": lambda xp, o: _shape_dtype(xp.random.default_rng(0).random(out=o)),
}


def _out_call(xp, fn, make_out):
    out = make_out(xp, numpy.asarray(fn(numpy, None)))
    res = fn(xp, out)
    return res is out, out


OUT_XFAIL = {
    ("std", "int8"): "std into an int8 out=: NumPy's sqrt refuses the cast, numfuse casts",
    ("nanmean", "int8"): "nanmean into an int8 out=: NumPy refuses an exact out for inexact input",
    **{("nanmean", v): "nanmean(out=non-array): NumPy's AttributeError is an accident of its code"
       for v in ("list", "tuple", "scalar")},
    **{(r, "wrong_shape"): "NumPy accepts an out= with an extra trailing dim here (broadcast)"
       for r in ("cumsum", "cumprod", "nancumsum", "method_cumsum", "matmul")},
}
for rname, fn in OUT_ROWS.items():
    for vname, make in OUT_KIND.items():
        case(f"out-{rname}-{vname}", lambda xp, f=fn, m=make: _out_call(xp, f, m),
             OUT_XFAIL.get((rname, vname)))


@pytest.mark.parametrize("body", CASES)
def test_bad_input(body, device):
    run_both(body, device=device)


def test_case_count():
    """The suite keeps at least 300 cases (issue 10)."""
    assert len(CASES) >= 300, len(CASES)
