"""Whether kernels run on the CPU simulator: no GPU, NUMFUSE_DEVICE=cpu or NUMBA_ENABLE_CUDASIM=1
(read at each launch, so a test can switch)."""
import os

from .._core import cuda as _c


def simulating():
    """True when kernels run on the CPU simulator (no GPU, or NUMFUSE_DEVICE=cpu)."""
    if os.environ.get("NUMFUSE_DEVICE", "").lower() == "cpu" or \
            os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return True
    return not _c.is_available()
