"""Helpers of the numfuse.cuda.jit tests: run a kernel on the `device` fixture's device (the
simulator for 'cpu', the GPU for 'cuda') and compile its translation with NVRTC (no GPU needed)."""
import numpy as np
import pytest

from numfuse import cuda


def use_device(device, monkeypatch):
    """'cpu' runs kernels on the simulator even where a GPU is present."""
    if device == "cpu":
        monkeypatch.setenv("NUMFUSE_DEVICE", "cpu")
    else:
        from numfuse.cuda import _dispatcher
        if _dispatcher._kernels is None:
            pytest.skip("the GPU launch path numfuse._kernels.launch (RawKernel's, branch "
                        "h/rawkernels) is not in this build")
        monkeypatch.delenv("NUMFUSE_DEVICE", raising=False)
        monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)


def assert_compiles(kernel, *args, arch="sm_90"):
    """The kernel's CUDA C++ for these arguments compiles under NVRTC; returns the source."""
    source, name = kernel._translate(kernel._types(args))
    if cuda.nvrtc_available():
        cubin = cuda._c.compile_to_cubin(source, name, arch, list(kernel.options))
        assert cubin[:4] == b"\x7fELF"
    return source


def launch(kernel, config, *args):
    """Runs kernel[config](args) on NumPy arrays (copied to the device and back) and checks that
    its translation compiles."""
    assert_compiles(kernel, *args)
    kernel[config](*args)
    return args


def host(a):
    return a if isinstance(a, np.ndarray) else a.copy_to_host()


needs_nvrtc = pytest.mark.skipif(not cuda.nvrtc_available(), reason="NVRTC not found")
