"""Allocation failures raise NumPy's MemoryError text, never std::bad_alloc (issue 10): at the call
when the size can never fit (tests/test_sizes.py), and at evaluation when memory runs out then,
leaving the pending graph as it was so that a later evaluation succeeds. (Not run under
`make test-sanitize`: ASan reserves terabytes of shadow memory, so RLIMIT_AS cannot be lowered.)

The failure at evaluation is provoked in a child process by lowering its address-space limit
(RLIMIT_AS) between building a pending array and reading it."""
import os
import subprocess
import sys

CHILD = r"""
import resource, sys
import numpy, numfuse
from numpy._core._exceptions import _ArrayMemoryError

n = 2**27                                    # 1 GiB of float64
x = numfuse.ones(n) * 2.0                    # pending: nothing allocated yet
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + 2**28, hard))
want = str(_ArrayMemoryError((n,), numpy.dtype(numpy.float64)))
# At evaluation: NumPy's text, and x stays pending.
try:
    numfuse.eval(x)
except MemoryError as e:
    assert str(e) == want, (str(e), want)
else:
    raise AssertionError("no MemoryError at evaluation")
assert x._pending
try:
    float(x.sum())
except MemoryError as e:
    assert "Unable to allocate" in str(e) and "bad_alloc" not in str(e), str(e)
else:
    raise AssertionError("no MemoryError at the read")
assert x._pending
# At the call: the lowered limit is known before anything is allocated.
try:
    numfuse.zeros((n, 2))
except MemoryError as e:
    assert str(e) == str(_ArrayMemoryError((n, 2), numpy.dtype(numpy.float64))), str(e)
else:
    raise AssertionError("no MemoryError at the call")
# Memory back: the same pending array evaluates, with the right values.
resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
assert float(x.sum()) == 2.0 * n
assert float(x[12345]) == 2.0
print("ok")
"""


def test_memory_error_at_evaluation_keeps_the_graph():
    # The child's address-space limit is for host memory: its arrays live on the CPU (a CUDA
    # context cannot even start under it).
    env = dict(os.environ, NUMFUSE_HOST_CACHE_BYTES="0", NUMFUSE_DEVICE="cpu")
    r = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
