# pocketfft, the C++ header-only FFT that NumPy 2 and SciPy use (BSD-3-Clause), for the CPU
# backend's FFT (backend/cpu/fft_cpu.cpp). Debian bookworm does not package it, and NumPy's and
# SciPy's sdists only yield it after a full meson build of the package; pythran's pure-Python
# wheel ships the header unchanged as pythran/pythonic/numpy/fft/pocketfft.hpp. So the build takes
# it from there: an installed pythran whose copy is the pinned one, else the pinned wheel through pip, and
# checks the header's SHA-256 either way (docs/decisions.md, "FFT on the CPU").
set(NUMFUSE_POCKETFFT_WHEEL "pythran==0.19.0")
set(NUMFUSE_POCKETFFT_SHA256 "9ed4da5afa1f7e3fc550324c2cc9353d373a23fda0975dac643fd26c4e311250")
# One copy for every build folder of the tree (dev, asan, device): build/ is not tracked, and a
# machine without PyPI (the GPU one) gets the header with the tree (the device tool's `carry`).
set(NUMFUSE_POCKETFFT_DIR ${CMAKE_SOURCE_DIR}/build/_deps/pocketfft)
set(_nf_pf_header ${NUMFUSE_POCKETFFT_DIR}/pocketfft_hdronly.h)

function(_nf_pf_checked path out_ok)
  set(${out_ok} FALSE PARENT_SCOPE)
  if(EXISTS ${path})
    file(SHA256 ${path} _sum)
    if(_sum STREQUAL NUMFUSE_POCKETFFT_SHA256)
      set(${out_ok} TRUE PARENT_SCOPE)
    endif()
  endif()
endfunction()

_nf_pf_checked(${_nf_pf_header} _nf_pf_ok)
if(NOT _nf_pf_ok)
  # The wheel's header file, from an installed pythran (found without importing it) or else a
  # downloaded wheel, copied to _deps; anything else ends the configuration with the reason.
  set(_nf_pf_script [=[
import hashlib, importlib.util, pathlib, subprocess, sys, tempfile, zipfile
dest, wheel, sha = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
member = "pythran/pythonic/numpy/fft/pocketfft.hpp"
spec = importlib.util.find_spec("pythran")
if spec and spec.submodule_search_locations:
    src = pathlib.Path(list(spec.submodule_search_locations)[0]) / "pythonic/numpy/fft/pocketfft.hpp"
    if src.is_file() and hashlib.sha256(src.read_bytes()).hexdigest() == sha:
        dest.write_bytes(src.read_bytes()); sys.exit(0)
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                    "--only-binary=:all:", "--disable-pip-version-check", wheel, "-d", tmp],
                   check=True)
    whl = next(pathlib.Path(tmp).glob("pythran-*.whl"))
    with zipfile.ZipFile(whl) as z:
        dest.write_bytes(z.read(member))
]=])
  file(MAKE_DIRECTORY ${NUMFUSE_POCKETFFT_DIR})
  execute_process(COMMAND ${Python_EXECUTABLE} -c "${_nf_pf_script}" ${_nf_pf_header}
                          ${NUMFUSE_POCKETFFT_WHEEL} ${NUMFUSE_POCKETFFT_SHA256}
                  RESULT_VARIABLE _nf_pf_rc)
  _nf_pf_checked(${_nf_pf_header} _nf_pf_ok)
  if(NOT _nf_pf_ok)
    message(FATAL_ERROR "pocketfft: could not obtain pocketfft.hpp from ${NUMFUSE_POCKETFFT_WHEEL} "
                        "(pip exit ${_nf_pf_rc}) with SHA-256 ${NUMFUSE_POCKETFFT_SHA256}")
  endif()
endif()
# SYSTEM: the library's own warnings are not ours to fix (CI builds with -Werror).
target_include_directories(numfuse_core SYSTEM PRIVATE ${NUMFUSE_POCKETFFT_DIR})
