# numfuse: `make demo` and `make test` do all set-up themselves on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD := build/dev
JOBS ?= $(shell nproc)

.PHONY: all venv build test test-cpp test-py demo bench clean

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

test-cpp: build
	$(BUILD)/numfuse_cpp_tests --gtest_brief=1

test-py: build
	PYTHONPATH=python $(PY) -m pytest tests -q -p no:cacheprovider $(PYTEST_ARGS)

test: test-cpp test-py

demo: build
	PYTHONPATH=python $(PY) examples/demo.py

bench: build
	PYTHONPATH=python $(PY) bench/run_cpu.py

clean:
	rm -rf build python/numfuse/_core*.so
