"""The translation itself, run on the CPU (tests/hostcc.py: the generated CUDA C++ built by the
host compiler with an emulation of the CUDA built-ins), against NumPy and the simulator: NumPy's
promotion, Python's // and %, index wrapping, loops, tuples, device functions, atomics and
barriers as the GPU will compute them."""
import math
import zlib

import numpy as np
import pytest

from numfuse import cuda

import hostcc
import test_cuda_jit as kernels
from jit_helpers import assert_compiles, use_device

pytestmark = pytest.mark.skipif(not hostcc.available(), reason="no host C++20 compiler (g++ with <barrier>)")


@pytest.fixture(autouse=True)
def simulator(monkeypatch):
    use_device("cpu", monkeypatch)


def both(kernel, griddim, blockdim, *args):
    """(simulator outputs, translated-C++ outputs) of the same launch on copies of args."""
    sim = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    cxx = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    assert_compiles(kernel, *args)
    kernel[griddim, blockdim](*sim)
    hostcc.run(kernel, griddim, blockdim, *cxx)
    return sim, cxx


@cuda.jit
def _ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x / y
        out[i, 4] = x // y
        out[i, 5] = x % y
        out[i, 6] = x < y
        out[i, 7] = x == y
        out[i, 8] = max(x, y)
        out[i, 9] = min(x, y)
        out[i, 10] = x * 3 - y / 2
        out[i, 11] = abs(x - y)
        out[i, 12] = -x
        out[i, 13] = (x + 1) ** 2
        out[i, 14] = x * 2.5 + (y if x > y else x)


def _ops_numpy(x, y):
    with np.errstate(all="ignore"):
        return [x + y, x - y, x * y, x / y, x // y, x % y, x < y, x == y, np.maximum(x, y),
                np.minimum(x, y), x * 3 - y / 2, abs(x - y), -x, (x + 1) ** 2,
                x * 2.5 + np.where(x > y, y, x)]


PAIRS = [("int32", "int32"), ("int64", "int32"), ("int8", "int16"), ("float32", "float32"),
         ("float32", "int64"), ("float64", "float32"), ("int64", "float64"), ("int16", "float32")]


