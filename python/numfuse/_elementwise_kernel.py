"""numfuse.ElementwiseKernel: CuPy's user-defined element-wise kernels, as nodes of the lazy graph.

``ElementwiseKernel('float32 x, T y', 'T z', 'z = x * y + 1', 'fma1')`` defines an operation in
CUDA C++; a call records it like a ufunc, and on the GPU its statements are pasted into the one
kernel generated for the element-wise ops around it (``k(x, y) * 2 + 1`` is one kernel). Type
placeholders (T, U...) take the dtypes of the arrays bound to them (then of scalars); inputs are
broadcast together; ``raw`` parameters are whole arrays indexed by ``name[j]`` (C order, with
``name.size()``); ``i`` is the element's C-order index and ``_ind.size()`` the index space's size.
Outputs are allocated, or given after the inputs (their current values are what the operation
reads). Without a GPU a call raises numfuse.cuda.CUDAError; construction never fails.
"""
import math
import re

import numpy as _np

from ._core import kernels as _k
from ._core import ndarray as _ndarray
from ._creation import asarray, ascontiguousarray, empty
from ._kernels import _C_TYPES, RawKernel, _cuda_type, _type_headers
from ._shape import broadcast_to

__all__ = ["ElementwiseKernel"]

_DTYPE_NAMES = {"bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                "float16", "float32", "float64", "complex64", "complex128"}
_PARAM = re.compile(r"^\s*(raw\s+)?([A-Za-z_][\w:<> ]*?)\s+([A-Za-z_]\w*)\s*$")


class _Param:
    def __init__(self, text, is_output):
        m = _PARAM.match(text)
        if not m:
            raise ValueError(f"cannot read the parameter {text.strip()!r} (expected '[raw] type name')")
        self.raw = bool(m.group(1))
        self.type_name = " ".join(m.group(2).split())
        self.name = m.group(3)
        self.is_output = is_output
        if self.type_name in _DTYPE_NAMES:
            self.dtype = _np.dtype(self.type_name)
        elif self.type_name in _C_TYPES:
            self.dtype = _np.dtype(_C_TYPES[self.type_name])
        else:
            self.dtype = None  # a placeholder

    def resolved_dtype(self, bound, kernel):
        """The dtype of this parameter in a call: its own, or what its placeholder is bound to
        (`bound`: placeholder -> dtype). `kernel` names the kernel in the error."""
        if self.dtype is not None:
            return self.dtype
        if self.type_name not in bound:
            raise TypeError(f"{kernel}: cannot determine the type '{self.type_name}' of "
                            f"'{self.name}' (no array or scalar argument binds it)")
        return bound[self.type_name]


def _parse_params(text, is_output):
    params = [_Param(p, is_output) for p in text.split(",") if p.strip()] if text.strip() else []
    return params


def _writes_to(code, name):
    """Whether `code` seems to write raw array `name`: an assignment to name[...] or its element's
    address taken (atomicAdd(&name[j], v)). A fused step may only read its raw inputs."""
    element = r"\b%s\s*\[[^\]]*\]" % re.escape(name)
    return bool(re.search(element + r"\s*(=(?!=)|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<=|>>=|\+\+|--)", code)
                or re.search(r"(\+\+|--)\s*" + element, code) or re.search(r"&\s*" + element, code))


def _is_scalar(a):
    return isinstance(a, (bool, int, float, complex, _np.generic))


class ElementwiseKernel:
    """A user-defined element-wise kernel (CuPy's ElementwiseKernel); see the module docstring."""

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True,
                 preamble="", no_return=False, return_tuple=False, loop_prep="", after_loop="",
                 **kwargs):
        self.in_params = _parse_params(in_params, False)
        self.out_params = _parse_params(out_params, True)
        names = [p.name for p in self.in_params + self.out_params]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"ElementwiseKernel '{name}': parameter names repeat: {sorted(dup)}")
        self.operation, self.name, self.preamble = operation, name, preamble
        self.loop_prep, self.after_loop = loop_prep, after_loop
        self.reduce_dims, self.no_return, self.return_tuple = reduce_dims, no_return, return_tuple
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        self.nargs = self.nin + self.nout
        self._defs = {}
        # Raw outputs (scattered writes), after_loop, and kernels without outputs (whose effect
        # can only be writes through raw inputs) have no place in a fused element-wise step: such
        # kernels run as a kernel of their own (_standalone_call), launched at the call.
        self._standalone = (bool(after_loop) or not self.out_params or any(p.raw for p in self.out_params)
                            or any(p.raw and _writes_to(operation + loop_prep, p.name) for p in self.in_params))
        self._functions = {}

    def __repr__(self):
        return f"<numfuse.ElementwiseKernel '{self.name}'>"

    def _definition(self, typedefs, given_outs, raw_dtypes):
        key = (tuple(typedefs), tuple(given_outs), tuple(raw_dtypes))
        d = self._defs.get(key)
        if d is None:
            args = []
            raw = iter(raw_dtypes)
            for p in self.in_params:
                if p.raw:
                    args += [("raw_view", p.name, None), ("raw_ptr", p.name, next(raw)),
                             ("raw_size", p.name, None)]
                else:
                    args.append(("in", p.name, None))
            args.append(("size", "", None))
            for p, given in zip(self.out_params, given_outs):
                if given:
                    args.append(("out_init", p.name, None))
            d = (args, _k.ElementwiseDef(self.name, args,
                                         [p.name for p in self.out_params], list(typedefs),
                                         self.operation, self.preamble, self.loop_prep))
            self._defs[key] = d
        return d

    def __call__(self, *args, size=None, block_size=None, stream=None):
        r = self._resolve(args, size)
        if self._standalone:
            results = _standalone_call(self, r, stream)
        else:
            definition, step_args, out_dtypes, shape, outs = self._prepare(r, on_device=True)
            results = _k.elementwise(definition, step_args, out_dtypes, shape, outs)
        if self.no_return:
            return None
        if self.nout == 1 and not self.return_tuple:
            return results[0]
        return tuple(results)

    def _cuda_source(self, *args, size=None):
        """The fused CUDA source a GPU would compile for this call alone, built from arrays of
        any device (a raw array's address is 0 here): for NVRTC checks without a GPU."""
        r = self._resolve(args, size)
        if self._standalone:
            return _standalone_source(self, r)[0]
        definition, step_args, out_dtypes, shape, _ = self._prepare(r, on_device=False)
        return _k.elementwise_source(definition, step_args, out_dtypes, shape)

    def _resolve(self, args, size):
        """The call's arguments checked and typed: a _Resolved."""
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"ElementwiseKernel '{self.name}' takes {self.nin} inputs (or {self.nargs} "
                            f"with the outputs), {len(args)} given")
        ins, outs = list(args[:self.nin]), list(args[self.nin:]) or [None] * self.nout
        bound = {}

        def bind(p, dtype):
            if p.dtype is not None:
                return
            have = bound.get(p.type_name)
            if have is None:
                bound[p.type_name] = dtype
            elif have != dtype:
                raise TypeError(f"ElementwiseKernel '{self.name}': parameter '{p.name}' is "
                                f"{p.type_name} = {have}, got an array of {dtype}")

        for p, a in zip(self.in_params, ins):
            if _is_scalar(a):
                if p.raw:
                    raise TypeError(f"ElementwiseKernel '{self.name}': raw parameter '{p.name}' "
                                    f"takes an array, got {type(a).__name__}")
                continue
            if not isinstance(a, _ndarray):
                a = asarray(a)
                ins[self.in_params.index(p)] = a
            bind(p, a.dtype)
        for p, o in zip(self.out_params, outs):
            if o is not None:
                if not isinstance(o, _ndarray):
                    raise TypeError(f"ElementwiseKernel '{self.name}': output '{p.name}' must be "
                                    f"a numfuse.ndarray, got {type(o).__name__}")
                bind(p, o.dtype)
        for p, a in zip(self.in_params, ins):  # scalars bind what arrays left open
            if _is_scalar(a) and p.dtype is None and p.type_name not in bound:
                bound[p.type_name] = _np.asarray(a).dtype if isinstance(a, _np.generic) else \
                    _np.result_type(type(a)) if not isinstance(a, bool) else _np.dtype(bool)

        def dtype_of(p):
            return p.resolved_dtype(bound, f"ElementwiseKernel '{self.name}'")

        arrays = [a for p, a in zip(self.in_params, ins) if not p.raw and not _is_scalar(a)]
        if arrays:
            if size is not None:
                raise ValueError(f"ElementwiseKernel '{self.name}': size= is for kernels without "
                                 "non-raw array arguments")
            shape = _np.broadcast_shapes(*[a.shape for a in arrays])
        elif any(o is not None and not p.raw for p, o in zip(self.out_params, outs)):
            shape = next(o for p, o in zip(self.out_params, outs) if o is not None and not p.raw).shape
        elif size is not None:
            shape = (int(size),)
        else:
            raise ValueError(f"ElementwiseKernel '{self.name}': the index space is unknown: give "
                             "size= when no argument is a non-raw array")
        n = math.prod(shape)
        for p, o in zip(self.out_params, outs):
            if o is not None and o.dtype != dtype_of(p):
                raise TypeError(f"ElementwiseKernel '{self.name}': output '{p.name}' is "
                                f"{dtype_of(p)}, got an array of {o.dtype}")
            if o is None and p.raw:
                raise TypeError(f"ElementwiseKernel '{self.name}': raw output '{p.name}' must be given")
        return _Resolved(ins, outs, bound, [dtype_of(p) for p in self.in_params],
                         [dtype_of(p) for p in self.out_params], tuple(shape), n)

    def _prepare(self, r, on_device):
        """The fused node's definition and step arguments for a resolved call."""
        ins, outs, n, shape = r.ins, r.outs, r.n, r.shape
        step_args = []
        for p, a, dt in zip(self.in_params, ins, r.in_dtypes):
            if _is_scalar(a):
                step_args.append(asarray(_np.asarray(a).astype(dt) if isinstance(a, _np.generic) else
                                         _np.array(a, dtype=dt), device="cpu"))
                continue
            a = _cast_input(self.name, p, a, dt)
            if not p.raw:
                step_args.append(a)
                continue
            a = ascontiguousarray(a)
            ptr = _k.device_pointer(a) if a.size and on_device else 0
            view = a.reshape(-1)[:1].reshape(()) if a.size else asarray(_np.zeros((), dt), device="cpu")
            step_args += [view, asarray(_np.uint64(ptr), device="cpu"),
                          asarray(_np.int64(a.size), device="cpu")]
        step_args.append(asarray(_np.int64(n), device="cpu"))
        given = [o is not None for o in outs]
        step_args += [o for o in outs if o is not None]
        raw_dtypes = [dt for p, dt in zip(self.in_params, r.in_dtypes) if p.raw]
        _, definition = self._definition(sorted(r.bound.items()), given, raw_dtypes)
        return definition, step_args, r.out_dtypes, shape, outs


