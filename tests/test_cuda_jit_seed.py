"""The seed's Numba programs (examples/numba_*.py: Numba's add kernel, naive and tiled matmul,
9-point smoothing), unchanged but for their imports: on the simulator here ('cpu'), on the GPU at
their real sizes ('cuda'), and their translations compiled by NVRTC."""
import importlib.util
import math
import pathlib

import numpy as np
import pytest

from jit_helpers import assert_compiles, use_device

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def _example(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


add_mod = _example("numba_add")
matmul_mod = _example("numba_matmul")
smooth_mod = _example("numba_smooth")


@pytest.fixture
def on(device, monkeypatch):
    use_device(device, monkeypatch)
    return device


@pytest.mark.parametrize("n", [1, 255, 256, 1000])
def test_add_kernel(on, n):
    rng = np.random.default_rng(n)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = np.full(n, -1, np.float32)
    assert_compiles(add_mod.add_kernel, x, y, out)
    add_mod.add_kernel[(n + 63) // 64, 64](x, y, out)
    np.testing.assert_array_equal(out, x + y)


def test_add_kernel_device_arrays(on):
    out = add_mod.main(4096 if on == "cpu" else 1 << 24)
    assert out.dtype == np.float32


@pytest.mark.parametrize("kernel", ["matmul", "fast_matmul"])
@pytest.mark.parametrize("n", [16, 40, 64])
def test_matmul_kernels(on, kernel, n):
    k = getattr(matmul_mod, kernel)
    rng = np.random.default_rng(n)
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    C = np.zeros((n, n), np.float32)
    assert_compiles(k, A, B, C)
    tpb = matmul_mod.TPB
    k[(math.ceil(n / tpb), math.ceil(n / tpb)), (tpb, tpb)](A, B, C)
    np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-5)


def test_matmul_1024_on_gpu(on):
    if on == "cpu":
        pytest.skip("1024x1024 runs on the GPU; the simulator runs the smaller sizes above")
    matmul_mod.main(1024)


def test_smoothing(on):
    n = 8192 if on == "cuda" else 37
    rng = np.random.default_rng(1)
    a = rng.random((n, n + 3), dtype=np.float32)
    out = np.zeros_like(a)
    assert_compiles(smooth_mod.smooth, a, out)
    threads = (32, 8)
    blocks = (math.ceil(a.shape[1] / 32), math.ceil(a.shape[0] / 8))
    smooth_mod.smooth[blocks, threads](a, out)
    ref = smooth_mod.smooth_numpy(a)
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)
    assert out.dtype == np.float32


def test_examples_run(on):
    if on == "cuda":
        pytest.skip("the tests above run the examples' kernels at their GPU sizes")
    add_mod.main()
    matmul_mod.main()
    smooth_mod.main()
