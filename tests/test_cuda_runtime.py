"""numfuse.cuda's runtime layer: on any machine (no GPU: import works, is_available() is False and
device calls raise CUDAError saying why; NVRTC compiles where it is installed), and on a GPU:
device properties, streams and events, memory, kernels through NVRTC and the disk cache, OOM.
"""
import os
import struct
import subprocess
import sys
import textwrap
import uuid

import pytest

import numfuse
import numfuse.cuda as cuda

_c = cuda._c
GPU = cuda.is_available()
needs_gpu = pytest.mark.skipif(not GPU, reason=f"no GPU: {_c.unavailable_reason()}")
needs_nvrtc = pytest.mark.skipif(not _c.nvrtc_available(), reason="NVRTC not found")

PYTHONPATH = os.path.dirname(os.path.dirname(numfuse.__file__))


def run_python(code, **env):
    e = dict(os.environ, PYTHONPATH=PYTHONPATH, **env)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=e, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout, r.stderr


# ---- everywhere -------------------------------------------------------------------------------

def test_exception_classes():
    assert issubclass(cuda.OutOfMemoryError, MemoryError)
    assert issubclass(cuda.OutOfMemoryError, cuda.CUDAError)
    assert issubclass(cuda.CompileError, cuda.CUDAError)
    assert issubclass(cuda.CUDAError, RuntimeError)
    assert cuda.OutOfMemoryError.__module__ == "numfuse.cuda"
    assert numfuse.cuda is cuda


def test_null_stream_needs_no_device():
    assert cuda.Stream.null.ptr == 0
    assert cuda.Stream.null == cuda.Stream.null


@pytest.mark.skipif(GPU, reason="checks the behaviour without a GPU")
@pytest.mark.parametrize("call", [
    lambda: cuda.runtime.getDeviceCount(),
    lambda: cuda.runtime.getDeviceProperties(0),
    lambda: cuda.Stream(),
    lambda: cuda.Stream(non_blocking=True),
    lambda: cuda.Event(),
    lambda: cuda.synchronize(),
    lambda: cuda.memory_info(),
    lambda: cuda.free_cache(),
    lambda: cuda.Device(0).__enter__(),
    lambda: cuda.Device(0).mem_info,
    lambda: cuda.Device(0).compute_capability,
    lambda: cuda.Device(0).synchronize(),
    lambda: _c.DeviceMemory(16),
], ids=["getDeviceCount", "getDeviceProperties", "Stream", "Stream-nb", "Event", "synchronize",
        "memory_info", "free_cache", "Device-enter", "mem_info", "compute_capability",
        "Device-sync", "DeviceMemory"])
def test_without_gpu_calls_raise_cuda_error(call):
    assert not cuda.is_available()
    reason = _c.unavailable_reason()
    assert reason
    with pytest.raises(cuda.CUDAError, match="CUDA is not available|invalid CUDA device") as e:
        call()
    assert reason in str(e.value) or "invalid CUDA device" in str(e.value)


def test_memory_limit_setting():
    old = cuda.get_memory_limit()
    try:
        cuda.set_memory_limit("1.5G")
        assert cuda.get_memory_limit() == 3 << 29
        cuda.set_memory_limit(4096)
        assert cuda.get_memory_limit() == 4096
        cuda.set_memory_limit(None)
        assert cuda.get_memory_limit() == 0
        with pytest.raises(ValueError):
            cuda.set_memory_limit(-1)
        with pytest.raises(ValueError, match="12Q"):
            cuda.set_memory_limit("12Q")
    finally:
        cuda.set_memory_limit(old)


def test_memory_limit_from_environment():
    out, _ = run_python("import numfuse.cuda as c; print(c.get_memory_limit())",
                        NUMFUSE_GPU_MEMORY_LIMIT="512M")
    assert int(out) == 512 << 20


@needs_nvrtc
def test_nvrtc_compiles_without_gpu():
    cubin = _c.compile_to_cubin('extern "C" __global__ void k(int* x) { x[0] = 1; }', "k", "sm_90")
    assert cubin[:4] == b"\x7fELF"
    info = _c.nvrtc_info()
    assert info["version"] and 90 in info["archs"]


@needs_nvrtc
def test_compile_error_shows_log_and_source():
    src = 'extern "C" __global__ void k(int* x) {\n  x[0] = not_declared;\n}\n'
    with pytest.raises(cuda.CompileError) as e:
        _c.compile_to_cubin(src, "k", "sm_90")
    msg = str(e.value)
    assert "not_declared" in msg
    assert "   2 |   x[0] = not_declared;" in msg


