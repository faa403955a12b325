"""NVRTC compile times of numfuse's kernel sources on this machine (no GPU needed): what a first
call pays per new kernel. The sources are built from the repository's kernel headers as the CUDA
backend builds them (CMakeLists.txt's prelude, then a template), and compiled through numfuse's own
NVRTC path (numfuse._core.cuda.compile_to_cubin: SASS for the architecture, numfuse's options).

    PYTHONPATH=python python3 tools/nvrtc_compile_times.py [--arch sm_90] [--quick]
"""
import argparse
import os
import time

import numfuse  # noqa: F401 (loads NVRTC's search paths)
from numfuse._core import cuda as _c

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cpp", "numfuse", "kernels")
PRELUDE_HEADERS = ["nf_types.h", "scalar_math.h", "complex_math.h", "scalar_ops.h", "fp_check.h", "philox.h",
                   "generators.h", "histogram_bins.h"]
OPTS = ["-std=c++17", "--fmad=false"]


def _read(name):
    with open(os.path.join(ROOT, name)) as f:
        return f.read()


PRELUDE = "".join(f"// ---- {h}\n{_read(h)}\n" for h in PRELUDE_HEADERS)


def _one(entry):
    return f"#define NF_ONE_KERNEL\n#define NF_KERNEL_{entry}\n"


def timed(label, source, name, arch, options=OPTS):
    t = time.perf_counter()
    try:
        _c.compile_to_cubin(source, name, arch, options)
    except _c.CompileError as e:  # a template this tool builds by hand changed: say so, go on
        print(f"{label:52s}   failed: {str(e).splitlines()[0][:60]}", flush=True)
        return None
    ms = (time.perf_counter() - t) * 1e3
    print(f"{label:52s} {ms:8.0f} ms", flush=True)
    return ms


def small_linalg(op, entry, dtype, real, n, threads=128, exact=False):
    """The source small_linalg_body (backend/cuda/small_linalg_cuda.cpp) builds: storage dtype =
    compute dtype; the group kernel (a row a thread) for 16 x 16, as the backend picks it."""
    group = entry == "nf_small_group"
    return (f"typedef {dtype} nf_t;\ntypedef {real} nf_rt;\ntypedef {dtype} nf_st;\ntypedef {real} nf_srt;\n"
            f"#define NF_SM_N {n}\n#define NF_SM_THREADS {threads}\n#define NF_SM_OP {op}\n"
            f"#define NF_SM_GROUP {int(group)}\n" + ("#define NF_SM_EXACT 1\n" if exact else "")
            + _read("small_linalg.cuh") + (_read("small_linalg_group.cuh") if group else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--quick", action="store_true", help="skip the slowest sources (N=16 Jacobi)")
    args = ap.parse_args()
    arch = args.arch
    trivial = 'extern "C" __global__ void nf_k(float* x) { x[threadIdx.x] += 1.0f; }\n'
    timed("trivial kernel, no prelude", trivial, "nf_k", arch)
    timed("prelude + trivial kernel", PRELUDE + trivial, "nf_k", arch)
    sort = "typedef float nf_t;\n" + _read("sort.cuh")
    timed("sort template float, every entry", PRELUDE + sort, "nf_sort_make_keys", arch)
    for e in ("nf_sort_make_keys", "nf_sort_store_keys", "nf_searchsorted", "nf_sort_tiles"):
        timed(f"sort template float, {e} only", _one(e) + PRELUDE + sort, e, arch)
    # (NF_SM_OP, entry, dtype, real dtype, N, exact n): inv/solve 0/1, det 2, cholesky 3, eigh 4
    cases = [(0, "nf_small_solve", "double", "double", 4, True), (0, "nf_small_solve", "double", "double", 8, True),
             (0, "nf_small_solve", "double", "double", 8, False), (0, "nf_small_solve", "float", "float", 8, False),
             (2, "nf_small_det", "double", "double", 8, False), (3, "nf_small_cholesky", "double", "double", 8, False),
             (0, "nf_small_group", "double", "double", 16, False), (0, "nf_small_group", "float", "float", 16, False),
             (4, "nf_small_eigh", "double", "double", 4, False), (4, "nf_small_eigh", "float", "float", 8, False),
             (4, "nf_small_eigh", "double", "double", 8, False)]
    if not args.quick:
        cases.append((4, "nf_small_eigh", "double", "double", 16, False))
    for op, entry, dt, rt, n, exact in cases:
        src = PRELUDE + small_linalg(op, entry, dt, rt, n, exact=exact)
        timed(f"small linalg {entry[9:]} op {op} {dt} N={n}{' exact' if exact else ''}", src, entry, arch,
              ["-std=c++17"])


if __name__ == "__main__":
    main()
