"""Which cuSOLVER routine for one large matrix: the 32-bit API numfuse calls (potrf, getrf,
syevd, gesvd) beside the 64-bit API (Xpotrf, Xgetrf, Xsyevd, Xgesvd, Xgesvdp) and the Jacobi
SVD (gesvdj) that PyTorch prefers, on the same float64 matrix, called through ctypes on CuPy's
memory so that only the library call is timed. Issue 13 asks cholesky and svd of 4096^2 at least
as fast as the peers; PyTorch's cholesky (Xpotrf) measured 2.3 ms beside numfuse's potrf 5.4 ms.

    PYTHONPATH=python python3 bench/cusolver_probe.py [n]      (needs CuPy and a GPU)
"""
import ctypes
import ctypes.util
import glob
import sys
import time

import cupy as cp
import numpy as np

R64F = 1  # cudaDataType CUDA_R_64F
LOWER, UPPER, EIG_VECTOR, EIG_NOVECTOR = 0, 1, 1, 0
c_i64, c_sz, c_p = ctypes.c_int64, ctypes.c_size_t, ctypes.c_void_p


def load():
    for name in sorted(glob.glob("/usr/local/cuda*/lib64/libcusolver.so*")) + ["libcusolver.so.12",
                                                                             "libcusolver.so"]:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise OSError("libcusolver not found")


lib = load()
handle, params = c_p(), c_p()
assert lib.cusolverDnCreate(ctypes.byref(handle)) == 0
assert lib.cusolverDnCreateParams(ctypes.byref(params)) == 0
info = cp.zeros(1, dtype=np.int32)


def ptr(a):
    return c_p(a.data.ptr)


def timed(label, setup, call, repeats=3):
    """Best of `repeats` runs of call() on a fresh copy from setup(), in ms."""
    best = float("inf")
    for _ in range(repeats):
        state = setup()
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        status = call(state)
        cp.cuda.Device().synchronize()
        best = min(best, (time.perf_counter() - t0) * 1e3)
        if status != 0:
            print(f"{label}: status {status}")
            return
    print(f"{label:40s} {best:9.2f} ms  info={int(info.get()[0])}", flush=True)


