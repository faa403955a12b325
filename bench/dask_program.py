"""Issue 15's Dask figures: the seed's Dask program (tests/dask_seed_program.py: TSQR SVD of a
tall matrix, a map_overlap 5-point stencil, reductions along axes, x.T @ x) on a
dask.distributed LocalCluster, with NumPy chunks beside numfuse chunks (CPU) and, when CuPy and
a GPU are present, CuPy chunks beside numfuse chunks on the GPU, in one run.

Inputs are made on the workers (NumPy's random numbers, moved to each chunk type by Dask's
to_backend) and persisted before timing; the timed region persists every result of the program
on the workers and waits, each task ending with its chunk computed and the GPU synchronised
(chunks move between workers as the program needs; nothing is gathered to the client). Time is the median of --repeat runs after one warm-up run, the peer's and numfuse's runs
interleaved; ratio = the peer's
time / numfuse's (> 1: numfuse faster); `ok` checks numfuse's results against the peer's.

Usage:  PYTHONPATH=python python bench/dask_program.py [--rows 200000] [--grid 2048] [--repeat 5]
        [--workers 2] [--parts] [--numfuse-threads N]
        [--no-gpu] [--no-cpu]
"""
import argparse
import os
import statistics
import sys
import time

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import cloudpickle  # noqa: E402
import dask  # noqa: E402
from distributed import Client, LocalCluster, wait  # noqa: E402

import numfuse  # noqa: E402
import numfuse.dask  # noqa: E402
import dask_seed_program as seed  # noqa: E402

cloudpickle.register_pickle_by_value(seed)  # the workers cannot import tests/


def force_block(block):
    """Ends a task with its chunk computed: numfuse is lazy and CuPy asynchronous, and Dask would
    otherwise count a task done before its work has run."""
    if type(block).__module__.startswith("cupy"):
        import cupy
        cupy.cuda.get_current_stream().synchronize()
        return block
    return numfuse.dask.evaluate_block(block)


def forced(x):
    return x.map_blocks(force_block, dtype=x.dtype, meta=x._meta)


def timed_runs(client, args, backends):
    """Median seconds of the whole program (and, with --parts, of each part) for each backend's
    chunks, the backends' runs interleaved so that a busy machine slows them alike; and each
    backend's results (gathered once, after the timing)."""
    inputs = {}
    for b in backends:
        x, g = seed.inputs((args.rows, args.cols), (args.grid, args.grid), args.row_chunks,
                           args.grid_chunks, backend=b)
        inputs[b] = client.persist([forced(x), forced(g)])
        wait(inputs[b])
    groups = {"program": tuple(seed.program(*inputs[backends[0]], 1))}
    if args.parts:
        groups.update(seed.PARTS)
    times = {b: {group: [] for group in groups} for b in backends}
    for group, keys in groups.items():
        for i in range(args.repeat + 1):
            for b in backends:
                lazy = seed.program(*inputs[b], args.iterations)
                t0 = time.perf_counter()
                done = client.persist([forced(lazy[k]) for k in keys])
                wait(done)
                if i:  # the first run warms up (imports, kernel compilation, BLAS threads)
                    times[b][group].append(time.perf_counter() - t0)
                del done
    values = {}
    for b in backends:
        lazy = seed.program(*inputs[b], args.iterations)
        values[b] = dict(zip(lazy, dask.compute(*lazy.values())))  # for `ok`, not timed
    medians = {b: {g: statistics.median(t) for g, t in times[b].items()} for b in backends}
    return medians, values


def host(v):
    if isinstance(v, numfuse.ndarray):
        return numfuse.asnumpy(v)
    if type(v).__module__.startswith("cupy"):
        return v.get()
    return numpy.asarray(v)


def agree(a, b):
    return all(numpy.allclose(host(a[k]), host(b[k]), rtol=1e-7, atol=1e-7) for k in a)


def compare(title, client, args, peer):
    times, values = timed_runs(client, args, [peer, "numfuse"])
    t_peer, t_nf = times[peer], times["numfuse"]
    print(f"{title}: ok={agree(values[peer], values['numfuse'])}")
    for group in t_nf:
        print(f"  {group:12s} {peer:>6s} {t_peer[group] * 1e3:9.1f} ms   numfuse "
              f"{t_nf[group] * 1e3:9.1f} ms   ratio {t_peer[group] / t_nf[group]:5.2f}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--cols", type=int, default=50)
    p.add_argument("--row-chunks", type=int, default=4)
    p.add_argument("--grid", type=int, default=2048)
    p.add_argument("--grid-chunks", type=int, default=2)
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--workers", type=int, default=2, help="CPU worker processes")
    p.add_argument("--no-cpu", action="store_true")
    p.add_argument("--no-gpu", action="store_true")
    p.add_argument("--parts", action="store_true", help="also time each part on its own")
    p.add_argument("--numfuse-threads", default="",
                   help="NUMFUSE_NUM_THREADS of the CPU workers (default: numfuse's, all cores; "
                        "Dask sets NumPy's BLAS to 1 thread per worker)")
    args = p.parse_args()
    print(f"seed Dask program: svd of {args.rows}x{args.cols} in {args.row_chunks} row chunks, "
          f"{args.iterations} stencil sweeps of {args.grid}^2 in {args.grid_chunks}^2 chunks, "
          f"reductions, x.T @ x; median of {args.repeat}")
    common = dict(threads_per_worker=1, processes=True, dashboard_address=None,
                  worker_dashboard_address=None)
    if not args.no_cpu:
        with LocalCluster(n_workers=args.workers, env={"NUMFUSE_DEVICE": "cpu", "NUMFUSE_NUM_THREADS": args.numfuse_threads}, **common) as c, \
                Client(c) as client:
            compare(f"CPU, {args.workers} worker processes", client, args, "numpy")
    try:
        import cupy  # noqa: F401
        gpu = numfuse.cuda.is_available()
    except ImportError:
        gpu = False
    if gpu and not args.no_gpu:
        with LocalCluster(n_workers=1, env={"NUMFUSE_DEVICE": "cuda:0"}, **common) as c, \
                Client(c) as client:
            compare("GPU (cuda:0), 1 worker process", client, args, "cupy")
    elif not args.no_gpu:
        print("GPU: skipped (needs CuPy and numfuse.cuda.is_available())")


if __name__ == "__main__":
    main()
