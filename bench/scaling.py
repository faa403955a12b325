"""Issue 16: weak scaling across workers, one Dask worker process per GPU (or per CPU core).

(1) The seed's heat-diffusion loop (the 5-point stencil written with slices, float64) on a grid
    of `--size`^2 per worker, cut in row strips, one strip per worker. Every `--exchange-every`
    sweeps the workers exchange halos of that many rows, then each runs that many sweeps on its
    strip and halo: a deeper halo means fewer exchanges. The halo's outer rows go stale by one
    row per sweep, and trimming drops exactly those. The exchange is tasks submitted per strip
    and pinned to its worker (`--exchange futures`, the default), dask.array's map_overlap
    (`--exchange map_overlap [--persist]`), or on GPUs one task per strip for the whole run
    with the halos sent GPU to GPU over NCCL (`--exchange nccl`: numfuse.cuda.nccl for numfuse
    chunks, CuPy's binding for CuPy's; bench/stencil_strips.py). Printed: time per iteration, and efficiency (1
    worker's time / k workers' time, same chunks) for numfuse chunks beside NumPy (cpu) or CuPy
    (cuda) chunks. "no Dask" is the loop on every worker at once, without exchanges: what the
    devices give.
(2) The seed's Dask program (tests/dask_seed_program.py: TSQR SVD, stencil, reductions, x.T @ x)
    with the same data per worker on 1, 2, 4 workers (rows and grid grow with the workers).
(3) kill: the stencil on 2 workers, one worker process SIGKILLed mid-run. Dask recomputes the
    lost chunks, and the answer is checked against NumPy's loop on the whole grid.

Workers: with --device cpu, LocalCluster(n_workers=k, threads_per_worker=1, processes=True),
each worker's numfuse on one CPU thread (NUMFUSE_NUM_THREADS=1). With --device cuda,
numfuse.dask.gpu_cluster(k): worker i is pinned to GPU i (CUDA_VISIBLE_DEVICES rotated,
NUMFUSE_DEVICE=cuda:0). Every worker runs with NCCL_NVLS_ENABLE=0 (NVLink multicast off). The
scheduler's work stealing is off, so that strip i stays on worker i.

Usage:  PYTHONPATH=python python bench/scaling.py [--device cpu|cuda] [--workers 1,2,4]
        [--size N] [--iterations 50] [--exchange-every 10] [--exchange futures|map_overlap|nccl]
        [--persist] [--repeat 3] [--parts stencil,program,kill] [--chunks numfuse,numpy]
        [--fill seed|random] [--rows 50000] [--grid 1024]
"""
import argparse
import os
import signal
import statistics
import sys
import time

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster, wait  # noqa: E402

import numfuse  # noqa: E402
import numfuse.dask  # noqa: E402
import dask_seed_program as seed  # noqa: E402
# A task ends with its chunk computed (numfuse is lazy, CuPy asynchronous): dask_program's helpers,
# found beside this file (bench/ is on every worker's sys.path, see below).
from dask_program import force_block as finish, forced as finished  # noqa: E402
# The tasks' own functions live in a module, so that a task names them (pickled by reference)
# instead of carrying them by value: by value, the client pickled each task's function and
# everything it calls at every submit (an NCCL strip task left ~5 ms after the previous one,
# measured with SCALING_TRACE=1, which the strips' first halo swap then waited for).
from stencil_strips import (chunk_module, edge, exchange_step, host_strip, initial_block,  # noqa: E402
                            nccl_comm, nccl_module, nccl_strip_run, sweep_owned, sweeps)

# Tasks name their functions by module (distributed pickles by reference unless a function
# lives in __main__), and the workers import those modules: local worker processes start with
# this process's sys.path (multiprocessing's spawn passes it on), which holds tests/ and, when
# tests/test_scaling.py imports this file, bench/. Run as a script, its functions go by value.

