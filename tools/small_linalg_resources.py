"""Registers, spills and shared memory of the small-matrix linalg kernels (kernels/small_linalg.cuh)
as NVRTC builds them at run time (SASS for sm_90, its ptxas asked for -v: the log says them). Needs no
GPU: the numbers that decide which padded sizes the kernels take (backend/cuda/small_linalg_cuda.cpp)
and whether a change spills. Run from the repository root:

    python3 tools/small_linalg_resources.py [op ...]     (ops: inv solve det cholesky eigh)
"""
import ctypes
import os
import re
import sys

HEADERS = ["nf_types.h", "scalar_math.h", "complex_math.h", "scalar_ops.h", "fp_check.h",
           "philox.h", "generators.h", "histogram_bins.h"]  # CMakeLists.txt's NUMFUSE_KERNEL_HEADERS
OPS = {"inv": (0, "nf_small_solve"), "solve": (1, "nf_small_solve"), "det": (2, "nf_small_det"),
       "cholesky": (3, "nf_small_cholesky"), "eigh": (4, "nf_small_eigh")}
TYPES = {"float32": ("float", "float"), "float64": ("double", "double"),
         "complex64": ("nf::complex64", "float"), "complex128": ("nf::complex128", "double")}
CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")


def threads(dtype, n, group):
    """small_linalg_threads() of backend/cuda/small_linalg_cuda.cpp."""
    size = {"float32": 4, "float64": 8, "complex64": 8, "complex128": 16}[dtype]
    if group:
        return 128 if 128 * (n + 1) * size + 128 // n * 2 * n * size <= 48 * 1024 else 64
    return next((t for t in (128, 64) if t * (n * n + 1) * size <= 48 * 1024), 32)


def source(op, dtype, n, group):
    kdir = "cpp/numfuse/kernels"
    prelude = "".join(f"// ---- {h}\n" + open(f"{kdir}/{h}").read() + "\n" for h in HEADERS)
    t, rt = TYPES[dtype]
    return (prelude + f"typedef {t} nf_t;\ntypedef {rt} nf_rt;\ntypedef {t} nf_st;\n"
            f"typedef {rt} nf_srt;\n#define NF_SM_N {n}\n"
            f"#define NF_SM_THREADS {threads(dtype, n, group)}\n"
            f"#define NF_SM_OP {OPS[op][0]}\n#define NF_SM_GROUP {group}\n"
            + open(f"{kdir}/small_linalg.cuh").read()
            + (open(f"{kdir}/small_linalg_group.cuh").read() if group else ""))


def ptxas_log(src):
    lib = ctypes.CDLL(f"{CUDA}/lib64/libnvrtc.so")
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"k.cu", 0, None, None) == 0
    opts = [b"--gpu-architecture=sm_90", b"-std=c++17", f"--include-path={CUDA}/include".encode(),
            b"--ptxas-options=-v"]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if rc != 0:
        raise RuntimeError(log.value.decode()[-3000:])
    return log.value.decode()


def usage(op, dtype, n, group=0):
    log = ptxas_log(source(op, dtype, n, group))
    spill = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores", log)
    regs = re.search(r"Used (\d+) registers", log)
    smem = re.search(r"(\d+) bytes smem", log)
    if not (spill and regs):
        return (log[-200:],)
    return regs.group(1), spill.group(1), spill.group(2), smem.group(1) if smem else "0"


def main():
    ops = sys.argv[1:] or list(OPS)
    cases = [("float64", 8), ("float32", 8), ("complex128", 8), ("complex64", 8), ("float64", 4),
             ("float64", 16), ("float32", 16)]
    print(f"{'op':9s} {'dtype':10s} {'N':>3s} {'grp':>3s} {'reg':>6s} {'stack':>6s} {'spill':>6s} {'smem':>6s}")
    for op in ops:
        for dtype, n in cases:
            for group in (0, 1):
                if group and (n < 8 or op not in ("inv", "solve", "det")):
                    continue  # the group kernel is LU's
                if op == "eigh" and n == 16 and not group:
                    continue  # unrolls for minutes
                try:
                    r = usage(op, dtype, n, group)
                except RuntimeError as e:
                    r = ("compile error: " + str(e).splitlines()[0],)
                print(f"{op:9s} {dtype:10s} {n:3d} {group:3d} " + " ".join(f"{x:>6s}" for x in r),
                      flush=True)


if __name__ == "__main__":
    main()
