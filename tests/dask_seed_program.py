"""The seed's Dask program (issue 15): a tall-and-skinny SVD (da.linalg.svd, Dask's TSQR), a
5-point stencil through map_overlap, reductions along axes and a matmul, on Dask arrays whose
chunks are NumPy, numfuse or CuPy arrays. Shared by tests/test_dask_cluster.py and
bench/dask_program.py; run_numpy is the same program on whole NumPy arrays, the oracle."""
import dask
import dask.array as da
import numpy


def jacobi_step(b):
    """One 5-point Jacobi sweep: the interior becomes the mean of its four neighbours, the edge
    stays. The same code runs on a NumPy, numfuse or CuPy block."""
    out = b.copy()
    out[1:-1, 1:-1] = 0.25 * (b[:-2, 1:-1] + b[2:, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:])
    return out


def inputs(tall_shape=(20000, 50), grid_shape=(512, 512), row_chunks=4, grid_chunks=2, seed=0,
           backend="numpy"):
    """The inputs as Dask arrays, made where the chunks live (on the workers): a tall matrix in
    `row_chunks` row blocks (TSQR wants one column block) and a square grid in grid_chunks x
    grid_chunks blocks. The numbers are NumPy's (da.random with NumPy chunks, one seed per
    chunk), the same whatever `backend` ("numpy", "numfuse", "cupy") the chunks are then moved
    to by Dask's to_backend; `.compute()` of the NumPy ones gives the oracle's inputs."""
    with dask.config.set({"array.backend": "numpy"}):
        rng = da.random.default_rng(seed)
        x = rng.standard_normal(tall_shape, chunks=(-(-tall_shape[0] // row_chunks), -1))
        g = rng.standard_normal(grid_shape, chunks=-(-grid_shape[0] // grid_chunks))
    if backend != "numpy":
        x, g = x.to_backend(backend), g.to_backend(backend)
    return x, g


def program(x, g, iterations=3):
    """The program on Dask arrays: a dict of lazy results (computed together by `run`)."""
    u, s, vt = da.linalg.svd(x)
    for _ in range(iterations):
        g = g.map_overlap(jacobi_step, depth=1, boundary="none")
    return {
        "s": s, "abs_u": abs(u), "abs_vt": abs(vt),
        "col_sum": x.sum(axis=0), "row_mean": x.mean(axis=1), "col_std": x.std(axis=0),
        "std": x.std(), "gram": x.T @ x,
        "stencil": g, "stencil_sum": g.sum(axis=1),
    }


# The program's results by part, for timing each part on its own.
PARTS = {"svd": ("s", "abs_u", "abs_vt"), "stencil": ("stencil", "stencil_sum"),
         "reductions": ("col_sum", "row_mean", "col_std", "std"), "matmul": ("gram",)}


def run(x, g, iterations=3, **compute_kwargs):
    """Runs the program; returns the results as they come out of Dask (chunk type kept)."""
    lazy = program(x, g, iterations)
    values = dask.compute(*lazy.values(), **compute_kwargs)
    return dict(zip(lazy, values))


def run_numpy(tall, grid, iterations=3):
    """The same program on whole NumPy arrays (signs of singular vectors are arbitrary: both
    sides give their absolute values)."""
    u, s, vt = numpy.linalg.svd(tall, full_matrices=False)
    g = grid
    for _ in range(iterations):
        g = jacobi_step(g)
    return {
        "s": s, "abs_u": abs(u), "abs_vt": abs(vt),
        "col_sum": tall.sum(axis=0), "row_mean": tall.mean(axis=1), "col_std": tall.std(axis=0),
        "std": tall.std(), "gram": tall.T @ tall,
        "stencil": g, "stencil_sum": g.sum(axis=1),
    }
