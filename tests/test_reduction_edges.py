"""Reductions, scans and gathers at the edges of their geometry (issue 10): 0-d inputs, empty
axis tuples, size-1 and size-0 axes, on materialised and pending inputs. These once read memory
before a buffer (a stride of an empty reduced space); `make test-sanitize` runs this file under
ASan + UBSan so that a read out of bounds fails even when the value it read happened to be right."""
import itertools

import numpy
import pytest

from harness import oracle

SHAPES = [(), (1,), (4,), (0,), (1, 1), (3, 1), (1, 4), (2, 0, 3), (2, 3), (2, 1, 3)]
FUNCS = ["sum", "prod", "max", "min", "any", "all", "mean", "argmax", "argmin", "nansum",
         "nanmax", "nanargmax", "cumsum", "cumprod", "count_nonzero", "var"]


def _axes(ndim):
    """Every axis argument NumPy accepts for this rank: None, each axis, (), and tuples."""
    out = [None, ()]
    out += list(range(-ndim, ndim))
    out += [t for r in range(1, ndim + 1) for t in itertools.combinations(range(ndim), r)]
    return out


def _cases():
    for shape in SHAPES:
        for fn in FUNCS:
            axes = _axes(len(shape))
            if fn in ("argmax", "argmin", "nanargmax", "cumsum", "cumprod"):
                axes = [a for a in axes if not isinstance(a, tuple)]  # one axis at most
            for axis in axes:
                yield shape, fn, axis


@pytest.mark.parametrize("pending", [False, True], ids=["materialised", "pending"])
@pytest.mark.parametrize("shape,fn,axis", list(_cases()), ids=str)
def test_reduction_geometry(shape, fn, axis, pending):
    @oracle(rtol=1e-12)
    def body(xp):
        a = xp.asarray(numpy.arange(1.0, 1.0 + numpy.prod(shape)).reshape(shape) % 3 + 0.5)
        if pending:
            a = a * 1.0
        return getattr(xp, fn)(a, axis=axis)
    body()


@pytest.mark.parametrize("pending", [False, True], ids=["materialised", "pending"])
@pytest.mark.parametrize("shape", [(4,), (2, 3), (3, 1)], ids=str)
def test_nanarg_all_nan_raises(shape, pending):
    for fn in ("nanargmax", "nanargmin"):
        for axis in [None] + list(range(len(shape))):
            @oracle()
            def body(xp):
                a = xp.asarray(numpy.full(shape, numpy.nan))
                if pending:
                    a = a * 1.0
                return getattr(xp, fn)(a, axis=axis)
            body()


@pytest.mark.parametrize("case", ["zero_weights", "returned", "returned_weights", "axis_returned",
                                  "empty_axis_zero_weights"])
def test_average_edges(case):
    @oracle(rtol=1e-12)
    def body(xp):
        x = xp.asarray(numpy.arange(6.0).reshape(2, 3))
        if case == "zero_weights":
            return xp.average(x, weights=xp.zeros((2, 3)))
        if case == "returned":
            return xp.average(x, returned=True)
        if case == "returned_weights":
            return xp.average(x, axis=1, weights=xp.asarray([1.0, 2.0, 3.0]), returned=True)
        if case == "axis_returned":
            return xp.average(x * 1.0, axis=0, returned=True)
        return xp.average(x, axis=1, weights=xp.asarray([0.0, 0.0, 0.0]))
    body()


@pytest.mark.parametrize("shape", [(), (1,), (0,), (3,), (2, 0), (2, 3)], ids=str)
def test_gathers_on_small_shapes(shape):
    @oracle()
    def body(xp):
        a = xp.asarray(numpy.arange(float(numpy.prod(shape))).reshape(shape))
        outs = [a[...], a[None], a[()]]
        if a.ndim:
            idx = xp.asarray(numpy.zeros((0,), numpy.int64))
            outs += [a[idx], xp.take(a, idx, axis=0), a[a > 1]]
            if a.shape[0]:
                outs += [a[xp.asarray(numpy.array([0, -1, 0]))], a[xp.asarray(numpy.array(0))]]
        return tuple(outs)
    body()
