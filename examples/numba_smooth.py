"""A 9-point smoothing kernel on a 2-D float32 array, written as a Numba user writes it; only the
import line is numfuse's (from numba import cuda -> from numfuse import cuda)."""
import numpy as np

from numfuse import cuda


@cuda.jit
def smooth(a, out):
    x, y = cuda.grid(2)
    n, m = a.shape
    if 1 <= y < n - 1 and 1 <= x < m - 1:
        out[y, x] = (a[y - 1, x - 1] + a[y - 1, x] + a[y - 1, x + 1] +
                     a[y, x - 1] + a[y, x] + a[y, x + 1] +
                     a[y + 1, x - 1] + a[y + 1, x] + a[y + 1, x + 1]) / 9


def smooth_numpy(a):
    out = np.zeros_like(a)
    n, m = a.shape
    out[1:-1, 1:-1] = sum(a[1 + dy:n - 1 + dy, 1 + dx:m - 1 + dx]
                          for dy in (-1, 0, 1) for dx in (-1, 0, 1)) / np.float32(9)
    return out


def main(n=None):
    n = n or (8192 if not cuda.simulating() else 40)
    a = np.random.default_rng(0).random((n, n), dtype=np.float32)
    d_a = cuda.to_device(a)
    d_out = cuda.to_device(np.zeros_like(a))
    threads = (32, 8)
    blocks = ((n + threads[0] - 1) // threads[0], (n + threads[1] - 1) // threads[1])
    smooth[blocks, threads](d_a, d_out)
    out = d_out.copy_to_host()
    assert np.allclose(out, smooth_numpy(a), rtol=1e-5, atol=1e-6)
    print(f"9-point smoothing of {n}x{n} float32: ok")
    return out


if __name__ == "__main__":
    main()
