"""dask.distributed serializers for numfuse arrays, in the two families CuPy registers.

- "dask" (every transport; TCP's first choice): host frames. A CPU array's frame is its own
  memory (no copy); a device array is copied to the host here, because the transport needs bytes
  in host memory. NumPy's own serializer of distributed does the layout work (strides, broadcast
  views, dtypes); the header adds where the array lived.
- "cuda" (transports that move device memory, e.g. UCX): a device array's frame is the array
  itself, one contiguous byte view on the GPU, handed over through __cuda_array_interface__ with
  no host copy; a CPU array's frames are host frames as above.
Without either (pickle, the fallback of every transport), ndarray.__reduce_ex__(5) hands pickle
the data out of band.
"""
import numpy as _np

from .._core import ndarray as _ndarray
from .._creation import asarray, ascontiguousarray, asnumpy
from .._ndarray_members import _arrival_device


def dask_serialize_numfuse(x, context=None):
    from distributed.protocol.numpy import serialize_numpy_ndarray
    header, frames = serialize_numpy_ndarray(asnumpy(x, order="K"), context)
    header["numfuse-device"] = x.device
    return header, frames


def dask_deserialize_numfuse(header, frames):
    from distributed.protocol.numpy import deserialize_numpy_ndarray
    host = deserialize_numpy_ndarray(header, frames)
    return asarray(host, device=_arrival_device(header["numfuse-device"]))


def cuda_serialize_numfuse(x):
    if x.device == "cpu":
        return dask_serialize_numfuse(x)
    return device_frames(x)


def device_frames(x):
    """Header and frames of `x` as the array's own bytes, one contiguous byte view where the
    array lives (the "cuda" family's form of a device array; a CPU array works too)."""
    header = {"numfuse-device": x.device, "numfuse-cuda": True, "shape": x.shape,
              "dtype": x.dtype.str}
    return header, [ascontiguousarray(x).reshape(-1).view(_np.uint8)]


def cuda_deserialize_numfuse(header, frames):
    if not header.get("numfuse-cuda"):
        return dask_deserialize_numfuse(header, frames)
    (frame,) = frames
    # A device frame (the transport's device buffer) is taken through its
    # __cuda_array_interface__; a host frame (a transport that staged it) is copied up.
    flat = asarray(frame, device=_arrival_device(header["numfuse-device"]))
    return flat.view(_np.dtype(header["dtype"])).reshape(header["shape"])


def register():
    """Registers both families with distributed.protocol (a no-op without distributed)."""
    try:
        from distributed.protocol.cuda import cuda_deserialize, cuda_serialize
        from distributed.protocol.serialize import dask_deserialize, dask_serialize
    except ImportError:
        return
    dask_serialize.register(_ndarray)(dask_serialize_numfuse)
    dask_deserialize.register(_ndarray)(dask_deserialize_numfuse)
    cuda_serialize.register(_ndarray)(cuda_serialize_numfuse)
    cuda_deserialize.register(_ndarray)(cuda_deserialize_numfuse)
