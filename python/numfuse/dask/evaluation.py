"""Chunks computed when their task ends.

numfuse is lazy, and a Dask task that returns a numfuse array may return it pending: the work
runs when something needs the values (a later task's opaque op, a transfer to another worker, the
client's gather). Within a worker this lets the ops of successive tasks fuse; but Dask then marks
a task done before its work has run (as it does for CuPy's asynchronous kernels), so timings and
`persist()` see less than the truth. `evaluated(x)` ends each chunk's task with the chunk computed
and its device synchronised.
"""
from .. import _core
from .. import cuda as _cuda
from .._core import ndarray


def evaluate_block(block):
    """The block, computed (numfuse) and its device synchronised; other chunk types unchanged."""
    if isinstance(block, ndarray):
        _core.eval(block)
        if block.device != "cpu":
            _cuda.synchronize(int(block.device.partition(":")[2] or 0))
    return block


def evaluated(x):
    """Dask array `x` whose numfuse chunks are computed when their tasks end."""
    return x.map_blocks(evaluate_block, dtype=x.dtype, meta=x._meta)
