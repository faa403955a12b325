"""Runs the CUDA C++ that numfuse.cuda.jit generates on the CPU: the host compiler builds it with
a small emulation of the CUDA built-ins (thread_local threadIdx, one std::thread per CUDA thread
of a block, __syncthreads as a std::barrier, blocks one after another), so the tests check the
*translation's* arithmetic and indexing against NumPy and the simulator on a machine without a
GPU. Needs g++ (C++20); tests skip without it."""
import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np

CXX = os.environ.get("CXX", "g++")

HEADER = r"""
#include <math.h>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <barrier>
#include <thread>
#include <vector>
using std::isnan; using std::isinf; using std::isfinite;
struct nf_dim3 { unsigned x, y, z; };
static thread_local nf_dim3 threadIdx;
static nf_dim3 blockIdx, blockDim, gridDim;
static std::barrier<>* nf_block_barrier;
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __align__(n)
#define __syncthreads() nf_block_barrier->arrive_and_wait()
#define __threadfence()
static inline double __longlong_as_double(long long v) { double d; memcpy(&d, &v, 8); return d; }
static inline long long __double_as_longlong(double v) { long long d; memcpy(&d, &v, 8); return d; }
static inline float __uint_as_float(unsigned v) { float d; memcpy(&d, &v, 4); return d; }
static inline unsigned __float_as_uint(float v) { unsigned d; memcpy(&d, &v, 4); return d; }
// Atomics: the emulation's threads of a block may run at once; a lock makes them atomic.
#include <mutex>
static std::mutex nf_atomic_lock;
template <typename T> T atomicAdd(T* p, T v) { std::lock_guard<std::mutex> g(nf_atomic_lock); T o = *p; *p = o + v; return o; }
template <typename T> T atomicMax(T* p, T v) { std::lock_guard<std::mutex> g(nf_atomic_lock); T o = *p; if (v > o) *p = v; return o; }
template <typename T> T atomicMin(T* p, T v) { std::lock_guard<std::mutex> g(nf_atomic_lock); T o = *p; if (v < o) *p = v; return o; }
template <typename T> T atomicExch(T* p, T v) { std::lock_guard<std::mutex> g(nf_atomic_lock); T o = *p; *p = v; return o; }
template <typename T> T atomicCAS(T* p, T c, T v) { std::lock_guard<std::mutex> g(nf_atomic_lock); T o = *p; if (o == c) *p = v; return o; }
"""


def available():
    """A host compiler with C++20's <barrier> is present (checked once, by compiling)."""
    global _AVAILABLE
    if _AVAILABLE is None:
        _AVAILABLE = False
        if shutil.which(CXX) is not None:
            with tempfile.TemporaryDirectory() as d:
                src = os.path.join(d, "probe.cpp")
                with open(src, "w") as f:
                    f.write("#include <barrier>\nint main() { std::barrier<> b(1); b.arrive_and_wait(); }\n")
                r = subprocess.run([CXX, "-std=c++20", "-pthread", "-fsyntax-only", src],
                                   capture_output=True)
                _AVAILABLE = r.returncode == 0
    return _AVAILABLE


_AVAILABLE = None


def _params(source, name):
    m = re.search(r'extern "C" __global__ void %s\((.*?)\) \{' % re.escape(name), source)
    params = [p.strip() for p in m.group(1).split(",")] if m.group(1).strip() else []
    return [p.rsplit(" ", 1)[0] for p in params]


def _launcher(name, types):
    call = ", ".join(f"*({t}*)args[{k}]" for k, t in enumerate(types))
    return f"""
extern "C" void nf_host_launch(void** args, unsigned gx, unsigned gy, unsigned gz,
                               unsigned bx, unsigned by, unsigned bz) {{
  gridDim = {{gx, gy, gz}};
  blockDim = {{bx, by, bz}};
  for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {{
    blockIdx = {{x, y, z}};
    std::barrier<> bar(bx * by * bz);
    nf_block_barrier = &bar;
    std::vector<std::thread> threads;
    for (unsigned tz = 0; tz < bz; ++tz) for (unsigned ty = 0; ty < by; ++ty) for (unsigned tx = 0; tx < bx; ++tx)
      threads.emplace_back([=, &bar] {{ threadIdx = {{tx, ty, tz}}; {name}({call}); bar.arrive_and_drop(); }});
    for (auto& t : threads) t.join();
  }}
}}
"""


_LIBS = {}


def build(source, name, workdir=None):
    """The shared library of a translated kernel (cached by source)."""
    key = hashlib.sha1(source.encode()).hexdigest()[:16]
    if key in _LIBS:
        return _LIBS[key]
    # kept between runs (the compiles dominate the tests' time); private to the user
    workdir = workdir or os.path.join(tempfile.gettempdir(), f"nf_hostcc_{os.getuid()}")
    os.makedirs(workdir, mode=0o700, exist_ok=True)
    src = os.path.join(workdir, f"k{key}.cpp")
    lib = os.path.join(workdir, f"k{key}.so")
    if os.path.exists(lib):
        _LIBS[key] = (ctypes.CDLL(lib), _params(source, name))
        return _LIBS[key]
    types = _params(source, name)
    # "return" after the kernel returns early: a thread that leaves must still drop out of the
    # barrier (arrive_and_drop above), as a CUDA thread that exits no longer counts.
    with open(src, "w") as f:
        f.write(HEADER + source + _launcher(name, types))
    tmp = f"{lib}.{os.getpid()}.tmp"
    r = subprocess.run([CXX, "-std=c++20", "-O1", "-shared", "-fPIC", "-pthread", "-w", src, "-o", tmp],
                       capture_output=True, text=True)
    if not r.returncode:
        os.replace(tmp, lib)
    if r.returncode:
        raise RuntimeError(f"host compile of the translated kernel failed:\n{r.stderr[-4000:]}")
    _LIBS[key] = (ctypes.CDLL(lib), types)
    return _LIBS[key]


def run(kernel, griddim, blockdim, *args):
    """kernel[griddim, blockdim](*args) through the host-compiled translation (NumPy arrays)."""
    from numfuse.cuda._dispatcher import _dim3, _pack
    types = kernel._types(args)
    source, name = kernel._translate(types)
    lib, ctypes_names = build(source, name)
    keep, ptrs = [], []
    for v in _pack(list(args), types):
        if isinstance(v, np.ndarray):
            slot = np.array([v.ctypes.data], np.uint64)
        else:
            slot = np.array(v)
        keep.append(slot)
        ptrs.append(slot.ctypes.data)
    arr = (ctypes.c_void_p * max(1, len(ptrs)))(*ptrs)
    g, b = _dim3(griddim, "grid"), _dim3(blockdim, "block")
    lib.nf_host_launch(arr, *[ctypes.c_uint(v) for v in g + b])
