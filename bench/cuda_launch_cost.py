"""Issue 13 (helper I3): the host cost of one cuLaunchKernel, bare, through ctypes on libcuda,
to set beside numfuse's 'launched' stage (~3.5-4 us). An empty kernel taking a 72-byte struct
(numfuse's small-linalg params) or one pointer, 1563 x 64 or 1 x 32 threads, on the legacy null
stream, a non-blocking stream and the per-thread stream. The figure is the median over batches of
100 launches (then a synchronize) of the loop's host time a launch, minus the ctypes call's own
cost (cuCtxGetCurrent timed the same way)."""
import ctypes
import statistics
import time

import cupy as cp

cuda = ctypes.CDLL("libcuda.so.1")
src = r'''
struct P { void* p[8]; long long b; int n[4]; };
extern "C" __global__ void k72(const P p) { if (p.b < 0) ((int*)p.p[0])[threadIdx.x] = 1; }
extern "C" __global__ void k8(int* q) { if (q == (int*)1) q[threadIdx.x] = 1; }
'''
mod = cp.RawModule(code=src)


def fptr(k):
    """The CUfunction of a CuPy kernel: RawModule.get_function gives a RawKernel, whose .kernel is
    the cupy.cuda.function.Function holding the pointer (RawKernel has no .ptr of its own)."""
    return ctypes.c_void_p(int(getattr(k, "kernel", k).ptr))


k72, k8 = fptr(mod.get_function("k72")), fptr(mod.get_function("k8"))
cp.cuda.Device(0).synchronize()

buf72 = ctypes.create_string_buffer(96)
ptr = ctypes.c_void_p(0)
args72 = (ctypes.c_void_p * 1)(ctypes.cast(buf72, ctypes.c_void_p))
args8 = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.pointer(ptr), ctypes.c_void_p))
launch = cuda.cuLaunchKernel
launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 6 + [ctypes.c_uint, ctypes.c_void_p,
                                                            ctypes.c_void_p, ctypes.c_void_p]
ctxcur = cuda.cuCtxGetCurrent
ctx = ctypes.c_void_p()
sync = cuda.cuStreamSynchronize
sync.argtypes = [ctypes.c_void_p]


def per_call(body, reps=100, batches=30):
    out = []
    for _ in range(batches):
        t = time.perf_counter()
        for _ in range(reps):
            body()
        out.append((time.perf_counter() - t) / reps * 1e6)
        cp.cuda.Device(0).synchronize()
    return statistics.median(out)


base = per_call(lambda: ctxcur(ctypes.byref(ctx)))
nb = cp.cuda.Stream(non_blocking=True)
streams = {"legacy null": 0, "non-blocking": nb.ptr, "per-thread": 2}
print(f"ctypes call (cuCtxGetCurrent) {base:.2f} us; below: cuLaunchKernel minus that")
for name, s in streams.items():
    for kname, fn, a in (("72-byte struct", k72, args72), ("one pointer", k8, args8)):
        for grid, block in ((1563, 64), (1, 32)):
            t = per_call(lambda: launch(fn, grid, 1, 1, block, 1, 1, 0, s, a, None))
            print(f"  {name:13s} {kname:15s} grid {grid:5d}x{block:3d}: {t - base:5.2f} us a launch")
# launch + wait of the empty 1563x64 kernel (the round trip CuPy's 7-11 us was)
def round_trip(s):
    launch(k72, 1563, 1, 1, 64, 1, 1, 0, s, args72, None)
    sync(s)
for name, s in (("legacy null", 0), ("non-blocking", nb.ptr)):
    print(f"  launch+cuStreamSynchronize {name}: {per_call(lambda: round_trip(s), reps=20):.2f} us")
