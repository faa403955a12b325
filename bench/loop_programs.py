"""Issue 11's element-loop and boolean-mask programs, written as NumPy users write them: one body
run under NumPy and under numfuse by bench/run_cpu.py (--loops-only).

Each case is (name, fn(xp, *inputs), numpy inputs, rtol); fn returns what is compared.
"""
import numpy


def edit_distance(xp, s, t):
    """Levenshtein distance by dynamic programming over an (n+1) x (m+1) integer table."""
    n, m = s.shape[0], t.shape[0]
    d = xp.zeros((n + 1, m + 1), dtype=xp.int64)
    d[:, 0] = xp.arange(n + 1)
    d[0, :] = xp.arange(m + 1)
    for i in range(1, n + 1):
        si = s[i - 1]
        for j in range(1, m + 1):
            cost = 0 if si == t[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d


def lu_rows(xp, a):
    """Doolittle LU without pivoting, one row/column step per iteration (L below, U on and above)."""
    a = a.copy()
    n = a.shape[0]
    for i in range(n - 1):
        a[i + 1:, i] /= a[i, i]
        a[i + 1:, i + 1:] -= xp.outer(a[i + 1:, i], a[i, i + 1:])
    return a


def gauss_seidel(xp, u, sweeps):
    """Gauss-Seidel sweeps of the Laplace equation, element by element (boundaries fixed)."""
    u = u.copy()
    n, m = u.shape
    for _ in range(sweeps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
    return u


def adler32(xp, data):
    """Adler-32 of a byte array, one element at a time."""
    a, b = 1, 0
    for i in range(data.shape[0]):
        a = (a + int(data[i])) % 65521
        b = (b + a) % 65521
    return numpy.int64((b << 16) | a)


def element_reads(xp, x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return numpy.float64(s)


def element_writes(xp, x):
    x = x.copy()
    for i in range(x.shape[0]):
        x[i] = i * 0.5
    return x


def element_reads_2d(xp, a):
    s = 0.0
    n, m = a.shape
    for i in range(n):
        for j in range(m):
            s += a[i, j]
    return numpy.float64(s)


def row_copies(xp, a):
    """Small slices: rows read and written one at a time (a[i, :] = b[i - 1, :])."""
    out = xp.zeros_like(a)
    for i in range(1, a.shape[0]):
        out[i, :] = a[i - 1, :]
    return out


def window_sums(xp, x):
    """Small slices: a sum over each window of 8 elements."""
    out = xp.zeros(x.shape[0] - 8)
    for i in range(x.shape[0] - 8):
        out[i] = x[i:i + 8].sum()
    return out


def mask_reads(xp, x, iters):
    """x[x > t] for a range of thresholds; the sizes of the selections are summed."""
    total = 0
    for k in range(iters):
        total += x[x > (k % 10) / 10.0].shape[0]
    return numpy.int64(total)


def mask_read_sums(xp, x, iters):
    total = 0.0
    for k in range(iters):
        total += float(x[x > (k % 10) / 10.0].sum())
    return numpy.float64(total)


def mask_writes_scalar(xp, x, iters):
    x = x.copy()
    for k in range(iters):
        x[x > 0.9 - (k % 10) / 100.0] = k * 0.001
    return x


def mask_writes_array(xp, x, y, iters):
    """x[m] = y[m]: the array value has as many elements as the mask has Trues."""
    x = x.copy()
    for k in range(iters):
        m = x > 0.5 + (k % 10) / 100.0
        x[m] = y[m] * 0.5
    return x


def loop_cases(rng, quick=False):
    """(name, fn, numpy inputs, rtol) of issue 11's loops over elements, small slices and masks."""
    s = rng.integers(0, 4, 300 if not quick else 100).astype(numpy.uint8)
    t = rng.integers(0, 4, 300 if not quick else 100).astype(numpy.uint8)
    n_lu = 200
    lu_in = rng.random((n_lu, n_lu)) + n_lu * numpy.eye(n_lu)  # diagonally dominant: no pivoting
    grid = numpy.zeros((64, 64))
    grid[0, :] = 1.0
    data = rng.integers(0, 256, 100_000, dtype=numpy.uint8)
    x = rng.random(100_000)
    a2 = rng.random((300, 300))
    cases = [
        (f"edit distance {s.shape[0]}x{t.shape[0]} (int64 table)", edit_distance, (s, t), 0.0),
        (f"LU with row loops n={n_lu}", lu_rows, (lu_in,), 1e-12),
        ("Gauss-Seidel 64x64 element loops, 3 sweeps", lambda xp, u: gauss_seidel(xp, u, 3), (grid,), 1e-13),
        ("Adler-32 checksum loop, uint8 1e5", adler32, (data,), 0.0),
        ("s += x[i], float64 1e5", element_reads, (x,), 1e-12),
        ("x[i] = i * 0.5, float64 1e5", element_writes, (x,), 0.0),
        ("s += a[i, j], float64 300x300", element_reads_2d, (a2,), 1e-12),
        ("out[i, :] = a[i - 1, :], 300x300", row_copies, (a2,), 0.0),
        ("out[i] = x[i:i+8].sum(), 1e5", window_sums, (x,), 1e-12),
    ]
    for n, iters in ((10_000, 2000), (100_000, 500), (1_000_000, 50)):
        if quick:
            iters = max(iters // 10, 5)
        xm, ym = rng.random(n), rng.random(n)
        cases += [
            (f"{iters}x x[x > t].shape, float64 {n:.0e}", lambda xp, v, k=iters: mask_reads(xp, v, k), (xm,), 0.0),
            (f"{iters}x x[x > t].sum(), float64 {n:.0e}", lambda xp, v, k=iters: mask_read_sums(xp, v, k), (xm,), 1e-9),
            (f"{iters}x x[x > t] = scalar, float64 {n:.0e}", lambda xp, v, k=iters: mask_writes_scalar(xp, v, k), (xm,), 0.0),
            (f"{iters}x x[m] = y[m] * 0.5, float64 {n:.0e}", lambda xp, v, w, k=iters: mask_writes_array(xp, v, w, k), (xm, ym), 0.0),
        ]
    return cases
