"""numfuse.fft against numpy.fft: every function, dtypes (NumPy 2 keeps single precision; ints and
bool promote to complex128), n/s/axes/norm, prime and power-of-two lengths, zero-padding and
truncation, non-contiguous inputs, out=, NumPy's errors, round trips, and the helpers."""
import warnings

import numpy
import pytest

from harness import numfuse_module, oracle

C2C = ["fft", "ifft"]
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn"]
TWO_D = ["fft2", "ifft2", "rfft2", "irfft2"]
REAL_IN = {"rfft", "ihfft", "rfftn", "rfft2"}  # NumPy refuses complex input
NORMS = [None, "backward", "ortho", "forward"]
DTYPES = ["float16", "float32", "float64", "complex64", "complex128", "int8", "int64", "uint16",
          "bool"]


def _tol(dtype):
    """FFT sums n terms: a few ulp times log n, relative to the largest value (|x| <= 4 here)."""
    kind = numpy.dtype(dtype)
    if kind in (numpy.float16,):
        return 1e-2
    if kind in (numpy.float32, numpy.complex64):
        return 2e-5
    return 1e-12


def signal(shape, dtype, seed=0):
    """Values in [-4, 4) (complex: both parts) of `dtype`; bool and unsigned ones non-negative."""
    rng = numpy.random.default_rng(seed)
    dt = numpy.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -4, 4, size=shape).astype(dt)
    x = rng.uniform(-4, 4, size=shape)
    if dt.kind == "c":
        x = x + 1j * rng.uniform(-4, 4, size=shape)
    return x.astype(dt)


def spectrum_tol(dtype, n):
    t = _tol(dtype)
    return dict(rtol=t, atol=t * 8 * max(n, 1))


@pytest.mark.parametrize("func", ONE_D)
@pytest.mark.parametrize("dtype", DTYPES)
def test_one_d_dtypes(func, dtype, device):
    if func in REAL_IN and dtype.startswith("complex"):
        pytest.skip("complex input to a real transform: test_real_transforms_refuse_complex")

    @oracle(**spectrum_tol(dtype, 12))
    def body(xp):
        return getattr(xp.fft, func)(xp.asarray(signal((3, 12), dtype)))
    body(device=device)


@pytest.mark.parametrize("func", ONE_D)
@pytest.mark.parametrize("length", [1, 2, 7, 8, 13, 16, 17, 64, 97, 127, 128, 1009])
def test_one_d_lengths(func, length, device):
    """Powers of two and primes (pocketfft's Bluestein path past 50), as the transform length."""
    dtype = "float64" if func in REAL_IN else "complex128"

    @oracle(**spectrum_tol(dtype, length))
    def body(xp):
        return getattr(xp.fft, func)(xp.asarray(signal((2, length), dtype, seed=length)))
    body(device=device)


@pytest.mark.parametrize("func", ONE_D)
@pytest.mark.parametrize("n", [None, 1, 3, 6, 10, 16, 23])
@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("norm", NORMS)
def test_one_d_n_axis_norm(func, n, axis, norm, device):
    """n cuts or zero-pads the input along `axis`; every normalisation."""
    dtype = "float32" if func in REAL_IN else "complex64"

    @oracle(**spectrum_tol(dtype, 24))
    def body(xp):
        x = xp.asarray(signal((5, 10, 3), dtype, seed=2))
        return getattr(xp.fft, func)(x, n=n, axis=axis, norm=norm)
    body(device=device)


S_AXES = [(None, None), (None, (0,)), (None, (1, 0)), (None, (-1, 0, 1)), ((4, 6), (0, 2)),
          ((3, 9, 2), (0, 1, 2)), ((7,), (-1,)), ((-1, 5), (1, 2)), (None, (0, 0)),
          ((2, 4, 6), (2, 0, 2))]


