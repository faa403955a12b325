"""The first launch of a kernel the disk cache holds (issue 14: <= 5 ms): a @cuda.jit kernel's
translation is read back from the disk instead of being redone, keyed by everything the
translation reads (a changed global, device function or argument type is translated anew), and
a compiled kernel found on disk is loaded without loading NVRTC (the stamp of compiler_stamp.h).
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import numfuse
from numfuse import cuda
from numfuse.cuda import _dispatcher
from numfuse.cuda import _translation_cache as tc
from numfuse.cuda._translate import translate_kernel

from jit_helpers import launch, needs_nvrtc, use_device

SCALE = 3
OFFSETS = (1, 2)


class Settings:
    """A namespace of constants: its attributes may change without the class changing."""
    gain = 4


@cuda.jit(device=True)
def _twice(x):
    return x * SCALE


@cuda.jit
def _scaled(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * SCALE + OFFSETS[1]


@cuda.jit
def _calls_device(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = _twice(a[i]) + math_pi_floor


math_pi_floor = 3


@cuda.jit
def _reads_a_class(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = Settings.gain


@pytest.fixture
def cache_dir(tmp_path):
    """The process kernel cache (and so the translation cache) in a fresh directory."""
    before = cuda._c.kernel_cache_dir()
    cuda._c.set_kernel_cache_dir(str(tmp_path))
    yield tmp_path
    cuda._c.set_kernel_cache_dir(before)


@pytest.fixture
def count_translations(monkeypatch):
    calls = []

    def counting(pyfunc, types, options=()):
        calls.append(pyfunc.__name__)
        return translate_kernel(pyfunc, types, options)
    monkeypatch.setattr(_dispatcher, "translate_kernel", counting)
    return calls


def fresh(kernel):
    """A new dispatcher of the same function: nothing in its memory."""
    return cuda.jit(kernel.py_func)


def test_a_new_dispatcher_reads_the_translation_from_disk(cache_dir, count_translations):
    a = np.arange(8.0)
    first = fresh(_scaled).inspect_source(a)
    assert count_translations == ["_scaled"]
    assert len(list(cache_dir.glob("jit-*.nft"))) == 1
    again = fresh(_scaled).inspect_source(a)
    assert count_translations == ["_scaled"]  # not translated again
    assert again == first == translate_kernel(_scaled.py_func, list(_scaled._types((a,))))[0]


def test_other_argument_types_are_other_entries(cache_dir, count_translations):
    k = fresh(_scaled)
    src64 = k.inspect_source(np.arange(8.0))
    src32 = fresh(_scaled).inspect_source(np.arange(8, dtype=np.float32))
    assert src64 != src32 and "float" in src32
    assert len(count_translations) == 2
    assert len(list(cache_dir.glob("jit-*.nft"))) == 2


def test_a_changed_global_is_translated_anew(cache_dir, count_translations, monkeypatch):
    a = np.arange(8.0)
    before = fresh(_scaled).inspect_source(a)
    monkeypatch.setitem(globals(), "SCALE", 5)
    after = fresh(_scaled).inspect_source(a)
    assert len(count_translations) == 2
    assert after != before
    monkeypatch.setitem(globals(), "OFFSETS", (1, 7))
    fresh(_scaled).inspect_source(a)
    assert len(count_translations) == 3


def test_a_changed_global_of_a_device_function_is_translated_anew(cache_dir, count_translations,
                                                                  monkeypatch, device):
    use_device(device, monkeypatch)
    a = np.arange(6.0)
    want = a.copy()
    launch(fresh(_calls_device), (1, 8), a)
    np.testing.assert_array_equal(a, want * 3 + 3)
    monkeypatch.setitem(globals(), "SCALE", 10)  # read by _twice, not by the kernel itself
    b = want.copy()
    launch(fresh(_calls_device), (1, 8), b)
    np.testing.assert_array_equal(b, want * 10 + 3)
    assert len(count_translations) == 2


def test_kernels_reading_objects_of_the_user_are_not_cached(cache_dir, count_translations,
                                                            monkeypatch):
    a = np.arange(4.0)
    assert "4" in fresh(_reads_a_class).inspect_source(a)
    monkeypatch.setattr(Settings, "gain", 9)
    assert "9" in fresh(_reads_a_class).inspect_source(a)
    assert len(count_translations) == 2
    assert list(cache_dir.glob("jit-*.nft")) == []
    assert tc.key(_reads_a_class.py_func, _reads_a_class._types((a,)), ()) is None


def test_a_damaged_entry_is_translated_again_and_rewritten(cache_dir, count_translations):
    a = np.arange(8.0)
    good = fresh(_scaled).inspect_source(a)
    (entry,) = cache_dir.glob("jit-*.nft")
    data = bytearray(entry.read_bytes())
    data[-3] ^= 0x20
    entry.write_bytes(bytes(data))
    assert fresh(_scaled).inspect_source(a) == good
    assert len(count_translations) == 2
    assert fresh(_scaled).inspect_source(a) == good  # the rewritten entry is read
    assert len(count_translations) == 2
    assert (entry.stat().st_mode & 0o777) == 0o600


def test_results_from_a_cached_translation(cache_dir, monkeypatch, device):
    use_device(device, monkeypatch)
    a = np.arange(10.0)
    launch(fresh(_scaled), (2, 8), a)
    b = np.arange(10.0)
    launch(fresh(_scaled), (2, 8), b)  # from the disk
    np.testing.assert_array_equal(a, np.arange(10.0) * 3 + 2)
    np.testing.assert_array_equal(b, a)


def test_fingerprints_of_values():
    seen = frozenset()
    assert tc._value_print(1, seen) != tc._value_print(True, seen)
    assert tc._value_print(1.0, seen) != tc._value_print(1, seen)
    assert tc._value_print(np.float32(1), seen) != tc._value_print(np.float64(1), seen)
    assert tc._value_print((1, 2), seen) != tc._value_print((1, 3), seen)
    assert tc._value_print(np.float32, seen) == "object:numpy.float32"
    assert tc._value_print(cuda.threadIdx, seen) == "cuda:threadIdx"
    assert tc._value_print(np, seen) == "module:numpy"
    assert tc._value_print(os, seen) is None  # a module whose attributes may change
    assert tc._value_print(np.zeros(2), seen) is None
    assert tc._value_print(object(), seen) is None
    assert tc._value_print((1, np.zeros(2)), seen) is None


FIRST_LAUNCH = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from numfuse import cuda
from numfuse.cuda import _dispatcher
import first_kernel
translations = []
real = _dispatcher.translate_kernel
_dispatcher.translate_kernel = lambda *a: translations.append(1) or real(*a)
a = np.arange(16, dtype=np.float32)
first_kernel.k[2, 8](a)
src, name = first_kernel.k._translate(first_kernel.k._types((a,)))
from numfuse._core import kernels
kernels.Module(src, [name], []).compile()  # the compiled kernel: from the disk on the second run
s = cuda.kernel_cache_stats()
nvrtc = any("libnvrtc" in line for line in open("/proc/self/maps"))
print(float(a[3]), len(translations), s["compilations"], s["disk_hits"], nvrtc)
"""