class _Resolved:
    """A call's arguments, checked and typed (ElementwiseKernel._resolve)."""

    def __init__(self, ins, outs, bound, in_dtypes, out_dtypes, shape, n):
        self.ins, self.outs, self.bound = ins, outs, bound
        self.in_dtypes, self.out_dtypes, self.shape, self.n = in_dtypes, out_dtypes, shape, n


def _cast_input(kernel_name, p, a, dt):
    if a.dtype == dt:
        return a
    if not _np.can_cast(a.dtype, dt, "same_kind"):
        raise TypeError(f"ElementwiseKernel '{kernel_name}': parameter '{p.name}' is {dt}, got an "
                        f"array of {a.dtype} (not a same-kind cast)")
    return a.astype(dt)


_THREADS = 256


def _standalone_source(k, r):
    """(source, entry) of a kernel of its own for a call of `k`: non-raw arrays contiguous over
    the index space (element i at [i]), raw ones as {pointer, size}, scalars by value."""
    entry = k.name if k.name.isidentifier() else "nf_elementwise"
    params, locals_, loads = [], [], []
    for p, a, dt in zip(k.in_params, r.ins, r.in_dtypes):
        t = _cuda_type(dt)
        if p.raw:
            params += [f"{t}* nf_rawp_{p.name}", f"long long nf_raws_{p.name}"]
            locals_.append(f"  const nf_user_raw<{t}> {p.name}{{nf_rawp_{p.name}, nf_raws_{p.name}}};")
        elif _is_scalar(a):
            params.append(f"const {t} {p.name}")
        else:
            params.append(f"const {t}* __restrict__ nf_in_{p.name}")
            loads.append(f"    const {t} {p.name} = nf_in_{p.name}[i];")
    for p, dt in zip(k.out_params, r.out_dtypes):
        t = _cuda_type(dt)
        if p.raw:
            params += [f"{t}* nf_rawp_{p.name}", f"long long nf_raws_{p.name}"]
            locals_.append(f"  const nf_user_raw<{t}> {p.name}{{nf_rawp_{p.name}, nf_raws_{p.name}}};")
        else:
            params.append(f"{t}* nf_out_{p.name}")
            loads.append(f"    {t}& {p.name} = nf_out_{p.name}[i];")
    typedefs = "\n".join(f"typedef {_cuda_type(d)} {t};" for t, d in sorted(r.bound.items()))
    src = f"""{_type_headers(list(r.in_dtypes) + list(r.out_dtypes))}
{typedefs}
struct nf_user_ind {{
  long long n;
  __device__ long long size() const {{ return n; }}
}};
template <class T> struct nf_user_raw {{
  T* p;
  long long n;
  __device__ T& operator[](long long j) const {{ return p[j]; }}
  __device__ long long size() const {{ return n; }}
}};
{k.preamble}
extern "C" __global__ void {entry}({", ".join(params + ["long long nf_n"])}) {{
{chr(10).join(locals_)}
  const nf_user_ind _ind{{nf_n}};
  {k.loop_prep};
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nf_n;
       i += (long long)blockDim.x * gridDim.x) {{
{chr(10).join(loads)}
    {k.operation};
  }}
  {k.after_loop};
}}
"""
    return src, entry


