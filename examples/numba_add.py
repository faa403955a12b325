"""The element-wise add kernel of Numba's documentation; only the import line is numfuse's.

    from numba import cuda   ->   from numfuse import cuda

Runs on the GPU when there is one, else on numfuse's CUDA simulator (as NUMBA_ENABLE_CUDASIM).
"""
import numpy as np

from numfuse import cuda


@cuda.jit
def add_kernel(x, y, out):
    idx = cuda.grid(1)
    if idx < out.size:
        out[idx] = x[idx] + y[idx]


def main(n=None):
    n = n or (1 << 24 if not cuda.simulating() else 4096)
    x = np.arange(n, dtype=np.float32)
    y = 2 * x
    d_x = cuda.to_device(x)
    d_y = cuda.to_device(y)
    d_out = cuda.device_array_like(d_x)
    threads_per_block = 128
    blocks_per_grid = (n + threads_per_block - 1) // threads_per_block
    add_kernel[blocks_per_grid, threads_per_block](d_x, d_y, d_out)
    out = d_out.copy_to_host()
    assert np.array_equal(out, x + y)
    print(f"add of {n} float32: ok")
    return out


if __name__ == "__main__":
    main()