PEER = {"cpu": "numpy", "cuda": "cupy"}
# Seconds any wait on the cluster may take: a worker that cannot unpickle its task hangs the run
# rather than failing it (the tests set less).
TIMEOUT = 600
# The client's numfuse default device, where the Dask arrays' metas are made: the workers' one.
CLIENT_DEVICE = {"cpu": "cpu", "cuda": "cuda:0"}


def heat_diffusion(grid, iterations):
    """The seed's loop (bench/run_cpu.py): slices of one array, written through setitem; the
    edge rows and columns stay as they are (fixed boundary)."""
    a = grid.copy()
    b = a.copy()
    for _ in range(iterations):
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a, b = b, a
    return a


def initial_grid(strips, rows, cols, fill="seed"):
    """The whole grid as NumPy: `strips` strips of rows x cols."""
    return numpy.concatenate([host_strip(i, rows, cols, fill) for i in range(strips)])


def plain_seconds(backend, size, iterations, repeat=3):
    """Runs on a worker: the loop on one size^2 block without Dask (best seconds of `repeat`,
    after a warm-up)."""
    block = initial_block(backend, 0, size, size)
    sweeps(block, 2)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        sweeps(block, iterations)
        times.append(time.perf_counter() - t0)
    return min(times)


def alone_seconds(client, backend, size, iterations):
    """The loop without Dask on every worker at once (best of 3, seconds of the slowest worker):
    what the workers' devices give when nothing is exchanged, which on an oversubscribed CPU is
    less than one worker alone."""
    futures = [client.submit(plain_seconds, backend, size, iterations, workers=[w], pure=False)
               for w in workers_of(client)]
    wait(futures, timeout=TIMEOUT)
    return max(client.gather(futures))


def place_grid(client, backend, rows, cols, workers, fill="seed"):
    """Futures of the global grid's strips, rows x cols each, strip i made on workers[i]. The
    tasks may run elsewhere (allow_other_workers) so that a strip lost with its worker is remade;
    the restriction also keeps the scheduler from treating them as root tasks, which it places
    without regard to where data lives."""
    return [client.submit(initial_block, backend, i, rows, cols, fill, workers=[w],
                          allow_other_workers=True, pure=False) for i, w in enumerate(workers)]


def as_dask_array(strips, backend, rows, cols):
    """The strips (futures) as one Dask array of row chunks."""
    meta = chunk_module(backend).empty((0, 0))
    return da.concatenate([da.from_delayed(f, (rows, cols), dtype=numpy.float64, meta=meta)
                           for f in strips], axis=0)


def check_exchange(exchange_every, rows):
    if not 1 <= exchange_every <= rows:
        raise ValueError(f"exchange_every={exchange_every} must be in 1..{rows} (the strip's rows)")


def stencil_map_overlap(x, iterations, exchange_every, client=None, pause=0.0, tag=0):
    """`iterations` sweeps of Dask array x (lazy): map_overlap with a halo of `exchange_every`
    rows, that many sweeps per exchange. With `client`, each exchange's result is persisted (a
    small graph per exchange, submitted as the previous one runs) instead of one graph for all."""
    check_exchange(exchange_every, x.chunks[0][0])
    done = 0
    while done < iterations:
        d = min(exchange_every, iterations - done)
        x = x.map_overlap(sweeps, depth={0: d, 1: 0}, boundary="none", iterations=d, pause=pause,
                          tag=tag, dtype=x.dtype, meta=x._meta)
        if client is not None:
            x = client.persist(x)
        done += d
    return x


