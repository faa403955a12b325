"""Issue 15's exchange figures: a DLPack export + import costs the same for 1e8 elements as for
1e3 (no copy), numfuse -> CuPy / PyTorch and back, and numfuse <-> NumPy on the CPU.

Each row times the whole hand-over as a user writes it (`cupy.from_dlpack(a)`, `numfuse.from_dlpack(t)`,
...), the borrower dropped again inside the timed region, median of many calls, in µs, for a
float32 array of 1e8 and of 1e3 elements side by side; the last column says whether the borrower
saw the lender's own memory (same address). GPU rows are skipped where CUDA or the library is
missing; the CPU rows run everywhere.

    PYTHONPATH=python python bench/interop_gpu.py
"""
import statistics
import time

import numpy as np

import numfuse as nf

SIZES = (10**8, 10**3)
REPEATS = 200


def median_us(fn, repeats=REPEATS):
    fn()  # warm: first-use costs (events, library imports) are not the exchange's
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def row(name, make, exchange, address_of_source, address_of_result):
    """make(n) -> source; exchange(source) -> borrower. Prints µs for each size and the check."""
    cells, same = [], True
    for n in SIZES:
        src = make(n)
        out = exchange(src)
        same &= address_of_result(out) == address_of_source(src)
        del out
        cells.append(median_us(lambda: exchange(src)))
    print(f"  {name:<46} {cells[0]:>9.1f} {cells[1]:>9.1f}   {'yes' if same else 'NO'}")


def nf_ptr(a):
    return nf._core._data_ptr(a)


def np_ptr(x):
    return x.__array_interface__["data"][0]


def cpu_rows():
    print("CPU (numfuse <-> NumPy)")
    host = lambda n: nf.arange(n, dtype=nf.float32, device="cpu")  # noqa: E731
    row("numpy.from_dlpack(numfuse)", host, lambda a: np.from_dlpack(a), nf_ptr, np_ptr)
    row("numpy.asarray(numfuse) (array interface)", host, lambda a: np.asarray(a), nf_ptr, np_ptr)
    row("numfuse.from_dlpack(numpy)", lambda n: np.arange(n, dtype=np.float32),
        lambda x: nf.from_dlpack(x), np_ptr, nf_ptr)
    row("numfuse.asarray(numpy, copy=False)", lambda n: np.arange(n, dtype=np.float32),
        lambda x: nf.asarray(x, copy=False, device="cpu"), np_ptr, nf_ptr)


def gpu_rows():
    if not nf.cuda.is_available():
        print("GPU rows skipped: numfuse.cuda.is_available() is False")
        return
    dev = lambda n: nf.arange(n, dtype=nf.float32, device="cuda")  # noqa: E731
    print("GPU (numfuse <-> CuPy, PyTorch)")
    try:
        import cupy as cp
    except ImportError:
        cp = None
        print("  CuPy not installed")
    if cp is not None:
        row("cupy.from_dlpack(numfuse)", dev, lambda a: cp.from_dlpack(a), nf_ptr,
            lambda c: c.data.ptr)
        row("cupy.asarray(numfuse) (CUDA array interface)", dev, lambda a: cp.asarray(a), nf_ptr,
            lambda c: c.data.ptr)
        row("numfuse.from_dlpack(cupy)", lambda n: cp.arange(n, dtype=cp.float32),
            lambda c: nf.from_dlpack(c), lambda c: c.data.ptr, nf_ptr)
        row("numfuse.asarray(cupy)", lambda n: cp.arange(n, dtype=cp.float32),
            lambda c: nf.asarray(c), lambda c: c.data.ptr, nf_ptr)
    try:
        import torch
    except ImportError:
        torch = None
        print("  PyTorch not installed")
    if torch is not None and torch.cuda.is_available():
        row("torch.from_dlpack(numfuse)", dev, lambda a: torch.from_dlpack(a), nf_ptr,
            lambda t: t.data_ptr())
        row("numfuse.from_dlpack(torch)",
            lambda n: torch.arange(n, dtype=torch.float32, device="cuda"),
            lambda t: nf.from_dlpack(t), lambda t: t.data_ptr(), nf_ptr)


def main():
    print(f"DLPack / array-interface exchange, float32, median of {REPEATS} calls, µs "
          "(borrower made and dropped)")
    print(f"  {'':<46} {'1e8':>9} {'1e3':>9}   same memory")
    cpu_rows()
    gpu_rows()


if __name__ == "__main__":
    main()