@pytest.mark.parametrize("func", N_D)
@pytest.mark.parametrize("s,axes", S_AXES, ids=str)
@pytest.mark.parametrize("norm", NORMS)
def test_n_d(func, s, axes, norm, device):
    """s and axes in every combination, repeated axes (transformed twice, as NumPy does)."""
    dtype = "float64" if func in REAL_IN else "complex128"

    @oracle(**spectrum_tol(dtype, 200))
    def body(xp):
        x = xp.asarray(signal((4, 5, 6), dtype, seed=3))
        return getattr(xp.fft, func)(x, s=s, axes=axes, norm=norm)
    body(device=device)


@pytest.mark.parametrize("func", TWO_D)
@pytest.mark.parametrize("s,axes", [(None, (-2, -1)), ((3, 8), (-2, -1)), (None, (0, 2)),
                                    ((6, 6), (2, 1))], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32"])
def test_two_d(func, s, axes, dtype, device):
    if func in REAL_IN and dtype.startswith("complex"):
        pytest.skip("complex input to a real transform")

    @oracle(**spectrum_tol(dtype, 100))
    def body(xp):
        return getattr(xp.fft, func)(xp.asarray(signal((3, 4, 5), dtype, seed=4)), s=s, axes=axes)
    body(device=device)


def test_s_without_axes_warns_as_numpy():
    nf = numfuse_module()
    x = signal((4, 5), "complex128")
    with pytest.warns(DeprecationWarning):
        got = nf.fft.fftn(nf.asarray(x), s=(3, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        want = numpy.fft.fftn(x, s=(3, 3))
    numpy.testing.assert_allclose(nf.asnumpy(got), want, rtol=1e-12, atol=1e-12)


VIEWS = [
    ("step2", (5, 24), lambda a: a[:, ::2]),
    ("reversed", (4, 13), lambda a: a[::-1, ::-1]),
    ("transposed", (9, 6), lambda a: a.T),
    ("inner", (7, 11), lambda a: a[1:-1, 2:-2]),
]


@pytest.mark.parametrize("func", ONE_D + ["fft2", "rfftn", "irfftn"])
@pytest.mark.parametrize("view", [v[0] for v in VIEWS])
@pytest.mark.parametrize("axis", [0, -1])
def test_non_contiguous_inputs(func, view, axis, device):
    _, shape, make = next(v for v in VIEWS if v[0] == view)
    dtype = "float64" if func in REAL_IN else "complex128"

    @oracle(**spectrum_tol(dtype, 30))
    def body(xp):
        x = make(xp.asarray(signal(shape, dtype, seed=5)))
        if func in ONE_D:
            return getattr(xp.fft, func)(x, axis=axis)
        return getattr(xp.fft, func)(x, axes=(axis, 1 - axis % 2) if axis == 0 else (0, 1))
    body(device=device)


@oracle(rtol=1e-12, atol=1e-11)
def test_fft_of_pending_expression_and_fused_consumer(xp):
    """A pending input is evaluated into the transform; abs(ifft(x))**2 fuses the scale."""
    x = xp.asarray(signal((64,), "float64", seed=6))
    y = xp.fft.ifft(xp.sin(x) * 2 + 1, norm="ortho")
    return xp.abs(y) ** 2, xp.fft.irfft(xp.fft.rfft(x) * xp.fft.rfftfreq(64))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("n", [1, 2, 5, 16, 31, 1000])
def test_round_trips(dtype, n, device):
    nf = numfuse_module()
    x = signal((3, n), dtype, seed=n)
    a = nf.asarray(x) if device == "cpu" else nf.asarray(x, device=device)
    t = _tol(dtype) * 10 * numpy.log2(n + 1)
    numpy.testing.assert_allclose(nf.asnumpy(nf.fft.ifft(nf.fft.fft(a))), x, rtol=t, atol=t * 4)
    numpy.testing.assert_allclose(nf.asnumpy(nf.fft.ifftn(nf.fft.fftn(a))), x, rtol=t, atol=t * 4)
    if dtype.startswith("float"):
        numpy.testing.assert_allclose(nf.asnumpy(nf.fft.irfft(nf.fft.rfft(a), n=n)), x,
                                      rtol=t, atol=t * 4)
        numpy.testing.assert_allclose(nf.asnumpy(nf.fft.hfft(nf.fft.ihfft(a), n=n)), x,
                                      rtol=t, atol=t * 4)
        numpy.testing.assert_allclose(nf.asnumpy(nf.fft.irfftn(nf.fft.rfftn(a), s=x.shape, axes=(0, 1))), x,
                                      rtol=t, atol=t * 4)


@pytest.mark.parametrize("func,out_dtype", [("fft", "complex128"), ("ifft", "complex128"),
                                            ("rfft", "complex128"), ("irfft", "float64"),
                                            ("hfft", "float64"), ("ihfft", "complex128"),
                                            ("fft", "complex64"), ("irfft", "float32")])
@oracle(rtol=1e-5, atol=1e-4)
def test_out(xp, func, out_dtype):
    """out= receives the result (same_kind casting) and is returned. numfuse honours it in hfft,
    ifft2 and irfft2 too, where NumPy 2 drops it (they call on with out=None)."""
    x = xp.asarray(signal((3, 8), "float64" if func in REAL_IN else "complex128", seed=7))
    shape = getattr(numpy.fft, func)(numpy.zeros((3, 8), "float64" if func in REAL_IN
                                                 else "complex128")).shape
    out = xp.zeros(shape, dtype=out_dtype)
    r = getattr(xp.fft, func)(x, out=out)
    if not xp.is_numpy:
        assert r is out
    return r.astype(out_dtype)


@pytest.mark.parametrize("func", ["fftn", "rfftn", "irfftn", "fft2", "rfft2"])
@oracle(rtol=1e-12, atol=1e-11)
def test_out_n_d(xp, func):
    x = xp.asarray(signal((4, 6), "float64", seed=8))
    shape = getattr(numpy.fft, func)(numpy.zeros((4, 6))).shape
    out = xp.zeros(shape, dtype="float64" if func.startswith("irfft") else "complex128")
    r = getattr(xp.fft, func)(x, out=out)
    if not xp.is_numpy:
        assert r is out
    return r


@pytest.mark.parametrize("case", [
    "wrong_out_shape", "out_cast", "norm", "ifft_norm", "n_zero", "n_negative", "empty_axis",
    "zero_d", "zero_d_n", "axis_range", "axis_range_n", "s_axes_len", "irfft_one", "n_float",
    "rfft_complex", "fftn_empty_axis", "hfft_norm",
])
@oracle()
def test_errors(xp, case):
    x = xp.asarray(signal((3, 4), "complex128"))
    r = xp.asarray(signal((3, 4), "float64"))
    calls = {
        "wrong_out_shape": lambda: xp.fft.fft(x, out=xp.zeros((3, 5), dtype="complex128")),
        "out_cast": lambda: xp.fft.fft(x, out=xp.zeros((3, 4), dtype="float64")),
        "norm": lambda: xp.fft.fft(x, norm="bad"),
        "ifft_norm": lambda: xp.fft.ifft(x, norm="Ortho"),
        "hfft_norm": lambda: xp.fft.hfft(x, norm="x"),
        "n_zero": lambda: xp.fft.fft(x, n=0),
        "n_negative": lambda: xp.fft.rfft(r, n=-3),
        "empty_axis": lambda: xp.fft.fft(xp.zeros((3, 0), dtype="complex128")),
        "zero_d": lambda: xp.fft.fft(xp.asarray(1.0)),
        "zero_d_n": lambda: xp.fft.fft(xp.asarray(1.0), n=4),
        "axis_range": lambda: xp.fft.fft(x, axis=2),
        "axis_range_n": lambda: xp.fft.fft(x, n=4, axis=-3),
        "s_axes_len": lambda: xp.fft.fftn(x, s=(2, 2), axes=(0,)),
        "irfft_one": lambda: xp.fft.irfft(xp.ones(1, dtype="complex128")),
        "n_float": lambda: xp.fft.fft(x, n=2.0),
        "rfft_complex": lambda: xp.fft.rfft(x),
        "fftn_empty_axis": lambda: xp.fft.fftn(xp.zeros((2, 0))),
    }
    return calls[case]()


@pytest.mark.parametrize("shape,axis", [((0, 4), -1), ((3, 0, 4), 2), ((0,), None)])
@oracle()
def test_empty_batches(xp, shape, axis):
    """Empty along an axis not transformed: an empty result of the right shape and dtype."""
    x = xp.zeros(shape, dtype="float32")
    if axis is None:
        return xp.fft.fft(x, n=4), xp.fft.rfft(x, n=5)
    return xp.fft.fft(x, axis=axis), xp.fft.irfft(x, axis=axis), xp.fft.rfft(x, axis=axis)


@oracle()
def test_fftn_zero_d_returns_input(xp):
    return xp.fft.fftn(xp.asarray(2.5))


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9])
@pytest.mark.parametrize("d", [1.0, 0.25, 3])
@oracle(rtol=1e-15)
def test_fftfreq(xp, n, d, device):
    dev = "cpu" if xp.is_numpy else device  # NumPy 2 takes device="cpu" only
    return xp.fft.fftfreq(n, d, device=dev), xp.fft.rfftfreq(n, d=d, device=dev)


@pytest.mark.parametrize("shape,axes", [((7,), None), ((8,), None), ((4, 5), None),
                                        ((4, 5), 0), ((4, 5), (1,)), ((3, 4, 5), (0, 2)),
                                        ((0,), None)], ids=str)
@oracle()
def test_shifts(xp, shape, axes):
    x = xp.asarray(numpy.arange(int(numpy.prod(shape))).reshape(shape))
    return xp.fft.fftshift(x, axes=axes), xp.fft.ifftshift(x, axes=axes), \
        xp.fft.ifftshift(xp.fft.fftshift(x, axes=axes), axes=axes)


def test_transforms_through_core_kinds_numpy_lacks():
    """The node's backward real-to-complex and forward complex-to-real, which the Python layer
    does not use today (hfft/ihfft conjugate instead): pocketfft's rows path must get signs right."""
    nf = numfuse_module()
    x = signal((3, 10), "float64", seed=9)
    # On the CPU: cuFFT's real transforms go one way only (fft_cuda.cpp refuses the others).
    got = nf.asnumpy(nf._core.fft_transform(nf.asarray(x, device="cpu"), "r2c", False, [-1], [10]))
    numpy.testing.assert_allclose(got, numpy.conj(numpy.fft.rfft(x)), rtol=1e-12, atol=1e-12)
    h = numpy.fft.rfft(x)
    for n in (10, 11):
        got = nf.asnumpy(nf._core.fft_transform(nf.asarray(h, device="cpu"), "c2r", True, [-1], [n]))
        numpy.testing.assert_allclose(got, numpy.fft.irfft(numpy.conj(h), n=n) * n,
                                      rtol=1e-12, atol=1e-11)


def test_plan_cache_config_names_and_limits():
    """numfuse.fft.config: CuPy's names; limits set, read back and restored; clear() empties."""
    nf = numfuse_module()
    cache = nf.fft.config.get_plan_cache()
    size, memsize = cache.get_size(), cache.get_memsize()
    assert (size, memsize) == (16, -1)  # CuPy's defaults
    try:
        cache.set_size(3)
        cache.set_memsize(1 << 20)
        assert cache.get_size() == 3 and cache.get_memsize() == 1 << 20
        assert nf.fft.config.get_plan_cache_size() == 3
        with pytest.raises(ValueError):
            cache.set_size(-2)
        cache.clear()
        assert cache.get_curr_size() == 0 and cache.get_curr_memsize() == 0 and len(cache) == 0
    finally:
        cache.set_size(size)
        cache.set_memsize(memsize)


@pytest.mark.cuda
def test_plan_cache_keeps_cufft_plans(device):
    """On CUDA: a transform leaves its plan in the cache, the same transform reuses it, another
    batch adds one, size limits evict, clear() empties (the CPU makes no plans)."""
    if device != "cuda":
        pytest.skip("cuFFT plans exist on CUDA only")
    nf = numfuse_module()
    cache = nf.fft.config.get_plan_cache()
    cache.clear()
    x = nf.asarray(signal((4, 64), "complex64"), device=device)
    want = numpy.fft.fft(signal((4, 64), "complex64"))
    numpy.testing.assert_allclose(nf.asnumpy(nf.fft.fft(x)), want, rtol=1e-4, atol=1e-3)
    assert cache.get_curr_size() == 1
    nf.asnumpy(nf.fft.fft(x))
    assert cache.get_curr_size() == 1
    nf.asnumpy(nf.fft.fft(x[:2]))
    assert cache.get_curr_size() == 2
    old = cache.get_size()
    try:
        cache.set_size(1)
        assert cache.get_curr_size() == 1
    finally:
        cache.set_size(old)
    cache.clear()
    assert cache.get_curr_size() == 0


def _random_case(rng):
    """A random n-D transform: function, shape, view, axes (distinct or not, any order), s, norm."""
    func = str(rng.choice(["fftn", "ifftn", "rfftn", "irfftn", "fft", "irfft", "hfft", "ihfft"]))
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(v) for v in rng.integers(1, 9, size=ndim))
    dtype = str(rng.choice(["float32", "float64", "complex64", "complex128", "int16"]))
    if func in REAL_IN and dtype.startswith("complex"):
        dtype = "float64"
    view = str(rng.choice(["none", "reverse", "step", "transpose"]))
    norm = rng.choice(NORMS)
    if func in ONE_D:
        axis = int(rng.integers(-ndim, ndim))
        n = None if rng.random() < 0.4 else int(rng.integers(1, 12))
        return func, shape, dtype, view, dict(n=n, axis=axis, norm=norm)
    k = int(rng.integers(1, ndim + 1))
    axes = [int(a) for a in rng.choice(ndim, size=k, replace=rng.random() < 0.2)]
    axes = [a - ndim if rng.random() < 0.5 else a for a in axes]
    s = None if rng.random() < 0.4 else [int(v) for v in rng.integers(1, 10, size=k)]
    return func, shape, dtype, view, dict(s=s, axes=axes, norm=norm)