def stencil_futures(client, strips, workers, rows, iterations, exchange_every, pause=0.0):
    """`iterations` sweeps of the strips (futures, strip i on workers[i]) by tasks submitted
    directly: per exchange, each strip's edge rows (on its worker), then each strip's sweeps on
    its worker with its neighbours' edges. All exchanges are submitted at once; returns the last
    exchange's futures. Three tasks per strip and exchange, two hops (map_overlap: three)."""
    check_exchange(exchange_every, rows)

    def on(i, fn, *a, **kw):  # a task for worker i, that may run elsewhere when i is lost
        return client.submit(fn, *a, workers=[workers[i]], allow_other_workers=True, pure=False,
                             **kw)
    k = len(strips)
    done = 0
    while done < iterations:
        d = min(exchange_every, iterations - done)
        tops = [on(i, edge, strips[i], "top", d) if i > 0 else None for i in range(k)]
        bottoms = [on(i, edge, strips[i], "bottom", d) if i < k - 1 else None for i in range(k)]
        strips = [on(i, exchange_step, bottoms[i - 1] if i > 0 else None, strips[i],
                     tops[i + 1] if i < k - 1 else None, d, pause=pause) for i in range(k)]
        done += d
    return strips


def nccl_setup(client, workers, backend):
    """A unique id of `backend`'s NCCL (numfuse.cuda.nccl or CuPy's) and, on every worker at once,
    its communicator: made before the clock starts."""
    uid = nccl_module(backend).get_unique_id()
    k = len(workers)
    if k > 1:
        futures = [client.submit(nccl_comm, uid, k, i, backend, workers=[w], pure=False)
                   for i, w in enumerate(workers)]
        wait(futures, timeout=TIMEOUT)
    return uid


def nccl_uid(client, workers, backend):
    """The cluster's NCCL unique id for `backend`'s chunks, its communicators made at the first
    call (an id serves one communicator: its root stops listening once every rank has joined)."""
    uids = client.__dict__.setdefault("_numfuse_nccl_uids", {})
    if backend not in uids:
        uids[backend] = nccl_setup(client, workers, backend)
    return uids[backend]


def stencil_nccl(client, strips, workers, iterations, exchange_every, uid, tag=0):
    """One task per strip, pinned to its worker (NCCL ranks cannot move)."""
    k = len(strips)
    return [client.submit(nccl_strip_run, strips[i], i, k, uid, iterations, exchange_every, tag,
                          workers=[workers[i]], pure=False) for i in range(k)]


def run_stencil(client, scheme, strips, workers, backend, rows, cols, iterations, exchange_every,
                persist=False, pause=0.0, tag=0):
    """The stencil submitted by `scheme` ("futures" or "map_overlap") from `strips` (futures, or
    for map_overlap a Dask array too): returns what to wait for (futures, or a persisted Dask
    array), which can start another run."""
    if scheme == "futures":
        return stencil_futures(client, strips, workers, rows, iterations, exchange_every, pause)
    if scheme == "nccl":
        check_exchange(exchange_every, rows)
        return stencil_nccl(client, strips, workers, iterations, exchange_every,
                            nccl_uid(client, workers, backend), tag)
    x = as_dask_array(strips, backend, rows, cols) if isinstance(strips, list) else strips
    return client.persist(stencil_map_overlap(x, iterations, exchange_every,
                                              client if persist else None, pause, tag))


def result_array(result, backend, rows, cols):
    """run_stencil's result as a Dask array."""
    if isinstance(result, list):
        return as_dask_array(result, backend, rows, cols)
    return result


def computed(client, *collections):
    """The collections' values, computed on the cluster (one value for one collection)."""
    futures = client.compute(list(collections))
    wait(futures, timeout=TIMEOUT)
    values = client.gather(futures)
    return values[0] if len(collections) == 1 else values


def workers_of(client):
    return sorted(client.scheduler_info()["workers"])


def host(v):
    if isinstance(v, numfuse.ndarray):
        return numfuse.asnumpy(v)
    if type(v).__module__.startswith("cupy"):
        return v.get()
    return numpy.asarray(v)