# ---- on a GPU ---------------------------------------------------------------------------------

@needs_gpu
def test_device_properties():
    n = cuda.runtime.getDeviceCount()
    assert n >= 1
    p = cuda.runtime.getDeviceProperties(0)
    assert isinstance(p["name"], bytes) and p["name"]
    for key in ("totalGlobalMem", "multiProcessorCount", "major", "minor", "maxThreadsPerBlock",
                "warpSize", "sharedMemPerBlock", "l2CacheSize", "clockRate", "maxThreadsDim"):
        assert key in p
    assert p["warpSize"] == 32 and p["multiProcessorCount"] > 0
    d = cuda.Device(0)
    assert d.compute_capability == f"{p['major']}{p['minor']}"
    free, total = d.mem_info
    assert 0 < free <= total == p["totalGlobalMem"]
    with cuda.Device(0) as dev:
        assert cuda.get_device_id() == 0
        dev.synchronize()
    with pytest.raises(cuda.CUDAError, match="invalid CUDA device"):
        cuda.runtime.getDeviceProperties(n)
    with pytest.raises(cuda.CUDAError):
        with cuda.Device(n):
            pass
    assert cuda.get_device_id() == 0


SPIN_SRC = r"""
extern "C" __global__ void spin_then_set(float* x, float v, long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) { }
  x[0] = v;
}
extern "C" __global__ void twice(const float* x, float* y) { y[0] = 2.0f * x[0]; }
"""


def f32(mem):
    return struct.unpack("f", mem.copy_to_host()[:4])[0]


@needs_gpu
def test_streams_and_events_order_work():
    s1 = cuda.Stream(non_blocking=True)
    s2 = cuda.Stream(non_blocking=True)
    with s1:
        assert cuda.get_current_stream() == s1
        x = _c.DeviceMemory(4)
        y = _c.DeviceMemory(4)
        x.copy_from_host(struct.pack("f", 0.0))
    assert cuda.get_current_stream() == cuda.Stream.null
    # Compile and load both kernels first: compiling while the spin runs would hide the overlap.
    _c.launch(SPIN_SRC, "spin_then_set", (1, 1, 1), (1, 1, 1), [x, ("f32", 0.0), ("i64", 0)],
              stream=s1._s)
    _c.launch(SPIN_SRC, "twice", (1, 1, 1), (1, 1, 1), [x, y], stream=s1._s)
    s1.synchronize()
    start, done = cuda.Event(), cuda.Event()
    start.record(s1)
    # ~50 ms of spinning on s1, then x = 3; s2 waits for it through an event, then y = 2x.
    _c.launch(SPIN_SRC, "spin_then_set", (1, 1, 1), (1, 1, 1),
              [x, ("f32", 3.0), ("i64", 200_000_000)], stream=s1._s)
    done.record(s1)
    s2.wait_event(done)
    _c.launch(SPIN_SRC, "twice", (1, 1, 1), (1, 1, 1), [x, y], stream=s2._s)
    assert not done.done  # still spinning
    s2.synchronize()
    assert s2.done and done.done
    assert f32(y) == 6.0
    ms = cuda.get_elapsed_time(start, done)
    assert ms == start.elapsed_time(done) and ms > 1.0
    cuda.synchronize()


@needs_gpu
def test_memory_info_and_free_cache():
    cuda.synchronize()
    before = cuda.memory_info()
    m = _c.DeviceMemory(8 << 20)
    info = cuda.memory_info()
    assert info["used"] == before["used"] + (8 << 20)
    assert info["reserved"] >= 8 << 20
    assert 0 < info["device_free"] <= info["device_total"]
    del m
    cuda.synchronize()
    assert cuda.memory_info()["used"] == before["used"]
    cuda.free_cache()
    assert cuda.memory_info()["reserved"] <= info["reserved"]


@needs_gpu
def test_kernel_through_nvrtc_and_cache():
    src = 'extern "C" __global__ void axpb(float* x, float a, float b) { x[0] = a * x[0] + b; }\n'
    src += f"// {uuid.uuid4()}\n"  # new to the disk cache too
    m = _c.DeviceMemory(4)
    m.copy_from_host(struct.pack("f", 2.0))
    s0 = cuda.kernel_cache_stats()
    _c.launch(src, "axpb", (1, 1, 1), (1, 1, 1), [m, ("f32", 3.0), ("f32", 1.0)])
    assert f32(m) == 7.0
    s1 = cuda.kernel_cache_stats()
    assert s1["compilations"] == s0["compilations"] + 1
    _c.launch(src, "axpb", (1, 1, 1), (1, 1, 1), [m, ("f32", 1.0), ("f32", 1.0)])
    assert f32(m) == 8.0
    s2 = cuda.kernel_cache_stats()
    assert s2["compilations"] == s1["compilations"] and s2["memory_hits"] == s1["memory_hits"] + 1