def xbuffers(fn_size, *args):
    dev, host = c_sz(), c_sz()
    assert fn_size(handle, params, *args, ctypes.byref(dev), ctypes.byref(host)) == 0
    return cp.empty(max(dev.value, 1), dtype=np.uint8), ctypes.create_string_buffer(max(host.value, 1)), dev.value, host.value


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n))
    spd = cp.asarray(a @ a.T + n * np.eye(n))
    gen = cp.asarray(a)
    print(f"cuSOLVER routines on one {n}x{n} float64 matrix (best of 3)")

    # cholesky
    lw = ctypes.c_int()
    lib.cusolverDnDpotrf_bufferSize(handle, LOWER, n, ptr(spd), n, ctypes.byref(lw))
    w32 = cp.empty(lw.value, dtype=np.float64)
    timed("Dpotrf (32-bit API)", lambda: spd.copy(),
          lambda m: lib.cusolverDnDpotrf(handle, LOWER, n, ptr(m), n, ptr(w32), lw.value, ptr(info)))
    lib.cusolverDnDpotrf_bufferSize(handle, UPPER, n, ptr(spd), n, ctypes.byref(lw))
    w32 = cp.empty(lw.value, dtype=np.float64)
    timed("Dpotrf (32-bit API), upper triangle", lambda: spd.copy(),
          lambda m: lib.cusolverDnDpotrf(handle, UPPER, n, ptr(m), n, ptr(w32), lw.value, ptr(info)))
    timed("transposing copy (cupy.ascontiguousarray(a.T))", lambda: spd,
          lambda m: (cp.ascontiguousarray(m.T), 0)[1])
    dw, hw, dn, hn = xbuffers(lib.cusolverDnXpotrf_bufferSize, LOWER, c_i64(n), R64F, ptr(spd), c_i64(n), R64F)
    timed("Xpotrf (64-bit API)", lambda: spd.copy(),
          lambda m: lib.cusolverDnXpotrf(handle, params, LOWER, c_i64(n), R64F, ptr(m), c_i64(n), R64F,
                                         ptr(dw), c_sz(dn), hw, c_sz(hn), ptr(info)))
    # LU
    lib.cusolverDnDgetrf_bufferSize(handle, n, n, ptr(gen), n, ctypes.byref(lw))
    w32 = cp.empty(lw.value, dtype=np.float64)
    piv32 = cp.empty(n, dtype=np.int32)
    timed("Dgetrf (32-bit API)", lambda: gen.copy(),
          lambda m: lib.cusolverDnDgetrf(handle, n, n, ptr(m), n, ptr(w32), ptr(piv32), ptr(info)))
    piv64 = cp.empty(n, dtype=np.int64)
    dw, hw, dn, hn = xbuffers(lib.cusolverDnXgetrf_bufferSize, c_i64(n), c_i64(n), R64F, ptr(gen), c_i64(n), R64F)
    timed("Xgetrf (64-bit API)", lambda: gen.copy(),
          lambda m: lib.cusolverDnXgetrf(handle, params, c_i64(n), c_i64(n), R64F, ptr(m), c_i64(n), ptr(piv64),
                                         R64F, ptr(dw), c_sz(dn), hw, c_sz(hn), ptr(info)))
    # eigh
    wv = cp.empty(n, dtype=np.float64)
    lib.cusolverDnDsyevd_bufferSize(handle, EIG_VECTOR, LOWER, n, ptr(spd), n, ptr(wv), ctypes.byref(lw))
    w32 = cp.empty(lw.value, dtype=np.float64)
    timed("Dsyevd (32-bit API)", lambda: spd.copy(),
          lambda m: lib.cusolverDnDsyevd(handle, EIG_VECTOR, LOWER, n, ptr(m), n, ptr(wv), ptr(w32), lw.value,
                                         ptr(info)), repeats=2)
    dw, hw, dn, hn = xbuffers(lib.cusolverDnXsyevd_bufferSize, EIG_VECTOR, LOWER, c_i64(n), R64F, ptr(spd),
                              c_i64(n), R64F, ptr(wv), R64F)
    timed("Xsyevd (64-bit API)", lambda: spd.copy(),
          lambda m: lib.cusolverDnXsyevd(handle, params, EIG_VECTOR, LOWER, c_i64(n), R64F, ptr(m), c_i64(n), R64F,
                                         ptr(wv), R64F, ptr(dw), c_sz(dn), hw, c_sz(hn), ptr(info)), repeats=2)
    # svd
    s = cp.empty(n, dtype=np.float64)
    u = cp.empty((n, n), dtype=np.float64)
    vt = cp.empty((n, n), dtype=np.float64)
    lib.cusolverDnDgesvd_bufferSize(handle, n, n, ctypes.byref(lw))
    w32 = cp.empty(lw.value, dtype=np.float64)
    jobA = ctypes.c_char(b"A")
    timed("Dgesvd (32-bit API)", lambda: gen.copy(),
          lambda m: lib.cusolverDnDgesvd(handle, jobA, jobA, n, n, ptr(m), n, ptr(s), ptr(u), n, ptr(vt), n,
                                         ptr(w32), lw.value, None, ptr(info)), repeats=1)
    dw, hw, dn, hn = xbuffers(lib.cusolverDnXgesvd_bufferSize, jobA, jobA, c_i64(n), c_i64(n), R64F, ptr(gen),
                              c_i64(n), R64F, ptr(s), R64F, ptr(u), c_i64(n), R64F, ptr(vt), c_i64(n), R64F)
    timed("Xgesvd (64-bit API)", lambda: gen.copy(),
          lambda m: lib.cusolverDnXgesvd(handle, params, jobA, jobA, c_i64(n), c_i64(n), R64F, ptr(m), c_i64(n),
                                         R64F, ptr(s), R64F, ptr(u), c_i64(n), R64F, ptr(vt), c_i64(n), R64F,
                                         ptr(dw), c_sz(dn), hw, c_sz(hn), ptr(info)), repeats=1)
    dw, hw, dn, hn = xbuffers(lib.cusolverDnXgesvdp_bufferSize, EIG_VECTOR, 0, c_i64(n), c_i64(n), R64F,
                              ptr(gen), c_i64(n), R64F, ptr(s), R64F, ptr(u), c_i64(n), R64F, ptr(vt),
                              c_i64(n), R64F)
    err = ctypes.c_double()
    ref_s = None
    timed("Xgesvdp (64-bit API, polar)", lambda: gen.copy(),
          lambda m: lib.cusolverDnXgesvdp(handle, params, EIG_VECTOR, 0, c_i64(n), c_i64(n), R64F, ptr(m),
                                          c_i64(n), R64F, ptr(s), R64F, ptr(u), c_i64(n), R64F, ptr(vt),
                                          c_i64(n), R64F, ptr(dw), c_sz(dn), hw, c_sz(hn), ptr(info),
                                          ctypes.byref(err)), repeats=1)
    ref_s = np.linalg.svd(a, compute_uv=False)
    print(f"  Xgesvdp h_err_sigma={err.value:.3e}, s vs NumPy: max rel err "
          f"{float(np.max(np.abs(cp.asnumpy(s) - ref_s) / ref_s[0])):.2e}, smallest s rel err "
          f"{float(abs(cp.asnumpy(s)[-1] - ref_s[-1]) / ref_s[-1]):.2e}")
    # does the polar SVD keep small singular values and unitary factors? an ill-conditioned
    # matrix (singular values 1 .. 1e-13), a rank-deficient one (half the values 0), a tall one
    k = n // 4
    for label, rows, sv in (("ill-conditioned", k, np.logspace(0, -13, k)),
                            ("rank k/2", k, np.r_[np.linspace(1, 0.5, k // 2), np.zeros(k - k // 2)]),
                            ("tall 2k x k", 2 * k, np.linspace(2, 1, k))):
        q1, _ = np.linalg.qr(rng.standard_normal((rows, k)))
        q2, _ = np.linalg.qr(rng.standard_normal((k, k)))
        host = (q1 * sv) @ q2.T  # rows x k, C order
        col = cp.asarray(np.asfortranarray(host))  # column-major bytes, read by cuSOLVER as host
        s2, u2, v2 = cp.empty(k), cp.empty((rows, rows), order="F"), cp.empty((k, k), order="F")
        dw, hw, dn, hn = xbuffers(lib.cusolverDnXgesvdp_bufferSize, EIG_VECTOR, 0, c_i64(rows), c_i64(k), R64F,
                                  ptr(col), c_i64(rows), R64F, ptr(s2), R64F, ptr(u2), c_i64(rows), R64F,
                                  ptr(v2), c_i64(k), R64F)
        status = lib.cusolverDnXgesvdp(handle, params, EIG_VECTOR, 0, c_i64(rows), c_i64(k), R64F, ptr(col),
                                       c_i64(rows), R64F, ptr(s2), R64F, ptr(u2), c_i64(rows), R64F, ptr(v2),
                                       c_i64(k), R64F, ptr(dw), c_sz(dn), hw, c_sz(hn), ptr(info),
                                       ctypes.byref(err))
        cp.cuda.Device().synchronize()
        U, S, V = cp.asnumpy(u2), cp.asnumpy(s2), cp.asnumpy(v2)
        ref2 = np.linalg.svd(host, compute_uv=False)
        recon = (U[:, :k] * S) @ V.T
        print(f"  {label} {rows}x{k}: status {status} info {int(info.get()[0])} err_sigma={err.value:.2e}; "
              f"s max abs err {float(np.max(np.abs(S - ref2))):.2e}; reconstruction "
              f"{float(np.max(np.abs(recon - host))):.2e}; |U^T U - I| "
              f"{float(np.max(np.abs(U.T @ U - np.eye(rows)))):.2e}; |V^T V - I| "
              f"{float(np.max(np.abs(V.T @ V - np.eye(k)))):.2e}", flush=True)
    gparams = c_p()
    if lib.cusolverDnCreateGesvdjInfo(ctypes.byref(gparams)) == 0:
        lib.cusolverDnDgesvdj_bufferSize(handle, EIG_VECTOR, 0, n, n, ptr(gen), n, ptr(s), ptr(u), n, ptr(vt), n,
                                         ctypes.byref(lw), gparams)
        w32 = cp.empty(lw.value, dtype=np.float64)
        timed("Dgesvdj (32-bit API, Jacobi)", lambda: gen.copy(),
              lambda m: lib.cusolverDnDgesvdj(handle, EIG_VECTOR, 0, n, n, ptr(m), n, ptr(s), ptr(u), n,
                                              ptr(vt), n, ptr(w32), lw.value, ptr(info), gparams), repeats=1)
    print(f"  last s vs NumPy: max rel err {float(np.max(np.abs(cp.asnumpy(s) - ref_s) / ref_s[0])):.2e}")


if __name__ == "__main__":
    main()
