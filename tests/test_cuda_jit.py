"""numfuse.cuda.jit: the constructs of Numba's CUDA kernels, on the `device` fixture's device (the
simulator for 'cpu', the GPU for 'cuda'), each translation compiled by NVRTC; NumPy computes the
expected values."""
import math

import numpy as np
import pytest

import numfuse
from numfuse import cuda, float32, int32

from jit_helpers import assert_compiles, launch, use_device


@pytest.fixture
def on(device, monkeypatch):
    use_device(device, monkeypatch)
    return device


@cuda.jit
def _indices3d(out):
    x, y, z = cuda.grid(3)
    sx, sy, sz = cuda.gridsize(3)
    i = (z * sy + y) * sx + x
    out[i, 0] = cuda.threadIdx.x + 10 * cuda.threadIdx.y + 100 * cuda.threadIdx.z
    out[i, 1] = cuda.blockIdx.x + 10 * cuda.blockIdx.y + 100 * cuda.blockIdx.z
    out[i, 2] = cuda.blockDim.x + 10 * cuda.blockDim.y + 100 * cuda.blockDim.z
    out[i, 3] = cuda.gridDim.x + 10 * cuda.gridDim.y + 100 * cuda.gridDim.z


def test_thread_and_block_indices(on):
    grid, block = (2, 3, 2), (4, 2, 3)
    n = math.prod(grid) * math.prod(block)
    out = np.full((n, 4), -1, np.int64)
    launch(_indices3d, (grid, block), out)
    seen = set()
    for bz in range(2):
        for by in range(3):
            for bx in range(2):
                for tz in range(3):
                    for ty in range(2):
                        for tx in range(4):
                            x, y, z = bx * 4 + tx, by * 2 + ty, bz * 3 + tz
                            i = (z * 6 + y) * 8 + x
                            seen.add(i)
                            assert list(out[i]) == [tx + 10 * ty + 100 * tz, bx + 10 * by + 100 * bz,
                                                    4 + 20 + 300, 2 + 30 + 200]
    assert len(seen) == n


@cuda.jit
def _block_sum(a, out):
    buf = cuda.shared.array(128, dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = a[i] if i < a.size else 0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = buf[0]


def test_shared_memory_tree_reduction(on):
    a = np.random.default_rng(0).random(1000, dtype=np.float32)
    out = np.zeros(8, np.float32)
    launch(_block_sum, (8, 128), a, out)
    ref = np.add.reduceat(np.concatenate([a, np.zeros(24, np.float32)]), np.arange(0, 1024, 128))
    np.testing.assert_allclose(out, ref, rtol=1e-5)


@cuda.jit
def _histogram(data, bins, lo_hi):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    for k in range(i, data.size, stride):
        b = int((data[k] - lo_hi[0]) / (lo_hi[1] - lo_hi[0]) * bins.size)
        b = min(max(b, 0), bins.size - 1)
        cuda.atomic.add(bins, b, 1)


def test_atomic_add_histogram_grid_stride(on):
    data = np.random.default_rng(2).random(3000)
    bins = np.zeros(10, np.int32)
    launch(_histogram, (3, 64), data, bins, np.array([0.0, 1.0]))
    ref = np.histogram(data, 10, (0, 1))[0]
    np.testing.assert_array_equal(bins, ref)


@cuda.jit
def _atomics(a, res):
    i = cuda.grid(1)
    if i < a.size:
        cuda.atomic.max(res, 0, a[i])
        cuda.atomic.min(res, 1, a[i])
        old = cuda.atomic.add(res, 2, 1.0)
        cuda.atomic.max(res, 3, old)


@cuda.jit
def _cas_first(flags, winner):
    i = cuda.grid(1)
    if cuda.atomic.cas(flags, 0, 0, 1) == 0:
        winner[0] = i


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64])
def test_atomic_max_min_add(on, dt):
    a = (np.random.default_rng(3).random(200) * 100 - 50).astype(dt)
    res = np.array([-1000, 1000, 0, -1], dt)
    launch(_atomics, (4, 64), a, res)
    assert res[0] == a.max() and res[1] == a.min() and res[2] == 200 and res[3] == 199


def test_atomic_cas(on):
    flags = np.zeros(1, np.int32)
    winner = np.full(1, -1, np.int64)
    launch(_cas_first, (2, 32), flags, winner)
    assert flags[0] == 1 and 0 <= winner[0] < 64


