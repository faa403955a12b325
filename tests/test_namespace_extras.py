"""The rest of NumPy's top-level names (python/numfuse/_namespace_extras.py) against NumPy: the
constants and types are NumPy's own objects, the dtype- and shape-only functions give NumPy's
answers for numfuse operands, and the names that need the host say so."""
import io
import re
import warnings

import numpy
import pytest

from harness import ALL_DTYPES, INEXACT_DTYPES, make_array, numfuse_module, oracle

nf = numfuse_module()

# The names not yet given (the report says why); the list only shrinks.
STILL_MISSING = set()

SAME_OBJECTS = ["False_", "True_", "ScalarType", "little_endian", "typecodes", "sctypeDict", "long",
                "ulong", "bytes_", "str_", "void", "object_", "character", "flexible",
                "longdouble", "clongdouble", "exceptions", "dtypes", "typename", "getbufsize",
                "setbufsize", "info"]


@pytest.mark.parametrize("name", [n for n in SAME_OBJECTS + ["float128", "complex256"]
                                  if hasattr(numpy, n)])  # those the installed NumPy has
def test_is_numpys_object(name):
    assert getattr(nf, name) is getattr(numpy, name)


def test_no_top_level_name_of_numpy_is_missing_but_the_documented_ones():
    # Every public name of the installed NumPy exists in numfuse (the report lists none missing).
    missing = [n for n in dir(numpy) if not n.startswith("_") and not hasattr(nf, n)]
    assert set(missing) <= STILL_MISSING


@pytest.mark.parametrize("dtype", [numpy.str_, numpy.bytes_, numpy.void, numpy.object_,
                                   numpy.longdouble, numpy.clongdouble, "M8[s]", "m8[ms]"], ids=str)
def test_unsupported_scalar_types_raise_typeerror_naming_the_dtype(dtype, device):
    with pytest.raises(TypeError, match=re.escape(repr(numpy.dtype(dtype)))):
        nf.zeros(3, dtype=dtype, device=device)


def test_numfuse_raises_numpys_axiserror_so_exceptions_catches_it(device):
    a = nf.ones((2, 3), device=device)
    with pytest.raises(nf.exceptions.AxisError):
        nf.sum(a, axis=2)
    assert nf.exceptions.AxisError is numpy.exceptions.AxisError
    with pytest.raises(nf.exceptions.AxisError):
        nf.moveaxis(a, 5, 0)


def test_names_numpy_lacks_are_absent():
    # numfuse follows the installed NumPy: nothing NumPy no longer has is offered
    extra = [n for n in nf._namespace_extras.__all__ + nf._host_families.__all__
             if not hasattr(numpy, n)]
    assert extra == []


def test_typename_and_bufsize():
    for ch in "bBhHiIlLqQfdgFDGSUVO?":
        assert nf.typename(ch) == numpy.typename(ch)
    before = nf.getbufsize()
    try:
        nf.setbufsize(16384)
        assert numpy.getbufsize() == 16384 == nf.getbufsize()
    finally:
        nf.setbufsize(before)


TYPE_SETS = [("float32",), ("float32", "float64"), ("int8", "float32"), ("int64",),
             ("complex64", "float64"), ("float16", "complex64"), ("uint8", "int16")]


@pytest.mark.parametrize("dtypes", TYPE_SETS, ids=str)
@oracle()
def test_common_type(xp, dtypes):
    return xp.dtype(xp.common_type(*[xp.zeros((2,), dtype=d) for d in dtypes]))


@oracle()
def test_common_type_of_bool_raises(xp):
    return xp.common_type(xp.zeros(2, dtype=bool))


@pytest.mark.parametrize("dtypes", TYPE_SETS + [("bool",)], ids=str)
@pytest.mark.parametrize("typeset", ["GDFgdf", "fd", "FD"])
@oracle()
def test_mintypecode(xp, dtypes, typeset):
    chars = [xp.zeros(1, dtype=d) for d in dtypes] + ["f"]
    return xp.mintypecode(chars, typeset=typeset), xp.mintypecode("".join(
        numpy.dtype(d).char for d in dtypes), typeset=typeset)


EINSUMS = [("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk,kl->il", [(8, 3), (3, 20), (20, 2)]),
           ("abc,cd,de->abe", [(2, 3, 4), (4, 30), (30, 2)]), ("ii->i", [(4, 4)]),
           ("...i,...i->...", [(3, 5), (5,)])]


@pytest.mark.parametrize("optimize", ["greedy", "optimal", True, False])
@pytest.mark.parametrize("subscripts,shapes", EINSUMS, ids=[e[0] for e in EINSUMS])
def test_einsum_path_is_numpys_path_and_report(device, subscripts, shapes, optimize):
    host = [make_array(s, numpy.dtype(numpy.float64), seed=i) for i, s in enumerate(shapes)]
    ours = [nf.asarray(h, device=device) for h in host]
    want = numpy.einsum_path(subscripts, *host, optimize=optimize)
    got = nf.einsum_path(subscripts, *ours, optimize=optimize)
    assert got == want
    # and numpy's own entry point dispatches to it for numfuse operands
    assert numpy.einsum_path(subscripts, *ours, optimize=optimize) == want


