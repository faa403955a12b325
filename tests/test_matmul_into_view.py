"""`dst[key] = x @ y` where the product is a temporary: the graph computes it straight into dst
when dst is a C-contiguous view that no operand of the product meets (graph/eval.cpp's
eval_into), and through a temporary otherwise. Seeded programs compare each with NumPy: the
operands are views of the target itself (overlapping the destination or beside it) or of other
arrays, pending or materialised, the value a temporary or a name read again afterwards.
"""
import random

import numpy
import pytest

from harness import numfuse_module, oracle, run_both

DTYPES = ["float64", "float32", "complex128", "int64"]


def _values(rng, shape, dtype):
    if dtype == "int64":
        return rng.integers(-5, 6, size=shape).astype(dtype)
    v = rng.standard_normal(shape)
    if dtype == "complex128":
        v = v + 1j * rng.standard_normal(shape)
    return v.astype(dtype)


def _program(xp, seed, dtype):
    """Steps of `dst = x @ y` on a target (rows x cols), some of them reading the target."""
    r = random.Random(seed)
    gen = numpy.random.default_rng(seed)
    rows, cols = r.randint(2, 12), r.randint(2, 12)
    t = xp.asarray(_values(gen, (rows, cols), dtype))
    if r.random() < 0.5:
        t = t * 1  # pending target: the write materialises it first
    other = xp.asarray(_values(gen, (max(rows, cols), max(rows, cols)), dtype))
    held = []
    for _ in range(r.randint(1, 4)):
        i = r.randrange(rows)
        form = r.choice(["vec_mat", "mat_vec", "mat_mat", "column"])
        src = t if r.random() < 0.6 else other  # the target itself: the operands may meet dst
        if form == "vec_mat":  # t[i] = v @ S[:, j:j+cols]: a row of cols, from k rows of S
            k = r.randint(1, min(src.shape[0], rows))
            j = r.randrange(src.shape[1] - cols + 1) if src.shape[1] >= cols else None
            if j is None:
                continue
            v = src[r.randrange(src.shape[0]), :k] if r.random() < 0.5 else xp.asarray(_values(gen, (k,), dtype))
            lhs, rhs, key = v, src[:k, j:j + cols], i
        elif form == "mat_vec":  # t[i, :n] = S[a:a+n, :k] @ u
            n = r.randint(1, min(cols, src.shape[0]))
            k = r.randint(1, src.shape[1])
            a = r.randrange(src.shape[0] - n + 1)
            u = src[r.randrange(src.shape[0]), :k]
            lhs, rhs, key = src[a:a + n, :k], u, (i, slice(0, n))
        elif form == "mat_mat":  # t[i0:i0+m] = S[:m, :k] @ S[:k, :cols] (whole rows: contiguous)
            m = r.randint(1, rows)
            k = r.randint(1, min(src.shape))
            if src.shape[1] < cols:
                continue
            i0 = r.randrange(rows - m + 1)
            if m > src.shape[0]:
                continue
            lhs, rhs, key = src[:m, :k], src[:k, :cols], slice(i0, i0 + m)
        else:  # t[:, j] = S[:rows, :k] @ u: a strided destination, never redirected
            k = r.randint(1, src.shape[1])
            if src.shape[0] < rows:
                continue
            lhs, rhs, key = src[:rows, :k], src[0, :k], (slice(None), r.randrange(cols))
        if r.random() < 0.3:
            value = lhs @ rhs
            held.append(value)  # read again after the write: never written into dst
            t[key] = value
        else:
            t[key] = lhs @ rhs  # a temporary: computed into t's memory where nothing meets it
        del lhs, rhs
        if r.random() < 0.3:
            t += 1
    return [t] + held


# Sums of products in another order (BLAS's blocking against NumPy's) differ by rounding: a few
# ulp of the largest term, which cancellation can leave beside a small result.
TOLERANCE = {"float64": (1e-12, 1e-12), "float32": (1e-5, 1e-5), "complex128": (1e-12, 1e-12),
             "int64": (0, 0)}


@pytest.mark.parametrize("dtype", DTYPES)
def test_products_into_views_match_numpy(device, dtype):
    rtol, atol = TOLERANCE[dtype]
    for seed in range(150):
        try:
            run_both(_program, seed, dtype, device=device, rtol=rtol, atol=atol)
        except AssertionError as e:
            raise AssertionError(f"program seed {seed} dtype {dtype}: {e}") from None