@pytest.mark.parametrize("dx,dy", PAIRS)
def test_arithmetic_matches_numpy_promotion(dx, dy):
    rng = np.random.default_rng(zlib.crc32(f"{dx},{dy}".encode()))
    n = 64
    x = (rng.integers(-20, 20, n)).astype(dx)
    y = (rng.integers(1, 9, n) * rng.choice([-1, 1], n)).astype(dy)
    if np.dtype(dx).kind == "f":
        x = (x + rng.random(n)).astype(dx)
    out = np.zeros((n, 15))
    sim, cxx = both(_ops, 1, 64, x, y, out)
    ref = np.stack([np.asarray(r, np.float64) for r in _ops_numpy(x, y)], axis=1)
    single = np.result_type(dx, dy) == np.float32 or np.result_type(dx, dy).itemsize < 4
    tol = dict(rtol=2e-6, atol=1e-5) if single else dict(rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(cxx[2], ref, **tol)
    # The simulator runs Python: `y if x > y else x` keeps the float32 x where the typed
    # translation (and NumPy's where) converts both branches to float64 first.
    sim_tol = dict(rtol=2e-6, atol=1e-5) if "float32" in (dx, dy) else tol
    np.testing.assert_allclose(sim[2], ref, **sim_tol)


@pytest.mark.parametrize("kernel,griddim,blockdim,make", [
    (kernels._python_arithmetic, 1, 32, lambda: (np.arange(-10, 10, dtype=np.int64),
                                                   np.array([3, -3, 4, -4, 7] * 4, np.int64),
                                                   np.zeros((20, 7)))),
    (kernels._float_divmod, 2, 32, lambda: ((np.linspace(-10, 10, 64)).astype(np.float32),
                                            (np.linspace(-3, 3.3, 64)).astype(np.float32),
                                            np.zeros((64, 4), np.float32))),
    (kernels._local_and_tuples, 1, 8, lambda: (np.arange(20.0).reshape(5, 4) % 7, np.zeros((5, 4)))),
    (kernels._loops, 1, 16, lambda: (7, np.zeros(10, np.int64))),
    (kernels._strided, (1, 1), (4, 4), lambda: (np.arange(60.0).reshape(6, 10)[::2, ::3], np.zeros((3, 4)))),
    (kernels._use_device_functions, 4, 32, lambda: (np.linspace(0, 2, 200).reshape(100, 2), np.zeros(100))),
    (kernels._complex_kernel, 1, 8, lambda: ((np.arange(6) + 1j * np.arange(6)[::-1]), np.zeros(6))),
    (kernels._histogram, 3, 64, lambda: (np.linspace(0, 0.999, 300), np.zeros(10, np.int32),
                                         np.array([0.0, 1.0]))),
    (kernels._block_sum, 8, 128, lambda: (np.linspace(0, 1, 1000).astype(np.float32), np.zeros(8, np.float32))),
    (kernels._promotion, 1, 8, lambda: (np.arange(8, dtype=np.float32), np.zeros(8))),
    (kernels._indices3d, (2, 3, 2), (4, 2, 3), lambda: (np.zeros((288, 4), np.int64),)),
])
def test_translation_agrees_with_the_simulator(kernel, griddim, blockdim, make):
    sim, cxx = both(kernel, griddim, blockdim, *make())
    for s, c in zip(sim, cxx):
        if isinstance(s, np.ndarray):
            np.testing.assert_allclose(c, s, rtol=1e-6, atol=1e-6)


def test_seed_kernels_translated(monkeypatch):
    import test_cuda_jit_seed as seed
    rng = np.random.default_rng(7)
    n = 40
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    for k in (seed.matmul_mod.matmul, seed.matmul_mod.fast_matmul):
        C = np.zeros((n, n), np.float32)
        hostcc.run(k, (3, 3), (16, 16), A, B, C)
        np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-5)
    a = rng.random((30, 45), dtype=np.float32)
    out = np.zeros_like(a)
    hostcc.run(seed.smooth_mod.smooth, (2, 4), (32, 8), a, out)
    np.testing.assert_allclose(out, seed.smooth_mod.smooth_numpy(a), rtol=1e-6, atol=1e-6)
    x = rng.random(300, dtype=np.float32)
    o = np.zeros_like(x)
    hostcc.run(seed.add_mod.add_kernel, 3, 128, x, x, o)
    np.testing.assert_array_equal(o, x + x)


@cuda.jit
def _math_kernel(a, out):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        out[i, 0] = math.sqrt(abs(v)) + math.exp(v / 4) + math.log(abs(v) + 1)
        out[i, 1] = math.sin(v) * math.cos(v) + math.tanh(v)
        out[i, 2] = math.floor(v) - math.ceil(v) + round(v)
        out[i, 3] = math.isnan(v) + 2 * math.isinf(v) + 4 * math.isfinite(v)
        out[i, 4] = math.pow(abs(v), 1.5) + math.copysign(2.0, v) + math.fmod(v, 1.5)
        out[i, 5] = int(v) + float(i) + bool(v)
        out[i, 6] = math.pi * v + math.e


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_math_module(dt):
    # finite: Python's math.floor/round/int raise on NaN and inf, so the simulator would too
    a = np.array([-3.7, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 3.2, 7.25, -0.25], dt)
    out = np.zeros((a.size, 7), dt)
    sim, cxx = both(_math_kernel, 1, 16, a, out)
    np.testing.assert_allclose(cxx[1], sim[1], rtol=2e-6 if dt == np.float32 else 1e-12, equal_nan=True)


