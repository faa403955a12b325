"""What the installed NumPy reports for floor_divide, remainder and divmod of NaN and infinite
operands and of zero divisors, probed once at import and handed to the core (core/divmod_flags.h).

NumPy's source computes these through npy_divmod on every version, but the floating-point flags
it leaves depend on the wheel's compiler and the libm it runs on: NumPy 2.4 here reports
`invalid` for inf // 1.0 and nothing for nan // 1.0, while NumPy 2.5 on the GPU machine warns in
cases where 2.4 is silent, and for `x % 0.0` the two differ again. NumPy is the oracle: numfuse
reports, for an element with a NaN or infinite operand or a zero divisor, exactly the flags the installed NumPy raises for one element of that class.
"""
import numpy as _np

from . import _core

# The value classes of core/divmod_flags.h, in its order, each by one representative.
CLASS_VALUES = (float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.5, -2.5)
OPS = ("floor_divide", "remainder", "divmod")  # kDivmodFloorDivide, kDivmodRemainder, kDivmodDivmod
DTYPES = (_np.float32, _np.float64)  # float16's loops compute in float32, as NumPy's do
# NumPy's errstate callback names the flags by these bits, as core/fp_status.h's FpFlag does.
_FLAG_BITS = 1 | 2 | 4 | 8


def probe():
    """bytes of [op][is_double][class a][class b]: NumPy's flag bits for one element."""
    n = len(CLASS_VALUES)
    table = bytearray(len(OPS) * len(DTYPES) * n * n)
    seen = []
    with _np.errstate(all="call", call=lambda kind, flag: seen.append(flag)):
        for o, name in enumerate(OPS):
            fn = getattr(_np, name)
            for d, dt in enumerate(DTYPES):
                values = [_np.array([v], dtype=dt) for v in CLASS_VALUES]
                for i, a in enumerate(values):
                    for j, b in enumerate(values):
                        if _np.isfinite(a[0]) and _np.isfinite(b[0]) and b[0] != 0:
                            continue  # finite pairs: judged as any op's (their flags depend on values)
                        seen.clear()
                        fn(a, b)
                        flags = 0
                        for f in seen:
                            flags |= int(f) & _FLAG_BITS
                        table[((o * 2 + d) * n + i) * n + j] = flags
    return bytes(table)


def install():
    _core._set_divmod_nonfinite_flags(probe())


install()
