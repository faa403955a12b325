"""Matrix multiplication kernels of Numba's documentation (the naive one and the shared-memory
tiled one), unchanged but for the import lines:

    from numba import cuda, float32   ->   from numfuse import cuda, float32
"""
import math

import numpy as np

from numfuse import cuda, float32

TPB = 16  # threads per block along each dimension (and the tile width)


@cuda.jit
def matmul(A, B, C):
    """Perform square matrix multiplication of C = A * B."""
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


@cuda.jit
def fast_matmul(A, B, C):
    # Define an array in the shared memory
    # The size and type of the arrays must be known at compile time
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x    # blocks per grid

    # Each thread computes one element in the result matrix.
    # The dot product is chunked into dot products of TPB-long vectors.
    tmp = float32(0.)
    for i in range(bpg):
        # Preload data into shared memory
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]

        # Wait until all threads finish preloading
        cuda.syncthreads()

        # Computes partial product on the shared memory
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]

        # Wait until all threads finish computing
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


def main(n=None):
    n = n or (1024 if not cuda.simulating() else 48)
    rng = np.random.default_rng(0)
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    d_A, d_B = cuda.to_device(A), cuda.to_device(B)
    threadsperblock = (TPB, TPB)
    blockspergrid = (math.ceil(n / TPB), math.ceil(n / TPB))
    for kernel in (matmul, fast_matmul):
        d_C = cuda.device_array((n, n), np.float32)
        kernel[blockspergrid, threadsperblock](d_A, d_B, d_C)
        C = d_C.copy_to_host()
        assert np.allclose(C, A @ B, rtol=1e-4, atol=1e-4 * n)
        print(f"{kernel.__name__} {n}x{n}: ok")


if __name__ == "__main__":
    main()