@oracle(rtol=1e-12, atol=1e-12)  # BLAS sums in its own order
def test_bench_loop_into_own_rows(xp):
    """The bench loop with `out` the matrix itself: each product reads rows it then writes."""
    gen = numpy.random.default_rng(5)
    m = xp.asarray(gen.standard_normal((40, 52)))
    v = xp.asarray(gen.standard_normal(40))
    for i in range(40):
        m[i, :12] = v @ m[:, i:i + 12]
    return m


@oracle(rtol=1e-12, atol=1e-12)  # BLAS sums in its own order
def test_bench_loop_into_other_array(xp):
    gen = numpy.random.default_rng(6)
    m = xp.asarray(gen.standard_normal((30, 94)))
    v = xp.asarray(gen.standard_normal(30))
    out = xp.empty((30, 64))
    for i in range(30):
        out[i] = v @ m[:, i:i + 64]
    return out


@oracle(rtol=1e-12, atol=1e-12)  # BLAS sums in its own order
def test_vector_into_its_own_row(xp):
    """v is a row of dst's array and dst is that very row: the product reads what it writes."""
    gen = numpy.random.default_rng(7)
    a = xp.asarray(gen.standard_normal((6, 6)))
    a[2] = a[2] @ a
    a[3] = a @ a[3]
    return a


@oracle(rtol=1e-12, atol=1e-12)  # BLAS sums in its own order
def test_pending_destination_and_reader(xp):
    """dst pending (a fill) with a pending reader of its memory: the reader sees the old values."""
    gen = numpy.random.default_rng(8)
    m = xp.asarray(gen.standard_normal((8, 8)))
    out = xp.zeros((4, 8))
    before = out * 2  # pending reader of out's memory
    out[1] = m[0] @ m
    return out, before


@oracle(rtol=1e-12, atol=1e-12)  # BLAS sums in its own order
def test_errors_leave_destination(xp):
    gen = numpy.random.default_rng(9)
    out = xp.asarray(gen.standard_normal((3, 4)))
    try:
        out[0] = xp.ones(5) @ xp.ones((5, 3))  # (3,) into (4,): NumPy's broadcast error
    except ValueError:
        pass
    return out




def test_two_arrays_over_one_memory():
    """Two arrays over one buffer (numfuse.memmap's route: _wrap_host_memory) are two storages
    over the same bytes, read lazily: the product must not be written where it reads (NumPy
    judges overlap by address, and so must the write into the destination)."""
    nf = numfuse_module()
    host = numpy.arange(36.0).reshape(6, 6)
    buf = bytearray(host.tobytes())
    a = nf._core._wrap_host_memory(buf, numpy.dtype("float64")).reshape(6, 6)
    b = nf._core._wrap_host_memory(buf, numpy.dtype("float64")).reshape(6, 6)
    x = numpy.frombuffer(bytearray(host.tobytes())).reshape(6, 6)  # NumPy's, over one buffer
    for xp_a, xp_b in ((a, b), (x, x)):
        xp_a[0] = xp_b[0] @ xp_b
        xp_a[1, :3] = xp_b[1:4, :2] @ xp_b[:2, 1]
        xp_a[4] = xp_b @ xp_b[4]
    numpy.testing.assert_allclose(nf.asnumpy(a), x, rtol=1e-12)


def test_writes_between_two_mappings_of_one_file(tmp_path):
    """Two numfuse.memmap of one file show the same bytes at different addresses: an elementwise
    write from one into the other, shifted, and a product, must equal NumPy's (which computes
    the right side first). The elementwise one was written straight into the destination."""
    nf = numfuse_module()
    n = 200_000  # past the size of ops run at once: the right side is pending at the write
    path = tmp_path / "data.bin"
    numpy.arange(float(n)).tofile(path)
    results = []
    for xp in (numpy, nf):
        numpy.arange(float(n)).tofile(path)
        a, b = xp.memmap(path, dtype="float64", mode="r+"), xp.memmap(path, dtype="float64", mode="r+")
        view = a[:]  # a plain array over the mapping (the memmap's own __setitem__ evaluates first)
        view[1:] = b[:-1] * 2
        m_a, m_b = a[:300 * 300].reshape(300, 300), b[:300 * 300].reshape(300, 300)
        m_a[0] = m_b[1] @ m_b
        results.append(numpy.array(view))
        del a, b, view, m_a, m_b
    numpy.testing.assert_allclose(results[1], results[0], rtol=1e-12)
