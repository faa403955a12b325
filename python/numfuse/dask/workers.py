"""One Dask worker per GPU, each pinned to its device.

Two ways, after dask-cuda's conventions:

- `gpu_cluster()`: a local cluster of one worker process per GPU, as dask-cuda's LocalCUDACluster
  starts it: worker i's environment has CUDA_VISIBLE_DEVICES rotated to begin with GPU i (so the
  worker sees its GPU as cuda:0 and the others after it, for peer copies) and NUMFUSE_DEVICE=cuda:0.
- `DevicePlugin()`: for workers started any other way (`dask worker` on each machine, a
  LocalCluster): on each worker it makes numfuse's default device the worker's NUMFUSE_DEVICE
  when set, else cuda:(i mod number of GPUs) for the worker named i (LocalCluster names its
  workers 0, 1, ...), else the CPU.
"""
import os

from .. import _core
from .. import cuda as _cuda


def _visible_gpus():
    """The GPU ids this process may hand out: CUDA_VISIBLE_DEVICES when set, else 0..count-1."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        return [g.strip() for g in listed.split(",") if g.strip()]
    if not _cuda.is_available():
        return []
    return [str(i) for i in range(_cuda.runtime.getDeviceCount())]


def cuda_visible_devices(i, gpus):
    """CUDA_VISIBLE_DEVICES of worker i among `gpus` (dask-cuda's rotation): GPU i first."""
    gpus = [str(g) for g in gpus]
    k = i % len(gpus)
    return ",".join(gpus[k:] + gpus[:k])


def worker_env(i, gpus):
    """The environment variables that pin worker i to the i-th of `gpus`."""
    return {"CUDA_VISIBLE_DEVICES": cuda_visible_devices(i, gpus), "NUMFUSE_DEVICE": "cuda:0"}


def choose_device(name, env=None, gpu_count=None):
    """The device a worker named `name` uses: NUMFUSE_DEVICE when set in `env` (os.environ by
    default); else cuda:(name mod gpu_count) for an integer name when there are GPUs; else cpu."""
    env = os.environ if env is None else env
    if env.get("NUMFUSE_DEVICE"):
        return env["NUMFUSE_DEVICE"]
    if gpu_count is None:
        gpu_count = len(_visible_gpus())
    try:
        index = int(name)
    except (TypeError, ValueError):
        index = 0
    return f"cuda:{index % gpu_count}" if gpu_count else "cpu"


try:
    from distributed.diagnostics.plugin import WorkerPlugin as _WorkerPlugin
except ImportError:  # numfuse.dask without distributed: only the in-process schedulers
    _WorkerPlugin = object


class DevicePlugin(_WorkerPlugin):
    """Sets each worker's numfuse default device (see `choose_device`):
    ``client.register_plugin(numfuse.dask.DevicePlugin())``."""

    name = "numfuse-device"
    idempotent = True

    def setup(self, worker):
        device = choose_device(worker.name)
        _core.set_default_device(device)
        worker.numfuse_device = device


def gpu_cluster_spec(n_workers=None, threads_per_worker=1, gpus=None):
    """The worker specs of `gpu_cluster` (distributed.SpecCluster's form): worker i a Nanny with
    `worker_env(i, gpus)`."""
    from distributed import Nanny

    gpus = list(gpus) if gpus is not None else _visible_gpus()
    if not gpus:
        raise RuntimeError("gpu_cluster: no GPU is visible here (CUDA_VISIBLE_DEVICES or the driver)")
    n = len(gpus) if n_workers is None else int(n_workers)
    return {i: {"cls": Nanny, "options": {"nthreads": threads_per_worker,
                                          "env": worker_env(i, gpus)}} for i in range(n)}


def gpu_cluster(n_workers=None, threads_per_worker=1, gpus=None, **scheduler_options):
    """A local cluster of one worker process per GPU (all visible GPUs, or the first n_workers,
    or the ids in `gpus`), each pinned to its GPU through `worker_env`; returns the cluster
    (use it with ``distributed.Client(cluster)``)."""
    from distributed import Scheduler, SpecCluster

    workers = gpu_cluster_spec(n_workers, threads_per_worker, gpus)
    scheduler_options.setdefault("dashboard_address", None)
    return SpecCluster(workers=workers,
                       scheduler={"cls": Scheduler, "options": scheduler_options})
