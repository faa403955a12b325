"""numfuse next to NumPy on the seed workloads: the same code, run by each, side by side.

For each workload it prints both results, whether they agree, the time of each and the ratio
numpy_time / numfuse_time (above 1: numfuse is faster). numfuse is lazy, so every timed region
ends by forcing evaluation (numfuse.eval, or converting the result). numfuse's first call, which
may compile kernels, is shown apart from its warm time. When numfuse has a usable GPU
(numfuse.cuda.is_available()), the numfuse side runs there.

    make demo                                      # PYTHONPATH=python .venv/bin/python examples/demo.py
    python examples/demo.py --numfuse-module numpy # dry run: NumPy on both sides
    python examples/demo.py --quick                # smaller sizes
"""
import argparse
import importlib
import os
import statistics
import time

import numpy as np


def cuda_available(nf):
    is_avail = getattr(getattr(nf, "cuda", None), "is_available", None)
    try:
        return bool(is_avail()) if is_avail else False
    except Exception:
        return False


def force(xp, result):
    """Makes the result real before the clock stops: numfuse.eval, then a device sync."""
    if xp is np:
        return result
    if hasattr(xp, "eval") and hasattr(result, "shape"):
        xp.eval(result)
    sync = getattr(getattr(xp, "cuda", None), "synchronize", None)
    if sync is not None and cuda_available(xp):
        sync()
    return result


def to_host(xp, result):
    if xp is np or not hasattr(result, "shape"):
        return np.asarray(result)
    return np.asarray(xp.asnumpy(result) if hasattr(xp, "asnumpy") else result)


def timed(xp, fn, repeats):
    """(first call seconds, median warm seconds, result)."""
    t0 = time.perf_counter()
    r = force(xp, fn())
    first = time.perf_counter() - t0
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        r = force(xp, fn())
        ts.append(time.perf_counter() - t0)
    return first, statistics.median(ts), r


# ---- the workloads: written once, run by NumPy and by numfuse -----------------------------------

def vector_norm(xp, x):
    return xp.sqrt(xp.sum(x * x))


def norm_last_axis(xp, x):
    return xp.sqrt(xp.sum(x ** 2, axis=-1))


def sin_plus_cos(xp, x):
    return xp.sin(x) + xp.cos(x)


def elementwise_chain(xp, x, y, z):
    return x * y + z * x - xp.sqrt(y) * 2


def small_op_loop(xp, b):
    """2000 tiny ops in a Python loop: what matters is the host cost per op, not the data."""
    for _ in range(2000):
        b = b + 1.0
    return b


def monte_carlo_pi(xp, rng, n):
    x, y = rng.random(n), rng.random(n)
    return 4.0 * xp.sum(x * x + y * y <= 1.0) / n


def heat_diffusion(xp, grid, iterations):
    a = grid.copy()
    b = a.copy()
    for _ in range(iterations):
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a, b = b, a
    return a


def matrix_product(xp, a, b):
    return a @ b