def stencil_with_worker_killed(client, scheme="futures", backend="numfuse", rows=64, cols=64,
                               iterations=20, exchange_every=4, pause=0.15, timeout=None,
                               fill="random"):
    """Runs the stencil on the client's workers; once the first exchange is done (its strips
    held for the client, one on each worker), submits the rest and SIGKILLs the last worker's
    process. Returns (the grid as NumPy, whether the run was pending at the kill, whether the
    killed worker held a strip, its pid). The Nanny restarts the worker; Dask remakes the lost
    strips from their tasks, back to `initial_block`."""
    if not exchange_every < iterations:
        raise ValueError("the kill needs more than one exchange")
    timeout = timeout or TIMEOUT
    workers = workers_of(client)
    pids = client.run(os.getpid)
    victim = workers[-1]
    strips = place_grid(client, backend, rows, cols, workers, fill)
    first = run_stencil(client, scheme, strips, workers, backend, rows, cols, exchange_every,
                        exchange_every, pause=pause)
    wait(first, timeout=timeout)
    held = any(victim in w for w in client.who_has(first).values())
    rest = run_stencil(client, scheme, first, workers, backend, rows, cols,
                       iterations - exchange_every, exchange_every, pause=pause)
    future = client.compute(result_array(rest, backend, rows, cols))
    pending = not future.done()
    os.kill(pids[victim], signal.SIGKILL)
    return host(future.result(timeout=timeout)), pending, held, pids[victim]


def timed(runs, repeat):
    """{label: (median, best)} wall time of each `runs[label](i)` (work submitted to the cluster:
    futures or a persisted Dask collection) until its work is done, after one warm-up run
    (imports, kernel compilation). The labels' runs are interleaved, so that a busy machine slows
    them alike; the best is the figure least moved by other processes."""
    times = {label: [] for label in runs}
    for i in range(repeat + 1):
        for label, run in runs.items():
            t0 = time.perf_counter()
            done = run(i)
            wait(done, timeout=TIMEOUT)
            if i:
                times[label].append(time.perf_counter() - t0)
            del done
    return {label: (statistics.median(t), min(t)) for label, t in times.items()}


def strips_stay(client, result, workers):
    """Whether strip i of the result is held by workers[i] (halo exchange, not strip moves)."""
    holders = client.who_has(result)
    keys = [f.key for f in result] if isinstance(result, list) else sorted(holders,
                                                                           key=lambda k: k[1])
    return all(list(holders[key]) == [w] for key, w in zip(keys, workers))


def stencil_rows(client, args, backends):
    """One cluster's stencil figures: {label: (median, best) seconds}, `ok` (every chunk type
    and scheme agrees with the first, and with NumPy's whole-grid loop when it is small), and
    whether strips stayed put. A label is the chunk type, followed by "/scheme" when
    args.exchange names several schemes."""
    workers = workers_of(client)
    k, n = len(workers), args.size
    schemes = args.exchange.split(",")
    grids = {b: place_grid(client, b, n, n, workers, args.fill) for b in backends}
    wait([f for g in grids.values() for f in g], timeout=TIMEOUT)
    runs, chunks = {}, {}
    for scheme in schemes:
        for b in backends:
            label = b if len(schemes) == 1 else f"{b}/{scheme}"
            chunks[label] = b
            runs[label] = (lambda i, b=b, scheme=scheme: run_stencil(
                client, scheme, grids[b], workers, b, n, n, args.iterations, args.exchange_every,
                args.persist, tag=i))
    seconds = timed(runs, args.repeat)
    results = {label: run(-1) for label, run in runs.items()}
    wait(list(results.values()), timeout=TIMEOUT)
    stay = {label: strips_stay(client, r, workers) for label, r in results.items()}
    arrays = {label: result_array(r, chunks[label], n, n) for label, r in results.items()}
    sums = [host(computed(client, a.sum(axis=1))) for a in arrays.values()]
    ok = all(numpy.allclose(s, sums[0], rtol=1e-12, atol=0) for s in sums)
    if k * n * n <= args.check_limit:  # NumPy's loop on the whole grid
        want = heat_diffusion(initial_grid(k, n, n, args.fill), args.iterations)
        ok = ok and all(numpy.allclose(host(computed(client, a)), want, rtol=1e-12, atol=1e-12)
                        for a in arrays.values())
    return seconds, ok, stay


