"""numfuse.cuda.jit, the finer points: parameters as indices, tuple arguments and variables,
streams, generated names, jit options, print, constant expressions, launches from threads, and
the scalar-function entry point of numfuse.vectorize; on the `device` fixture's device, each
translation compiled by NVRTC."""
import math

import numpy as np
import pytest

from numfuse import cuda

from jit_helpers import assert_compiles, launch, use_device
from test_cuda_jit import _block_sum


@pytest.fixture
def on(device, monkeypatch):
    use_device(device, monkeypatch)
    return device


@cuda.jit
def _param_reassigned(a, k):
    k = 2  # the parameter's incoming value may be negative; after this it is not
    a[k] = 1


@cuda.jit
def _negative_param_index(a, k):
    a[k] = 7


def test_parameters_as_indices_wrap(on):
    a = np.zeros(5)
    launch(_negative_param_index, (1, 1), a, -2)
    np.testing.assert_array_equal(a, [0, 0, 0, 7, 0])
    b = np.zeros(5)
    launch(_param_reassigned, (1, 1), b, -1)
    np.testing.assert_array_equal(b, [0, 0, 1, 0, 0])


@cuda.jit
def _tuple_argument(a, shape):
    i = cuda.grid(1)
    if i < shape[0]:
        a[i] = shape[1] * i


def test_tuple_arguments_and_streams(on):
    a = np.zeros(6, np.int64)
    s = cuda.stream() if on == "cuda" else 0
    assert_compiles(_tuple_argument, a, (4, 3))
    _tuple_argument[1, 8, s](a, (4, 3))
    if on == "cuda":
        s.synchronize()
    np.testing.assert_array_equal(a, [0, 3, 6, 9, 0, 0])


def _scalar_fn(x, y):
    if x > y:
        return x * 2 + y
    return math.sqrt(y)


@pytest.mark.parametrize("types,result", [((np.float32, np.float32), np.float32),
                                          ((np.int32, np.int64), np.float64),
                                          ((np.float64, np.int8), np.float64)])
def test_translate_scalar_function_for_vectorize(types, result):
    from numfuse.cuda._translate import translate_scalar_function
    src, name, rt = translate_scalar_function(_scalar_fn, types, name="nf_user_fn")
    assert name == "nf_user_fn" and rt == np.dtype(result)
    if cuda.nvrtc_available():
        kernel = (src + "\nextern \"C\" __global__ void k(double* o)"
                  f' {{ o[0] = nf_user_fn(1, 2); }}\n')
        assert cuda._c.compile_to_cubin(kernel, "k", "sm_90", [])[:4] == b"\x7fELF"


@cuda.jit
def _tuple_variable(out):
    pos = cuda.grid(2)
    size = cuda.gridsize(2)
    cache = cuda.shared.array((2, 4), "int64")
    cache[pos[1] % 2, pos[0] % 4] = pos[0]
    if pos[0] < out.shape[1] and pos[1] < out.shape[0]:
        out[pos[1], pos[0]] = pos[0] + size[0] * pos[1] + cache[pos[1] % 2, pos[0] % 4] * 0


def test_tuple_variables_and_string_dtypes(on):
    out = np.zeros((4, 6), np.int64)
    launch(_tuple_variable, ((2, 2), (4, 2)), out)
    np.testing.assert_array_equal(out, np.arange(6)[None, :] + 8 * np.arange(4)[:, None])


@cuda.jit
def _names_that_could_meet(x, x_p, n0_x, v):
    i = cuda.grid(1)
    if i < x.size:
        v0_x = x_p + n0_x  # a local whose name looks like a generated one
        x[i] = v0_x + v[i]


def test_generated_names_cannot_collide(on):
    x = np.zeros(4)
    launch(_names_that_could_meet, (1, 4), x, 1.0, 2.0, np.arange(4.0))
    np.testing.assert_array_equal(x, 3 + np.arange(4.0))


def test_jit_options(on):
    @cuda.jit(fastmath=True, max_registers=32, lineinfo=True)
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = math.sqrt(a[i])

    a = np.arange(8, dtype=np.float32)
    launch(k, (1, 8), a)
    np.testing.assert_allclose(a, np.sqrt(np.arange(8, dtype=np.float32)), rtol=1e-6)
    assert "--use_fast_math" in k.options and "--maxrregcount=32" in k.options
    with pytest.raises(TypeError, match="unexpected keyword arguments.*nonsense"):
        cuda.jit(nonsense=True)


