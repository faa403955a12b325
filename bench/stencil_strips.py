"""The strip tasks of bench/scaling.py (issue 16), in a module of their own so that Dask tasks
name them by reference: a strip made on its worker, the seed's sweeps on a strip the task owns,
the futures scheme's edge and exchange steps, and the NCCL halo exchange (one task per strip for
a whole run, halos sent GPU to GPU).

Halos over NCCL: the futures scheme pays Dask's task latency and a trip through host memory and
TCP for every halo (about 6 ms an exchange). Here each worker runs its strip's whole loop in one
task, and the strips swap halo rows with NCCL (send/recv over NVLink), ordered on the chunk
library's stream: numfuse chunks through numfuse.cuda.nccl, CuPy chunks through CuPy's binding
(cupy.cuda.nccl).
"""
import os
import time

import numpy

import numfuse
from dask_program import force_block as finish


def sweep_owned(a, iterations):
    """The seed's loop on a grid the task owns (a fresh concatenation or copy), which it
    overwrites: `b` starts as a copy of `a`'s edge only, the cells the loop never writes,
    instead of the seed's two whole copies. Per exchange of 10 sweeps, those copies cost as much
    as 2-3 sweeps."""
    b = numpy.empty_like(a)  # NEP-18: the chunk's own type and device
    b[0] = a[0]
    b[-1] = a[-1]
    b[:, 0] = a[:, 0]
    b[:, -1] = a[:, -1]
    for _ in range(iterations):
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a, b = b, a
    return a


def nccl_module(backend="numfuse"):
    """numfuse.cuda.nccl for numfuse chunks, CuPy's binding for CuPy chunks."""
    if backend == "numfuse":
        import numfuse.cuda.nccl as nccl  # get_unique_id and NcclCommunicator as CuPy's
        return nccl
    from cupy.cuda import nccl
    return nccl


def nccl_comm(uid, k, rank, backend="numfuse"):
    """This worker's communicator of rank `rank` among k for `backend`'s chunks, made once per uid
    and kept on the worker (every rank's task must run at once: making it waits for all)."""
    from distributed import get_worker
    comms = get_worker().__dict__.setdefault("_numfuse_nccl_comms", {})
    if (uid, backend) not in comms:
        comms[uid, backend] = nccl_module(backend).NcclCommunicator(k, uid, rank)
    return comms[uid, backend]


def swap_halos(comm, g, top, rows, bottom, index, k, xp):
    """Rows g[top:top+top] go up and g[top+rows-bottom:top+rows] down; the neighbours' edge rows
    arrive in g[:top] and g[top+rows:]. Through buffers of their own, so that g, which the sweeps
    rewrite, is never lent (numfuse computes the readers of lent memory at once, which would cut
    the sweeps' fusion); one NCCL group, so that the sends and receives of both sides cannot wait
    on each other."""
    sends, recvs = [], []
    if index > 0:
        sends.append((g[top:2 * top].copy(), index - 1))
        recvs.append((xp.empty((top, g.shape[1])), index - 1, slice(0, top)))
    if index < k - 1:
        sends.append((g[top + rows - bottom:top + rows].copy(), index + 1))
        recvs.append((xp.empty((bottom, g.shape[1])), index + 1, slice(top + rows, None)))
    if xp is numfuse:  # numfuse.cuda.nccl: arrays, on numfuse's stream
        with numfuse.cuda.nccl.group():
            for v, peer in sends:
                comm.send(v, peer)
            for v, peer, _ in recvs:
                comm.recv(v, peer)
    else:  # CuPy's binding: pointers, on CuPy's current stream
        nccl = nccl_module("cupy")
        stream = xp.cuda.get_current_stream().ptr
        nccl.groupStart()
        for v, peer in sends:
            comm.send(v.data.ptr, v.size, nccl.NCCL_FLOAT64, peer, stream)
        for v, peer, _ in recvs:
            comm.recv(v.data.ptr, v.size, nccl.NCCL_FLOAT64, peer, stream)
        nccl.groupEnd()
    for v, _, rows_of_g in recvs:
        g[rows_of_g] = v


