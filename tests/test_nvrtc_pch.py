"""NVRTC's precompiled header of the kernel prelude (nvrtc.cpp, NUMFUSE_NVRTC_PCH=1): a source made
of the prelude and a body compiles as an include of an in-memory header with `-pch`, once the PCH
is built (on a
background thread started by the first such compile). What it must not change: the
cubin (byte for byte), which sources take that route, and compile errors (the log and the numbered
source shown are the source's own). Runs wherever NVRTC is installed (no GPU needed).
"""
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import numfuse as nf
from numfuse.cuda import CompileError

_c = nf.cuda._c
pytestmark = pytest.mark.skipif(not _c.nvrtc_available(), reason="NVRTC not found")

OPTIONS = ["-std=c++17", "--fmad=false"]  # those of numfuse's generated kernels
SELECT = "#define NF_ONE_KERNEL\n#define NF_KERNEL_nf_fused\n"  # launch.cpp's kernel_selection


def fused_source(operation="z = x * y + 1", dtype=np.float32):
    """A generated kernel's whole source: the prelude, then the body."""
    k = nf.ElementwiseKernel("T x, T y", "T z", operation, "pch_checked")
    return k._cuda_source(nf.zeros(5, dtype), nf.zeros(5, dtype))


def cubin(source, name="nf_fused"):
    return _c.compile_to_cubin(source, name, "sm_90", OPTIONS)


@pytest.fixture(autouse=True, scope="module")
def pch_built():
    """The PCH on (NUMFUSE_NVRTC_PCH=1's setting; off by default): the first compile that could
    use it starts building it in the background; after it (and the wait), every compile of these
    tests takes the split route, unless NVRTC is older than 12.8. Off again after."""
    _c._set_nvrtc_pch(True)
    cubin(fused_source())
    _c._wait_warmup()
    info = _c.nvrtc_info()
    if tuple(map(int, info["version"].split("."))) >= (12, 8):
        assert _c._nvrtc_pch_ready()
    yield
    _c._set_nvrtc_pch(False)


CASES = [(np.float32, "z = x * y + x / (y + 1)"), (np.float64, "z = x - y * 3"),
         (np.complex64, "z = x * y + x"), (np.int16, "z = x / (y | 1)")]


def test_same_cubin_with_the_precompiled_header_switched_off():
    # Byte for byte: the split route (an in-memory header, `-pch`) against the whole source
    # (NUMFUSE_NVRTC_PCH=0, the default, in a child process), with and without the
    # kernel-selection lines before the prelude.
    sources = [sel + fused_source(op, dt) for dt, op in CASES for sel in ("", SELECT)]
    code = ("import hashlib, json, sys; import numfuse as nf; "
            "print(json.dumps([hashlib.sha256(nf.cuda._c.compile_to_cubin(s, 'nf_fused', 'sm_90', "
            f"{OPTIONS!r})).hexdigest() for s in json.load(sys.stdin)]))")
    env = dict(os.environ, NUMFUSE_NVRTC_PCH="0",
               PYTHONPATH=os.path.dirname(os.path.dirname(nf.__file__)))
    r = subprocess.run([sys.executable, "-c", code], input=json.dumps(sources), env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    whole = json.loads(r.stdout)
    split = [cubin(s) for s in sources]
    assert all(c[:4] == b"\x7fELF" for c in split)
    assert [hashlib.sha256(c).hexdigest() for c in split] == whole


def test_error_in_a_split_source_numbers_the_source_as_given():
    src = SELECT + fused_source()
    bad = 'extern "C" __global__ void nf_bad(int* p) { p[0] = undeclared_name_q; }\n'
    full = src + bad
    line = full.count("\n")  # the bad line is the last one
    with pytest.raises(CompileError) as e:
        cubin(full, "nf_bad")
    msg = str(e.value)
    assert "undeclared_name_q" in msg.split("\nsource:\n")[0]  # NVRTC's log names it
    assert f"{line:4d} | {bad.rstrip()}" in msg
    assert "nf_prelude.h" not in msg and "-pch" not in msg


def test_prelude_later_in_the_source_is_compiled_whole():
    # Only kernel-selection lines may come before the prelude: other text (a user's module that
    # pastes the prelude after its own code) is compiled as given, and still compiles.
    src = fused_source()
    user = "// a user's module\n#define USER_SCALE 2\n" + src
    assert cubin(user) == cubin("\n" + user)


def test_an_error_in_the_kernel_keeps_the_pch():
    with pytest.raises(CompileError):
        cubin(SELECT + fused_source() + "nf_not_a_declaration;\n")
    if _c.nvrtc_info()["version"] >= "12.8":
        assert _c._nvrtc_pch_ready()


def test_forked_child_compiles_whole_and_gets_the_same_cubin():
    # NVRTC's PCH is a file of the parent's: a forked child leaves it (and must still compile).
    src = SELECT + fused_source("z = x * 2 - y", np.float32)
    want = hashlib.sha256(cubin(src)).hexdigest()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, never return into pytest
        code = 1
        try:
            ok = hashlib.sha256(cubin(src)).hexdigest() == want and not _c._nvrtc_pch_ready()
            os.write(w, b"ok" if ok else b"differs")
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    _, status = os.waitpid(pid, 0)
    assert os.read(r, 16) == b"ok" and os.waitstatus_to_exitcode(status) == 0
    os.close(r)