def test_simulated_launches_from_threads(monkeypatch):
    import threading
    use_device("cpu", monkeypatch)
    outs = [np.zeros(64, np.float32) for _ in range(4)]
    x = np.arange(64, dtype=np.float32)

    def work(k):
        for _ in range(3):
            _block_sum[1, 64](x * (k + 1), outs[k][:1])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        assert outs[k][0] == np.float32(x.sum() * (k + 1))


@cuda.jit
def _printing(a):
    i = cuda.grid(1)
    if i == 1:
        print("value", i, a[i], a[i] > 0, '100% "q"\n')


def test_print_in_kernels(on, capfd):
    a = np.array([0.5, 2.5])
    launch(_printing, (1, 2), a)
    src = assert_compiles(_printing, a)
    assert 'printf("value %lld %g %s 100%% \\"q\\"\\012\\n"' in src
    if on == "cpu":
        assert "value 1 2.5 True 100% \"q\"" in capfd.readouterr().out


TILE = 8


@cuda.jit
def _constant_expressions(out):
    buf = cuda.shared.array((TILE * 2, TILE // 2 + 1), dtype=np.int32)
    t = cuda.threadIdx.x
    buf[t, 0] = t * (2 ** 3) - 7 // 2
    cuda.syncthreads()
    out[t] = buf[t, 0] + buf.shape[0] * 100 + buf.shape[1]


def test_constant_expressions_in_shapes(on):
    out = np.zeros(16, np.int64)
    launch(_constant_expressions, (1, 16), out)
    np.testing.assert_array_equal(out, np.arange(16) * 8 - 7 // 2 + 1600 + 5)


def test_packed_arguments_match_the_launch_paths_reading_of_the_signature():
    """The parameters jit packs agree, one by one, with what numfuse._kernels (the RawKernel
    launch path) reads from the generated signature: it checks arguments against it."""
    _kernels = pytest.importorskip("numfuse._kernels")
    import test_cuda_jit as k
    from numfuse.cuda._dispatcher import _pack
    cases = [(k._indices3d, (np.zeros((4, 4), np.int64),)),
             (k._strided, (np.zeros((6, 10))[::2, ::3], np.zeros((3, 4)))),
             (k._loops, (7, np.zeros(3, np.int64))),
             (k._complex_kernel, (np.zeros(3, np.complex128), np.zeros(3))),
             (_tuple_argument, (np.zeros(3, np.int64), (4, 3))),
             (k._scale, (np.zeros(3, np.float32), np.float32(2)))]
    for kernel, args in cases:
        types = kernel._types(args)
        source, name = kernel._translate(types)
        params = _kernels._kernel_params(source, name)
        packed = _pack(list(args), types)
        assert params is not None and len(params) == len(packed), (kernel, params)
        for (pname, kind, dtype), value in zip(params, packed):
            if isinstance(value, np.ndarray):
                assert kind == "p", pname
            else:
                assert kind in ("s", "?"), pname
                if kind == "s":
                    assert np.dtype(dtype) == value.dtype, (pname, dtype, value.dtype)


@cuda.jit
def _fails_in_thread_five(a):
    i = cuda.grid(1)
    if i == 5:
        a[i] = math.log(a[i] - 2.0)  # Python's math.log of a negative raises ValueError


def test_simulator_errors_name_the_thread(monkeypatch):
    use_device("cpu", monkeypatch)
    with pytest.raises(ValueError) as info:
        _fails_in_thread_five[2, 4](np.ones(8))
    assert "blockIdx=(1, 0, 0) threadIdx=(1, 0, 0)" in "".join(getattr(info.value, "__notes__", []))


def test_forall(on):
    a = np.zeros(300, np.float32)
    _scale_all = cuda.jit(_scale_py)
    assert_compiles(_scale_all, a, np.float32(2))
    _scale_all.forall(a.size)(a, np.float32(2))
    np.testing.assert_array_equal(a, np.full(300, 2, np.float32))


def _scale_py(a, f):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] + f