def short(v):
    v = np.asarray(v)
    if v.size == 1:
        return f"{v.item():.6g}"
    return f"{v.shape} mean {v.mean():.6g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--numfuse-module", default=os.environ.get("NUMFUSE_MODULE", "numfuse"),
                    help="module to run as numfuse ('numpy' for a dry run)")
    ap.add_argument("--quick", action="store_true", help="sizes / 10 or so")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    nf = importlib.import_module(args.numfuse_module)
    on_gpu = cuda_available(nf)
    q = 10 if args.quick else 1

    def to_nf(a):
        """A NumPy input handed to numfuse, on the GPU when there is one; uploads are not timed."""
        return force(nf, nf.asarray(a, device="cuda") if on_gpu else nf.asarray(a))

    where = "the GPU (numfuse.cuda.is_available() is True)" if on_gpu else "the CPU"
    print(f"numfuse ({nf.__name__}) runs on {where}; NumPy {np.__version__} on the CPU, "
          f"{os.cpu_count()} cores. Times: median of {args.repeats} warm runs.\n", flush=True)

    rng = np.random.default_rng(0)
    n = 10_000_000 // q
    N = 2048 // (2 if args.quick else 1)
    M = 2048 // (2 if args.quick else 1)
    its = 20
    v = rng.random(n)
    x32, y32, z32 = (rng.random(n, dtype=np.float32) + 0.5 for _ in range(3))
    small = rng.random(1000)
    # float64 (800 MB): fits easily and NumPy takes well under a second per pass on 2 cores.
    x3 = rng.random((1000 // q, 100, 1000))
    grid = np.zeros((N, N))
    grid[0, :] = 100.0  # a hot edge diffusing into a cold plate
    A, B = rng.random((M, M)), rng.random((M, M))
    nf_gen = getattr(getattr(nf, "random", None), "default_rng", None)

    # name, fn(xp, *inputs), NumPy inputs, how to check agreement
    workloads = [
        (f"norm of a vector, {n:.0e} float64", vector_norm, (v,), "close"),
        (f"sqrt(sum(x**2, axis=-1)), {x3.shape} float64", norm_last_axis, (x3,), "close"),
        (f"sin(x) + cos(x), {n:.0e} float32", sin_plus_cos, (x32,), "close32"),
        (f"x*y + z*x - sqrt(y)*2, {n:.0e} float32", elementwise_chain, (x32, y32, z32), "close32"),
        ("2000 x `b = b + 1.0` on 1000 float64 (a loop of small ops)", small_op_loop, (small,), "close"),
        (f"Monte Carlo pi, {n:.0e} samples", None, None, "statistical"),
        (f"heat diffusion 5-point stencil, {N}^2 float64, {its} iterations",
         lambda xp, g: heat_diffusion(xp, g, its), (grid,), "close"),
        (f"matrix product {M}^2 float64", matrix_product, (A, B), "close"),
    ]

    rows = []
    t_start = time.perf_counter()
    for name, fn, inputs, check in workloads:
        if fn is None:  # each library draws its own samples (different generators, so
            # the two estimates agree statistically, not bit for bit)
            np_gen = np.random.default_rng(1)
            nf_rng = nf_gen(1) if nf_gen else np_gen
            np_call = lambda: monte_carlo_pi(np, np_gen, n)
            nf_call = lambda: monte_carlo_pi(nf, nf_rng, n)
        else:
            nf_inputs = tuple(to_nf(a) for a in inputs)
            np_call = lambda fn=fn, inputs=inputs: fn(np, *inputs)
            nf_call = lambda fn=fn, nf_inputs=nf_inputs: fn(nf, *nf_inputs)
        _, t_np, r_np = timed(np, np_call, args.repeats)
        first_nf, t_nf, r_nf = timed(nf, nf_call, args.repeats)
        r_np, r_nf = to_host(np, r_np), to_host(nf, r_nf)
        if check == "statistical":
            sigma = 4 * np.sqrt(np.pi / 4 * (1 - np.pi / 4) / n)
            ok = abs(r_np - r_nf) < 6 * sigma and abs(r_nf - np.pi) < 6 * sigma
        else:
            rtol, atol = (2e-6, 1e-6) if check == "close32" else (1e-9, 1e-12)
            ok = r_np.shape == r_nf.shape and np.allclose(r_nf, r_np, rtol=rtol, atol=atol)
        rows.append((name, short(r_np), short(r_nf), "yes" if ok else "NO", t_np, t_nf, first_nf))
        print(f"{name}\n  numpy   {short(r_np):<30} {t_np * 1e3:9.1f} ms\n"
              f"  numfuse {short(r_nf):<30} {t_nf * 1e3:9.1f} ms   (first call {first_nf * 1e3:.1f} ms)\n"
              f"  agree: {'yes' if ok else 'NO'}{' (statistically)' if check == 'statistical' else ''}"
              f"   numpy/numfuse: {t_np / t_nf:.2f}x\n", flush=True)

    print("| workload | agree | numpy | numfuse | numfuse 1st call | numpy/numfuse |")
    print("|---|---|---|---|---|---|")
    for name, _, _, ok, t_np, t_nf, first in rows:
        print(f"| {name} | {ok} | {t_np * 1e3:.1f} ms | {t_nf * 1e3:.1f} ms | {first * 1e3:.1f} ms | {t_np / t_nf:.2f}x |")
    print(f"\ntotal {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