DISK_SCRIPT = """
import struct, numfuse.cuda as c
src = 'extern "C" __global__ void inc(float* x) { x[0] += 1.0f; }\\n// {tag}\\n'
m = c._c.DeviceMemory(4)
m.copy_from_host(struct.pack("f", 41.0))
c._c.launch(src, "inc", (1, 1, 1), (1, 1, 1), [m])
s = c.kernel_cache_stats()
print(struct.unpack("f", m.copy_to_host())[0], s["compilations"], s["disk_hits"], s["corrupt"])
print(c._c.kernel_cache_dir())
"""


@needs_gpu
def test_disk_cache_across_processes(tmp_path):
    cache = tmp_path / "kc"
    script = DISK_SCRIPT.replace("{tag}", str(uuid.uuid4()))
    out1, _ = run_python(script, NUMFUSE_CACHE_DIR=str(cache))
    assert out1.split()[:4] == ["42.0", "1", "0", "0"]
    assert out1.splitlines()[1] == str(cache)
    assert (cache.stat().st_mode & 0o777) == 0o700
    files = list(cache.glob("*.nfk"))
    assert len(files) == 1 and (files[0].stat().st_mode & 0o777) == 0o600
    out2, _ = run_python(script, NUMFUSE_CACHE_DIR=str(cache))
    assert out2.split()[:4] == ["42.0", "0", "1", "0"]
    # A damaged entry is found out and rebuilt.
    data = bytearray(files[0].read_bytes())
    data[-10] ^= 0xFF
    files[0].write_bytes(bytes(data))
    out3, err3 = run_python(script, NUMFUSE_CACHE_DIR=str(cache))
    assert out3.split()[:4] == ["42.0", "1", "0", "1"]
    assert "rebuilding" in err3
    out4, _ = run_python(script, NUMFUSE_CACHE_DIR=str(cache))
    assert out4.split()[:4] == ["42.0", "0", "1", "0"]
    # A directory others can write to is refused: memory only, with a warning.
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    out5, err5 = run_python(script, NUMFUSE_CACHE_DIR=str(open_dir))
    assert out5.split()[:4] == ["42.0", "1", "0", "0"]
    assert "writable by group or others" in err5
    assert list(open_dir.iterdir()) == []


@needs_gpu
def test_out_of_memory_then_keeps_working():
    keep = _c.DeviceMemory(4)
    keep.copy_from_host(struct.pack("f", 5.0))
    with pytest.raises(cuda.OutOfMemoryError) as e:
        _c.DeviceMemory(10 * 10**12)
    assert isinstance(e.value, MemoryError)
    assert "10000000000000 bytes" in str(e.value)
    assert "free on the device" in str(e.value)
    small = _c.DeviceMemory(1 << 20)
    assert small.nbytes == 1 << 20
    assert f32(keep) == 5.0
    old = cuda.get_memory_limit()
    try:
        cuda.set_memory_limit(cuda.memory_info()["used"] + (1 << 20))
        with pytest.raises(cuda.OutOfMemoryError, match="limit"):
            _c.DeviceMemory(2 << 20)
    finally:
        cuda.set_memory_limit(old)
    _c.DeviceMemory(2 << 20)


STUB = "/usr/local/cuda/lib64/stubs/libcuda.so"


@pytest.mark.skipif(not os.path.exists(STUB), reason="no CUDA toolkit stub libcuda here")
def test_driver_whose_cuinit_fails(tmp_path):
    # The toolkit's stub libcuda has every symbol and fails cuInit: the state of a machine with a
    # driver library and no usable GPU. import must work and say why, without hanging.
    import shutil
    shutil.copy(STUB, tmp_path / "libcuda.so.1")
    out, _ = run_python("""
        import numfuse.cuda as c
        print(c.is_available())
        print(c._c.unavailable_reason())
        try:
            c.Stream()
        except c.CUDAError as e:
            print("raised", e)
    """, LD_LIBRARY_PATH=f"{tmp_path}:{os.environ.get('LD_LIBRARY_PATH', '')}")
    lines = out.splitlines()
    assert lines[0] == "False"
    # The stub cannot name its own error: CUDA_ERROR_STUB_LIBRARY is 34.
    assert "cuInit failed" in lines[1] and ("STUB" in lines[1] or "34" in lines[1]), lines[1]
    assert lines[2].startswith("raised CUDA is not available: cuInit failed")
