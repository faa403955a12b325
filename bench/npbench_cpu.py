"""NPBench's NumPy kernels run unchanged under numfuse, NumPy beside it in the same run (CPU).

NPBench (github.com/spcl/npbench) is some fifty scientific programs written for NumPy by other
people: stencils, dense linear algebra written as loops over rows and elements, masks, FFTs,
small neural networks. This script is not NPBench's runner and carries none of its code: it
loads each kernel's `*_numpy.py` module from a checkout given on the command line, makes its
inputs with the benchmark's own `initialize` (NumPy), and runs the kernel twice per repeat:
once as it is, once with the module's `np` replaced by numfuse (the one-line change a user
makes) and its array inputs converted with numfuse.asarray before the clock starts. Outputs
(the return value and the arguments NPBench lists as outputs) are converted back with
numfuse.asnumpy inside the clock and compared with NumPy's.

    PYTHONPATH=python python bench/npbench_cpu.py --npbench /path/to/npbench [--preset S]
        [--repeats 5] [kernel ...]

Ratio = NumPy's median time / numfuse's; the last line is the geometric mean over the kernels
whose answers agree.
"""
import argparse
import copy
import glob
import importlib.util
import json
import math
import os
import statistics
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def to_numpy(nf, x):
    if isinstance(x, (tuple, list)):
        return [to_numpy(nf, v) for v in x]
    if x is None:
        return None
    return numpy.asarray(nf.asnumpy(x)) if isinstance(x, nf.ndarray) else numpy.asarray(x)


def agree(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(agree(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is None and b is None
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return bool(numpy.allclose(a, b, rtol=1e-6, atol=1e-8, equal_nan=True))
    return bool(numpy.array_equal(a, b))


class Kernel:
    """One NPBench benchmark: its inputs, and its NumPy kernel as written and with numfuse as np."""

    def __init__(self, root, info, preset, nf):
        self.name = info["short_name"]
        folder = os.path.join(root, "npbench", "benchmarks", info["relative_path"])
        numpy_files = glob.glob(os.path.join(folder, "*_numpy.py"))
        if not numpy_files:
            raise FileNotFoundError(f"no *_numpy.py in {folder}")
        params = info["parameters"][preset]
        env = dict(params)
        if "init" in info:  # some kernels take their parameters only (mandelbrot)
            init = getattr(load_module(os.path.join(folder, info["module_name"] + ".py"),
                                       self.name + "_init"), info["init"]["func_name"])
            made = init(*[params[a] for a in info["init"]["input_args"]])
            if len(info["init"]["output_args"]) == 1:
                made = (made,)
            env.update(zip(info["init"]["output_args"], made))
        self.inputs = [env[a] for a in info["input_args"]]
        self.outputs = [info["input_args"].index(o) for o in info["output_args"]]
        self.numpy_kernel = getattr(load_module(numpy_files[0], self.name + "_numpy"), info["func_name"])
        module = load_module(numpy_files[0], self.name + "_numfuse")
        for attr, value in list(vars(module).items()):
            if value is numpy:  # `import numpy as np` -> `import numfuse as np`
                setattr(module, attr, nf)
        self.numfuse_kernel = getattr(module, info["func_name"])
        self.nf = nf

    def run(self, numfuse_side):
        """(seconds, outputs as NumPy arrays) of one call on fresh copies of the inputs."""
        nf = self.nf
        args = [copy.deepcopy(v) if isinstance(v, numpy.ndarray) else v for v in self.inputs]
        if numfuse_side:
            args = [nf.asarray(v) if isinstance(v, numpy.ndarray) else v for v in args]
            common.force(nf, *[a for a in args if isinstance(a, nf.ndarray)] or [None])
        kernel = self.numfuse_kernel if numfuse_side else self.numpy_kernel
        t0 = time.perf_counter()
        r = kernel(*args)
        got = [to_numpy(nf, r)] + [to_numpy(nf, args[i]) for i in self.outputs]
        return time.perf_counter() - t0, got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--npbench", required=True, help="a checkout of github.com/spcl/npbench")
    ap.add_argument("--preset", default="S", help="NPBench's size preset (S, M, L, paper)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("kernels", nargs="*", help="short names (default: all)")
    args = ap.parse_args()
    os.environ.setdefault("NUMFUSE_DEVICE", "cpu")  # CPU figures on a machine with a GPU too
    nf = common.import_numfuse("numfuse")
    print(f"# NPBench kernels, preset {args.preset}: {common.machine_line(nf)}", flush=True)
    rows = []
    for path in sorted(glob.glob(os.path.join(args.npbench, "bench_info", "*.json"))):
        with open(path) as f:
            info = json.load(f)["benchmark"]
        name = info["short_name"]
        if args.kernels and name not in args.kernels:
            continue
        try:
            kernel = Kernel(args.npbench, info, args.preset, nf)
            t_np, t_nf, ok = [], [], True
            for rep in range(args.repeats + 1):  # the first pair warms up (numfuse's compiles)
                a, want = kernel.run(False)
                b, got = kernel.run(True)
                ok = ok and agree(want, got)
                if rep:
                    t_np.append(a)
                    t_nf.append(b)
            m_np, m_nf = statistics.median(t_np), statistics.median(t_nf)
            rows.append((name, m_np, m_nf, ok))
            print(f"{name:12s} numpy {m_np * 1e3:9.2f} ms  numfuse {m_nf * 1e3:9.2f} ms  "
                  f"{m_np / m_nf:6.2f}x  {'agree' if ok else 'DIFFER'}", flush=True)
        except Exception as e:  # noqa: BLE001 - a kernel that cannot run is reported, not fatal
            print(f"{name:12s} not run: {type(e).__name__}: {str(e)[:120]}", flush=True)
    good = [r for r in rows if r[3]]
    if good:
        geo = math.exp(sum(math.log(r[1] / r[2]) for r in good) / len(good))
        slower = sorted((r[1] / r[2], r[0]) for r in good if r[1] < r[2])
        print(f"\ngeometric mean of numpy/numfuse over {len(good)} agreeing kernels: {geo:.2f}x; "
              f"slower than NumPy: {len(slower)} ({', '.join(f'{n} {x:.2f}x' for x, n in slower)}); "
              f"differing: {len(rows) - len(good)}")


if __name__ == "__main__":
    main()