def nccl_strip_run(strip, index, k, uid, iterations, exchange_every, tag=0):
    """Runs on strip `index`'s worker: `iterations` sweeps of the strip, its halos of
    `exchange_every` rows swapped with its neighbours over NCCL before every `exchange_every`
    sweeps. Returns the strip's rows, computed."""
    if isinstance(strip, numfuse.ndarray):
        xp = numfuse
    else:
        import cupy as xp
    rows, cols = strip.shape
    d = exchange_every
    top, bottom = (d if index > 0 else 0), (d if index < k - 1 else 0)
    g = xp.empty((rows + top + bottom, cols))
    g[top:top + rows] = strip
    comm = nccl_comm(uid, k, index, "numfuse" if xp is numfuse else "cupy") if k > 1 else None
    trace = os.environ.get("SCALING_TRACE") == "1"
    t0, swap_s = time.time(), 0.0
    done = 0
    while done < iterations:
        step = min(d, iterations - done)
        if comm is not None:
            t = time.perf_counter()
            swap_halos(comm, g, top, rows, bottom, index, k, xp)
            swap_s += time.perf_counter() - t
        g = sweep_owned(g, step)
        done += step
    out = finish(g[top:top + rows].copy())
    if trace:  # wall-clock start and end (comparable across the host's workers), host time in swaps
        print(f"strip {index}/{k} tag {tag}: start {t0:.6f} end {time.time():.6f} "
              f"swaps {swap_s * 1e3:.2f} ms", flush=True)
    return out


def chunk_module(backend):
    if backend == "numfuse":
        return numfuse
    if backend == "cupy":
        import cupy
        return cupy
    return numpy


def host_strip(index, rows, cols, fill):
    """Strip `index` as NumPy: the seed's grid (zeros, the top row held at 100) or, for tests,
    random numbers (the seed's heat reaches one row per sweep, so halo errors further down would
    hide among zeros)."""
    if fill == "random":
        return numpy.random.default_rng(index).random((rows, cols))
    strip = numpy.zeros((rows, cols))
    if index == 0:
        strip[0, :] = 100.0
    return strip


def initial_block(backend, index, rows, cols, fill="seed"):
    """Strip `index` of the grid, made where the task runs (the worker's device)."""
    if fill == "seed":
        block = chunk_module(backend).zeros((rows, cols))
        if index == 0:
            block[0, :] = 100.0
    else:
        block = chunk_module(backend).asarray(host_strip(index, rows, cols, fill))
    return finish(block)


def sweeps(block, iterations, pause=0.0, tag=0):
    """`iterations` sweeps of one strip with its halo, computed when the task ends. `pause`
    (seconds) stretches the task for the worker-kill scenario; `tag` (unused) gives each timed
    run keys of its own (the scheduler warns when a released key comes back with another
    task)."""
    if pause:
        time.sleep(pause)
    return finish(sweep_owned(block.copy(), iterations))


def edge(strip, side, depth):
    """The `depth` rows of a strip that its neighbour on `side` ("top" or "bottom") needs."""
    return strip[:depth] if side == "top" else strip[-depth:]


def exchange_step(above, strip, below, iterations, pause=0.0):
    """One exchange: the strip between its neighbours' edge rows (None at the grid's top or
    bottom), `iterations` sweeps, the strip's own rows back, computed. The halo's outer rows go
    stale by one row per sweep, so a halo of `iterations` rows leaves the strip's rows exact."""
    if pause:
        time.sleep(pause)
    parts = [p for p in (above, strip, below) if p is not None]
    grid = numpy.concatenate(parts) if len(parts) > 1 else strip.copy()  # NEP-18: the chunks'
    top = 0 if above is None else above.shape[0]
    return finish(sweep_owned(grid, iterations)[top:top + strip.shape[0]])