@pytest.mark.parametrize("seed", range(60))
def test_random_transforms(seed, device):
    """Seeded property test: random transforms of random (possibly strided) inputs match NumPy."""
    rng = numpy.random.default_rng(1000 + seed)
    for _ in range(5):
        func, shape, dtype, view, kwargs = _random_case(rng)
        views = {"none": lambda a: a, "reverse": lambda a: a[::-1],
                 "step": lambda a: a[..., ::2] if a.shape[-1] > 1 else a,
                 "transpose": lambda a: a.T}

        @oracle(**spectrum_tol(dtype, 1000))
        def body(xp):
            x = views[view](xp.asarray(signal(shape, dtype, seed=seed)))
            return getattr(xp.fft, func)(x, **kwargs)
        body(device=device)


@pytest.mark.parametrize("func", ["fft", "ifft"])
@pytest.mark.parametrize("view", ["whole", "strided"])
def test_out_is_the_input(func, view, device):
    """fft(x, out=x): the transform reads x before the result is written into it, as NumPy's."""
    nf = numfuse_module()
    a = signal((4, 8), "complex128", seed=11)
    x = nf.asarray(a) if device == "cpu" else nf.asarray(a, device=device)
    v = x if view == "whole" else x[:, ::2]
    want_v = getattr(numpy.fft, func)(a if view == "whole" else a[:, ::2], norm="ortho")
    r = getattr(nf.fft, func)(v, out=v, norm="ortho")
    assert r is v
    got = nf.asnumpy(x)
    if view == "whole":
        numpy.testing.assert_allclose(got, want_v, rtol=1e-12, atol=1e-12)
    else:
        numpy.testing.assert_allclose(got[:, ::2], want_v, rtol=1e-12, atol=1e-12)
        numpy.testing.assert_array_equal(got[:, 1::2], a[:, 1::2])


def test_normalisation_fuses_with_what_follows():
    """The norm's factor is an elementwise step in the consumer's group, not a pass of its own."""
    nf = numfuse_module()
    x = nf.asarray(signal((256,), "complex128"))
    text = nf.explain(nf.abs(nf.fft.ifft(x)) ** 2)
    assert "2 group(s)" in text, text
    assert "[multiply absolute square]" in text, text