def test_einsum_path_errors_are_numpys(device):
    a = nf.ones((3, 4), device=device)
    with pytest.raises(ValueError) as want:
        numpy.einsum_path("ij,jk->ik", numpy.ones((3, 4)), numpy.ones((5, 2)))
    with pytest.raises(ValueError) as got:
        nf.einsum_path("ij,jk->ik", a, nf.ones((5, 2), device=device))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("view", ["c", "f", "t", "row", "col", "scalar", "strided"])
@oracle()
def test_isfortran(xp, view):
    a = xp.asarray(make_array((3, 4), numpy.dtype(numpy.float32)))
    return xp.isfortran({"c": a, "f": xp.asfortranarray(a), "t": a.T, "row": a[:1],
                         "col": a[:, :1], "scalar": a[0, 0], "strided": a[:, ::2]}[view])


@pytest.mark.skipif(not hasattr(numpy, "row_stack"), reason="the installed NumPy removed row_stack")
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle()
def test_row_stack_warns_and_stacks(xp, dtype):
    a = xp.asarray(make_array((2, 3), dtype))
    b = xp.asarray(make_array((3,), dtype, seed=1))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = xp.row_stack((a, b))
    assert [(c.category, str(c.message)) for c in w] == [
        (DeprecationWarning, "`row_stack` alias is deprecated. Use `np.vstack` directly.")]
    assert w[0].filename == __file__  # the caller's line, as NumPy reports it
    return res


def test_show_config_and_runtime(capsys):
    conf = nf.show_config(mode="dicts")
    assert conf["numfuse"]["version"] == nf.__version__
    assert conf["numfuse"]["cuda_available"] == nf.cuda.is_available()
    assert set(numpy.show_config(mode="dicts")) <= set(conf)
    nf.show_config()
    out = capsys.readouterr().out
    assert out.startswith("numfuse:") and "Build Dependencies" in out
    nf.show_runtime()
    assert "numfuse" in capsys.readouterr().out


def test_get_include_is_numpys():
    assert nf.get_include() == numpy.get_include()


def test_info_prints_a_numfuse_docstring(capsys):
    nf.info(nf.einsum_path)
    assert "einsum_path" in capsys.readouterr().out


def test_test_runs_pytest_on_the_suite(monkeypatch):
    import pytest as pt
    seen = []
    monkeypatch.setattr(pt, "main", lambda args: seen.append(args) or 0)
    assert nf.test("-k", "nothing") is True
    assert seen[0][0].endswith("tests") and seen[0][-2:] == ["-k", "nothing"]


REGEX_TEXT = "1312 foo\n1534  bar\n444   qux\n"


@pytest.mark.parametrize("dtype", ["int64", "float32", "int16"])
@oracle()
def test_fromregex_plain_dtype(xp, dtype):
    return xp.fromregex(io.StringIO(REGEX_TEXT), r"(\d+)\s+\w+", dtype)


def test_fromregex_structured_dtype_raises_typeerror():
    with pytest.raises(TypeError, match="structured"):
        nf.fromregex(io.StringIO(REGEX_TEXT), r"(\d+)\s+(...)", [("num", "i8"), ("key", "S3")])


def test_nested_iters_reads_numfuse_values(device):
    host = numpy.arange(24).reshape(2, 3, 4)
    a = nf.asarray(host, device=device)
    want = [[list(map(int, i)) for _ in o] for o, i in [numpy.nested_iters(host, [[1], [0, 2]])]]
    got_outer, got_inner = nf.nested_iters(a, [[1], [0, 2]])
    wo, wi = numpy.nested_iters(host, [[1], [0, 2]])
    got, exp = [], []
    for _ in got_outer:
        got.append([int(x) for x in got_inner])
    for _ in wo:
        exp.append([int(x) for x in wi])
    assert got == exp and want  # want: the same call on NumPy arrays works as well
    with pytest.raises(TypeError, match="numfuse array"):
        nf.nested_iters([a], [[1], [0, 2]], op_flags=[["readwrite"]])


def test_flat_is_flatiter(device):
    a = nf.ones((2, 3), device=device)
    assert type(a.flat) is nf.flatiter


@pytest.mark.parametrize("dtype", INEXACT_DTYPES, ids=str)
def test_common_type_matches_numpy_dispatch(dtype, device):
    # numpy.common_type(numfuse_array) reaches numfuse's through __array_function__
    a = nf.ones(3, dtype=dtype, device=device)
    assert numpy.common_type(a) is numpy.common_type(numpy.ones(3, dtype=dtype))
