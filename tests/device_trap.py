"""A machine without a GPU standing in for one with a GPU, for the device rule of numfuse (NumPy's
rule for it: a function of arrays on device D creates its temporaries and result on D).

On a GPU machine the default device is cuda:0, so a function that creates a temporary on the
default device instead of its operands' device mixes devices when its operands are on the CPU
(the Dask programs of issue 15 did). Here the default is the CPU itself and such a bug is
invisible; while `default_device_trapped()` is active, asking numfuse for the default device
raises RuntimeError instead, so the same bug fails here too, wherever it is.
"""
import contextlib

import harness

TRAP_MESSAGE = "set_default_device_trap"  # in the RuntimeError's message


@contextlib.contextmanager
def default_device_trapped():
    nf = harness.numfuse_module()
    nf._core.set_default_device_trap(True)
    try:
        yield
    finally:
        nf._core.set_default_device_trap(False)
