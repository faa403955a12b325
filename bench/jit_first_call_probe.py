"""Where the first call of a kernel goes in a new process, step by step (issue 14 asks <= 5 ms
for a @numfuse.cuda.jit kernel found in the disk cache).

    PYTHONPATH=python python3 bench/jit_first_call_probe.py [--runs 3]

Each row is a fresh Python process sharing one new NUMFUSE_CACHE_DIR: the first one translates
and compiles, the later ones find everything on disk. A @cuda.jit launch is taken apart as
_dispatcher does it (argument types; translation, or its disk entry; packing; the compiled
kernel from the kernel cache; module load and launch; synchronisation), then timed whole as
bench/jit_gpu.py's first_call_times() does (from the call to the end of the kernel; import and
to_device excluded), and the same for a RawKernel, an ElementwiseKernel and a generated `x + y`.
"nvrtc" says whether libnvrtc was mapped in the process after the call (loading it costs 5-10 ms).
Without a GPU only the steps before the launch are timed.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

KERNEL_MODULE = """
from numfuse import cuda

@cuda.jit
def probe_scale(a, f):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * f + 1

@cuda.jit
def probe_whole(a, f):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * f + 2
"""

RAW = r'''extern "C" __global__ void probe_raw(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * 3.0f + 1.0f;
}
'''


def nvrtc_mapped():
    with open("/proc/self/maps") as f:
        return any("libnvrtc" in line for line in f)


def child(work):
    sys.path.insert(0, str(ROOT / "python"))
    sys.path.insert(0, work)
    import numpy as np
    import numfuse as nf
    from numfuse import cuda
    from numfuse._core import kernels as _k
    from numfuse.cuda import _dispatcher
    import probe_kernels

    gpu = cuda.is_available() and not cuda.simulating()
    host = np.arange(1024, dtype=np.float32)
    x = cuda.to_device(host) if gpu else host.copy()
    if gpu:
        cuda.synchronize()
    out = {"gpu": gpu, "nvrtc_before": nvrtc_mapped()}
    clock = time.perf_counter
    k = probe_kernels.probe_scale
    args = (x, np.float32(2))
    t = [clock()]
    types = k._types(args)
    t.append(clock())
    source, name = k._translate(types)
    t.append(clock())
    packed = _dispatcher._pack(args, types)
    t.append(clock())
    module = _k.Module(source, [name], list(k.options))
    module.compile()
    t.append(clock())
    if gpu:
        fn = _k.Function(module, name, f"kernel '{name}'")
        _k.launch(fn, (8, 1, 1), (128, 1, 1), packed, 0, None)
        t.append(clock())
        cuda.synchronize()
        t.append(clock())
    steps = ["types", "translate or disk entry", "pack", "compiled kernel (cache)",
             "module load + launch", "synchronize"]
    out["steps"] = {s: (b - a) * 1e3 for s, a, b in zip(steps, t, t[1:])}
    out["stats"] = cuda.kernel_cache_stats()
    out["nvrtc_after_steps"] = nvrtc_mapped()
    if gpu:
        whole = {}
        t0 = clock()
        probe_kernels.probe_whole[8, 128](x, np.float32(2))
        cuda.synchronize()
        whole["cuda.jit (whole call)"] = (clock() - t0) * 1e3
        t0 = clock()
        rk = nf.RawKernel(RAW, "probe_raw")
        rk((8,), (128,), (x, np.int32(1024)))
        cuda.synchronize()
        whole["RawKernel"] = (clock() - t0) * 1e3
        y = nf.asarray(host, device="cuda")
        nf.eval(y)
        ek = nf.ElementwiseKernel("float32 v", "float32 w", "w = v * 5 + 1", "probe_ew")
        t0 = clock()
        nf.eval(ek(y))
        cuda.synchronize()
        whole["ElementwiseKernel"] = (clock() - t0) * 1e3
        t0 = clock()
        nf.eval(y + y)
        cuda.synchronize()
        whole["generated x + y"] = (clock() - t0) * 1e3
        out["whole"] = whole
    out["nvrtc_after"] = nvrtc_mapped()
    print(json.dumps(out))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3, help="processes (the first one compiles)")
    p.add_argument("--child", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        child(a.child)
        return
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as work:
        pathlib.Path(work, "probe_kernels.py").write_text(KERNEL_MODULE)
        env = dict(os.environ, NUMFUSE_CACHE_DIR=cache)
        for run in range(a.runs):
            r = subprocess.run([sys.executable, __file__, "--child", work], env=env,
                               capture_output=True, text=True)
            if r.returncode:
                print(r.stderr[-3000:])
                sys.exit(1)
            res = json.loads(r.stdout.strip().splitlines()[-1])
            label = "empty cache" if run == 0 else "disk cache"
            s = res["stats"]
            print(f"process {run + 1} ({label}; gpu={res['gpu']}; nvrtc mapped before/after the "
                  f"steps/at the end: {res['nvrtc_before']}/{res['nvrtc_after_steps']}/"
                  f"{res['nvrtc_after']}; compilations {s['compilations']}, disk hits "
                  f"{s['disk_hits']})")
            steps = res["steps"]
            print("  cuda.jit in steps: " + ", ".join(f"{k} {v:.3f}" for k, v in steps.items())
                  + f"  = {sum(steps.values()):.3f} ms")
            if "whole" in res:
                print("  first calls, whole: " + ", ".join(f"{k} {v:.3f} ms" for k, v in res["whole"].items()))


if __name__ == "__main__":
    main()
