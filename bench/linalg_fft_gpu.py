"""Issue 13's GPU figures: numpy.linalg and numpy.fft on the device, numfuse next to CuPy and
PyTorch (whichever are installed) in one process, each result checked against NumPy's on the host.

FFT: fft of 2^24 complex64 (PyTorch ~0.35 ms on the H100 is the target), rfft of 2^26 float32,
fft2 of 4096^2 complex64, and the power spectrum abs(fft(x))**2 (the elementwise work fused
around the transform). Linear algebra: inv of 4096^2 float64 (CuPy ~20 ms), solve (16 right-hand
sides), cholesky, eigh and svd of 4096^2 float64, and a stack of 100,000 8x8 float64 matrices
through inv, solve and eigh (the target: 5x faster than CuPy). First call (plans, kernels,
library loading) apart from the best warm time.

    PYTHONPATH=python python bench/linalg_fft_gpu.py [--quick] [--small]

--small: only the stacks of small matrices (more operations, dtypes and sizes: small_stack_cases).
--small also times CuPy under cupyx.errstate(linalg="raise") ("cupy-raise"): CuPy's default
(linalg="ignore") never checks for singular matrices, so its plain column neither reads info
codes back nor waits for the device, while numfuse, holding NumPy's LinAlgError at the call,
does both; the raise column is CuPy with NumPy's semantics.
--only=WORD[,WORD...]: only the cases whose names contain one of the words (e.g. --only=svd,cholesky
or --only=inv for a second run with NUMFUSE_SMALL_LINALG_GROUP=1: inv through the group kernel).
"""
import os
import sys

import numpy as np

import numfuse as nf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_timing  # noqa: E402



def torch_call(name):
    import torch
    return {
        "fft": lambda x: torch.fft.fft(x), "rfft": lambda x: torch.fft.rfft(x),
        "fft2": lambda x: torch.fft.fft2(x), "power": lambda x: torch.fft.fft(x).abs() ** 2,
        "inv": torch.linalg.inv, "solve": torch.linalg.solve, "cholesky": torch.linalg.cholesky,
        "eigh": torch.linalg.eigh, "svd": lambda a: torch.linalg.svd(a, full_matrices=False),
        "det": torch.linalg.det, "eigvalsh": torch.linalg.eigvalsh,
    }[name]


def check(name, got, inputs, want):
    """Whether numfuse's result is NumPy's (decompositions through what they reconstruct)."""
    a = inputs[0]
    if name == "inv":
        tol = 1e-3 if got.dtype in (np.complex64, np.float32) else 1e-6
        return np.allclose(a @ got, np.eye(a.shape[-1]), atol=tol * a.shape[-1])
    if name == "solve":
        return np.allclose(a @ got, inputs[1], rtol=1e-6, atol=1e-6)
    if name == "cholesky":
        return np.allclose(got @ np.swapaxes(got, -1, -2), a, rtol=1e-8, atol=1e-8 * a.shape[-1])
    if name == "eigh":
        w, v = got
        return np.allclose(w, want[0], rtol=1e-8, atol=1e-8 * a.shape[-1]) and np.allclose(
            (v * w[..., None, :]) @ np.swapaxes(v, -1, -2), a, atol=1e-6 * a.shape[-1])
    if name == "svd":
        u, s, vh = got
        return np.allclose(s, want[1], rtol=1e-8, atol=1e-8 * a.shape[-1]) and np.allclose(
            (u * s[..., None, :]) @ vh, a, atol=1e-6 * a.shape[-1])
    rtol = 1e-3 if got.dtype in (np.complex64, np.float32) else 1e-8
    scale = np.max(np.abs(want)) if want.size else 1.0
    return np.allclose(got, want, rtol=rtol, atol=rtol * scale)


def cases(rng, quick):
    n = 1024 if quick else 4096
    f = 18 if quick else 24
    c64 = (rng.standard_normal(2 ** f) + 1j * rng.standard_normal(2 ** f)).astype(np.complex64)
    r32 = rng.standard_normal(2 ** (f + 2), dtype=np.float32)
    img = (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))).astype(np.complex64)
    a = rng.standard_normal((n, n)) + n * np.eye(n)
    spd = a @ a.T / n
    sym = (a + a.T) / 2
    rhs = rng.standard_normal((n, 16))
    big = not quick
    return [
        (f"fft 2^{f} complex64", "fft", lambda xp, x: xp.fft.fft(x), [c64], 5),
        (f"rfft 2^{f + 2} float32", "rfft", lambda xp, x: xp.fft.rfft(x), [r32], 5),
        (f"fft2 {n}^2 complex64", "fft2", lambda xp, x: xp.fft.fft2(x), [img], 5),
        (f"abs(fft(x))**2 2^{f} complex64", "power", lambda xp, x: abs(xp.fft.fft(x)) ** 2, [c64], 5),
        (f"inv {n}^2 float64", "inv", lambda xp, x: xp.linalg.inv(x), [a], 3),
        (f"solve {n}^2 float64, 16 rhs", "solve", lambda xp, x, b: xp.linalg.solve(x, b), [a, rhs], 3),
        (f"cholesky {n}^2 float64", "cholesky", lambda xp, x: xp.linalg.cholesky(x), [spd], 3),
        (f"eigh {n}^2 float64", "eigh", lambda xp, x: xp.linalg.eigh(x), [sym], 1 if big else 3),
        (f"svd {n}^2 float64", "svd", lambda xp, x: xp.linalg.svd(x, full_matrices=False), [a],
         1 if big else 3),
    ] + small_stack_cases(rng, 10_000 if quick else 100_000)


