"""Cold first calls on the GPU (issue 12: the Array API suite's deadline of 800 ms per example).

    PYTHONPATH=python python3 bench/coldstart_gpu.py [--only mask,cholesky] [--env NAME=VALUE ...]
                                                     [--modes cold,warm] [--compiles]

Each case runs in a fresh process with an empty kernel cache (NUMFUSE_CACHE_DIR, a new directory
per process, as on the device machine, which is fresh every run) and NUMFUSE_TRACE_COMPILES=1.
"cold": the case's op is the first kernel work of the process after its inputs were made (the
context exists, NVRTC not yet loaded); "idle": the same after a second of sleep (what the warm-up
thread of the first context may do meanwhile); "warm": a trivial kernel (x + 1) ran first.
Columns: the import, making the inputs (the context), the warm-up kernel, the op's FIRST call
(evaluated and read back), its NVRTC compiles (count and ms, from the trace), what is left of the
first call besides them (library loads, module loads, launches, copies), and the second call.
--env runs every case a second time with NAME=VALUE set (an A/B in one run, e.g.
NUMFUSE_NVRTC_PCH=1); --compiles lists each compile of the op.
"""
import argparse
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import os, sys, time
t0 = time.perf_counter()
import numpy
import numfuse as nf
t_import = time.perf_counter() - t0
case, mode = sys.argv[1], sys.argv[2]
rng = numpy.random.default_rng(0)
A = lambda x: nf.asarray(x, device="cuda")
t = time.perf_counter()
x45 = A(rng.standard_normal((4, 5)).astype(numpy.float32))
m45 = A(rng.integers(0, 2, (4, 5)).astype(bool))
idx = A(numpy.array([0, 2, 1, 3], numpy.int64))
a = rng.standard_normal((4, 4))
spd = A(a @ a.T + 4 * numpy.eye(4))
b = A(rng.standard_normal(4))
a64 = rng.standard_normal((64, 64))
spd64 = A(a64 @ a64.T + 64 * numpy.eye(64))
b64 = A(rng.standard_normal(64))
v = A(rng.standard_normal(1000).astype(numpy.float32))
nf.cuda.synchronize()
t_inputs = time.perf_counter() - t
t_warm = 0.0
if mode == "idle":
    time.sleep(1.0)  # what the process does elsewhere before the op (a test suite's other tests)
if mode == "warm":
    t = time.perf_counter()
    float((v + 1)[0])
    t_warm = time.perf_counter() - t
ops = {
    "mask": lambda: nf.asnumpy(x45[m45]),
    "intarr": lambda: nf.asnumpy(x45[idx]),
    "slice": lambda: nf.asnumpy(x45[1:3, ::2]),
    "cholesky": lambda: nf.asnumpy(nf.linalg.cholesky(spd)),
    "solve": lambda: nf.asnumpy(nf.linalg.solve(spd, b)),
    "sumsq": lambda: float(nf.sum(v * v)),
    "chol64": lambda: nf.asnumpy(nf.linalg.cholesky(spd64)),
    "solve64": lambda: nf.asnumpy(nf.linalg.solve(spd64, b64)),
}
print("@@OP", file=sys.stderr, flush=True)
c0 = nf.cuda.kernel_cache_stats()["compilations"]
t = time.perf_counter()
ops[case]()
first = time.perf_counter() - t
compiles = nf.cuda.kernel_cache_stats()["compilations"] - c0
t = time.perf_counter()
ops[case]()
second = time.perf_counter() - t
print(f"@@ {t_import * 1e3:.0f} {t_inputs * 1e3:.0f} {t_warm * 1e3:.0f} {first * 1e3:.1f} {compiles} "
      f"{second * 1e3:.2f}", flush=True)
'''

CASES = ["mask", "intarr", "slice", "cholesky", "solve", "sumsq", "chol64", "solve64"]


def run_case(case, mode, extra_env):
    env = dict(os.environ, NUMFUSE_CACHE_DIR=tempfile.mkdtemp(prefix="nf-cold-"),
               NUMFUSE_TRACE_COMPILES="1", **extra_env)
    r = subprocess.run([sys.executable, "-c", CHILD, case, mode], env=env, capture_output=True,
                       text=True, timeout=120)
    line = [s for s in r.stdout.splitlines() if s.startswith("@@ ")]
    if not line:
        return None, r.stderr[-400:]
    fields = line[0].split()[1:]
    traced = [s[len("[numfuse] compiled "):] for s in r.stderr.split("@@OP")[-1].splitlines()
              if s.startswith("[numfuse] compiled ")]
    compile_ms = [float(s.split(": ")[-1].split(" ms")[0]) for s in traced]
    return (fields, compile_ms, traced), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default=",".join(CASES))
    ap.add_argument("--modes", default="cold,warm")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE: a second run of every case")
    ap.add_argument("--compiles", action="store_true", help="list each compile of the op")
    args = ap.parse_args()
    variants = [("default", {})] + [(e, dict([e.split("=", 1)])) for e in args.env]
    print(f"{'case':9s} {'mode':5s} {'variant':22s} {'import':>6s} {'inputs':>6s} {'warmup':>6s} "
          f"{'FIRST':>7s} {'ncomp':>5s} {'comp_ms':>7s} {'rest':>6s} {'second':>7s}  (ms)")
    for mode in args.modes.split(","):
        for case in args.only.split(","):
            for label, env in variants:
                res, err = run_case(case, mode, env)
                if res is None:
                    print(f"{case:9s} {mode:5s} {label:22s} FAILED: {err}")
                    continue
                (imp, inp, warm, first, ncomp, second), compile_ms, traced = res
                rest = float(first) - sum(compile_ms)
                flag = "  OVER 800" if float(first) > 800 else ""
                print(f"{case:9s} {mode:5s} {label:22s} {imp:>6s} {inp:>6s} {warm:>6s} {first:>7s} {ncomp:>5s} "
                      f"{sum(compile_ms):7.0f} {rest:6.0f} {second:>7s}{flag}", flush=True)
                if args.compiles:
                    for s in traced:
                        print("      ", s[:120])


if __name__ == "__main__":
    main()
