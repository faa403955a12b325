"""numfuse.stencil builds the graph of the slice-written stencil (issue 14: "as fast as the
slice-written one"): the pending interior of a stencil call explains exactly as the slices' right
side does, so the planner makes the same group and, on the GPU, the code generator the same
kernel (numfuse.explain prints its CUDA source there)."""
import numpy as np
import pytest

import numfuse as nf

N = 1024  # large enough to stay pending (small CPU operations run at once)


def five_point(a):
    return 0.25 * (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1])


def five_point_slices(a):
    return 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])


def smooth9(a):
    s = a[-1, -1]
    for i in range(-1, 2):
        for j in range(-1, 2):
            if i != -1 or j != -1:
                s += a[i, j]
    return s * np.float32(1.0 / 9.0)


def smooth9_slices(a):
    n0, n1 = a.shape
    s = a[0:n0 - 2, 0:n1 - 2]
    for i in range(3):
        for j in range(3):
            if i or j:
                s = s + a[i:n0 - 2 + i, j:n1 - 2 + j]
    return s * np.float32(1.0 / 9.0)


def weighted(a, w):
    return w[0] * a[0, -1] + w[1] * a[0, 0] + w[2] * a[0, 1]


def weighted_slices(a, w):
    return w[0] * a[:, :-2] + w[1] * a[:, 1:-1] + w[2] * a[:, 2:]


@pytest.mark.parametrize("kernel, slices, dtype, options", [
    (five_point, five_point_slices, np.float64, {}),
    (smooth9, smooth9_slices, np.float32, {}),
    (weighted, weighted_slices, np.float64, {"standard_indexing": ("w",)}),
], ids=["5-point", "9-point", "weights"])
def test_stencil_graph_is_the_slices_graph(device, kernel, slices, dtype, options):
    a = nf.asarray(np.random.default_rng(0).random((N, N)).astype(dtype), device=device)
    extra = ()
    if kernel is weighted:
        extra = (nf.asarray(np.array([0.25, 0.5, 0.25]), device=device),)
    nf.eval(a, *extra)
    k = nf.stencil(kernel, **options)
    got = nf.explain(k.interior_expression(a, *extra))
    want = nf.explain(slices(a, *extra))
    assert "pending" in want and got == want
    # and the values: the stencil's interior is the slices' result
    np.testing.assert_array_equal(nf.asnumpy(k.interior_expression(a, *extra)),
                                  nf.asnumpy(slices(a, *extra)))
