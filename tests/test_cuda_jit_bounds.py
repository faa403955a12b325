"""Index wrapping in @cuda.jit kernels under a guard: `if 1 <= y:` bounds y below in its body, so
`a[y - 1]` needs no negative-index wrap (the seed's 9-point smoothing then indexes as the CUDA C++
written by hand does); where the guard does not cover the offset, or the body reassigns the
variable, Python's negative indices still wrap. Runs on the `device` fixture's device."""
import importlib.util
import itertools

import numpy as np
import pytest

from numfuse import cuda

from jit_helpers import launch, use_device


@pytest.fixture
def on(device, monkeypatch):
    use_device(device, monkeypatch)
    return device


def load_kernels(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text("from numfuse import cuda\n\n" + text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GUARDS = [(">=", 0), (">=", 1), (">", 1), (">=", 3)]  # i >= 0, i >= 1, i > 1, i >= 3
OFFSETS = [0, 1, 2, 3, 4]


def guarded_source():
    out = []
    for (op, k), c in itertools.product(GUARDS, OFFSETS):
        name = f"k_{'gt' if op == '>' else 'ge'}{k}_minus{c}"
        out.append(f"@cuda.jit\ndef {name}(a, out):\n    i = cuda.grid(1)\n"
                   f"    if i {op} {k} and i < a.size:\n        out[i] = a[i - {c}]\n")
    out.append("@cuda.jit\ndef reassigned(a, out):\n    i = cuda.grid(1)\n"
               "    if 1 <= i < a.size:\n        j = i\n        i = i - 3\n        out[j] = a[i - 1]\n")
    out.append("@cuda.jit\ndef flipped(a, out):\n    i = cuda.grid(1)\n"
               "    if 2 <= i and i < a.size:\n        out[i] = a[1 - i] + a[-2 + i]\n")
    return "\n".join(out)


def kernel_body(source):
    """The kernel itself, after the prelude's helpers (which define nf_wrap)."""
    return source[source.index('extern "C"'):]


def expected(a, lo, c):
    out = np.zeros_like(a)
    for i in range(a.size):
        if i >= lo:
            out[i] = a[i - c]  # Python's wrap where i - c < 0
    return out


def test_guarded_offsets_agree_with_python(tmp_path, on):
    mod = load_kernels(tmp_path, "guarded_kernels", guarded_source())
    a = np.arange(1.0, 11.0)
    for (op, k), c in itertools.product(GUARDS, OFFSETS):
        kern = getattr(mod, f"k_{'gt' if op == '>' else 'ge'}{k}_minus{c}")
        out = np.zeros_like(a)
        launch(kern, (1, 16), a, out)
        lo = k + 1 if op == ">" else k
        np.testing.assert_array_equal(out, expected(a, lo, c), err_msg=f"i {op} {k}, a[i - {c}]")
        wraps = "nf_wrap(" in kernel_body(kern.inspect_source(a, out))
        assert wraps == (lo < c), f"i {op} {k}, a[i - {c}]: wrap emitted {wraps}"


def test_a_reassigned_variable_keeps_its_wrap(tmp_path, on):
    mod = load_kernels(tmp_path, "reassigned_kernels", guarded_source())
    a = np.arange(1.0, 9.0)
    out = np.zeros_like(a)
    launch(mod.reassigned, (1, 16), a, out)
    want = np.zeros_like(a)
    for j in range(1, a.size):
        want[j] = a[j - 3 - 1]
    np.testing.assert_array_equal(out, want)
    assert "nf_wrap(" in kernel_body(mod.reassigned.inspect_source(a, out))


def test_constant_on_either_side(tmp_path, on):
    mod = load_kernels(tmp_path, "flipped_kernels", guarded_source())
    a = np.arange(1.0, 9.0)
    out = np.zeros_like(a)
    launch(mod.flipped, (1, 16), a, out)
    want = np.zeros_like(a)
    for i in range(2, a.size):
        want[i] = a[1 - i] + a[-2 + i]
    np.testing.assert_array_equal(out, want)
    assert kernel_body(mod.flipped.inspect_source(a, out)).count("nf_wrap(") == 1  # a[1 - i] only


def test_the_seed_smoothing_indexes_without_wraps():
    import sys
    import pathlib
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "examples"))
    try:
        import numba_smooth
    finally:
        sys.path.pop(0)
    a = np.zeros((64, 64), np.float32)
    src = numba_smooth.smooth.inspect_source(a, a.copy())
    body = kernel_body(src)
    assert "nf_wrap" not in body
    assert "(v_y - 1LL)" in body and "(v_x - 1LL)" in body
