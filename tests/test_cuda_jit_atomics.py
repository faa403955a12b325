"""cuda.atomic.add/sub/max/min/exch on every dtype they take: the old value comes back and the
element is updated, on the `device` fixture's device (one thread: the order is known), and each
translation compiles under NVRTC (the prelude's overloads: int, unsigned, long long, unsigned
long long, float, double)."""
import numpy as np
import pytest

from numfuse import cuda

from jit_helpers import launch, use_device


@pytest.fixture
def on(device, monkeypatch):
    use_device(device, monkeypatch)
    return device


@cuda.jit
def _add(res, old, v):
    old[0] = cuda.atomic.add(res, 0, v)


@cuda.jit
def _sub(res, old, v):
    old[0] = cuda.atomic.sub(res, 0, v)


@cuda.jit
def _max(res, old, v):
    old[0] = cuda.atomic.max(res, 0, v)


@cuda.jit
def _min(res, old, v):
    old[0] = cuda.atomic.min(res, 0, v)


@cuda.jit
def _exch(res, old, v):
    old[0] = cuda.atomic.exch(res, 0, v)


OPS = {"add": (_add, lambda a, b: a + b), "sub": (_sub, lambda a, b: a - b),
       "max": (_max, max), "min": (_min, min), "exch": (_exch, lambda a, b: b)}
DTYPES = [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(OPS))
def test_old_value_and_update(on, op, dtype):
    kernel, rule = OPS[op]
    start, v = dtype(7), dtype(5)
    res = np.array([start], dtype)
    old = np.zeros(1, dtype)
    launch(kernel, (1, 1), res, old, v)
    assert old[0] == start
    assert res[0] == rule(start, v) and res.dtype == np.dtype(dtype)
