"""What the translator rejects: a clear error at the first launch naming the Python file:line and
the construct, or the variable of a type error (on both devices: the simulator translates too)."""
import inspect
import re

import numpy as np
import pytest

from numfuse import cuda

from jit_helpers import use_device


@pytest.fixture
def on(device, monkeypatch):
    use_device(device, monkeypatch)
    return device


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn.py_func)
    for k, line in enumerate(lines):
        if text in line:
            return first + k
    raise AssertionError(text)


def _expect(kernel, marker, pattern, *args):
    args = args or (np.zeros(8),)
    line = _line_of(kernel, marker)
    with pytest.raises(cuda.TranslationError) as info:
        kernel[1, 8](*args)
    msg = str(info.value)
    assert re.search(pattern, msg), msg
    assert f"test_cuda_jit_errors.py:{line}:" in msg, msg
    assert kernel.__name__ in msg
    return msg


@cuda.jit
def _list_comprehension(a):
    i = cuda.grid(1)
    a[i] = [k for k in range(3)][0]  # marker-listcomp


@cuda.jit
def _try_statement(a):
    try:  # marker-try
        a[0] = 1
    except Exception:
        pass


@cuda.jit
def _slicing(a):
    b = a[1:3]  # marker-slice
    b[0] = 1


@cuda.jit
def _array_and_float(a):
    x = 1.0
    if a[0] > 0:
        x = a  # marker-conflict


@cuda.jit
def _returns_value(a):
    return a[0]  # marker-return


@cuda.jit
def _undefined(a):
    a[0] = not_defined_anywhere  # noqa: F821  marker-undefined


@cuda.jit
def _for_over_array(a):
    for v in a:  # marker-for
        a[0] = v


@cuda.jit
def _float_index(a):
    a[1.5] = 0  # marker-floatindex


@cuda.jit
def _unsupported_call(a):
    a[0] = hash(a[0])  # marker-call


@cuda.jit
def _shared_dynamic_shape(a):
    s = cuda.shared.array(a.size, dtype=np.float32)  # marker-shape
    s[0] = 1


@cuda.jit
def _bool_and_int_tuple(a):
    x, y = 1, 2
    x, y = (1, 2, 3)  # marker-unpack


@cuda.jit
def _too_few_indices(a):
    a[0] = 1  # marker-ndim


def test_unsupported_expression_names_the_line_and_construct(on):
    _expect(_list_comprehension, "marker-listcomp", r"ListComp expressions are not supported.*\[k for k")


def test_unsupported_statement(on):
    _expect(_try_statement, "marker-try", r"'Try' statements are not supported")


def test_slicing(on):
    _expect(_slicing, "marker-slice", r"array slicing is not supported.*a\[1:3\]")


def test_type_conflict_names_the_variable(on):
    _expect(_array_and_float, "marker-conflict", r"variable 'x' is assigned an array and a float64")


def test_kernel_return_value(on):
    _expect(_returns_value, "marker-return", r"cannot return a value")


def test_undefined_name(on):
    _expect(_undefined, "marker-undefined", r"name 'not_defined_anywhere' is not defined")


def test_for_over_non_range(on):
    _expect(_for_over_array, "marker-for", r"for loops in kernels iterate over range")


def test_float_index(on):
    _expect(_float_index, "marker-floatindex", r"array index must be an integer, got float64")


def test_unsupported_call(on):
    _expect(_unsupported_call, "marker-call", r"calling hash is not supported")


def test_shared_array_shape_must_be_constant(on):
    _expect(_shared_dynamic_shape, "marker-shape", r"shape of a shared array must be a constant")


def test_unpacking_length(on):
    _expect(_bool_and_int_tuple, "marker-unpack", r"cannot unpack a tuple of 3 into 2 targets")


def test_partial_indexing(on):
    _expect(_too_few_indices, "marker-ndim", r"1 indices for a 2-d array", np.zeros((2, 2)))


def test_error_comes_at_the_first_launch_not_at_definition():
    @cuda.jit
    def later(a):
        a[0] = [1, 2]

    with pytest.raises(cuda.TranslationError, match="List expressions are not supported"):
        later[1, 1](np.zeros(2))


def test_eager_signature_errors_at_definition():
    with pytest.raises(cuda.TranslationError, match="List expressions are not supported"):
        @cuda.jit("void(float64[:])")
        def eager(a):
            a[0] = [1, 2]
    with pytest.raises(TypeError, match="unknown type 'float33'"):
        cuda.jit("void(float33[:])")
    with pytest.raises(TypeError, match="a kernel returns void"):
        cuda.jit("float32(float32[:])")


def test_translation_error_is_a_type_error():
    assert issubclass(cuda.TranslationError, TypeError)
    assert issubclass(cuda.TranslationError, NotImplementedError)


def test_device_function_cannot_be_launched_and_recursion_is_rejected(on):
    @cuda.jit(device=True)
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)

    @cuda.jit
    def uses(a):
        a[0] = fact(5)

    with pytest.raises(TypeError, match="cannot be launched"):
        fact[1, 1]
    with pytest.raises(cuda.TranslationError, match="recursive"):
        uses[1, 1](np.zeros(1, np.int64))


def _plain_helper(x):
    return x + 1


def test_calling_an_undecorated_function_says_how(on):
    @cuda.jit
    def k(a):
        a[0] = _plain_helper(a[0])

    with pytest.raises(cuda.TranslationError, match=r"calling _plain_helper is not supported.*"
                                                    r"@cuda.jit\(device=True\)"):
        k[1, 1](np.zeros(1))