@cuda.jit
def _local_and_tuples(a, out):
    i = cuda.grid(1)
    if i >= a.shape[0]:
        return
    tmp = cuda.local.array(4, dtype=np.float64)
    for k in range(4):
        tmp[k] = a[i, k]
    lo, hi = tmp[0], tmp[3]
    lo, hi = hi, lo  # swap: Python evaluates the right side first
    total = 0.0
    for k in range(3, -1, -1):  # negative step
        total = total * 10 + tmp[k]
    out[i, 0] = lo
    out[i, 1] = hi
    out[i, 2] = total
    out[i, -1] = a[i, -1] + a[-1, 0]  # negative indices wrap as Python's


def test_local_arrays_tuples_negative_steps_and_indices(on):
    a = np.arange(20, dtype=np.float64).reshape(5, 4) % 7
    out = np.zeros((5, 4))
    launch(_local_and_tuples, (1, 8), a, out)
    np.testing.assert_array_equal(out[:, 0], a[:, 3])
    np.testing.assert_array_equal(out[:, 1], a[:, 0])
    np.testing.assert_array_equal(out[:, 2], ((a[:, 3] * 10 + a[:, 2]) * 10 + a[:, 1]) * 10 + a[:, 0])
    np.testing.assert_array_equal(out[:, 3], a[:, -1] + a[-1, 0])


@cuda.jit(device=True)
def _clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@cuda.jit(device=True)
def _norm2(v, i):
    return math.sqrt(v[i, 0] * v[i, 0] + v[i, 1] * v[i, 1])