def program_seconds(client, args, backends, k):
    """The seed program with k workers' data: {backend: seconds}, `ok` (numfuse against peer)."""
    inputs = {}
    for b in backends:
        x, g = seed.inputs((args.rows * k, args.cols), (args.grid * k, args.grid), row_chunks=k,
                           grid_chunks=k, backend=b)
        inputs[b] = client.persist([finished(x), finished(g)])
        wait(inputs[b], timeout=TIMEOUT)

    def run(b):
        lazy = seed.program(*inputs[b], args.program_iterations)
        return client.persist([finished(v) for v in lazy.values()])
    seconds = timed({b: (lambda i, b=b: run(b)) for b in backends}, args.repeat)
    values = {b: computed(client, *seed.program(*inputs[b], args.program_iterations).values())
              for b in backends}
    ok = all(numpy.allclose(host(p), host(n), rtol=1e-7, atol=1e-7)
             for p, n in zip(values[backends[0]], values[backends[-1]]))
    return seconds, ok


def cluster(device, k):
    """k worker processes: one per GPU (numfuse.dask.gpu_cluster) or one CPU core each; with
    fewer GPUs than k (the kill scenario on one GPU), k workers sharing cuda:0."""
    if device == "cuda" and k <= gpu_count():
        return numfuse.dask.gpu_cluster(n_workers=k)
    env = {"NUMFUSE_DEVICE": "cuda:0" if device == "cuda" else "cpu", "NUMFUSE_NUM_THREADS": "1",
           "NCCL_NVLS_ENABLE": "0"}
    return LocalCluster(n_workers=k, threads_per_worker=1, processes=True, env=env,
                        dashboard_address=None, worker_dashboard_address=None)


def gpu_count():
    try:
        return numfuse.cuda.runtime.getDeviceCount() if numfuse.cuda.is_available() else 0
    except Exception:
        return 0


