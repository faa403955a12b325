"""numfuse.dask: numfuse arrays as Dask chunks, on one machine or many.

``import numfuse.dask`` registers, in the running process:
- numfuse.ndarray in dask.array's dispatch tables and dask.sizeof (dispatch.py);
- the "numfuse" dask.array creation backend, ``dask.config.set({"array.backend": "numfuse"})``
  (backend.py; an installed numfuse also declares it as an entry point);
- numfuse.ndarray's dask.distributed serializers, "dask" and "cuda" families (serialize.py).
Importing numfuse does the same by itself when Dask is already imported (a Dask worker, which
imports numfuse when it first receives a numfuse chunk, registers that way).
One worker per GPU: workers.py (gpu_cluster, DevicePlugin). Chunks computed when their task
ends (numfuse is lazy): evaluation.py (evaluated).
"""
from . import backend, dispatch, serialize
from .backend import NumfuseBackendEntrypoint, to_numfuse_dispatch
from .evaluation import evaluate_block, evaluated
from .workers import DevicePlugin, choose_device, cuda_visible_devices, gpu_cluster, worker_env

__all__ = ["register", "NumfuseBackendEntrypoint", "to_numfuse_dispatch", "DevicePlugin",
           "choose_device", "cuda_visible_devices", "gpu_cluster", "worker_env", "evaluated",
           "evaluate_block"]


def register():
    """Registers numfuse with dask.array, dask.sizeof and dask.distributed (idempotent)."""
    dispatch.register()
    backend.register()
    serialize.register()


register()