def small_stack_cases(rng, batch):
    """Stacks of small matrices (backend/cuda/small_linalg_cuda.h): the issue's 8x8 float64 inv,
    solve and eigh, then the other operations, dtypes and padded sizes.
    NUMFUSE_SMALL_LINALG_MAX_N=0 runs them through cuSOLVER instead."""
    small = rng.standard_normal((batch, 8, 8)) + 8 * np.eye(8)
    small_sym = (small + np.swapaxes(small, -1, -2)) / 2
    small_rhs = rng.standard_normal((batch, 8, 1))
    issue = [
        (f"inv {batch} x 8x8 float64", "inv", lambda xp, x: xp.linalg.inv(x), [small], 5),
        (f"solve {batch} x 8x8 float64", "solve", lambda xp, x, b: xp.linalg.solve(x, b),
         [small, small_rhs], 5),
        (f"eigh {batch} x 8x8 float64", "eigh", lambda xp, x: xp.linalg.eigh(x), [small_sym], 5),
    ]

    def stack(n, dtype):
        x = rng.standard_normal((batch, n, n)) + n * np.eye(n)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal((batch, n, n))
        return x.astype(dtype)
    s8 = stack(8, np.float64)
    spd8 = s8 @ np.swapaxes(s8, -1, -2) / 8
    sym8 = (s8 + np.swapaxes(s8, -1, -2)) / 2
    rows = issue + [
        (f"det {batch} x 8x8 float64", "det", lambda xp, x: xp.linalg.det(x), [s8], 5),
        (f"cholesky {batch} x 8x8 float64", "cholesky", lambda xp, x: xp.linalg.cholesky(x), [spd8], 5),
        (f"eigvalsh {batch} x 8x8 float64", "eigvalsh", lambda xp, x: xp.linalg.eigvalsh(x), [sym8], 5),
        (f"svd {batch} x 8x8 float64", "svd", lambda xp, x: xp.linalg.svd(x, full_matrices=False), [s8], 3),
    ]
    for n, dtype in [(3, np.float64), (4, np.float32), (8, np.float32), (16, np.float32),
                     (8, np.complex128), (16, np.float64)]:
        rows.append((f"inv {batch} x {n}x{n} {np.dtype(dtype).name}", "inv",
                     lambda xp, x: xp.linalg.inv(x), [stack(n, dtype)], 5))
    return rows


def stream_span(run):
    """Best seconds between an event recorded before run() and one after it, on the idle stream:
    the host's work up to the launch plus the kernel; the wall time less this is the wait's
    wake-up and the host's work after it (where the call's 'numfuse ms' goes)."""
    best = float("inf")
    for _ in range(10):
        nf.cuda.synchronize()
        e0, e1 = nf.cuda.Event(), nf.cuda.Event()
        e0.record()
        run()
        e1.record()
        e1.synchronize()
        best = min(best, e0.elapsed_time(e1) / 1e3)
    return best


def raising(call):
    """call under cupyx.errstate(linalg="raise"): CuPy checking info codes as NumPy does."""
    import cupyx

    def run():
        with cupyx.errstate(linalg="raise"):
            return call()
    return run


def main():
    quick = "--quick" in sys.argv
    only_small = "--small" in sys.argv  # the stacks of small matrices alone
    only = [w for a in sys.argv if a.startswith("--only=") for w in a[7:].split(",") if w]
    rng = np.random.default_rng(0)
    others = cuda_timing.peers()
    if only_small and "cupy" in others:
        others["cupy-raise"] = others["cupy"]  # called under cupyx.errstate(linalg="raise")
    print(f"{'case':36s} {'numfuse ms':>10s} {'first ms':>9s} "
          + " ".join(f"{k + ' ms':>9s} {'ratio':>6s}" for k in others) + "  ok", flush=True)
    # --small builds only the small stacks (the large cases' inputs take seconds to make)
    todo = small_stack_cases(rng, 10_000 if quick else 100_000) if only_small else cases(rng, quick)
    for name, key, fn, inputs, reps in todo:
        if only and not any(w in name for w in only):
            continue
        dev = [nf.asarray(h, device="cuda") for h in inputs]

        def run_nf():
            r = fn(nf, *dev)
            nf.eval(*r) if isinstance(r, tuple) else nf.eval(r)

        t, first = cuda_timing.timed(run_nf, nf.cuda.synchronize, reps)
        span = stream_span(run_nf) if only_small else None
        got = fn(nf, *dev)
        got = tuple(nf.asnumpy(g) for g in got) if isinstance(got, tuple) else nf.asnumpy(got)
        want = fn(np, *inputs)
        ok = check(key, got, inputs, want)
        cols = []
        for peer, (mod, sync, put) in others.items():
            args = [put(h) for h in inputs]
            call = (lambda: torch_call(key)(*args)) if peer == "torch" else (lambda: fn(mod, *args))
            if peer == "cupy-raise":
                call = raising(call)
            try:
                tp, _ = cuda_timing.timed(call, sync, reps)
                cols.append(f"{tp * 1e3:9.2f} {tp / t:6.2f}")
            except Exception as e:  # a peer without the routine: say so, keep going
                cols.append(f"{type(e).__name__[:9]:>9s} {'-':>6s}")
            del args
        extra = f"  stream {span * 1e3:.3f}" if span is not None else ""
        print(f"{name:36s} {t * 1e3:10.2f} {first * 1e3:9.1f} " + " ".join(cols) + f"  {ok}{extra}",
              flush=True)
        del dev


if __name__ == "__main__":
    main()
