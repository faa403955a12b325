"""The CUDA warm-up (backend/cuda/warmup.h): background threads start NVRTC (and build the
prelude's PCH where NUMFUSE_NVRTC_PCH=1) from the driver's initialisation on when the kernel cache holds no kernel yet (a
process served by the disk cache never loads NVRTC), and load cuSOLVER and cuBLAS with their
handles from the first context on. What must
hold: it happens as said (and not with NUMFUSE_CUDA_WARMUP=0), a process may exit or fork at once
after its first CUDA call without a crash or a hang, and linalg after it works. Each case is a
fresh process (the warm-up runs once per process). Skips without a GPU.
"""
import os
import subprocess
import sys
import textwrap

import pytest

import numfuse as nf

pytestmark = pytest.mark.skipif(not nf.cuda.is_available(), reason="no GPU")

PYTHONPATH = os.path.dirname(os.path.dirname(nf.__file__))


def run(code, **env):
    e = dict(os.environ, PYTHONPATH=PYTHONPATH, **env)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=e, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


MAPPED = """
import numfuse as nf
x = nf.asarray([1.0, 2.0], device="cuda")
nf.cuda._c._wait_warmup()
maps = open("/proc/self/maps").read()
print("cusolver" if "libcusolver" in maps else "-", "nvrtc" if "libnvrtc" in maps else "-")
"""


def test_first_context_loads_the_libraries_and_starts_nvrtc(tmp_path):
    assert run(MAPPED, NUMFUSE_CACHE_DIR=str(tmp_path)).split() == ["cusolver", "nvrtc"]


def test_a_cache_with_kernels_leaves_nvrtc_alone(tmp_path):
    (tmp_path / "0123.nfk").write_bytes(b"")  # any entry: this process may need no compile
    tmp_path.chmod(0o700)
    assert run(MAPPED, NUMFUSE_CACHE_DIR=str(tmp_path)).split() == ["cusolver", "-"]


def test_switched_off_nothing_is_loaded_ahead(tmp_path):
    out = run(MAPPED, NUMFUSE_CUDA_WARMUP="0", NUMFUSE_CACHE_DIR=str(tmp_path))
    assert out.split() == ["-", "-"]


@pytest.mark.parametrize("rep", range(3))
def test_exit_right_after_the_first_cuda_call(rep):
    # The interpreter ends while the warm-up may still be loading cuSOLVER: it waits for it.
    run('import numfuse as nf; nf.asarray([1.0], device="cuda")')


def test_fork_right_after_the_first_cuda_call():
    out = run("""
        import os, numfuse as nf
        nf.asarray([1.0], device="cuda")
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), nf.cuda._c._warmup_running())
    """)
    assert out.split() == ["7", "False"]


def test_linalg_while_and_after_the_warm_up():
    # The first cholesky and solve may meet the warm-up half done: the handle is made once.
    out = run("""
        import numpy as np, numfuse as nf
        a = np.random.default_rng(0).standard_normal((5, 5)); a = a @ a.T + 5 * np.eye(5)
        g = nf.asarray(a, device="cuda")
        l = nf.asnumpy(nf.linalg.cholesky(g))
        x = nf.asnumpy(nf.linalg.solve(g, nf.asarray(np.ones(5), device="cuda")))
        print(np.allclose(l, np.linalg.cholesky(a)), np.allclose(x, np.linalg.solve(a, np.ones(5))))
    """)
    assert out.split() == ["True", "True"]
