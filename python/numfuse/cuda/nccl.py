"""numfuse.cuda.nccl: NCCL's point-to-point transfers between the GPUs of several processes, one
rank each (a Dask worker per GPU, an MPI rank, ...), with CuPy's names (cupy.cuda.nccl) where
they fit. Arrays, not raw pointers, are sent and received: numfuse computes a sent array first,
and a transfer is enqueued on numfuse's stream of the communicator's device, so it follows the
work that made what it sends and precedes the work that reads what it receives.

    uid = nccl.get_unique_id()                       # on one process, handed to all
    comm = nccl.NcclCommunicator(nranks, uid, rank)  # on each: waits for every rank to join
    with nccl.group():                               # sends and receives posted together
        comm.send(edge_rows, peer)
        comm.recv(halo_rows, peer)

NCCL is found at run time (libnccl.so.2: the CUDA toolkit's, or pip's nvidia-nccl-cu13). A
transfer whose peer never posts the matching one waits forever, as in NCCL itself.
"""
import operator as _operator

from .. import _core
from .._core import ndarray as _ndarray

_c = _core.cuda

__all__ = ["available", "get_version", "get_unique_id", "NcclCommunicator", "groupStart",
           "groupEnd", "group"]


def available():
    """Whether NCCL can be loaded (see unavailable_reason())."""
    return _c.nccl_available() == ""


def unavailable_reason():
    """Why NCCL cannot be loaded ("" when it can)."""
    return _c.nccl_available()


def get_version():
    """NCCL's version as an integer: 22809 for 2.28.9."""
    return _c.nccl_version()


def get_unique_id():
    """A new communicator id (128 bytes), made on one process and passed to every rank."""
    return _c.nccl_unique_id()


def groupStart():
    """Opens a group: the transfers until groupEnd() are posted together."""
    _c.nccl_group_start()


def groupEnd():
    """Posts the group's transfers (it does not wait for them)."""
    _c.nccl_group_end()


class group:
    """`with nccl.group():` brackets transfers in groupStart() / groupEnd()."""

    def __enter__(self):
        groupStart()
        return self

    def __exit__(self, *exc):
        groupEnd()
        return False


def _device_index(device):
    if device is None:
        return _c.get_device()
    if isinstance(device, str):
        if not device.startswith("cuda"):
            raise ValueError(f"NcclCommunicator: device must be a CUDA device, not {device!r}")
        return int(device.split(":")[1]) if ":" in device else 0
    return _operator.index(device)


class NcclCommunicator:
    """A communicator of `ndev` ranks, this process being `rank`, on `device` (default: the
    current CUDA device). Making it waits until every rank has made its own with the same id."""

    def __init__(self, ndev, commId, rank, device=None):
        if not isinstance(commId, (bytes, bytearray)):
            raise TypeError("NcclCommunicator: commId must be the bytes of get_unique_id(), not "
                            f"{type(commId).__name__}")
        self._comm = _c._NcclComm(_operator.index(ndev), bytes(commId), _operator.index(rank),
                                  _device_index(device))

    def size(self):
        return self._comm.nranks

    def rank_id(self):
        return self._comm.rank

    def device_id(self):
        return self._comm.device

    def _memory(self, array, what):
        if not isinstance(array, _ndarray):
            raise TypeError(f"NcclCommunicator.{what}: a numfuse array is needed, not "
                            f"{type(array).__name__}")
        want = f"cuda:{self._comm.device}"
        if array.device != want:
            raise ValueError(f"NcclCommunicator.{what}: the array is on {array.device}, the "
                             f"communicator on {want}")
        if not array.flags.c_contiguous:
            raise ValueError(f"NcclCommunicator.{what}: the array must be C-contiguous (shape "
                             f"{array.shape}, strides {array.strides})")
        # Lent through the CUDA array interface: numfuse computes the array and its pending
        # readers first, and knows the memory may be written from outside from now on.
        return array.__cuda_array_interface__["data"][0], array.nbytes

    def send(self, array, peer):
        """Sends `array`'s bytes to rank `peer` (which receives them with recv)."""
        ptr, n = self._memory(array, "send")
        self._comm.send(ptr, n, _operator.index(peer))

    def recv(self, array, peer):
        """Receives into `array` the bytes rank `peer` sends (as many as array.nbytes)."""
        if array.flags.writeable is False:
            raise ValueError("NcclCommunicator.recv: the array is read-only")
        ptr, n = self._memory(array, "recv")
        self._comm.recv(ptr, n, _operator.index(peer))

    def destroy(self):
        """Frees the communicator; it cannot be used afterwards."""
        self._comm.destroy()
