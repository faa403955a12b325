"""The Array API standard's entry points against NumPy's own: the version, the inspection
namespace, ndarray.__array_namespace__, and the top-level astype / matrix_transpose / vecdot."""
import numpy
import pytest

from harness import ALL_DTYPES, make_array, numfuse_module, oracle

nf = numfuse_module()

KINDS = [None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric", ("bool", "real floating"), ("integral", "complex floating")]


def test_version_and_namespace():
    # The standard this numfuse implements (NumPy 2.5 reports 2025.12, NumPy 2.4 2024.12).
    assert nf.__array_api_version__ == "2024.12"
    a = nf.asarray([1.0, 2.0])
    assert a.__array_namespace__() is nf
    for v in ("2021.12", "2022.12", "2023.12", "2024.12"):
        assert a.__array_namespace__(api_version=v) is nf
    with pytest.raises(ValueError):
        numpy.asarray([1.0]).__array_namespace__(api_version="2019.12")
    with pytest.raises(ValueError):
        a.__array_namespace__(api_version="2019.12")


@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_dtypes_by_kind_are_numpys(kind):
    want = numpy.__array_namespace_info__().dtypes(kind=kind)
    got = nf.__array_namespace_info__().dtypes(kind=kind)
    # NumPy has no float16 in the standard's kinds either; the same names in the same order.
    assert list(got) == list(want) and all(got[k] == want[k] for k in want)


def test_info_matches_numpy_on_the_cpu():
    ni, fi = numpy.__array_namespace_info__(), nf.__array_namespace_info__()
    assert fi.capabilities() == ni.capabilities()
    assert fi.default_dtypes() == ni.default_dtypes()
    assert fi.default_dtypes(device="cpu") == ni.default_dtypes(device="cpu")
    assert "cpu" in fi.devices()
    assert fi.default_device() in fi.devices()
    with pytest.raises(ValueError):
        fi.dtypes(kind="not a kind")
    with pytest.raises(ValueError):
        fi.dtypes(device="tpu")
    with pytest.raises(ValueError):
        ni.dtypes(kind="not a kind")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@oracle()
def test_astype_and_matrix_transpose(xp, dtype, device):
    a = xp.asarray(make_array((2, 3, 4), dtype))
    return xp.astype(a, "float64"), xp.matrix_transpose(a), xp.astype(a, dtype, copy=False)


@oracle()
def test_matrix_transpose_needs_two_dims(xp, device):
    return xp.matrix_transpose(xp.asarray([1.0, 2.0]))


@oracle()
def test_vecdot_at_the_top(xp, device):
    a = xp.asarray(make_array((3, 4), "complex128"))
    b = xp.asarray(make_array((3, 4), "complex128"))
    return xp.vecdot(a, b), xp.vecdot(a.real, b.real, axis=0)


@pytest.mark.parametrize("axis", [-1, -2, -3, -4, 0, 2])
@oracle(rtol=1e-12)
def test_linalg_vecdot_keeps_the_other_axes_in_order(xp, axis, device):
    # (2, 3, 4, 5) over axis -4 is (3, 4, 5), as NumPy's gufunc axis= gives it.
    a = xp.asarray(make_array((2, 3, 4, 5), "float64"))
    b = xp.asarray(make_array((3, 4, 5), "float64", seed=1))
    if axis in (-4, 0):
        b = xp.asarray(make_array((2, 3, 4, 5), "float64", seed=1))
    return xp.linalg.vecdot(a, b, axis=axis)


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "complex128"])
@pytest.mark.parametrize("axis", [-1, 0])
@oracle(rtol=1e-6)
def test_linalg_cross(xp, dtype, axis, device):
    shape = (3, 5) if axis == 0 else (5, 3)
    a = xp.asarray(make_array(shape, dtype))
    b = xp.asarray(make_array((1,) + shape, dtype, seed=2))  # broadcast against a
    return xp.linalg.cross(a, b, axis=axis)


@pytest.mark.parametrize("shapes", [((2,), (2,)), ((4, 2), (4, 3)), ((3, 2), (3, 2))], ids=str)
@oracle()
def test_linalg_cross_needs_three_vectors(xp, shapes, device):
    return xp.linalg.cross(xp.ones(shapes[0]), xp.ones(shapes[1]))


@oracle()
def test_linalg_matrix_transpose(xp, device):
    a = xp.asarray(make_array((2, 3, 4), "float32"))
    return xp.linalg.matrix_transpose(a), xp.linalg.matrix_transpose(a[:, ::-1, ::2])


@pytest.mark.parametrize("offset", [0, 1, -2, 5])
@pytest.mark.parametrize("dtype", ["int8", "float32", "complex128", "bool"])
@oracle()
def test_linalg_diagonal_and_trace(xp, offset, dtype, device):
    a = xp.asarray(make_array((2, 4, 5), dtype))
    return (xp.linalg.diagonal(a, offset=offset), xp.linalg.trace(a, offset=offset),
            xp.linalg.trace(a, offset=offset, dtype="float64"), xp.linalg.diagonal(a[:, ::-1], offset=offset))


@pytest.mark.parametrize("shapes", [((3, 4), (4,)), ((2, 3, 4), (4,)), ((3, 4), (5, 4)), ((4,), (4,)),
                                    ((2, 1, 3, 4), (5, 4))], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "complex128", "int32"])
@oracle(rtol=1e-12)
def test_matvec_and_vecmat(xp, shapes, dtype, device):
    # NumPy 2.2's matvec, and vecmat (conj of the vector) with the same operands' transposes.
    m, v = shapes
    a = xp.asarray(make_array(m, dtype))
    x = xp.asarray(make_array(v, dtype, seed=3))
    at = xp.matrix_transpose(a) if a.ndim >= 2 else a
    return xp.matvec(a, x), xp.vecmat(x, at)


def test_astype_takes_numpy_scalars_as_numpy_does():
    # a[()] of a CPU array is a NumPy scalar (as NumPy's): the standard's astype takes it back.
    nf = numfuse_module()
    for value in (numpy.False_, numpy.float32(2.5), numpy.int64(-3)):
        for dtype in (numpy.int8, numpy.float64, numpy.bool_):
            want, got = numpy.astype(value, dtype), nf.astype(value, dtype)
            assert type(got) is type(want) and got == want
    with pytest.raises(TypeError):
        nf.astype([1, 2], numpy.int8)


def test_asarray_copy_false_with_its_own_dtype_is_the_array():
    nf = numfuse_module()
    x = nf.asarray(numpy.arange(3, dtype=numpy.uint8))
    assert nf.asarray(x, dtype=numpy.uint8, copy=False) is x
    assert nf.asarray(x, dtype="uint8") is x
    with pytest.raises(ValueError, match="avoid copy"):
        nf.asarray(x, dtype=numpy.uint16, copy=False)
