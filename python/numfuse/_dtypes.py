"""dtypes are NumPy's own objects: ``numfuse.float32 is numpy.float32``."""
import numpy as _np

dtype = _np.dtype
bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
intp, uintp = _np.intp, _np.uintp
int_, uint, half, single, double = _np.int_, _np.uint, _np.half, _np.single, _np.double
csingle, cdouble, byte, ubyte, short, ushort = _np.csingle, _np.cdouble, _np.byte, _np.ubyte, _np.short, _np.ushort
intc, uintc, longlong, ulonglong = _np.intc, _np.uintc, _np.longlong, _np.ulonglong
generic, number, integer, signedinteger, unsignedinteger = (
    _np.generic, _np.number, _np.integer, _np.signedinteger, _np.unsignedinteger)
inexact, floating, complexfloating = _np.inexact, _np.floating, _np.complexfloating
finfo, iinfo, issubdtype, isdtype = _np.finfo, _np.iinfo, _np.issubdtype, _np.isdtype
bool = _np.bool  # noqa: A001  (NumPy 2 exports numpy.bool too)

pi, e, euler_gamma = _np.pi, _np.e, _np.euler_gamma
inf, nan, newaxis = _np.inf, _np.nan, None

__all__ = [n for n in dir() if not n.startswith("_")]