@cuda.jit
def _use_device_functions(v, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = _clamp(_norm2(v, i), 0.5, 2.0)


def test_device_functions(on):
    v = np.random.default_rng(4).random((100, 2)) * 2
    out = np.zeros(100)
    launch(_use_device_functions, (4, 32), v, out)
    np.testing.assert_allclose(out, np.clip(np.hypot(v[:, 0], v[:, 1]), 0.5, 2.0), rtol=1e-12)


@cuda.jit
def _python_arithmetic(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] // b[i]
        out[i, 1] = a[i] % b[i]
        out[i, 2] = a[i] / b[i]
        out[i, 3] = -a[i] // 3
        out[i, 4] = (-a[i]) % 3
        out[i, 5] = a[i] ** 2
        out[i, 6] = abs(a[i] - 5) if a[i] != 3 else -1


def test_python_division_and_modulo(on):
    a = np.arange(-10, 10, dtype=np.int64)
    b = np.array([3, -3, 4, -4, 7] * 4, np.int64)
    out = np.zeros((20, 7))
    launch(_python_arithmetic, (1, 32), a, b, out)
    with np.errstate(all="ignore"):
        ref = np.stack([a // b, a % b, a / b, -a // 3, (-a) % 3, a ** 2,
                        np.where(a != 3, abs(a - 5), -1)], axis=1)
    np.testing.assert_array_equal(out, ref)


@cuda.jit
def _float_divmod(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] // b[i]
        out[i, 1] = a[i] % b[i]
        out[i, 2] = math.floor(a[i]) + math.ceil(b[i])
        out[i, 3] = math.exp(a[i] / 10) + math.atan2(a[i], b[i]) + math.hypot(a[i], b[i])


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_float_floor_division_modulo_and_math(on, dt):
    rng = np.random.default_rng(5)
    a = (rng.random(64) * 20 - 10).astype(dt)
    b = (rng.random(64) * 6 - 3).astype(dt)
    b[b == 0] = 1
    out = np.zeros((64, 4), dt)
    launch(_float_divmod, (2, 32), a, b, out)
    np.testing.assert_allclose(out[:, 0], a // b)
    np.testing.assert_allclose(out[:, 1], a % b, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out[:, 2], np.floor(a) + np.ceil(b))
    tol = 1e-5 if dt == np.float32 else 1e-12
    np.testing.assert_allclose(out[:, 3], np.exp(a / 10) + np.arctan2(a, b) + np.hypot(a, b), rtol=tol)


@cuda.jit
def _loops(n, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    count = 0
    k = 0
    while True:
        k += 1
        if k % 2 == 0:
            continue
        if k > n + i:
            break
        count += k
    out[i] = count


def test_while_break_continue_scalar_args(on):
    out = np.zeros(10, np.int64)
    launch(_loops, (1, 16), 7, out)
    ref = [sum(k for k in range(1, 8 + i) if k % 2 and k <= 7 + i) for i in range(10)]
    np.testing.assert_array_equal(out, ref)


@cuda.jit
def _promotion(a, out):
    i = cuda.grid(1)
    if i < a.size:
        x = 1          # int64
        x = x + a[i]   # unified with float32 -> float64, as Numba does
        out[i] = x * 0.5


def test_variable_type_unification(on):
    a = np.arange(8, dtype=np.float32)
    out = np.zeros(8)
    src = launch(_promotion, (1, 8), a, out)
    np.testing.assert_array_equal(out, (1 + a.astype(np.float64)) * 0.5)
    if on == "cpu":
        assert "double v_x" in assert_compiles(_promotion, a, out)


@cuda.jit
def _complex_kernel(z, out):
    i = cuda.grid(1)
    if i < z.size:
        w = z[i] * z[i] + 1j
        out[i] = w.real + abs(w) + w.imag


def test_complex_numbers(on):
    z = (np.arange(6) + 1j * np.arange(6)[::-1]).astype(np.complex128)
    out = np.zeros(6)
    launch(_complex_kernel, (1, 8), z, out)
    w = z * z + 1j
    np.testing.assert_allclose(out, w.real + abs(w) + w.imag)


@cuda.jit
def _dynamic_shared(a, out):
    buf = cuda.shared.array(0, dtype=np.float32)
    t = cuda.threadIdx.x
    buf[t] = a[t]
    cuda.syncthreads()
    out[t] = buf[cuda.blockDim.x - 1 - t]


def test_dynamic_shared_memory_and_four_item_config(on):
    a = np.arange(32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    assert_compiles(_dynamic_shared, a, out)
    _dynamic_shared[1, 32, 0, 32 * 4](a, out)
    np.testing.assert_array_equal(out, a[::-1])


@cuda.jit
def _scale(a, f):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= f


def test_numfuse_arrays_are_device_arrays(on):
    d = cuda.to_device(np.arange(10, dtype=np.float32))
    assert isinstance(d, numfuse.ndarray)
    _scale[1, 16](d, np.float32(3))
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(10, dtype=np.float32) * 3)
    e = cuda.device_array((4, 4), np.int32)
    assert e.shape == (4, 4) and e.dtype == np.int32
    like = cuda.device_array_like(np.zeros((2, 3), np.float64))
    assert like.shape == (2, 3) and like.dtype == np.float64


@cuda.jit
def _strided(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j] * 2


def test_non_contiguous_arrays(on):
    base = np.arange(60, dtype=np.float64).reshape(6, 10)
    a = base[::2, ::3]
    out = np.zeros((3, 4))
    launch(_strided, ((1, 1), (4, 4)), a, out)
    np.testing.assert_array_equal(out, a * 2)


@cuda.jit("void(float32[:], float32[:])")
def _eager(a, b):
    i = cuda.grid(1)
    if i < a.size:
        b[i] = a[i] + 1


def test_eager_signature(on):
    a = np.arange(5, dtype=np.float32)
    b = np.zeros(5, np.float32)
    launch(_eager, (1, 8), a, b)
    np.testing.assert_array_equal(b, a + 1)


@cuda.jit
def _oob(a):
    i = cuda.grid(1)
    a[i] = 1


def test_simulator_index_error_names_the_thread(monkeypatch):
    use_device("cpu", monkeypatch)
    with pytest.raises(IndexError, match=r"index 10 is out of bounds.*blockIdx=\(1, 0, 0\) threadIdx=\(2, 0, 0\)"):
        _oob[2, 8](np.zeros(10))


def test_launch_configuration_errors(on):
    a = np.zeros(4)
    with pytest.raises(ValueError, match="at most 1024"):
        _oob[1, (64, 32)](a)
    with pytest.raises(ValueError, match="positive"):
        _oob[0, 32](a)
    with pytest.raises(TypeError, match=r"_oob\[blocks, threads\]"):
        _oob(a)
    with pytest.raises(TypeError, match="takes 1 arguments"):
        _oob[1, 4](a, a)
    with pytest.raises(TypeError, match="argument 'a'.*list"):
        _oob[1, 4]([1, 2])


def test_intrinsics_outside_kernels_raise():
    with pytest.raises(RuntimeError, match="inside a kernel"):
        cuda.grid(1)
    with pytest.raises(RuntimeError, match="inside a kernel"):
        cuda.threadIdx.x


def test_int32_arrays_keep_their_type(on):
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] * int32(2) + 1

    a = np.arange(6, dtype=np.int32)
    out = np.zeros(6, np.int32)
    src = launch(k, (1, 8), a, out)
    np.testing.assert_array_equal(out, a * 2 + 1)
    assert "int* p_a" in assert_compiles(k, a, out)
