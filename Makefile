# numfuse: `make demo` and `make test` do all set-up themselves on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD := build/dev
JOBS ?= $(shell nproc)

.PHONY: all venv build test test-cpp test-py demo bench clean build-sanitize test-sanitize check-includes

all: build

$(VENV)/.stamp: requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

venv: $(VENV)/.stamp

# Development build: the extension lands in python/numfuse so tests run from the tree.
build: venv
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(abspath $(PY)) \
	  -DNUMFUSE_BUILD_TESTS=ON $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	cp -f $(BUILD)/_core*.so python/numfuse/
	if [ -f $(BUILD)/libnumfuse_cub.so ]; then cp -f $(BUILD)/libnumfuse_cub.so python/numfuse/; fi

test-cpp: build
	$(BUILD)/numfuse_cpp_tests --gtest_brief=1

test-py: build
	PYTHONPATH=python $(PY) -m pytest tests -q -p no:cacheprovider $(PYTEST_ARGS)

# The include rule of docs/architecture.md (which layer may include which): fails naming file:line.
check-includes:
	$(PYTHON) tools/check-includes

test: check-includes test-cpp test-py test-sanitize

# ---- ASan + UBSan: the C++ tests and the Python files most likely to touch memory wrongly ------
# A separate build (build/asan; CMakeLists.txt says which sources are instrumented) whose extension is imported from build/asan/py, so the
# development build is untouched. The interpreter is not instrumented: libasan is preloaded.
SAN_BUILD := build/asan
SANITIZE ?= address,undefined
SANITIZE_PYTESTS ?= tests/test_indexing.py tests/test_shape.py tests/test_lazy.py \
  tests/test_sizes.py tests/test_reduction_edges.py tests/test_sort.py tests/test_sets.py \
  tests/test_numerical.py tests/test_construction.py tests/test_ndarray_members.py \
  tests/test_memmap.py \
  $(wildcard tests/test_*fuzz*.py)
# allocator_may_return_null: the size tests ask NumPy for impossible arrays, which must give
# MemoryError, not an ASan abort. libstdc++ is preloaded with libasan: the interpreter does not
# link it, and ASan's __cxa_throw interceptor must find it at start-up.
SAN_ENV := ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=$(abspath tools/ubsan.supp) \
  ASAN_SYMBOLIZER_PATH=$$(command -v llvm-symbolizer || true) NUMFUSE_SANITIZED=1

build-sanitize: venv
	cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DPython_EXECUTABLE=$(abspath $(PY)) -DNUMFUSE_BUILD_TESTS=ON -DNUMFUSE_SANITIZE=$(SANITIZE) \
	  $(CMAKE_ARGS) >/dev/null
	cmake --build $(SAN_BUILD) -j $(JOBS)
	rm -rf $(SAN_BUILD)/py && mkdir -p $(SAN_BUILD)/py && cp -r python/numfuse $(SAN_BUILD)/py/
	rm -f $(SAN_BUILD)/py/numfuse/_core*.so && cp $(SAN_BUILD)/_core*.so $(SAN_BUILD)/py/numfuse/

test-sanitize: SHELL := /bin/bash
test-sanitize: build-sanitize
	$(SAN_ENV) $(SAN_BUILD)/numfuse_cpp_tests --gtest_brief=1
	set -o pipefail; $(SAN_ENV) LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libstdc++.so)" \
	  PYTHONPATH=$(SAN_BUILD)/py $(PY) -m pytest $(SANITIZE_PYTESTS) -q -p no:cacheprovider --capture=sys \
	  $(PYTEST_ARGS) 2>&1 | grep -v "WARNING: AddressSanitizer failed to allocate"

demo: build
	PYTHONPATH=python $(PY) examples/demo.py

bench: build
	PYTHONPATH=python $(PY) bench/run_cpu.py

clean:
	rm -rf build python/numfuse/_core*.so