@needs_nvrtc
def test_a_new_process_finds_translation_and_kernel_without_nvrtc(tmp_path):
    (tmp_path / "first_kernel.py").write_text(textwrap.dedent("""
        from numfuse import cuda

        @cuda.jit
        def k(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = a[i] * 2 + 1
    """))
    script = tmp_path / "first_launch.py"
    script.write_text(FIRST_LAUNCH)
    env = dict(os.environ, NUMFUSE_CACHE_DIR=str(tmp_path / "cache"), NUMFUSE_DEVICE="cpu",
               PYTHONPATH=os.path.dirname(os.path.dirname(numfuse.__file__)))

    def run():
        r = subprocess.run([sys.executable, str(script), str(tmp_path)], env=env,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout.split()

    assert run() == ["7.0", "1", "1", "0", "True"]  # translated, compiled (NVRTC loaded)
    assert list((tmp_path / "cache").glob("nvrtc-*.stamp"))
    assert run() == ["7.0", "0", "0", "1", "False"]  # neither translated nor NVRTC loaded
    # A stamp that no longer describes the library is not trusted: NVRTC is loaded to learn its
    # version, and the compiled kernel is still found (the key did not change).
    (stamp,) = (tmp_path / "cache").glob("nvrtc-*.stamp")
    lines = stamp.read_text().splitlines()
    lines[3] = "0 0 0 0.0"
    stamp.write_text("\n".join(lines) + "\n")
    assert run() == ["7.0", "0", "0", "1", "True"]
    assert run() == ["7.0", "0", "0", "1", "False"]  # the stamp was rewritten
