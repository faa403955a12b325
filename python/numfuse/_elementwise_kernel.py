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
import re

import numpy as _np

from ._core import kernels as _k
from ._core import ndarray as _ndarray
from ._creation import asarray, ascontiguousarray
from ._kernels import _C_TYPES

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
        if self.raw and is_output:
            raise ValueError(f"output parameter '{self.name}' cannot be raw")


def _parse_params(text, is_output):
    params = [_Param(p, is_output) for p in text.split(",") if p.strip()] if text.strip() else []
    return params


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
        definition, step_args, out_dtypes, shape, outs = self._prepare(args, size, on_device=True)
        results = _k.elementwise(definition, step_args, out_dtypes, shape, outs)
        if self.no_return:
            return None
        if self.nout == 1 and not self.return_tuple:
            return results[0]
        return tuple(results)

    def _cuda_source(self, *args, size=None):
        """The fused CUDA source a GPU would compile for this call alone, built from arrays of
        any device (a raw array's address is 0 here): for NVRTC checks without a GPU."""
        definition, step_args, out_dtypes, shape, _ = self._prepare(args, size, on_device=False)
        return _k.elementwise_source(definition, step_args, out_dtypes, shape)

    def _prepare(self, args, size, on_device):
        if self.after_loop:
            raise NotImplementedError(f"ElementwiseKernel '{self.name}': after_loop is not supported "
                                      "(the operation runs inside a fused kernel, per element)")
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
            if p.dtype is not None:
                return p.dtype
            if p.type_name not in bound:
                raise TypeError(f"ElementwiseKernel '{self.name}': cannot determine the type "
                                f"'{p.type_name}' of '{p.name}' (no array or scalar argument binds it)")
            return bound[p.type_name]

        arrays = [a for p, a in zip(self.in_params, ins) if not p.raw and not _is_scalar(a)]
        if arrays:
            if size is not None:
                raise ValueError(f"ElementwiseKernel '{self.name}': size= is for kernels without "
                                 "non-raw array arguments")
            shape = _np.broadcast_shapes(*[a.shape for a in arrays])
        elif any(o is not None for o in outs):
            shape = next(o for o in outs if o is not None).shape
        elif size is not None:
            shape = (int(size),)
        else:
            raise ValueError(f"ElementwiseKernel '{self.name}': the index space is unknown: give "
                             "size= when no argument is a non-raw array")
        n = int(_np.prod(shape, dtype=_np.int64))

        step_args = []
        for p, a in zip(self.in_params, ins):
            dt = dtype_of(p)
            if _is_scalar(a):
                step_args.append(asarray(_np.asarray(a).astype(dt) if isinstance(a, _np.generic) else
                                         _np.array(a, dtype=dt), device="cpu"))
                continue
            if a.dtype != dt:
                if not _np.can_cast(a.dtype, dt, "same_kind"):
                    raise TypeError(f"ElementwiseKernel '{self.name}': parameter '{p.name}' is "
                                    f"{dt}, got an array of {a.dtype} (not a same-kind cast)")
                a = a.astype(dt)
            if not p.raw:
                step_args.append(a)
                continue
            a = ascontiguousarray(a)
            ptr = _k.device_pointer(a) if a.size and on_device else 0
            view = a.reshape(-1)[:1].reshape(()) if a.size else asarray(_np.zeros((), dt), device="cpu")
            step_args += [view, asarray(_np.uint64(ptr), device="cpu"),
                          asarray(_np.int64(a.size), device="cpu")]
        step_args.append(asarray(_np.int64(n), device="cpu"))
        out_dtypes = [dtype_of(p) for p in self.out_params]
        given = [o is not None for o in outs]
        for p, o in zip(self.out_params, outs):
            if o is not None:
                if o.dtype != dtype_of(p):
                    raise TypeError(f"ElementwiseKernel '{self.name}': output '{p.name}' is "
                                    f"{dtype_of(p)}, got an array of {o.dtype}")
                step_args.append(o)
        typedefs = sorted(bound.items())
        raw_dtypes = [dtype_of(p) for p in self.in_params if p.raw]
        _, definition = self._definition(typedefs, given, raw_dtypes)
        return definition, step_args, out_dtypes, shape, outs