def print_table(title, rows, base, unit):
    """rows: [(k, backend, (median, best) seconds, divisor for `unit`, ok, no-Dask seconds or
    None)]; efficiency of the best times against base[backend]'s (one worker's); with no-Dask
    seconds, that time per `unit` and no-Dask / best (1: the exchanges and Dask cost nothing)."""
    print(title)
    print(f"  {'workers':>7s}  {'chunks':19s} {unit + ' median':>16s} {'best':>9s} "
          f"{'efficiency':>10s}  {'no Dask':>9s} {'no Dask/best':>12s}  ok")
    for k, b, (median, best), per, ok, alone in rows:
        eff = base[b][1] / best if b in base else float("nan")
        plain = (f"{alone / per * 1e3:9.2f} {alone / best:12.2f}" if alone is not None
                 else f"{'':9s} {'':12s}")
        print(f"  {k:7d}  {b:19s} {median / per * 1e3:16.2f} {best / per * 1e3:9.2f} {eff:10.2f}"
              f"  {plain}  {ok}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--workers", default="1,2,4")
    p.add_argument("--size", type=int, default=None, help="grid side per worker "
                   "(default 8192 on cuda, 1024 on cpu)")
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--exchange-every", type=int, default=10)
    p.add_argument("--exchange", default="futures",
                   help="halo exchange: futures (tasks submitted per strip), map_overlap "
                        "(dask.array's) or nccl (one task per strip, halos over NCCL, GPUs "
                        "only), or several, comma-separated, their runs interleaved")
    p.add_argument("--persist", action="store_true",
                   help="map_overlap: persist after each halo exchange")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--parts", default="stencil,program,kill")
    p.add_argument("--chunks", default=None, help="chunk types, e.g. numfuse,numpy")
    p.add_argument("--fill", choices=("seed", "random"), default="seed",
                   help="the grid: the seed's (heat from the top row) or random numbers, whose "
                        "every halo carries information (for checking)")
    p.add_argument("--check-limit", type=int, default=1 << 22,
                   help="compare with NumPy's whole-grid loop up to this many elements")
    p.add_argument("--rows", type=int, default=50_000, help="seed program: rows per worker")
    p.add_argument("--cols", type=int, default=50)
    p.add_argument("--grid", type=int, default=1024, help="seed program: grid side per worker")
    p.add_argument("--program-iterations", type=int, default=5)
    args = p.parse_args()
    args.size = args.size or (8192 if args.device == "cuda" else 1024)
    parts = set(args.parts.split(","))
    backends = args.chunks.split(",") if args.chunks else [PEER[args.device], "numfuse"]
    counts = [int(k) for k in args.workers.split(",")]
    if args.device == "cuda" and gpu_count() == 0:
        sys.exit("--device cuda: numfuse sees no GPU here")
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # the workers inherit it: NVLink multicast off
    dask.config.set({"distributed.scheduler.work-stealing": False})
    numfuse._core.set_default_device(CLIENT_DEVICE[args.device])
    if args.device == "cuda" and max(counts) > gpu_count():
        print(f"note: {gpu_count()} GPU(s) here; worker counts above that are skipped")
        counts = [k for k in counts if k <= gpu_count()]
    print(f"{args.device}, load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    stencil_table, program_table, base_s, base_p = [], [], {}, {}
    for k in counts:
        with cluster(args.device, k) as c, Client(c) as client:
            client.register_plugin(numfuse.dask.DevicePlugin())
            if "stencil" in parts:
                seconds, ok, stay = stencil_rows(client, args, backends)
                alone = {b: alone_seconds(client, b, args.size, args.iterations)
                         for b in backends}
                for label in seconds:
                    if k == counts[0]:
                        base_s[label] = seconds[label]
                    stencil_table.append((k, label, seconds[label], args.iterations, ok,
                                          alone[label.split("/")[0]]))
                moved = [label for label, stayed in stay.items() if not stayed]
                print(f"  {k} workers: strip i stayed on worker i: "
                      f"{'yes' if not moved else 'no, for ' + ', '.join(moved)}", flush=True)
            if "program" in parts:
                seconds, ok = program_seconds(client, args, backends, k)
                for b in backends:
                    if k == counts[0]:
                        base_p[b] = seconds[b]
                    program_table.append((k, b, seconds[b], 1, ok, None))
    if stencil_table:
        print_table(f"stencil: {args.size}^2 float64 per worker, {args.iterations} iterations, "
                    f"halo of {args.exchange_every} rows per exchange ({args.exchange})"
                    f"{', persisted per exchange' if args.persist else ''}; median and best of "
                    f"{args.repeat}; efficiency = 1 worker's best / k workers' best; no Dask = "
                    f"the loop on every worker at once, no exchange (the slowest worker)",
                    stencil_table, base_s, "ms/iter")
    if program_table:
        print_table(f"seed program per worker: svd of {args.rows}x{args.cols}, "
                    f"{args.program_iterations} sweeps of {args.grid}^2, reductions, x.T @ x "
                    f"(efficiency: best times)", program_table, base_p, "ms/run")
    if "kill" in parts:
        with cluster(args.device, 2) as c, Client(c) as client:
            client.register_plugin(numfuse.dask.DevicePlugin())
            got, pending, held, pid = stencil_with_worker_killed(client,
                                                                 args.exchange.split(",")[0])
            want = heat_diffusion(initial_grid(2, 64, 64, "random"), 20)
            print(f"worker killed mid-run (pid {pid}, run pending at the kill: {pending}, the "
                  f"worker held a strip: {held}): answer equals NumPy's: "
                  f"{numpy.allclose(got, want, rtol=1e-12, atol=1e-12)}")


if __name__ == "__main__":
    main()
