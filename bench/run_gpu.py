"""Issues 3 and 4's GPU figures: numfuse next to CuPy, PyTorch and JAX, measured in one run.

Each library runs in its own subprocess (one memory pool on the GPU at a time) on the same cases,
which are the workloads of bench/peers/anchors.py and fused_peers.py (copied verbatim from
../shared/bench, which does not travel to the GPU machine). A peer that is not installed is
skipped with a note. The copy bandwidth is measured in the same run, by every library, and the
best copy is the ceiling the GB/s targets refer to.

numfuse's first call of each case (compiling its kernels) is reported apart from warm calls, and
two fresh processes sharing an empty NUMFUSE_CACHE_DIR give the first call with no cache (NVRTC
compile) and the first call of a new process (disk cache).

Usage (on the GPU machine, repo root, numfuse built into python/numfuse):
    PYTHONPATH=python python3 bench/run_gpu.py                  # everything, tables at the end
    python3 bench/run_gpu.py --libs cupy torch                  # a subset
    python3 bench/run_gpu.py --no-fused-peers --markdown gpu.md
Dry run of the script itself on a CPU machine:
    python bench/run_gpu.py --numfuse-module numpy --allow-cpu --small --libs numfuse
Writes run_gpu.json under $OUT when that variable is set.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402

PEERS = ["cupy", "torch", "jax"]


# ---- one library, in a subprocess: prints one JSON object per line ------------------------------

def emit(**d):
    print(json.dumps(d), flush=True)


def setup(lib, args):
    """Returns (xp, block) where block(r) waits until r is computed on the device."""
    if lib == "numfuse":
        xp = common.import_numfuse(args.numfuse_module)
        on_gpu = common.cuda_available(xp)
        if not on_gpu and not args.allow_cpu:
            raise ImportError(f"{args.numfuse_module}.cuda.is_available() is False (use --allow-cpu "
                              "to measure it on the CPU anyway)")
        emit(lib=lib, device="cuda" if on_gpu else "cpu", version=getattr(xp, "__version__", "?"))
        return xp, (lambda r: common.force(xp, r))
    if lib == "cupy":
        import cupy as xp
        emit(lib=lib, device="cuda", version=xp.__version__)
        return xp, (lambda r: (xp.cuda.Device().synchronize(), r)[1])
    if lib == "torch":
        import torch as xp
        if not xp.cuda.is_available():
            raise ImportError("torch.cuda.is_available() is False")
        emit(lib=lib, device="cuda", version=xp.__version__)
        return xp, (lambda r: (xp.cuda.synchronize(), r)[1])
    if lib == "jax":
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as xp
        emit(lib=lib, device=str(jax.devices()[0]), version=jax.__version__)
        return xp, (lambda r: r.block_until_ready() if hasattr(r, "block_until_ready") else r)
    raise ValueError(lib)


def run_lib(lib, args):
    xp, block = setup(lib, args)
    import numpy as np
    s = args.scale  # --small divides the sizes so that a dry run takes seconds
    f32, f64 = xp.float32, xp.float64

    def timed(case, fn, reps=5, warm=2, nbytes=None, flops=None):
        t0 = time.perf_counter()
        block(fn())
        first = time.perf_counter() - t0
        for _ in range(warm):
            block(fn())
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            block(fn())
            ts.append(time.perf_counter() - t0)
        t = statistics.median(ts)
        d = dict(lib=lib, case=case, ms=t * 1e3, first_ms=first * 1e3)
        if nbytes:
            d["GBps"] = nbytes / t / 1e9
        if flops:
            d["TFLOPs"] = flops / t / 1e12
        emit(**d)

    # Random inputs with each library's own generator (numfuse: host NumPy until it has one).
    nf_gen = getattr(getattr(xp, "random", None), "default_rng", None) if lib == "numfuse" else None
    nf_gen = nf_gen(0) if nf_gen else None
    host = np.random.default_rng(0)
    key = [0]

    def rand(shape, dt):
        if lib == "torch":
            return xp.rand(shape, dtype=dt, device="cuda")
        if lib == "jax":
            import jax
            key[0] += 1
            return jax.random.uniform(jax.random.PRNGKey(key[0]), shape, dtype=dt)
        if lib == "cupy":
            return xp.random.random(shape, dtype=dt)
        if nf_gen is not None:
            return nf_gen.random(shape, dtype=dt)
        return xp.asarray(host.random(shape, dtype=np.dtype(dt)))

    def copy(a):
        return a.clone() if lib == "torch" else (a * 1.0 if lib == "jax" else a.copy())

    def total(x, axis):
        return x.sum(dim=axis) if lib == "torch" else xp.sum(x, axis=axis)

    # copy: the bandwidth ceiling of this run
    n = (1 << 28) // s
    a = block(rand((n,), f32))
    timed(f"copy 2^28/{s} f32" if s > 1 else "copy 2^28 f32", lambda: copy(a), nbytes=2 * 4 * n)
    del a

    # issue 3: element-wise and reduction over 1e8 f32
    n = 100_000_000 // s
    x, y, z = (block(rand((n,), f32)) for _ in range(3))
    timed("add 1e8 f32", lambda: x + y, nbytes=3 * 4 * n)
    timed("multiply 1e8 f32", lambda: x * y, nbytes=3 * 4 * n)
    timed("sum 1e8 f32", lambda: total(x, 0), nbytes=4 * n)
    # issue 4: element-wise chains
    timed("sin(x)+cos(x) 1e8 f32", lambda: xp.sin(x) + xp.cos(x), nbytes=2 * 4 * n)
    timed("x*y+z*x-sqrt(y)*2 1e8 f32", lambda: x * y + z * x - xp.sqrt(y) * 2.0, nbytes=4 * 4 * n)
    del x, y, z

    # issue 4: seed000, reduction with producer and epilogue
    shape3 = (1000, 100, 1000 // s)
    x3 = block(xp.ones(shape3, dtype=f64, **({"device": "cuda"} if lib == "torch" else {})))
    # bytes: read x once, write the (1000, 100) result (torch's .size is a method: count by hand)
    timed("seed000 sqrt(sum(x**2,-1)) 1e8 f64", lambda: xp.sqrt(total(x3 ** 2, -1)),
          nbytes=8 * (shape3[0] * shape3[1] * shape3[2] + shape3[0] * shape3[1]))
    del x3

    # issue 3: matmul through the vendor BLAS (JAX's default f32 precision is TF32: see the note)
    m = 8192 // int(s ** 0.5)
    for dt, nm in ((f32, "f32"), (f64, "f64")):
        A, B = block(rand((m, m), dt)), block(rand((m, m), dt))
        timed(f"matmul 8192 {nm}", lambda: A @ B, reps=3, warm=1, flops=2 * m ** 3)
        del A, B

    # issue 4: seed002 stencil, 50 iterations, written with slices (JAX: under jax.jit, as in anchors.py)
    N = 8192 // int(s ** 0.5)
    g = block(rand((N, N), f64))
    if lib == "jax":
        import jax

        @jax.jit
        def sten_jit(g):
            def body(i, g):
                return g.at[1:-1, 1:-1].set(0.25 * (g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:]))
            return jax.lax.fori_loop(0, 50, body, g)
        sten = lambda: sten_jit(g)
    else:
        def sten():
            a = copy(g)
            b = copy(a)
            for _ in range(50):
                b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
                a, b = b, a
            return a
    timed("seed002 stencil 50it 8192^2 f64", sten, reps=3, warm=1, nbytes=50 * 2 * 8 * N * N)
    del g

    # issue 4: seed002 Monte Carlo pi; the samples are drawn inside the timed region
    n = 100_000_000 // s

    def mc():
        u, v = rand((n,), f64), rand((n,), f64)
        return 4.0 * total((u * u + v * v <= 1.0) * 1.0, 0) / n
    timed("seed002 montecarlo pi 1e8 f64", mc)

    # issues 3/4: host overhead per small op (1000 elements)
    a = block(rand((1000,), f32))
    b0 = block(rand((1000,), f32))

    def chain():
        b = a
        for _ in range(2000):
            b = b + 1.0
        return b
    t = _per_op(chain, block, 2000)
    emit(lib=lib, case="small op: 2000x b=b+1.0, one sync (us/op)", ms=t * 1e3)

    def synced():
        for _ in range(1000):
            c = block(a + b0)
        return c
    t = _per_op(synced, block, 1000)
    emit(lib=lib, case="small op: c=a+b, sync each (us/op)", ms=t * 1e3)


def _per_op(loop, block, ops, reps=5):
    for _ in range(2):
        block(loop())
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        block(loop())
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) / ops


def probe_first_calls(args):
    """First call of three kernels in this process: run twice on one cache dir (cold, then disk)."""
    xp = common.import_numfuse(args.numfuse_module)
    import numpy as np
    h = np.random.default_rng(0)
    x = common.force(xp, xp.asarray(h.random(1000, dtype=np.float32)))
    x3 = common.force(xp, xp.asarray(h.random((10, 10, 100))))
    for case, fn in (("add f32", lambda: x + x),
                     ("sum f32", lambda: xp.sum(x)),
                     ("sqrt(sum(x**2,-1)) f64", lambda: xp.sqrt(xp.sum(x3 ** 2, axis=-1)))):
        t0 = time.perf_counter()
        common.force(xp, fn())
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        common.force(xp, fn())
        again = time.perf_counter() - t0
        emit(lib="numfuse", case=case, first_ms=first * 1e3, second_ms=again * 1e3)


# ---- the parent: run every library, then print the tables ---------------------------------------

def child(args, *extra, script=__file__, env=None, timeout=590):
    cmd = [sys.executable, script, *extra]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        return [], f"timed out after {timeout} s: {(e.stdout or '')[-300:]}"
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    err = None
    if p.returncode:
        tail = p.stderr.strip().splitlines()
        err = tail[-1] if tail else f"exit {p.returncode}"
        if "Error" not in err:
            err = p.stderr[-600:]
    return rows, err


# What issues 3 and 4 ask, as (case, target text, check(row_of_numfuse, rows_by_lib, ceiling)).
def _vs(lib, k):
    """numfuse at least k times faster than lib; None (no verdict) when lib has no figure."""
    return lambda nf, by, ceil: None if lib not in by else by[lib]["ms"] / nf["ms"] >= k


def _both(f, g):
    def check(nf, by, c):
        a, b = f(nf, by, c), g(nf, by, c)
        if a is False or b is False:
            return False  # one unmet part is enough, even with a peer missing
        return None if a is None or b is None else True
    return check


def _bw(frac):
    return lambda nf, by, c: nf.get("GBps", 0) >= frac * c if c else None


TARGETS = {
    "add 1e8 f32": ("issue 3: >= 85% of copy", _bw(0.85)),
    "multiply 1e8 f32": ("issue 3: >= 85% of copy", _bw(0.85)),
    "sum 1e8 f32": ("issue 3: >= 90% of copy", _bw(0.90)),
    "matmul 8192 f32": ("issue 3: within 3% of cupy", _vs("cupy", 1 / 1.03)),
    "matmul 8192 f64": ("issue 3: within 3% of cupy", _vs("cupy", 1 / 1.03)),
    "seed000 sqrt(sum(x**2,-1)) 1e8 f64": ("issue 4: >= 2.5x cupy", _vs("cupy", 2.5)),
    "sin(x)+cos(x) 1e8 f32": ("issue 4: >= 80% copy, >= 3x cupy", _both(_bw(0.8), _vs("cupy", 3))),
    "x*y+z*x-sqrt(y)*2 1e8 f32": ("issue 4: >= 80% copy, >= 3x cupy", _both(_bw(0.8), _vs("cupy", 3))),
    # anchors.py runs the JAX stencil under jax.jit, so "jax" here is the jit figure
    "seed002 stencil 50it 8192^2 f64": ("issue 4: >= 4x cupy, < jax.jit", _both(_vs("cupy", 4), _vs("jax", 1.0))),
    "seed002 montecarlo pi 1e8 f64": ("issue 4: >= 10x cupy", _vs("cupy", 10)),
    # Issue 3's "warm small op <= 8 us (CuPy 19 us, PyTorch 11.6 us)" quotes anchors.py's W9, which
    # is this loop (one sync at the end); "c=a+b, sync each" adds a device round trip per op and is
    # shown for information.
    "small op: 2000x b=b+1.0, one sync (us/op)": ("issue 3: <= 8 us/op; issue 4: <= 2 us/op",
                                                  lambda nf, by, c: nf["ms"] * 1e3 <= 2),
}


def cell(r):
    if r is None:
        return "-"
    s = f"{r['ms'] * 1e3:.2f} us" if "us/" in r["case"] else f"{r['ms']:.3f} ms"
    if "GBps" in r:
        s += f" ({r['GBps']:.0f} GB/s)"
    if "TFLOPs" in r:
        s += f" ({r['TFLOPs']:.1f} TF/s)" if r["TFLOPs"] >= 1 else f" ({r['TFLOPs'] * 1e3:.0f} GF/s)"
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_module_arg(ap)
    ap.add_argument("--libs", nargs="+", default=["numfuse"] + PEERS)
    ap.add_argument("--lib", help=argparse.SUPPRESS)  # internal: run one library
    ap.add_argument("--probe-first", action="store_true", help=argparse.SUPPRESS)  # internal
    ap.add_argument("--no-fused-peers", action="store_true", help="skip jax.jit/torch.compile/cupy.fuse")
    ap.add_argument("--allow-cpu", action="store_true", help="measure numfuse even without a GPU")
    ap.add_argument("--small", action="store_true", help="sizes / 100: a smoke run of the script")
    ap.add_argument("--markdown", metavar="PATH", help="also write the tables as markdown to PATH")
    args = ap.parse_args()
    args.scale = 100 if args.small else 1
    if args.lib:
        return run_lib(args.lib, args)
    if args.probe_first:
        return probe_first_calls(args)

    passthrough = ["--numfuse-module", args.numfuse_module] + (["--allow-cpu"] if args.allow_cpu else []) \
        + (["--small"] if args.small else [])
    rows, notes, devices = [], [], {}
    for lib in args.libs:
        print(f"running {lib} ...", flush=True)
        got, err = child(args, "--lib", lib, *passthrough)
        for r in got:
            if "device" in r:
                devices[lib] = f"{r['device']}, {r['version']}"
            else:
                rows.append(r)
        if err:
            notes.append(f"{lib}: {'skipped' if not got else 'failed part-way'}: {err}")

    first_rows = []
    if "numfuse" in args.libs and "numfuse" in devices:
        # Two fresh processes on one empty cache directory: compile, then load from disk.
        with tempfile.TemporaryDirectory(prefix="numfuse-cache-") as cache:
            env = dict(os.environ, NUMFUSE_CACHE_DIR=cache)
            for label in ("empty cache (compile)", "fresh process, disk cache"):
                got, err = child(args, "--probe-first", *passthrough, env=env, timeout=300)
                first_rows += [dict(r, when=label) for r in got]
                if err:
                    notes.append(f"numfuse first-call probe ({label}): {err}")

    fused = []
    if not args.no_fused_peers and not args.small:
        for lib in [l for l in PEERS if l in args.libs]:
            print(f"running fused peer {lib} ...", flush=True)
            got, err = child(args, "--lib", lib, script=os.path.join(HERE, "peers", "fused_peers.py"))
            fused += got
            if err:
                notes.append(f"fused peer {lib}: {'skipped' if not got else 'failed part-way'}: {err}")

    # ---- tables
    libs = [l for l in args.libs if l in devices]
    ceiling = max([r.get("GBps", 0) for r in rows if r["case"].startswith("copy")] or [0])
    out = [f"Measured {common.machine_line()}; command: `{' '.join(['python3'] + sys.argv)}`",
           "devices: " + "; ".join(f"{l} {d}" for l, d in devices.items()),
           f"copy ceiling in this run: {ceiling:.0f} GB/s (best copy of any library, bytes read + written)"]
    if args.small:
        out.append("SMOKE RUN (--small): sizes divided by 100, case names keep the full sizes; not figures to record")
    print("\n" + "\n".join(out) + "\n")
    cases = list(dict.fromkeys(r["case"] for r in rows))
    headers = ["case"] + [l + (" (warm)" if l == "numfuse" else "") for l in libs]
    if "numfuse" in libs:
        headers += ["numfuse 1st call", "% of copy", "cupy/numfuse", "target"]
    table = []
    for c in cases:
        by = {r["lib"]: r for r in rows if r["case"] == c}
        line = [c] + [cell(by.get(l)) for l in libs]
        nf = by.get("numfuse")
        if "numfuse" in libs:
            pct = f"{100 * nf['GBps'] / ceiling:.0f}%" if nf and "GBps" in nf and ceiling else "-"
            vs = f"{by['cupy']['ms'] / nf['ms']:.2f}x" if nf and "cupy" in by else "-"
            tgt = "-"
            if nf and c in TARGETS:
                text, ok = TARGETS[c]
                verdict = ok(nf, by, ceiling)
                tgt = f"{text}: " + {None: "n/a (peer missing)", True: "met"}.get(verdict, "NOT met")
            line += [f"{nf['first_ms']:.1f} ms" if nf and "first_ms" in nf else "-", pct, vs, tgt]
        table.append(line)
    md = [common.print_table(headers, table)]
    if first_rows:
        print("\nnumfuse first calls (1000-element inputs):")
        md.append(common.print_table(["kernel", "when", "first call", "second call (in-process cache)"],
                                     [[r["case"], r["when"], f"{r['first_ms']:.2f} ms", f"{r['second_ms']:.3f} ms"]
                                      for r in first_rows]))
    if fused:
        print("\nfused peers (the same expressions under jax.jit, torch.compile, cupy.fuse):")
        md.append(common.print_table(["peer", "case", "time", "first call"],
                                     [[r["lib"], r["case"], cell(r), f"{r['first_call_ms']:.0f} ms" if "first_call_ms" in r else "-"]
                                      for r in fused]))
    if notes:
        print("\nnotes:\n" + "\n".join("  " + n for n in notes))
    print("\nJAX's f32 matmul runs at TF32 precision by default; CuPy's and PyTorch's do not.")

    result = dict(devices=devices, ceiling_GBps=ceiling, rows=rows, first_calls=first_rows, fused=fused, notes=notes)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "run_gpu.json"), "w") as f:
            json.dump(result, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n\n".join(out) + "\n\n" + "\n\n".join(md) + "\n"
                    + ("\nNotes:\n" + "\n".join(f"- {n}" for n in notes) + "\n" if notes else ""))


if __name__ == "__main__":
    main()
