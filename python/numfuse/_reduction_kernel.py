"""numfuse.ReductionKernel: CuPy's user-defined reductions.

``ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0', 'l2norm')`` maps each
element (map_expr), combines the mapped values with reduce_expr (over ``a`` and ``b``, starting
from identity), and writes each result through post_map_expr (``a`` the reduced value). A call
``k(*args, out=None, axis=None, keepdims=False, stream=None)`` broadcasts the inputs, reduces the
given axes (all by default), and launches one generated CUDA kernel (a block per output element,
a shared-memory tree inside it) through the RawKernel path: the inputs are evaluated first and
the output is ordered with the lazy graph as any kernel-written array is.
"""
import numpy as _np
from numpy.lib.array_utils import normalize_axis_tuple

from ._core import ndarray as _ndarray
from ._creation import asarray, ascontiguousarray, empty
from ._elementwise_kernel import _parse_params, _is_scalar
from ._kernels import RawModule, _cuda_type as _ctype, _type_headers
from ._shape import broadcast_to, moveaxis, reshape

__all__ = ["ReductionKernel"]

_THREADS = 256
_FUNCTIONS = {}  # (source, options) -> {entry: kernel}
_FILL_BLOCKS = 132 * 8  # blocks that keep an H100's 132 SMs busy


class ReductionKernel:
    """A user-defined reduction (CuPy's ReductionKernel); see the module docstring."""

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, reduce_dims=True, preamble="", options=()):
        self.in_params = _parse_params(in_params, False)
        self.out_params = _parse_params(out_params, True)
        if len(self.out_params) != 1:
            raise ValueError(f"ReductionKernel '{name}' takes one output parameter, got {len(self.out_params)}")
        if any(p.raw for p in self.in_params):
            raise ValueError(f"ReductionKernel '{name}': raw parameters are not supported")
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity, self.name, self.reduce_type = identity, name, reduce_type
        self.preamble, self.options = preamble, tuple(options)
        self.nin = len(self.in_params)

    def __repr__(self):
        return f"<numfuse.ReductionKernel '{self.name}'>"

    def _source(self, in_dtypes, scalar, out_dtype, reduce_dtype, typedefs):
        """(source, entry): `entry` reduces in one pass (a block per output); `entry`_partial
        and `entry`_final in two (blocks per output write partial values, then one block per
        output combines them), for few long reductions."""
        entry = self.name if self.name.isidentifier() else "nf_reduction"
        params, loads = [], []
        for p, dt, is_scalar in zip(self.in_params, in_dtypes, scalar):
            if is_scalar:
                params.append(f"const {_ctype(dt)} {p.name}")
            else:
                params.append(f"const {_ctype(dt)}* __restrict__ nf_in_{p.name}")
                loads.append(f"      const {_ctype(dt)} {p.name} = nf_in_{p.name}[_j];")
        ins = ", ".join(params) + (", " if params else "")
        loads = "\n".join(loads)
        out, ot = self.out_params[0], _ctype(out_dtype)
        heads = _type_headers(list(in_dtypes) + [out_dtype, reduce_dtype])
        tdefs = "\n".join(f"typedef {_ctype(d)} {t};" for t, d in typedefs)
        # The elements of range [lo, hi) of output nf_o, mapped and combined into nf_acc.
        # Unrolled: the loads of four iterations are independent of nf_acc and are issued
        # together (more bytes in flight per thread).
        accumulate = f"""    _type_reduce nf_acc = _type_reduce({self.identity});
#pragma unroll 4
    for (long long nf_r = nf_lo + threadIdx.x; nf_r < nf_hi; nf_r += blockDim.x) {{
      const long long _j = nf_o * nf_nred + nf_r;
{loads}
      const _type_reduce a = nf_acc, b = (_type_reduce)({self.map_expr});
      nf_acc = ({self.reduce_expr});
    }}
    nf_acc = nf_block_reduce(nf_acc, nf_s);"""
        finish = f"""    if (threadIdx.x == 0) {{
      const _type_reduce a = nf_acc;
      {ot}& {out.name} = nf_out[nf_o];
      {self.post_map_expr};
    }}"""
        src = f"""{heads}
{tdefs}
typedef {_ctype(reduce_dtype)} _type_reduce;
{self.preamble}
// Every thread's value combined over the block (all threads call it).
__device__ _type_reduce nf_block_reduce(_type_reduce nf_v, _type_reduce* nf_s) {{
  nf_s[threadIdx.x] = nf_v;
  __syncthreads();
  for (int nf_w = {_THREADS} / 2; nf_w > 0; nf_w >>= 1) {{
    if (threadIdx.x < nf_w) {{
      const _type_reduce a = nf_s[threadIdx.x], b = nf_s[threadIdx.x + nf_w];
      nf_s[threadIdx.x] = ({self.reduce_expr});
    }}
    __syncthreads();
  }}
  const _type_reduce nf_r = nf_s[0];
  __syncthreads();
  return nf_r;
}}
extern "C" __global__ void {entry}({ins}{ot}* __restrict__ nf_out, long long nf_nout, long long nf_nred) {{
  __shared__ _type_reduce nf_s[{_THREADS}];
  for (long long nf_o = blockIdx.x; nf_o < nf_nout; nf_o += gridDim.x) {{
    const long long nf_lo = 0, nf_hi = nf_nred;
{accumulate}
{finish}
  }}
}}
extern "C" __global__ void {entry}_partial({ins}_type_reduce* __restrict__ nf_part, long long nf_nout,
                                           long long nf_nred, long long nf_bpo) {{
  __shared__ _type_reduce nf_s[{_THREADS}];
  const long long nf_chunk = (nf_nred + nf_bpo - 1) / nf_bpo;
  for (long long nf_g = blockIdx.x; nf_g < nf_nout * nf_bpo; nf_g += gridDim.x) {{
    const long long nf_o = nf_g / nf_bpo, nf_lo = (nf_g % nf_bpo) * nf_chunk;
    const long long nf_hi = nf_lo + nf_chunk < nf_nred ? nf_lo + nf_chunk : nf_nred;
{accumulate}
    if (threadIdx.x == 0) nf_part[nf_g] = nf_acc;
  }}
}}
extern "C" __global__ void {entry}_final(const _type_reduce* __restrict__ nf_part, {ot}* __restrict__ nf_out,
                                         long long nf_nout, long long nf_bpo) {{
  __shared__ _type_reduce nf_s[{_THREADS}];
  for (long long nf_o = blockIdx.x; nf_o < nf_nout; nf_o += gridDim.x) {{
    _type_reduce nf_acc = _type_reduce({self.identity});
    for (long long nf_r = threadIdx.x; nf_r < nf_bpo; nf_r += blockDim.x) {{
      const _type_reduce a = nf_acc, b = nf_part[nf_o * nf_bpo + nf_r];
      nf_acc = ({self.reduce_expr});
    }}
    nf_acc = nf_block_reduce(nf_acc, nf_s);
{finish}
  }}
}}
"""
        return src, entry

    def __call__(self, *args, out=None, axis=None, keepdims=False, stream=None):
        if len(args) != self.nin:
            raise TypeError(f"ReductionKernel '{self.name}' takes {self.nin} inputs, {len(args)} given")
        args = list(args)
        bound = {}
        for k, (p, a) in enumerate(zip(self.in_params, args)):
            if _is_scalar(a):
                continue
            if not isinstance(a, _ndarray):
                a = args[k] = asarray(a)
            if p.dtype is None:
                have = bound.setdefault(p.type_name, a.dtype)
                if have != a.dtype:
                    raise TypeError(f"ReductionKernel '{self.name}': parameter '{p.name}' is "
                                    f"{p.type_name} = {have}, got an array of {a.dtype}")
        outp = self.out_params[0]
        if out is not None and outp.dtype is None:
            bound.setdefault(outp.type_name, out.dtype)
        for p, a in zip(self.in_params, args):
            if _is_scalar(a) and p.dtype is None and p.type_name not in bound:
                bound[p.type_name] = _np.asarray(a).dtype

        def dtype_of(p):
            return p.resolved_dtype(bound, f"ReductionKernel '{self.name}'")

        arrays = [a for a in args if not _is_scalar(a)]
        if not arrays:
            raise ValueError(f"ReductionKernel '{self.name}': at least one input must be an array")
        shape = _np.broadcast_shapes(*[a.shape for a in arrays])
        axes = tuple(range(len(shape))) if axis is None else normalize_axis_tuple(axis, len(shape))
        kept = [d for d in range(len(shape)) if d not in axes]
        out_shape = tuple(1 if d in axes else shape[d] for d in range(len(shape))) if keepdims \
            else tuple(shape[d] for d in kept)
        n_out = int(_np.prod([shape[d] for d in kept], dtype=_np.int64))
        n_red = int(_np.prod([shape[d] for d in axes], dtype=_np.int64))
        out_dtype = dtype_of(outp)
        reduce_dtype = _np.dtype(self.reduce_type) if self.reduce_type is not None else out_dtype
        device = arrays[0].device

        kernel_args, in_dtypes, scalar = [], [], []
        for p, a in zip(self.in_params, args):
            dt = dtype_of(p)
            in_dtypes.append(dt)
            if _is_scalar(a):
                scalar.append(True)
                kernel_args.append(_np.asarray(a).astype(dt)[()])
                continue
            scalar.append(False)
            if a.dtype != dt:
                a = a.astype(dt)
            # Kept axes first, reduced axes last, C order: element (o, r) at o * n_red + r.
            a = moveaxis(broadcast_to(a, shape), axes, tuple(range(len(kept), len(shape))))
            kernel_args.append(ascontiguousarray(a))
        if out is None:
            out = empty(out_shape, dtype=out_dtype, device=device)
        else:
            if not isinstance(out, _ndarray) or out.shape != out_shape or out.dtype != out_dtype:
                raise ValueError(f"ReductionKernel '{self.name}': out must be a numfuse.ndarray of "
                                 f"shape {out_shape} and dtype {out_dtype}")
        if n_out == 0:
            return out
        target = out if out.flags.c_contiguous else empty(out_shape, dtype=out_dtype, device=device)
        typedefs = sorted(bound.items())
        src, entry = self._source(in_dtypes, scalar, out_dtype, reduce_dtype, typedefs)
        fns = _FUNCTIONS.get((src, self.options))
        if fns is None:  # one NVRTC compilation for the three entry points
            module = RawModule(code=src, options=("-std=c++17",) + self.options)
            fns = _FUNCTIONS[(src, self.options)] = {
                e: module.get_function(e) for e in (entry, entry + "_partial", entry + "_final")}
        flat = reshape(target, (-1,))
        # Blocks per output: enough blocks to fill the GPU when the outputs are few and long.
        bpo = int(min(max(n_red // (_THREADS * 32), 1), max(_FILL_BLOCKS // n_out, 1), 1024))
        if bpo == 1:
            fns[entry]((min(n_out, 1 << 20),), (_THREADS,), tuple(kernel_args) + (flat, n_out, n_red),
                       stream=stream)
        else:
            part = empty(n_out * bpo, dtype=reduce_dtype, device=device)
            fns[entry + "_partial"]((min(n_out * bpo, 1 << 20),), (_THREADS,),
                                    tuple(kernel_args) + (part, n_out, n_red, bpo), stream=stream)
            fns[entry + "_final"]((min(n_out, 1 << 20),), (_THREADS,), (part, flat, n_out, bpo),
                                  stream=stream)
        if target is not out:
            out[...] = target
        return out