@cuda.jit
def _nonfinite(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = math.isnan(a[i]) + 2 * math.isinf(a[i]) + 4 * math.isfinite(a[i])


def test_nan_and_inf_predicates():
    a = np.array([np.nan, np.inf, -np.inf, 0.0, 1.5], np.float32)
    out = np.zeros(5, np.int64)
    sim, cxx = both(_nonfinite, 1, 8, a, out)
    np.testing.assert_array_equal(cxx[1], [1, 2, 2, 4, 4])
    np.testing.assert_array_equal(sim[1], cxx[1])


def _random_expression(rng, depth, names):
    """A random arithmetic expression of the names and weak literals (no division by values that
    may be zero, no negative powers: NumPy raises there)."""
    if depth == 0 or rng.random() < 0.25:
        r = rng.random()
        if r < 0.6:
            return str(rng.choice(names))
        if r < 0.8:
            return str(int(rng.integers(-5, 6)))
        return repr(float(rng.integers(-8, 9)) / 4)
    op = rng.choice(["+", "-", "*", "/", "//", "%", "**", "abs", "neg", "cmp"])
    a = _random_expression(rng, depth - 1, names)
    if op == "abs":
        return f"abs({a})"
    if op == "neg":
        return f"(-{a})"
    if op in ("/", "//", "%"):
        return f"({a} {op} {rng.choice(['d', '3', '-2', '2.5'])})"  # d: a nonzero argument
    if op == "**":
        return f"({a} ** {int(rng.integers(0, 3))})"
    b = _random_expression(rng, depth - 1, names)
    if op == "cmp":
        # + 0: an integer (unary minus of a bool raises in NumPy, and the translator says so)
        return f"((({a}) {rng.choice(['<', '<=', '==', '!=', '>'])} ({b})) + 0)"
    return f"({a} {op} {b})"


def _random_kernel(tmp_path, seed, count):
    rng = np.random.default_rng(seed)
    exprs = [_random_expression(rng, 3, ["x", "y", "d"]) for _ in range(count)]
    body = "\n".join(f"        out[i, {k}] = {e}" for k, e in enumerate(exprs))
    src = (f"from numfuse import cuda\n\n\n@cuda.jit\ndef rk(a, b, c, out):\n    i = cuda.grid(1)\n"
           f"    if i < a.size:\n        x = a[i]\n        y = b[i]\n        d = c[i]\n{body}\n")
    path = tmp_path / f"random_kernel_{seed}.py"
    path.write_text(src)
    ns = {"__name__": f"random_kernel_{seed}"}
    exec(compile(src, str(path), "exec"), ns)
    return ns["rk"], exprs


@pytest.mark.parametrize("dx,dy,dd,seed", [("int64", "int32", "int16", 1), ("float32", "int32", "int8", 2),
                                           ("float64", "float32", "int64", 3), ("int8", "int16", "float32", 4)])
def test_random_expressions_match_numpy_scalars(tmp_path, dx, dy, dd, seed):
    """Random expressions (a seeded generator): the translated C++ computes what NumPy's scalars
    compute (NEP 50 promotion, Python literals weak, Python's // and %)."""
    kernel, exprs = _random_kernel(tmp_path, seed, 40)
    rng = np.random.default_rng(seed)
    n = 16
    a = rng.integers(-6, 7, n).astype(dx)
    b = rng.integers(-6, 7, n).astype(dy)
    c = (rng.integers(1, 5, n) * rng.choice([-1, 1], n)).astype(dd)
    out = np.zeros((n, len(exprs)))
    assert_compiles(kernel, a, b, c, out)
    hostcc.run(kernel, 1, 16, a, b, c, out)
    with np.errstate(all="ignore"):
        for k, e in enumerate(exprs):
            ref = np.array([np.float64(eval(e, {}, {"x": a[i], "y": b[i], "d": c[i]})) for i in range(n)])
            single = any(np.dtype(t) == np.float32 for t in (dx, dy, dd))
            np.testing.assert_allclose(out[:, k], ref, rtol=2e-6 if single else 1e-12, atol=1e-6,
                                       equal_nan=True, err_msg=f"expression {e}")
