"""Reductions into an out= of another dtype (issue 10, a wrong answer found by the bad-input
suite): NumPy reduces in out's dtype only when the input casts to it safely, else in the usual
dtype, and casts the result. Every input dtype x out dtype x reduction, against NumPy."""
import warnings

import numpy
import pytest

from harness import ALL_DTYPES, make_array, run_both

REDUCTIONS = ["sum", "prod", "max", "min", "nansum", "nanmax"]
OUT_DTYPES = ["int8", "int64", "uint16", "float16", "float32", "float64", "complex64", "bool"]


@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_reduction_into_out_of_another_dtype(device, dtype, name, out_dtype):
    if dtype.kind == "c" and name in ("max", "min", "nanmax"):
        pytest.skip("complex max/min order is its own test")

    def body(xp):
        # Negative values into an unsigned out= take NumPy's unsafe casts at points of its
        # buffered loop that are its own; the values here are non-negative for those.
        low = 0 if dtype.kind == "u" or out_dtype.startswith("u") else -3
        a = xp.asarray(make_array((4, 3), dtype, seed=3, low=low, high=4))
        out = xp.zeros(3, dtype=out_dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # complex -> real casts warn on both sides
            getattr(xp, name)(a, axis=0, out=out)
        return out
    # A complex product rounds at each multiply in an order of its own: a few ulp of the loop's
    # precision (complex64 in a float32 out=, complex128 in a float64 one).
    rtol = {"float32": 2e-6, "float64": 1e-14}.get(out_dtype) if dtype.kind == "c" and name == "prod" else None
    run_both(body, device=device, rtol=rtol)
