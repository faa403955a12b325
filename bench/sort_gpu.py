"""Issue 12's GPU sorting figures: numfuse next to CuPy and PyTorch in one process (whichever
are installed), with a check that numfuse's result equals NumPy's on the same data.

Cases: sort of 1e8 float32 (CuPy ~2.7 ms on the H100 is the target), sort of 1e8 float64, argsort
and unique (values; values and counts) of 1e7 float32, searchsorted of 1e7 into 1e6, sort along the last axis of 1e4 x 1e4
float32 (segmented), argsort of 1e6 complex64 (the merge kernels). First call (compiles NVRTC
kernels, loads libnumfuse_cub.so) separately from the best warm time.

    PYTHONPATH=python python bench/sort_gpu.py
"""
import os
import sys

import numpy as np

import numfuse as nf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_timing  # noqa: E402



def cases(rng):
    f32 = rng.standard_normal(10**8, dtype=np.float32)
    f64 = rng.standard_normal(10**8)
    small = f32[:10**7].copy()
    hay = np.sort(rng.standard_normal(10**6, dtype=np.float32))
    dup = rng.integers(0, 10**6, 10**7).astype(np.float32)
    mat = rng.standard_normal((10**4, 10**4), dtype=np.float32)
    cplx = (rng.standard_normal(10**6) + 1j * rng.standard_normal(10**6)).astype(np.complex64)
    torch_ops = {
        "sort": lambda t, a: t.sort(a)[0], "argsort": lambda t, a: t.argsort(a, stable=True),
        "unique": lambda t, a: t.unique(a), "search": lambda t, h, v: t.searchsorted(h, v),
        "counts": lambda t, a: t.unique(a, return_counts=True),
        "rows": lambda t, a: t.sort(a, dim=-1)[0],
    }
    return [
        ("sort 1e8 float32", "sort", lambda xp, a: xp.sort(a), [f32]),
        ("sort 1e8 float64", "sort", lambda xp, a: xp.sort(a), [f64]),
        ("argsort 1e7 float32", "argsort", lambda xp, a: xp.argsort(a), [small]),
        ("unique 1e7 float32 (1e6 values)", "unique", lambda xp, a: xp.unique(a), [dup]),
        ("unique counts 1e7 float32 (1e6 values)", "counts", lambda xp, a: xp.unique(a, return_counts=True), [dup]),
        ("searchsorted 1e7 into 1e6", "search", lambda xp, h, v: xp.searchsorted(h, v), [hay, small]),
        ("sort rows 1e4 x 1e4 float32", "rows", lambda xp, a: xp.sort(a, axis=-1), [mat]),
        ("argsort 1e6 complex64 (merge kernels)", None, lambda xp, a: xp.argsort(a), [cplx]),
    ], torch_ops


def main():
    rng = np.random.default_rng(0)
    others = cuda_timing.peers()
    table, torch_ops = cases(rng)
    print(f"{'case':40s} {'numfuse ms':>10s} {'first ms':>9s} " + " ".join(f"{k + ' ms':>9s}" for k in others)
          + "  ok")
    for name, tkey, fn, inputs in table:
        dev = [nf.asarray(h, device="cuda") for h in inputs]
        t, first = cuda_timing.timed(lambda: nf.eval(fn(nf, *dev)), nf.cuda.synchronize, 5)
        got = fn(nf, *dev)
        want = fn(np, *inputs)
        if name.startswith("argsort"):
            ok = np.array_equal(inputs[0][nf.asnumpy(got)], inputs[0][want])
        elif isinstance(want, tuple):
            ok = all(np.array_equal(nf.asnumpy(g), w, equal_nan=True) for g, w in zip(got, want))
        else:
            ok = np.array_equal(nf.asnumpy(got), want, equal_nan=True)
        cols = []
        for peer, (mod, sync, put) in others.items():
            if peer == "torch":
                if tkey is None:
                    cols.append(f"{'-':>9s}")
                    continue
                args = [put(h) for h in inputs]
                op = torch_ops[tkey]
                tp, _ = cuda_timing.timed(lambda: op(mod, *args), sync, 5)
            else:
                args = [put(h) for h in inputs]
                tp, _ = cuda_timing.timed(lambda: fn(mod, *args), sync, 5)
            cols.append(f"{tp * 1e3:9.2f}")
        print(f"{name:40s} {t * 1e3:10.2f} {first * 1e3:9.1f} " + " ".join(cols) + f"  {ok}", flush=True)
        del dev


if __name__ == "__main__":
    main()
