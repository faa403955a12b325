"""32-bit index arithmetic in the CUDA kernels (issue 11), before and after, in one run.

"after" is this build; "before" is the same build in a subprocess with NUMFUSE_CUDA_INT32_SPLIT=0,
which restores the old index planning: an elementwise space past 2**31 elements in ONE launch of
64-bit indices (now: 32-bit pieces), and reductions with 64-bit indices always (now: 32-bit
wherever the input space fits, and in pieces of rows where the rows' outputs are independent). Warm times, best of three batches, synchronised around each batch;
GB/s counts every byte read and written once.

    PYTHONPATH=python python3 bench/int32_gpu.py            # both columns
    PYTHONPATH=python python3 bench/int32_gpu.py --small    # a dry run at small sizes
"""
import json
import os
import subprocess
import sys

import numpy as np

import numfuse as nf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_timing  # noqa: E402

SMALL = "--small" in sys.argv
CHILD = "--child" in sys.argv
BIG = 2**20 + 77 if SMALL else 2**31 + 2**20 + 77
N32 = 2**16 if SMALL else 2**28
SIDE = 2**8 if SMALL else 2**14
DEV = "cuda" if nf.cuda.is_available() else "cpu"  # cpu: a dry run of the script (--small)


def sync():
    if DEV == "cuda":
        nf.cuda.synchronize()


def timed(fn, reps=10):
    """Best seconds per call of fn() (bench/cuda_timing.py's loop, first call apart)."""
    return cuda_timing.timed(fn, sync, reps)[0]


def cases():
    """(name, bytes moved, fn) for each case; arrays made once."""
    x = (nf.arange(BIG, dtype=np.int64, device=DEV) % 251).astype(np.int8)
    xo = nf.empty(BIG, np.int8, device=DEV)
    rng = np.random.default_rng(0)
    a = nf.asarray(rng.random(N32, dtype=np.float32), device=DEV)
    b = nf.asarray(rng.random(N32, dtype=np.float32), device=DEV)
    c = nf.empty(N32, np.float32, device=DEV)
    a2, b2 = a.reshape(SIDE, SIDE), b.reshape(SIDE, SIDE)
    c2 = c.reshape(SIDE, SIDE)
    nf.eval(x, a, b)
    out = []
    out.append(("int8 x + x, 2^31+2^20+77", 2 * BIG, lambda: nf.add(x, x, out=xo)))
    out.append(("int8 (x*3 ^ 0x55) - (x>>1), 2^31+", 2 * BIG, lambda: nf.eval(((x * 3) ^ 0x55) - (x >> 1))))
    out.append(("float32 a + b, 2^28", 12 * N32, lambda: nf.add(a, b, out=c)))
    out.append(("float32 a.T + b (strided), 2^28", 12 * N32, lambda: nf.add(a2.T, b2, out=c2)))
    out.append(("sum float32, 2^28", 4 * N32, lambda: nf.eval(a.sum())))
    out.append(("sum axis 0 float32 (2^14)^2", 4 * N32, lambda: nf.eval(a2.sum(axis=0))))
    out.append(("sum axis 1 of a.T (strided rows)", 4 * N32, lambda: nf.eval(a2.T.sum(axis=1))))
    out.append(("argmax float32, 2^28", 4 * N32, lambda: nf.eval(a.argmax())))
    out.append(("sum (a*a) fused, 2^28", 4 * N32, lambda: nf.eval((a * a).sum())))
    out.append(("sum int8 as int64, 2^31+ (64-bit both)", BIG, lambda: nf.eval(x.sum(dtype=np.int64))))
    cols = 2**15 if SMALL else 2**20
    x2 = x[: (BIG // cols) * cols].reshape(BIG // cols, cols)
    out.append(("int8 x2.T + 1 (strided), (2^20, 2^11+1)", 2 * x2.size, lambda: nf.eval(x2.T + 1)))
    out.append(("sum axis 1 int8 (2^11+1, 2^20) (pieces)", x2.size, lambda: nf.eval(x2.sum(axis=1, dtype=np.int64))))
    out.append(("sum axis 0 int8 (2^11+1, 2^20) (64-bit both)", x2.size,
                lambda: nf.eval(x2.sum(axis=0, dtype=np.int64))))
    return out


def child():
    rows = {}
    for name, nbytes, fn in cases():
        rows[name] = (timed(fn), nbytes)
    print(json.dumps(rows))


def main():
    if CHILD:
        child()
        return
    runs = {}
    for label, split in (("before", "0"), ("after", "1")):
        env = dict(os.environ, NUMFUSE_CUDA_INT32_SPLIT=split)
        args = [sys.executable, __file__, "--child"] + (["--small"] if SMALL else [])
        r = subprocess.run(args, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{label}: failed\n{r.stderr[-3000:]}")
            return 1
        runs[label] = json.loads(r.stdout.strip().splitlines()[-1])
    print(f"{'case':42s} {'before ms':>10s} {'GB/s':>7s} {'after ms':>10s} {'GB/s':>7s} {'speedup':>8s}")
    for name, (t_after, nbytes) in runs["after"].items():
        t_before = runs["before"][name][0]
        print(f"{name:42s} {t_before * 1e3:10.3f} {nbytes / t_before / 1e9:7.0f} {t_after * 1e3:10.3f} "
              f"{nbytes / t_after / 1e9:7.0f} {t_before / t_after:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