def _standalone_call(k, r, stream):
    """Runs a call of `k` as a kernel of its own (raw outputs, after_loop), ordered with the
    lazy graph as a RawKernel launch is; returns the outputs."""
    src, entry = _standalone_source(k, r)
    fn = k._functions.get(src)
    if fn is None:
        fn = k._functions[src] = RawKernel(src, entry, options=("-std=c++17",))
    args, outs, copy_back = [], [], []
    for p, a, dt in zip(k.in_params, r.ins, r.in_dtypes):
        if _is_scalar(a):
            args.append(_np.asarray(a).astype(dt)[()])
            continue
        if p.raw and (a.dtype != dt or not a.flags.c_contiguous) and \
                _writes_to(k.operation + k.loop_prep + k.after_loop, p.name):
            raise ValueError(f"ElementwiseKernel '{k.name}': raw parameter '{p.name}' is written, so it "
                             f"must be a C-contiguous array of {dt} (got {a.dtype}, "
                             f"{'' if a.flags.c_contiguous else 'not '}C-contiguous)")
        a = _cast_input(k.name, p, a, dt)
        if p.raw:
            args += [ascontiguousarray(a), _np.int64(a.size)]
        else:
            args.append(ascontiguousarray(broadcast_to(a, r.shape)))
    for p, o, dt in zip(k.out_params, r.outs, r.out_dtypes):
        if p.raw:
            args += [o, _np.int64(o.size)]  # must be contiguous: checked by the launch's pointer
            outs.append(o)
            continue
        if o is None:
            o = empty(r.shape, dtype=dt, device=next(
                (a.device for a in r.ins if isinstance(a, _ndarray)), None))
        if tuple(o.shape) != r.shape:
            raise ValueError(f"ElementwiseKernel '{k.name}': output '{p.name}' has shape {o.shape}, "
                             f"the index space is {r.shape}")
        target = o if o.flags.c_contiguous else ascontiguousarray(o)
        if target is not o:
            copy_back.append((o, target))
        args.append(target)
        outs.append(o)
    for p, o in zip(k.out_params, r.outs):
        if p.raw and not o.flags.c_contiguous:
            raise ValueError(f"ElementwiseKernel '{k.name}': raw output '{p.name}' must be C-contiguous")
    if r.n:
        fn((min((r.n + _THREADS - 1) // _THREADS, 1 << 20),), (_THREADS,), tuple(args) + (r.n,),
           stream=stream)
    for o, target in copy_back:
        o[...] = target
    return outs
